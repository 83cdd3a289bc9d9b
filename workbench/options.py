"""The options of each command as one typed value, from the CLI to the library.

``RunOptions`` (``workbench run``), ``MineOptions``, ``CalibrateOptions``, ``ReportOptions``,
``InterleaveOptions`` and ``BaselineOptions``: each option is one field, its default written once
here (the CLI's flags and the library's defaults read it from here), and each check lives once,
in the value's ``validate`` (run on construction), as a ``UsageError`` naming the flag (exit 2).
Durations are finite numbers of seconds, names that become file names are short enough to be
one, and a ``cmd:`` target's command line splits as a shell would split it.

For ``RunOptions``: A field made with ``option(recorded=True)``
is written into the manifest (``to_manifest``) and read back from it (``from_manifest``); one made
with ``deciding=True`` decides a run's results, so a resumed run takes it from its journal
(``resumed``) and a different value given for it is a usage error. ``validate`` (run on
construction) rejects a bad value with a ``UsageError`` (exit 2) before any target starts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Self

from .contract import REQUEST_TIMEOUT
from .errors import UsageError
from .paths import DEFAULT_HTML_DIR, DEFAULT_RUNS_DIR, check_path_length

EXECUTORS = ("local", "ray")
GATES = (None, "controls")  # run/controls.py


def option(
    default: Any = None,
    *,
    factory: Callable[[], Any] | None = None,
    recorded: bool = False,
    deciding: bool = False,
    flag: str | None = None,
    decode: Callable[[Any], Any] | None = None,
) -> Any:
    """A ``RunOptions`` field: its default, whether the manifest records it (``recorded``), whether
    it decides the results (``deciding``: a resume takes it from the journal), the CLI flag that
    sets it (named in errors; default ``--<name>``), and how its manifest form is read back."""
    meta = {"recorded": recorded or deciding, "deciding": deciding, "flag": flag, "decode": decode}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _shard(value: Any) -> tuple[int, int] | None:
    return (int(value[0]), int(value[1])) if value else None


@dataclass(frozen=True)
class RunOptions:
    """How to run: which suites and targets, limits, and where to write."""

    suites: list[str] | None = option(deciding=True, flag="--suite")
    # Target specs; the manifest records them as its ``targets`` entries (``spec``), not in ``options``.
    targets: list[str] = option(factory=lambda: ["builtin"], deciding=True, flag="--target")
    out_dir: Path = option(DEFAULT_RUNS_DIR, flag="--out")
    strict: bool = option(False, deciding=True)
    timeout: float = option(REQUEST_TIMEOUT, deciding=True)  # seconds per engine request
    jobs: int = option(1, recorded=True)
    # Seed of the random control and any sampling; the manifest records it at its top level.
    seed: int = option(0, deciding=True)
    shard: tuple[int, int] | None = option(None, deciding=True, decode=_shard)
    progress: bool = option(True)
    # The journal directory of an interrupted run to finish (see ``run_eval(resume=...)``).
    resume: Path | None = option(None)
    # A baseline (name or file) to compare with; its section is part of the summary as written.
    baseline: str | None = option(None)
    # With ``baseline``: a baseline of another corpus version is compared on the cases both share.
    on_shared_cases: bool = option(False, flag="--on-shared-cases")
    # Seconds the whole run may take: no case starts after it (see ``workbench.run.deadline``).
    deadline: float | None = option(None)
    # Where cases run: ``local`` (this machine: ``jobs`` forked workers or threads, run/local.py) or
    # ``ray[:ADDRESS]`` (run/executors.py).
    executor: str = option("local", recorded=True)
    # With ``ray``: while Ray starts and the engines' actors come up, this process runs cases itself.
    warm_start: bool = option(True, flag="--warm-start")
    # Every case runs this many times (run/repeats.py); part of the journal's key.
    repeat: int = option(1, deciding=True)
    # Reuse unchanged results of known-version targets (run/cache.py).
    cache: bool = option(False, recorded=True)
    # ``controls``: a suite without floors is judged by "beats bm25 (else random) significantly".
    gate: str | None = option(None, deciding=True)
    # Stop starting cases once the engines reported this many dollars (run/budget.py).
    budget_usd: float | None = option(None, flag="--budget-usd")
    # Stop starting cases once the cases took this many seconds of engine time (run/budget.py).
    budget_seconds: float | None = option(None, flag="--budget-seconds")

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        object.__setattr__(self, "targets", list(self.targets))
        if self.shard is not None:
            object.__setattr__(self, "shard", tuple(self.shard))
        if self.resume is not None:
            object.__setattr__(self, "resume", Path(self.resume))
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        parse_executor(self.executor)
        if self.gate not in GATES:
            raise UsageError(f"--gate {self.gate}: expected one of {', '.join(g for g in GATES if g)}")
        if self.shard is not None and not (len(self.shard) == 2 and 0 <= self.shard[0] < self.shard[1]):
            raise UsageError(f"--shard {'/'.join(map(str, self.shard))}: expected I/N with 0 <= I < N")
        for spec in self.targets:
            check_target(spec)
        check_path_length(self.out_dir, "--out")
        if self.resume is not None:
            check_path_length(self.resume, "--resume")
        _check(
            self,
            ("repeat", at_least(self.repeat, 1), "must be an integer >= 1"),
            ("jobs", at_least(self.jobs, 1), "must be an integer >= 1"),
            ("timeout", seconds(self.timeout), "must be a finite number of seconds > 0"),
            ("deadline", seconds(self.deadline, zero=True), "must be a finite number of seconds >= 0"),
            ("budget_usd", seconds(self.budget_usd, zero=True), "must be a finite number of dollars >= 0"),
            ("budget_seconds", seconds(self.budget_seconds, zero=True), "must be a finite number of seconds >= 0"),
        )

    def to_manifest(self) -> dict[str, Any]:
        """The manifest's ``options`` object: every recorded field (``seed`` and ``targets`` are
        recorded at the manifest's top level, by ``run/manifest.py``)."""
        return {f.name: _json(getattr(self, f.name)) for f in fields(self) if _in_options(f.name, f.metadata)}

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any], **current: Any) -> Self:
        """The options a run's manifest records (fields it lacks take their defaults); ``current``
        sets the fields a manifest does not record (``out_dir``, ``progress``, ...)."""
        recorded = dict(manifest.get("options") or {})
        recorded["seed"] = manifest.get("seed")
        recorded["targets"] = [t["spec"] for t in manifest.get("targets", [])]
        values = dict(current)
        for f in fields(cls):
            if f.metadata.get("recorded") and recorded.get(f.name) is not None:
                decode = f.metadata.get("decode") or (lambda value: value)
                values[f.name] = decode(recorded[f.name])
        return cls(**values)

    def resumed(self, manifest: dict[str, Any], given: Collection[str], journal: Path) -> Self:
        """These options, set to finish the run journaled at ``journal`` (with ``manifest``): every
        deciding field comes from the journal. A field in ``given`` (what the user set) that
        differs from the journaled run's is a UsageError: a resume reproduces that run."""
        journaled = type(self).from_manifest(manifest)
        wrong = [
            f"{flag_of(name)} {_show(getattr(self, name))} (the run has {_show(getattr(journaled, name))})"
            for name in deciding_fields(type(self))
            if name in given and getattr(self, name) != getattr(journaled, name)
        ]
        if wrong:
            raise UsageError(
                f"cannot resume {manifest.get('run_id')}: {'; '.join(wrong)}; resume takes these from the journal"
            )
        taken = {name: getattr(journaled, name) for name in deciding_fields(type(self))}
        return replace(self, **taken, out_dir=journal.parent, resume=journal)

    def changed(self) -> set[str]:
        """The fields whose value is not their default (what a library caller set, in effect)."""
        default = type(self)()
        return {f.name for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)}

    @staticmethod
    def parse_shard(value: str | None) -> tuple[int, int] | None:
        """``--shard I/N`` as ``(I, N)``; a UsageError when it is not ``I/N`` with 0 <= I < N."""
        if value is None:
            return None
        try:
            index, count = (int(part) for part in value.split("/"))
        except ValueError:
            raise UsageError(f"--shard {value!r}: expected I/N, e.g. 0/4") from None
        if count < 1 or not 0 <= index < count:
            raise UsageError(f"--shard {value!r}: expected 0 <= I < N")
        return index, count


