"""The measured sensitivity on inputs whose power is known, and packs read from a run's frames."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench.columns import METHOD, POWER, TASKS
from workbench.online import click_model, interleave_packs, measure, packs_from_frames


def test_power_by_hand_when_b_always_wins() -> None:
    # every impression of every case: B wins. The sign test needs 6 of 6 (p = 2/64 < 0.05; 5 of 5
    # gives 2/32), so interleaving's power is 0 below 6 tasks and 1 from 6. The offline
    # differences are a constant +1: the t-test's limit p is 0 from 2 pairs (1 pair: p = 1).
    pool = np.ones((4, 3), dtype=np.int8)
    found = measure(pool, np.ones(4), sizes=[1, 2, 5, 6, 8], resamples=20, seed=1)
    table = found.table.pivot(index=TASKS, columns=METHOD, values=POWER)
    assert table["interleaving"].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]
    assert table["offline"].tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]
    assert (found.n_interleaving, found.n_offline) == (6, 2)
    assert found.ratio == 2 / 6 and "not more sensitive" in found.verdict()


def test_no_difference_never_reaches_the_target_power_and_claims_no_ratio() -> None:
    pool = np.zeros((5, 2), dtype=np.int8)  # every task a tie
    found = measure(pool, np.array([0.0, 0.0, np.nan, 0.0, 0.0]), sizes=[4, 10], resamples=10)
    assert found.table[POWER].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert found.ratio is None and found.n_interleaving is None and "no ratio" in found.verdict()


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [
        {"suite": "retrieval", "target": "x", "case": "c1", "expected": ["f1"], "returned": ["f1", "f2"],
         "related": ["f2", "f3"]},
        {"suite": "retrieval", "target": "y", "case": "c1", "expected": ["f1"], "returned": ["f3"], "related": []},
        {"suite": "retrieval", "target": "x", "case": "fb", "expected": [], "returned": ["f9"], "related": []},
        {"suite": "retrieval", "target": "y", "case": "fb", "expected": [], "returned": [], "related": []},
    ]  # fmt: skip
    scores = pd.DataFrame(
        [("retrieval", "x", "c1", "mrr", 1.0), ("retrieval", "y", "c1", "mrr", 0.0)]
        + [("retrieval", t, "fb", "mrr", np.nan) for t in "xy"],
        columns=["suite", "target", "case", "metric", "value"],
    )
    return pd.DataFrame(rows), scores


def test_packs_from_a_runs_frames_and_their_interleaving() -> None:
    packs = packs_from_frames("c.json", "x", "y", *_frames())
    first, fallback = packs.cases
    assert first.a == ("f1", "f2", "f3") and first.b == ("f3",) and first.relevant == {"f1"}
    assert (first.offline_a, first.offline_b) == (1.0, 0.0) and math.isnan(fallback.offline_a)
    # perfect clicks: c1 shows f1 (x's) whatever the coins, so x wins; the fallback case has no
    # relevant file: a tie. n = 2, preference (0 - 1) / 2.
    found = interleave_packs(packs, click_model("perfect"), seed=0, sizes=[], resamples=10)
    assert found.cases["outcome"].tolist() == ["a", "tie"]
    assert found.preference.preference == -0.5 and found.offline["scored"] == 1
    shown = found.shown[found.shown["case"] == "c1"]
    assert sorted(shown["doc"]) == ["f1", "f2", "f3"] and shown["clicked"].tolist() == (shown["doc"] == "f1").tolist()
