"""Every default location, and the one resolver of what a user names: a run directory, a run id,
``RUN#TARGET``, a baseline name or a baseline file.

``Locations`` (runs folder, baselines folder, derived from the corpus) resolves them; the CLI,
``load_run``, ``compare``, the report and the notebooks all resolve through it, so
``workbench report <run-id>`` and ``wb.load_run("<run-id>")`` mean what ``compare`` means.
Nothing here reads a run's frames (no pandas).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreError

DEFAULT_CORPUS = Path("corpus/corpus.json")
DEFAULT_RUNS_DIR = Path("reports/runs")
DEFAULT_HTML_DIR = Path("reports/html")
DEFAULT_TREC_DIR = Path("reports/trec")
DEFAULT_BASELINES_DIR = Path("corpus/baselines")
GIT_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a full object name (SHA-1 or SHA-256)


def cache_dir() -> Path:
    """Where caches live: ``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench``, else
    ``~/.cache/workbench`` (created lazily on first write, never inside a repository)."""
    explicit = os.environ.get("WORKBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "workbench"


# The limits every cache under ``cache_dir()`` keeps (the index cache and the snapshot store alike).
CACHE_MAX_ENTRIES = 256
CACHE_MAX_BYTES = 512 * 1024 * 1024  # the default; ``$WORKBENCH_CACHE_MAX_MB`` overrides it
CACHE_PRUNE_INTERVAL = 60.0  # seconds between two prunes of one process
CACHE_TEMP_AGE = 3600.0  # a temp file this old belongs to a writer that died


def cache_max_bytes() -> int:
    """The size a cache keeps itself under: ``$WORKBENCH_CACHE_MAX_MB`` megabytes, else the
    default (a value that is no number is ignored)."""
    try:
        return int(float(os.environ["WORKBENCH_CACHE_MAX_MB"]) * 1024 * 1024)
    except (KeyError, ValueError, OverflowError):
        return CACHE_MAX_BYTES


def snapshots_dir() -> Path:
    """Where revision snapshots live: ``<cache>/snapshots/<tree sha>/`` (see ``corpus.snapshots``), in
    the private cache directory (``cachedir.private_dir``: never one others can write)."""
    from .cachedir import private_dir

    return private_dir() / "snapshots"


def is_snapshot(root: Path) -> bool:
    """Whether ``root`` (resolved) is a revision snapshot: named by the git tree it holds and never
    changed once built, so nothing needs to check it for edits."""
    return bool(GIT_SHA.fullmatch(root.name)) and root.parent == snapshots_dir().resolve()


def journal_path(out_dir: Path | str, run_id: str) -> Path:
    """Where the journal of run ``run_id`` lives while it runs: a dot-directory beside its run directory."""
    return Path(out_dir) / f".{run_id}.journal"


def split_target(spec: str | Path) -> tuple[str, str]:
    """``RUN#TARGET`` -> ``("RUN", "TARGET")``; without ``#``, the target is ``""``: the one parser
    of a ``#TARGET`` suffix."""
    base, _, target = str(spec).partition("#")
    return base, target


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) holding
    ``reports/runs`` or ``corpus/``, so a notebook opened from ``notebooks/`` finds the project."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / DEFAULT_RUNS_DIR).is_dir() or (folder / DEFAULT_CORPUS.parent).is_dir():
            return folder
    return here


@dataclass(frozen=True)
class SideRef:
    """Where a named run or baseline (``RUN``, ``RUN#TARGET``, a baseline name or file) is on disk."""

    spec: str
    path: Path
    target: str
    is_run: bool


@dataclass(frozen=True)
class Locations:
    """Where runs and baselines are: ``runs`` (run ids are looked up here) and ``baselines``
    (baseline names), the one resolver of what a user names."""

    runs: Path = DEFAULT_RUNS_DIR
    baselines: Path = DEFAULT_BASELINES_DIR

    @classmethod
    def of(cls, corpus: Path | str | None = None, runs: Path | str | None = None) -> Locations:
        """The locations of a corpus: its baselines in ``baselines/`` beside its file (the default
        corpus's when None), runs in ``runs`` (default ``reports/runs``)."""
        baselines = Path(corpus).parent / "baselines" if corpus else DEFAULT_BASELINES_DIR
        return cls(Path(runs) if runs is not None else DEFAULT_RUNS_DIR, baselines)

    @classmethod
    def project(cls, start: Path | None = None) -> Locations:
        """The default locations of the project at or above ``start`` (see ``project_root``)."""
        root = project_root(start)
        return cls(root / DEFAULT_RUNS_DIR, root / DEFAULT_BASELINES_DIR)

    def run_dir(self, name: str | Path) -> Path | None:
        """The run directory ``name`` names (a directory, or a run id under ``runs``), or None."""
        text = str(name)
        path = Path(text) if Path(text).is_dir() else self.runs / text
        return path if text and path.is_dir() else None

    def baseline(self, name: Path | str) -> Path:
        """A baseline file: a ``.json`` path as given, else ``<baselines>/<name>.json``."""
        path = Path(name)
        return path if path.suffix == ".json" else self.baselines / f"{name}.json"

    def run(self, spec: str | Path) -> SideRef:
        """A run (``RUN`` or ``RUN#TARGET``); a StoreError names where it looked."""
        base, target = split_target(spec)
        path = self.run_dir(base)
        if path is None:
            raise StoreError(f"{spec}: not a run directory, nor a run id in {self.runs}")
        return SideRef(str(spec), path, target, True)

    def side(self, spec: str | Path) -> SideRef:
        """A run directory (a path, or a run id under ``runs``) or a baseline file (a ``.json``
        path, or a name in ``baselines``); a ``#TARGET`` suffix narrows it to one target. A
        StoreError says when it is neither."""
        base, target = split_target(spec)
        run = self.run_dir(base)
        if run is not None:
            return SideRef(str(spec), run, target, True)
        path = self.baseline(base)
        if not path.is_file():
            raise StoreError(f"{spec}: not a run directory, a run id in {self.runs}, or a baseline in {self.baselines}")
        return SideRef(str(spec), path, target, False)


def inside_path_problem(path: str) -> str | None:
    """Why a repo-relative path could leave its repository (absolute, ``..``, a drive), else None."""
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":") or "\0" in path:
        return f"must be a path inside the fixture, got {path!r}"
    if ".." in parts:
        return f"must not leave the fixture with '..', got {path!r}"
    return None


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+@-]*")


def name_problem(name: str, what: str = "name") -> str | None:
    """Why ``name`` (a fixture name, run tag or imported name) is not a plain name, else None: one or
    more ``/``-separated parts of letters, digits and ``._+@-``, none empty, ``.``, ``..`` or hidden."""
    parts = name.split("/")
    if not name or len(name) > 200 or not all(_NAME.fullmatch(part) for part in parts):
        return f"{what} must be a plain name (letters, digits, ._+@-), not a path, got {name!r}"
    return None


def safe_id(text: str, fallback: str = "x") -> str:
    """``text`` as one file-name component: runs of anything but letters, digits and ``._+-`` become
    ``-``; leading dots are dropped (never ``..`` or a hidden file); at most 80 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9._+-]+", "-", text).lstrip(".-")[:80].rstrip("-")
    return cleaned or fallback
