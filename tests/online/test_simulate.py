"""``interleave simulate`` on the shipped corpus: builtin beats random, and builtin against itself
is significant at p < 0.05 for at most 1 of 20 seeds (the sign test's false-positive rate)."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main
from workbench.online import click_model, interleave_packs, run_packs

from ..conftest import REPO_ROOT

CORPUS = REPO_ROOT / "corpus" / "corpus.json"


def test_builtin_against_random_is_detected_and_the_ratio_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["interleave", "simulate", "--corpus", str(CORPUS), "--target", "builtin", "--target", "random"]
    assert main([*args, "--resamples", "40"]) == 0
    text = capsys.readouterr().out
    assert "sensitivity ratio (offline n / interleaving n) = " in text and "sign test p = " in text
    assert main([*args, "--resamples", "40", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["a"] == "builtin" and found["b"] == "random" and found["n"] == 50
    assert found["p"] < 0.05 and found["wins_a"] > found["wins_b"] and found["ci_high"] < 0
    assert found["sensitivity"]["n_interleaving"] is not None and found["sensitivity"]["ratio"] is not None


def test_a_target_needs_a_pair_and_a_known_click_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interleave", "simulate", "--corpus", str(CORPUS), "--target", "builtin"]) == 2
    args = ["interleave", "simulate", "--target", "builtin", "--target", "random", "--click-model", "x"]
    assert main(args) == 2
    assert "--click-model 'x'" in capsys.readouterr().err


def test_builtin_against_itself_is_significant_for_at_most_one_of_twenty_seeds() -> None:
    # the builtin engine ignores the run's seed, so its packs are run once; each seed then draws
    # its own coins and clicks, as `interleave simulate --seed S` would.
    packs = run_packs(CORPUS, ["builtin", "builtin"])
    assert all(case.a == case.b for case in packs.cases)
    for name in ("perfect", "navigational", "informational"):
        p = [
            interleave_packs(packs, click_model(name), seed=s, sizes=[], impressions=1).preference.p for s in range(20)
        ]
        assert sum(x < 0.05 for x in p) <= 1, (name, p)
