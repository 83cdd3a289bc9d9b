"""Every default location, and the one resolver of what a user names: a run directory, a run id,
``RUN#TARGET``, a baseline name or a baseline file.

The CLI, ``load_run``, ``compare``, the report and the notebooks all resolve through here, so
``workbench report <run-id>`` and ``wb.load_run("<run-id>")`` mean what ``compare`` means.
Nothing here reads a run's frames (no pandas).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import CompareError

DEFAULT_CORPUS = Path("corpus/corpus.json")
DEFAULT_RUNS_DIR = Path("reports/runs")
DEFAULT_HTML_DIR = Path("reports/html")
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


def snapshots_dir() -> Path:
    """Where revision snapshots live: ``<cache>/snapshots/<tree sha>/`` (see ``mining.snapshots``)."""
    return cache_dir() / "snapshots"


def is_snapshot(root: Path) -> bool:
    """Whether ``root`` (resolved) is a revision snapshot: named by the git tree it holds and never
    changed once built, so nothing needs to check it for edits."""
    return bool(GIT_SHA.fullmatch(root.name)) and root.parent == snapshots_dir().resolve()


def baselines_dir(corpus_path: Path | str | None = None) -> Path:
    """The baselines of a corpus: ``baselines/`` beside its file (the default corpus's by default)."""
    return Path(corpus_path).parent / "baselines" if corpus_path else DEFAULT_BASELINES_DIR


def journal_path(out_dir: Path | str, run_id: str) -> Path:
    """Where the journal of run ``run_id`` lives while it runs: a dot-directory beside its run directory."""
    return Path(out_dir) / f".{run_id}.journal"


def run_path(base: str | Path, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Path | None:
    """The run directory ``base`` names (a directory, or a run id under ``runs_dir``), or None."""
    text = str(base)
    path = Path(text) if Path(text).is_dir() else Path(runs_dir) / text
    return path if text and path.is_dir() else None


def baseline_path(path_or_name: Path | str, directory: Path | str = DEFAULT_BASELINES_DIR) -> Path:
    """A baseline file: a ``.json`` path as given, else ``<directory>/<name>.json``."""
    path = Path(path_or_name)
    return path if path.suffix == ".json" else Path(directory) / f"{path_or_name}.json"


@dataclass(frozen=True)
class SideRef:
    """Where a named run or baseline (``RUN``, ``RUN#TARGET``, a baseline name or file) is on disk."""

    spec: str
    path: Path
    target: str
    is_run: bool


def locate_side(
    spec: str, runs_dir: Path | str = DEFAULT_RUNS_DIR, baselines: Path | str = DEFAULT_BASELINES_DIR
) -> SideRef:
    """Resolve a spec to a run directory (a path, or a run id under ``runs_dir``) or a baseline
    file (a ``.json`` path, or a name in ``baselines``); a ``#TARGET`` suffix narrows it to one
    target. A CompareError says when it is neither."""
    base, _, target = spec.partition("#")
    run = run_path(base, runs_dir)
    if run is not None:
        return SideRef(spec, run, target, True)
    path = baseline_path(base, baselines)
    if not path.is_file():
        raise CompareError(f"{spec}: not a run directory, a run id in {runs_dir}, or a baseline in {baselines}")
    return SideRef(spec, path, target, False)


def locate_run(spec: str | Path, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> SideRef:
    """Like ``locate_side`` for runs only; a CompareError names where it looked."""
    text = str(spec)
    base, _, target = text.partition("#")
    run = run_path(base, runs_dir)
    if run is None:
        raise CompareError(f"{text}: not a run directory, nor a run id in {runs_dir}")
    return SideRef(text, run, target, True)


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
