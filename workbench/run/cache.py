"""``--cache``: reuse a case's result while nothing it depends on has changed.

A result is keyed by the target's identity and version (and the code of a target that lives
in workbench), the suite and its code, the case's definition, the repeat index, the seed, and
the content of every fixture the case reads: the sha of the git tree its files come from (a
``revision``, or a fixture with no work tree), or a digest of the fixture directory's files.
Only targets whose version is known are cached: ``builtin`` and the controls, or a target that
sets ``cacheable = True``. Only passing, error-free answers are stored, so a failure is always
asked again. Reused outcomes are marked ``cached`` and carry no time, so no latency figure is
drawn from them.

Entries live in one SQLite file, ``results/results.sqlite`` under ``paths.private_dir()``, bounded
by ``max_entries``: the least recently used are dropped first.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ..contract import CONTROL_TARGETS
from ..corpus import case_fixtures
from ..corpus.fixtures import case_tree
from ..errors import WorkbenchError
from ..files import dumps
from ..paths import private_dir
from ..suites import Outcome, RunContext, Suite
from .resume import case_hash

FORMAT = "2"  # 2: a git fixture is named by its tree sha
MAX_ENTRIES = 200_000
KNOWN_VERSION = frozenset({"builtin", *CONTROL_TARGETS})
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})


def cacheable_target(target: Any) -> bool:
    """Targets whose answers are a function of their version: builtin, the controls, opt-ins."""
    version = str(getattr(target, "version", "") or "")
    known = getattr(target, "name", None) in KNOWN_VERSION or getattr(target, "cacheable", False) is True
    return known and version not in ("", "unknown", "None")


def cacheable_suite(suite: Suite) -> bool:
    """Suites that ask a target (not recorded data) and do not set ``cacheable = False``."""
    return suite.capability is not None and getattr(suite, "cacheable", True) is not False


def _code_digest(obj: Any) -> str:
    """A digest of the source file defining ``obj`` when it is part of workbench, else ''."""
    try:
        path = inspect.getsourcefile(type(obj) if not inspect.isclass(obj) else obj)
    except TypeError:
        return ""
    if not path or "workbench" not in Path(path).parts:
        return ""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def tree_digest(root: Path) -> str:
    """A digest of every file's relative path and bytes under ``root`` (VCS dirs skipped)."""
    digest = hashlib.blake2b(digest_size=16)
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            path = Path(directory) / name
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"<unreadable>")
            digest.update(b"\0")
    return digest.hexdigest()


class ResultCache:
    """Results of earlier runs, looked up and stored by the runner (this process only)."""

    def __init__(self, directory: Path | None = None, max_entries: int = MAX_ENTRIES) -> None:
        self.directory = Path(directory) if directory else private_dir() / "results"
        self.max_entries = max_entries
        self._db: sqlite3.Connection | None = None
        self._trees: dict[str, str] = {}
        self._code: dict[int, str] = {}
        self.hits = self.stored = 0

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.directory / "results.sqlite", isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, observation TEXT, used REAL)")
        return self._db

    def _fixtures(self, case: dict[str, Any], ctx: RunContext) -> list[str]:
        """Each fixture's name and content identity, as the case sees it: the git tree its files
        come from (a ``revision``, or a fixture with no work tree: the tree's sha names its
        content, so nothing is materialized or read), or a digest of the directory itself,
        taken once per directory per run."""
        out = []
        for name in case_fixtures(case):
            path = ctx.corpus.fixture_dir(name)
            tree = case_tree(path, case)
            if tree is not None:
                out.append(f"{name}:tree:{tree}")
                continue
            if str(path) not in self._trees:
                self._trees[str(path)] = tree_digest(path) if path.is_dir() else "missing"
            out.append(f"{name}:{self._trees[str(path)]}")
        return out

    def key(
        self, suite: Suite, target: Any, case: dict[str, Any], repeat: int, ctx: RunContext, digest: str | None = None
    ) -> str | None:
        """The key of one case's result, or None when it must not be cached (``digest``: the
        case's ``case_hash``, when the caller has it)."""
        if not (cacheable_suite(suite) and cacheable_target(target)):
            return None
        try:
            fixtures = self._fixtures(case, ctx)
        except (WorkbenchError, OSError):  # a fixture or revision that cannot be read: the case will say why
            return None
        for obj in (suite, target):
            if id(type(obj)) not in self._code:
                self._code[id(type(obj))] = _code_digest(obj)
        parts = [
            FORMAT,
            str(target.name),
            str(target.version),
            self._code[id(type(target))],
            suite.name,
            self._code[id(type(suite))],
            digest or case_hash(case),
            str(repeat),
            str(ctx.seed),
            *fixtures,
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def get_many(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The stored observations of ``keys`` that have one; their use time is refreshed."""
        found: dict[str, dict[str, Any]] = {}
        db = self._conn()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, text in db.execute(f"SELECT key, observation FROM results WHERE key IN ({marks})", chunk):
                observation = _decoded(text)
                if observation is not None:  # a damaged entry is asked again
                    found[key] = observation
        if found:
            now = time.time()
            db.execute("BEGIN")
            db.executemany("UPDATE results SET used = ? WHERE key = ?", [(now, k) for k in found])
            db.execute("COMMIT")
        self.hits += len(found)
        return found

    def put_many(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Store observations (passing, error-free answers only: the caller checks), then bound the file."""
        if not entries:
            return
        db = self._conn()
        now = time.time()
        db.execute("BEGIN")
        db.executemany(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
            [(key, dumps(observation), now) for key, observation in entries],
        )
        db.execute("COMMIT")
        self.stored += len(entries)
        (count,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
        if count > self.max_entries:
            db.execute(
                "DELETE FROM results WHERE key IN (SELECT key FROM results ORDER BY used LIMIT ?)",
                (count - self.max_entries,),
            )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _decoded(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def cached_outcome(case: dict[str, Any], observation: dict[str, Any], repeat: int) -> Outcome:
    """The outcome a cache hit stands for: no error, no time of its own, marked cached (exactly as
    the journal reads it back: ``resume.as_outcome``)."""
    return Outcome(case, observation, None, 0.0, {"cached": True, "repeat": repeat})


def storable(outcomes: list[Outcome], rows: list[dict[str, Any]]) -> list[Outcome]:
    """The fresh outcomes whose answers may be cached: no error and the case passed."""
    passed = {row["case"]: bool(row.get("passed")) for row in rows}
    return [o for o in outcomes if o.error is None and not o.meta.get("cached") and passed.get(o.name)]
