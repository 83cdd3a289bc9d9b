"""How a run runs: the options of ``workbench run`` as one typed value, from the CLI to the runner.

Each option is one field, its default written once here. A field made with ``option(recorded=True)``
is written into the manifest (``to_manifest``) and read back from it (``from_manifest``); one made
with ``deciding=True`` decides a run's results, so a resumed run takes it from its journal
(``resumed``) and a different value given for it is a usage error. ``validate`` (run on
construction) rejects a bad value with a ``UsageError`` (exit 2) before any target starts.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Self

from .contract import REQUEST_TIMEOUT
from .errors import UsageError
from .paths import DEFAULT_RUNS_DIR

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
    # Where cases run: ``local`` (this process, ``jobs`` threads) or ``ray[:ADDRESS]`` (run/executors.py).
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
        checks = [
            ("repeat", self.repeat >= 1, "must be an integer >= 1"),
            ("jobs", self.jobs >= 1, "must be an integer >= 1"),
            ("timeout", self.timeout > 0, "must be a number of seconds > 0"),
            ("deadline", self.deadline is None or self.deadline >= 0, "must be a number of seconds >= 0"),
            ("budget_usd", self.budget_usd is None or self.budget_usd >= 0, "must be a number of dollars >= 0"),
            ("budget_seconds", self.budget_seconds is None or self.budget_seconds >= 0, "must be seconds >= 0"),
        ]
        for name, ok, why in checks:
            if not ok:
                raise UsageError(f"{flag_of(name)} {getattr(self, name)}: {why}")

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


def deciding_fields(cls: type[RunOptions] = RunOptions) -> list[str]:
    """The fields that decide a run's results: a resumed run takes them from its journal."""
    return [f.name for f in fields(cls) if f.metadata.get("deciding")]


def flag_of(name: str, cls: type[RunOptions] = RunOptions) -> str:
    """The CLI flag of field ``name`` (``--suite`` for ``suites``, else ``--<name>``)."""
    meta: Any = next((f.metadata for f in fields(cls) if f.name == name), {})
    return str(meta.get("flag") or "--" + name.replace("_", "-"))


def parse_executor(spec: str) -> tuple[str, str | None]:
    """``local`` -> ("local", None); ``ray`` -> ("ray", None); ``ray:ADDRESS`` -> ("ray", ADDRESS)."""
    kind, _, address = str(spec).partition(":")
    if kind not in EXECUTORS or (kind == "local" and address):
        raise UsageError(f"--executor {spec!r}: expected local, ray or ray:ADDRESS")
    return kind, address or None


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