def deciding_fields(cls: type[Any] = RunOptions) -> list[str]:
    """The fields that decide a run's results: a resumed run takes them from its journal."""
    return [f.name for f in fields(cls) if f.metadata.get("deciding")]


def flag_of(name: str, cls: type[Any] = RunOptions) -> str:
    """The CLI flag of field ``name`` (``--suite`` for ``suites``, else ``--<name>``)."""
    meta: Any = next((f.metadata for f in fields(cls) if f.name == name), {})
    return str(meta.get("flag") or "--" + name.replace("_", "-"))


def parse_executor(spec: str) -> tuple[str, str | None]:
    """``local`` -> ("local", None); ``ray`` -> ("ray", None); ``ray:ADDRESS`` -> ("ray", ADDRESS)."""
    kind, _, address = str(spec).partition(":")
    if kind not in EXECUTORS or (kind == "local" and address):
        raise UsageError(f"--executor {spec!r}: expected local, ray or ray:ADDRESS")
    return kind, address or None


@dataclass(frozen=True)
class MineOptions:
    """How ``workbench mine`` mines (``mine_corpus``): where to write, which commits, how many cases."""

    out: Path | None = None  # the corpus file to write (None: return its text)
    append: bool = False  # merge into an existing ``out``
    dry_run: bool = False  # write nothing; count what each filter dropped
    name: str | None = None  # the fixture name (default: after the repository)
    ranking: bool = False  # also a ranking golden of the cases with gold symbols, beside ``out``
    since: int | None = None  # Unix seconds, inclusive
    until: int | None = None
    max_cases: int | None = 200  # None: every candidate
    seed: int = 0  # of the spread sample: same seed, same cases
    paths: tuple[str, ...] = ()  # gitwildmatch globs every source file must match
    extensions: frozenset[str] | None = None  # source languages by extension (None: every one the engine parses)
    with_body: bool = False  # add the body's first paragraph to the query
    progress: bool = True  # a progress bar on a terminal

    def __post_init__(self) -> None:
        object.__setattr__(self, "paths", tuple(self.paths))
        if self.out is not None:
            object.__setattr__(self, "out", Path(self.out))
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        if self.append and self.out is None:
            raise UsageError("--append needs --out FILE (the corpus to merge into)")
        if self.ranking and self.out is None:
            raise UsageError("--ranking needs --out FILE (the ranking golden is written beside it)")
        if self.name is not None:
            check_name(self.name, "--name", "a fixture name")
        if self.out is not None:
            check_path_length(self.out, "--out")
        _check(
            self,
            ("max_cases", self.max_cases is None or at_least(self.max_cases, 1), "must be an integer >= 1"),
            ("seed", at_least(self.seed, 0), "must be an integer >= 0"),
        )


