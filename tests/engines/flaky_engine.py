"""Python test engines for executors, repeats and caching (``python:tests.engines.flaky_engine:...``).

Every engine answers a context_pack with the path its query ends with (``"find src/a.ts"`` ->
``src/a.ts``), so a case passes exactly when the engine does not misbehave on it:

- ``flaky``: the n-th time one query is asked (n = 0, 1, ... : the repeat index when the cases
  of a run are asked in order) it answers nothing iff ``fails(query, n)``, a seeded hash.
- ``dying``: the first time a query containing ``die`` is asked, the process exits (a lost
  worker); a marker file beside the fixture makes the second time answer normally.
- ``steady``: always right; its version is known and it opts into ``--cache``.
- ``paced``: always right, after ``PACE`` seconds (a run long enough to be killed in the middle).
- ``stuck``: answers only after ``STUCK`` seconds (what a run's deadline must cut short).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from workbench.contract import FileRef, Pack

SEED = 7


def fails(query: str, repeat: int, seed: int = SEED) -> bool:
    """Whether the flaky engine fails ``query`` on its ``repeat``-th asking: about one time in three."""
    return hashlib.sha256(f"{seed}:{query}:{repeat}".encode()).digest()[0] % 3 == 0


def _answer(query: str, repos: list[Any]) -> Pack:
    return Pack(primary=[FileRef(repos[0].name, query.split()[-1])])


class Flaky:
    name, version = "flaky", "1"

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        n = self.asked[query]
        self.asked[query] += 1
        return Pack(primary=[]) if fails(query, n) else _answer(query, repos)


class Dying:
    name, version = "dying", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        if "die" in query:
            marker = Path(repos[0].path).parent / f".died-{hashlib.sha256(query.encode()).hexdigest()[:8]}"
            if not marker.exists():
                marker.write_text("died once\n")
                os._exit(1)
        return _answer(query, repos)


STEADY_CALLS: list[str] = []  # every query a steady engine was asked: a cached case is not in it


class Steady:
    name, version, cacheable = "steady", "1", True

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        STEADY_CALLS.append(query)
        return _answer(query, repos)


PACE = 0.05


class Paced:
    name, version = "paced", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        time.sleep(PACE)
        return _answer(query, repos)


def paced() -> Paced:
    return Paced()


STUCK = 30.0


class Stuck:
    name, version = "stuck", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        time.sleep(STUCK)
        return _answer(query, repos)


def stuck() -> Stuck:
    return Stuck()


def flaky() -> Flaky:
    return Flaky()


def dying() -> Dying:
    return Dying()


def steady() -> Steady:
    return Steady()
