"""``split.Kept``: every candidate kept, the older half's fetched from the helper once sampled."""

from __future__ import annotations

from workbench.mining.filters import Candidate, MineFilters
from workbench.mining.history import Commit
from workbench.mining.split import Kept


def _candidates(names: list[str]) -> list[Candidate]:
    options = MineFilters()
    return [Candidate(Commit(name, ("p",), "a", "a@x", 0, f"Fix {name}"), options) for name in names]


def test_positions_run_oldest_first_and_the_older_picks_are_fetched_once() -> None:
    newer = _candidates(["n0", "n1", "n2"])  # newest first
    older = _candidates(["o0", "o1", "o2", "o3"])  # the helper's list, newest first
    asked: list[list[int]] = []

    def fetch(indices: list[int]) -> list[Candidate]:
        asked.append(indices)
        return [older[index] for index in indices]

    kept = Kept(newer, [0, 2, 3], fetch)  # o1 was a duplicate of a newer query
    assert len(kept) == 6
    # Oldest first: o3, o2, o0, n2, n1, n0.
    picked = kept.take([0, 2, 3, 5, 0])
    assert [c.commit.sha for c in picked] == ["o3", "o0", "n2", "n0", "o3"]
    assert asked == [[0, 3]]


def test_a_sample_of_the_newer_half_alone_still_lets_the_helper_go() -> None:
    asked: list[list[int]] = []

    def fetch(indices: list[int]) -> list[Candidate]:
        asked.append(indices)
        return []

    kept = Kept(_candidates(["n0", "n1"]), [0], fetch)
    assert [c.commit.sha for c in kept.take([2, 1])] == ["n0", "n1"]
    assert asked == [[]]
    assert [c.commit.sha for c in Kept(_candidates(["n0"])).take([0])] == ["n0"]