@dataclass(frozen=True)
class CalibrateOptions:
    """How ``workbench calibrate`` reads a history: the target, the outcome window, which changes."""

    target: str = "builtin"  # the target whose risk_concepts (and gate) flag the changes
    window: str = "90d"  # days (90d, 90) or later commits (200c): calibration.parse_window
    since: int | None = None  # only changes from these Unix seconds on
    max_commits: int | None = None  # only the newest N commits (None: all)
    gate_changes: int = 1000  # where the target has a gate: judge the newest N observed changes
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        check_target(self.target)
        _check(
            self,
            ("max_commits", self.max_commits is None or at_least(self.max_commits, 1), "must be an integer >= 1"),
            ("gate_changes", at_least(self.gate_changes, 0), "must be an integer >= 0"),
        )


@dataclass(frozen=True)
class ReportOptions:
    """How ``workbench report`` renders a run's notebooks (``render_report``)."""

    baseline: str | None = None  # a baseline name or file, a run or RUN#TARGET to compare with
    out_dir: Path = DEFAULT_HTML_DIR  # receives <run-id>/index.html and the pages
    jobs: int | None = None  # notebooks executed at once (None: one per core)
    timeout: float = 300.0  # seconds allowed per notebook

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        check_path_length(self.out_dir, "--out")
        _check(
            self,
            ("jobs", self.jobs is None or at_least(self.jobs, 1), "must be an integer >= 1"),
            ("timeout", seconds(self.timeout), "must be a finite number of seconds > 0"),
        )


