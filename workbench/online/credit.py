"""Credit clicks to teams: per task, the team whose items got more clicks wins; equal counts tie.

This is team-draft credit (Radlinski et al. 2008): a click on a shown item counts for the team that
added it; every click counts once, wherever it is in the list. A task without clicks is a tie.
Outcomes are coded -1 (A wins), 0 (tie), +1 (B wins), so their mean is the preference for B.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .interleave import TEAM_A, TEAM_B

if TYPE_CHECKING:
    import numpy as np

A_WINS, TIE, B_WINS = "a", "tie", "b"
CODES = {A_WINS: -1, TIE: 0, B_WINS: 1}


def outcome(clicks_a: int, clicks_b: int) -> str:
    """``a``, ``b`` or ``tie`` from the two teams' click counts."""
    return A_WINS if clicks_a > clicks_b else B_WINS if clicks_b > clicks_a else TIE


@dataclass(frozen=True)
class Credit:
    """One task's credited clicks; ``outside`` counts clicked paths that were not shown."""

    clicks_a: int
    clicks_b: int
    outside: int = 0

    @property
    def outcome(self) -> str:
        return outcome(self.clicks_a, self.clicks_b)


def credit(shown: Sequence[tuple[str, str]], clicked: Iterable[str]) -> Credit:
    """Credit the distinct ``clicked`` items of one interleaved list ``shown`` (``(item, team)``)."""
    team = dict(shown)
    counts = {TEAM_A: 0, TEAM_B: 0}
    outside = 0
    for item in dict.fromkeys(clicked):
        if item in team:
            counts[team[item]] += 1
        else:
            outside += 1
    return Credit(counts[TEAM_A], counts[TEAM_B], outside)


def credit_rows(is_a: Any, clicked: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorized credit of many impressions: per row, clicks of team A, of team B, and the
    outcome code (-1, 0, +1). ``is_a`` and ``clicked`` are bool arrays, one row per impression."""
    import numpy as np

    is_a, clicked = np.asarray(is_a, dtype=bool), np.asarray(clicked, dtype=bool)
    a = (clicked & is_a).sum(axis=-1)
    b = (clicked & ~is_a).sum(axis=-1)
    return a, b, np.sign(b - a).astype(np.int8)
