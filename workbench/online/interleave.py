"""Team-draft interleaving (Radlinski, Kurup and Joachims 2008), seeded per (seed, case).

Rules: each round a fair coin decides which team picks first; each team in turn adds its
highest-ranked item not already shown; a team with nothing new left skips its turn; the list stops
at ``length`` items or when both teams are exhausted. Every shown item records the team that added
it, so a click is credited to exactly one ranker. Which coins a case gets depends only on the seed
and the case id (a SHA-256 of the id, never Python's salted ``hash()``), so an interleaving is the
same in every process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..errors import UsageError

if TYPE_CHECKING:
    import numpy as np

TEAM_A, TEAM_B = "a", "b"
STREAMS = {"interleave": 0, "clicks": 1}  # independent random streams of one case
Item = TypeVar("Item", bound=Hashable)  # a path, or a (repo, path) pair


def stable_hash(text: str) -> int:
    """A 64-bit integer from ``text``'s SHA-256: the same in every process and Python version."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def case_rng(seed: int, case: str, stream: str = "interleave") -> np.random.Generator:
    """The numpy Generator of one case's ``stream`` (``interleave`` or ``clicks``) under ``seed``."""
    import numpy as np

    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"--seed {seed!r}: must be an integer >= 0")
    return np.random.default_rng(np.random.SeedSequence([seed, stable_hash(case), STREAMS[stream]]))


def coins(rng: np.random.Generator) -> Iterator[bool]:
    """An endless stream of fair coins: True means team A picks first in that round."""
    while True:
        yield bool(rng.integers(0, 2))


def team_draft(a: Sequence[Item], b: Sequence[Item], length: int, flips: Iterator[bool]) -> list[tuple[Item, str]]:
    """The interleaved list of rankings ``a`` and ``b`` as ``(item, team)`` pairs, one coin of
    ``flips`` per round (duplicates within one ranking count once)."""
    ranked = {TEAM_A: list(dict.fromkeys(a)), TEAM_B: list(dict.fromkeys(b))}
    cursor = {TEAM_A: 0, TEAM_B: 0}
    shown: list[tuple[Item, str]] = []
    seen: set[Item] = set()

    def pick(team: str) -> bool:
        items = ranked[team]
        while cursor[team] < len(items) and items[cursor[team]] in seen:
            cursor[team] += 1
        if cursor[team] == len(items):
            return False
        item = items[cursor[team]]
        seen.add(item)
        shown.append((item, team))
        return True

    while len(shown) < length:
        order = (TEAM_A, TEAM_B) if next(flips) else (TEAM_B, TEAM_A)
        added = False
        for team in order:
            if len(shown) < length:
                added = pick(team) or added
        if not added:
            break
    return shown


def interleave_case(
    seed: int, case: str, a: Sequence[str], b: Sequence[str], length: int, impressions: int = 1
) -> list[list[tuple[str, str]]]:
    """``impressions`` successive team-draft interleavings of one case, from its own stream: the
    first is the same whatever ``impressions`` is."""
    flips = coins(case_rng(seed, case, "interleave"))
    return [team_draft(a, b, length, flips) for _ in range(impressions)]
