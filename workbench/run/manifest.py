"""The provenance record of a run: what ran, on what, with which versions."""

from __future__ import annotations

import platform
import re
import subprocess
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import DISTRIBUTION
from ..store.runs import stamped_run_id

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..options import RunOptions

PACKAGES = (
    DISTRIBUTION,
    "pandas",
    "numpy",
    "scipy",
    "pyarrow",
    "papermill",
    "nbconvert",
    "matplotlib",
    "bpe-openai",
    "tree-sitter",
)


def package_version(name: str) -> str | None:
    """An installed distribution's version, or None."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def git_commit(directory: Path) -> str | None:
    """The HEAD commit of the repository holding ``directory`` (with ``-dirty``), or None."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def run_id(started: datetime, target_names: list[str]) -> str:
    """``20261129T211500Z-builtin+bm25``: sortable by time, readable at a glance."""
    label = "+".join(re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:24] for name in target_names)
    return stamped_run_id(started, label[:80])


def stamp(started: datetime) -> str:
    """A manifest's ``created`` time: UTC, to the second, ``Z``-suffixed."""
    return started.isoformat(timespec="seconds").replace("+00:00", "Z")


def assemble(
    run: str,
    started: datetime,
    corpus: Corpus,
    targets: list[dict[str, Any]],
    options: RunOptions,
    recorded_options: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The one shape of a manifest (a run's, an imported run's): id, time, corpus, target entries,
    provenance (versions, git commit, platform), seed and options (``options.to_manifest()``
    unless ``recorded_options`` says otherwise), then ``extra`` keys."""
    return {
        "run_id": run,
        "created": stamp(started),
        "corpus": {
            "path": str(corpus.path),
            "sha256": corpus.sha256,
            "k": corpus.k,
            **({"goldScope": corpus.gold_scope.body()} if corpus.gold_scope is not None else {}),
        },
        "targets": targets,
        "workbench_version": package_version(DISTRIBUTION),
        "git_commit": git_commit(Path.cwd()),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: package_version(name) for name in PACKAGES},
        "seed": options.seed,
        "options": options.to_manifest() if recorded_options is None else recorded_options,
        **extra,
    }


def build_manifest(corpus: Corpus, targets: list[Any], options: RunOptions, started: datetime) -> dict[str, Any]:
    """Everything needed to reproduce or audit a run of ``targets`` (objects) with ``options``."""
    from ..corpus.fixtures import corpus_revisions

    revisions = corpus_revisions(corpus.data, corpus.fixtures)
    entries = [_target_entry(t, spec) for t, spec in zip(targets, options.targets, strict=True)]
    return assemble(
        run_id(started, [t.name for t in targets]),
        started,
        corpus,
        entries,
        options,
        **({"revisions": revisions} if revisions else {}),
    )


def merged_manifest(first: dict[str, Any], run_ids: list[str], started: datetime, run: str) -> dict[str, Any]:
    """The manifest of runs merged into ``run``: the first run's, stamped now, its shard cleared
    and the merged run ids listed."""
    options = dict(first.get("options", {}), shard=None)
    return dict(first, run_id=run, created=stamp(started), merged_from=run_ids, options=options)


def _target_entry(target: Any, spec: str) -> dict[str, Any]:
    """Name, spec and version of a target, plus what its capabilities handshake said, if it answered."""
    entry: dict[str, Any] = {"name": target.name, "spec": spec, "version": str(getattr(target, "version", "unknown"))}
    shaken = getattr(target, "handshake", None)
    listed = getattr(shaken, "capabilities", None)
    if listed is not None:
        entry["capabilities"] = sorted(listed)
        engine = getattr(shaken, "name", None)
        if engine:
            entry["engine"] = engine
    return entry
