"""Team-draft interleaving, click models, credit and the preference, against hand-computed values."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from workbench.errors import UsageError
from workbench.online import (
    Credit,
    case_rng,
    click_model,
    credit,
    credit_rows,
    interleave_case,
    preference,
    sign_test_p,
    stable_hash,
    team_draft,
)
from workbench.online.interleave import coins

A = ["a1", "a2", "a3", "s"]
B = ["s", "b1", "a1", "b2"]


def test_team_draft_with_given_coins_follows_the_rules_by_hand() -> None:
    # round 1, coin True: A first adds a1, B adds s; round 2, coin False: B first adds b1 (s is
    # shown), A adds a2; round 3, coin False: B adds b2 (s, b1, a1 shown), A adds a3: 6 shown, stop.
    shown = team_draft(A, B, 6, iter([True, False, False]))
    assert shown == [("a1", "a"), ("s", "b"), ("b1", "b"), ("a2", "a"), ("b2", "b"), ("a3", "a")]
    # the length cuts a round short: coin False, B adds s, A adds a1; coin True, A adds a2; stop at 3
    assert team_draft(A, B, 3, iter([False, True])) == [("s", "b"), ("a1", "a"), ("a2", "a")]


def test_a_team_with_nothing_left_skips_and_the_list_ends_when_both_are_exhausted() -> None:
    # coin False: B adds y, A adds x; coin True: A has nothing new, B adds z (x is shown); coin
    # True: neither adds anything: the list ends at 3 although 5 were allowed.
    assert team_draft(["x"], ["y", "x", "z"], 5, iter([False, True, True])) == [("y", "b"), ("x", "a"), ("z", "b")]
    assert team_draft([], [], 5, iter([True])) == []


def test_a_fixed_interleaving_for_a_given_seed() -> None:
    # the coins of case "c2" under seed 7 (SHA-256 of the id + numpy's PCG64) ...
    assert stable_hash("c2") == 6730038957624396444
    assert list(itertools.islice(coins(case_rng(7, "c2")), 3)) == [True, False, False]
    # ... are those of the first test, so the interleaving is the one computed there by hand
    expected = [("a1", "a"), ("s", "b"), ("b1", "b"), ("a2", "a"), ("b2", "b"), ("a3", "a")]
    assert interleave_case(7, "c2", A, B, 6) == [expected]
    # the first impression does not depend on how many are drawn
    assert interleave_case(7, "c2", A, B, 6, impressions=5)[0] == expected


def test_the_case_hash_is_stable_across_processes() -> None:
    code = "from workbench.online import stable_hash; print(stable_hash('c2'))"
    out = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": salt}, capture_output=True, text=True
        ).stdout.strip()
        for salt in ("1", "2")
    }
    assert out == {"6730038957624396444"}


def test_a_bad_seed_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--seed -1"):
        case_rng(-1, "c")
    with pytest.raises(UsageError, match="--click-model 'nope'"):
        click_model("nope")


def test_the_navigational_cascade_by_hand_from_its_uniforms() -> None:
    rng = case_rng(3, "x", "clicks")
    u = case_rng(3, "x", "clicks").random((2, 5))  # the click uniforms, then the stop uniforms
    assert np.allclose(u[0], [0.02768445, 0.53717272, 0.90343072, 0.67860972, 0.55635543])
    assert np.allclose(u[1], [0.16964054, 0.71842551, 0.04757007, 0.9511773, 0.53123834])
    # relevant at ranks 1, 3, 5: P(click) .95/.05/.95/.05/.95 gives clicks at 1, 3, 5; the click at
    # rank 1 stops the agent (0.170 < P(stop | relevant) = 0.9), so only rank 1 is clicked.
    clicked = click_model("navigational").clicks([True, False, True, False, True], rng)
    assert clicked.tolist() == [True, False, False, False, False]


def test_perfect_clicks_every_relevant_item_and_a_seed_fixes_every_model() -> None:
    relevant = np.array([[True, False, True, True], [False, False, False, True]])
    perfect = click_model("perfect").clicks(relevant, case_rng(0, "p", "clicks"))
    assert (perfect == relevant).all()
    for name in ("navigational", "informational"):
        model = click_model(name)
        big = np.tile(relevant, (50, 1))
        first = model.clicks(big, case_rng(5, "case", "clicks"))
        assert (first == model.clicks(big, case_rng(5, "case", "clicks"))).all()
        assert not (first == model.clicks(big, case_rng(6, "case", "clicks"))).all()


def test_credit_of_a_known_click_list() -> None:
    shown = [("a1", "a"), ("s", "b"), ("b1", "b"), ("a2", "a"), ("b2", "b"), ("a3", "a")]
    # s and b1 are B's, a2 is A's; "nope" was never shown; the second s counts once
    found = credit(shown, ["s", "a2", "b1", "nope", "s"])
    assert found == Credit(clicks_a=1, clicks_b=2, outside=1) and found.outcome == "b"
    assert credit(shown, []).outcome == "tie" and credit(shown, ["a3"]).outcome == "a"
    a, b, codes = credit_rows([[True, False, True], [False, False, True]], [[True, True, False], [False, False, True]])
    assert a.tolist() == [1, 1] and b.tolist() == [1, 0] and codes.tolist() == [0, -1]


def test_sign_test_p_for_known_counts() -> None:
    # 2 wins against 10: P(X <= 2) for Binomial(12, 1/2) is (1 + 12 + 66) / 4096; two-sided doubles it
    assert sign_test_p(2, 10) == pytest.approx(158 / 4096)
    assert sign_test_p(0, 6) == pytest.approx(2 / 64)  # six of six: the fewest that reach p < 0.05
    assert sign_test_p(0, 5) == pytest.approx(2 / 32)
    assert sign_test_p(0, 0) == 1.0


def test_preference_counts_ties_in_n_and_brackets_the_mean() -> None:
    found = preference([-1, -1, 0, 1, -1], seed=0)
    assert (found.wins_a, found.ties, found.wins_b, found.n) == (3, 1, 1, 5)
    assert found.preference == pytest.approx(-0.4)  # (1 - 3) / 5
    assert found.p == pytest.approx(10 / 16)  # 1 of 4 non-ties: 2 * (1 + 4) / 16
    assert found.ci_low <= -0.4 <= found.ci_high
    assert preference([-1, -1, 0, 1, -1], seed=0) == found