@dataclass(frozen=True)
class InterleaveOptions:
    """How ``workbench interleave simulate`` and ``analyze`` interleave: engines, agent, seeds, resamples."""

    targets: tuple[str, ...] = ()  # engine A, then engine B (simulate)
    click_model: str = "navigational"  # the simulated agent (online.click_models)
    seed: int = 0  # of the coins, the clicks and the bootstrap
    resamples: int = 500  # per corpus size, for the measured sensitivity

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", tuple(self.targets))
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        for spec in self.targets:
            check_target(spec)
        _check(
            self,
            ("seed", at_least(self.seed, 0), "must be an integer >= 0"),
            ("resamples", at_least(self.resamples, 1), "must be an integer >= 1"),
        )


@dataclass(frozen=True)
class BaselineOptions:
    """How ``workbench baseline record`` records a run (``record_baseline``)."""

    name: str  # the baseline's name: <corpus dir>/baselines/<name>.json
    write_thresholds: bool = False  # also rewrite the corpus floors and EVALS.md's baseline table
    slack: float = 0.02  # floor = baseline minus slack
    force: bool = False  # overwrite a baseline of that name

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise a UsageError naming the flag of the first option with a bad value."""
        check_name(self.name, "--name", "a baseline name")
        _check(self, ("slack", seconds(self.slack, zero=True), "must be a finite number >= 0"))


MAX_NAME = 200  # characters of a name that becomes a file name: well within a file system's 255 bytes
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: str, flag: str, what: str) -> None:
    """A UsageError unless ``name`` is a plain file name: letters, digits, '.', '_' and '-', at most
    ``MAX_NAME`` characters."""
    if len(name) > MAX_NAME:
        raise UsageError(f"{flag} {_brief(name)}: {what} is at most {MAX_NAME} characters")
    if not _FILE_NAME.fullmatch(name):
        raise UsageError(f"{flag} {name!r}: {what} is letters, digits, '.', '_' and '-'")


def check_target(spec: str, flag: str = "--target") -> None:
    """A UsageError when a target spec cannot be read: a ``cmd:`` command line with an unbalanced
    quote (or a trailing escape). What a spec names is checked when it is resolved."""
    if spec.strip().startswith("cmd:"):
        command_argv(spec.strip()[4:], flag)


def command_argv(command_line: str, flag: str = "--target") -> list[str]:
    """A ``cmd:`` target's command line split as a POSIX shell splits it; an unbalanced quote is a
    UsageError naming the spec."""
    import shlex  # only when a cmd: spec is given: not on every start-up

    try:
        return shlex.split(command_line)
    except ValueError as exc:  # shlex says "No closing quotation" or "No escaped character"
        raise UsageError(f"{flag} {_brief('cmd:' + command_line)}: {str(exc).lower()} in the command line") from None


def seconds(value: float | None, zero: bool = False) -> bool:
    """Whether ``value`` is None or a finite number > 0 (>= 0 with ``zero``): no inf, no nan."""
    if value is None:
        return True
    return isinstance(value, int | float) and math.isfinite(value) and (value >= 0 if zero else value > 0)


def at_least(value: int, low: int) -> bool:
    """Whether ``value`` is an integer (not a bool) >= ``low``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _check(options: object, *checks: tuple[str, bool, str]) -> None:
    """Raise a UsageError naming the flag and value of the first ``(field, ok, why)`` not ok."""
    for name, ok, why in checks:
        if not ok:
            raise UsageError(f"{flag_of(name, type(options))} {getattr(options, name)}: {why}")


def _brief(text: str) -> str:
    """``text`` quoted, cut to 60 characters (with its length) so an error stays one short line."""
    return repr(text) if len(text) <= 60 else f"{text[:60]!r}... ({len(text)} characters)"


def _in_options(name: str, meta: Any) -> bool:
    return bool(meta.get("recorded")) and name not in ("seed", "targets")


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return str(value) if isinstance(value, Path) else value


def _show(value: Any) -> str:
    if value is None:
        return "the default"
    if isinstance(value, tuple):
        return "/".join(map(str, value))
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)
