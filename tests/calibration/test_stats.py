"""Wilson intervals, the lift interval and withholding on counts worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.calibration import MIN_OUTCOMES, lift_interval, wilson
from workbench.calibration.stats import flag_table


def test_wilson_matches_textbook_values() -> None:
    # 5/10: p = .5, z^2/n = .38415; centre .5, half = 1.96*sqrt(.025 + .0096)/1.38415 = .2634
    low, high = wilson([5, 0, 10], [10, 10, 10])
    assert low[0] == pytest.approx(0.2366, abs=1e-4) and high[0] == pytest.approx(0.7634, abs=1e-4)
    # 0/10: upper = (z^2/n) / (1 + z^2/n) = .38415 / 1.38415 = .2775
    assert low[1] == 0.0 and high[1] == pytest.approx(0.2775, abs=1e-4)
    assert low[2] == pytest.approx(1 - 0.2775, abs=1e-4) and high[2] == pytest.approx(1.0)


def test_lift_interval_brackets_the_lift_and_handles_empty_groups() -> None:
    lift, low, high = lift_interval([14, 0, 3], [41, 40, 40], [4, 4, 0], [60, 60, 60])
    assert lift[0] == pytest.approx((14 / 41) / (4 / 60)) and low[0] < lift[0] < high[0]
    # MOVER-R with the two Wilson intervals, lower end for 14/41 over 4/60 worked through the formula
    (l1, _), (_, u0) = wilson(14, 41), wilson(4, 60)
    p1, p0 = 14 / 41, 4 / 60
    expected = (p1 * p0 - math.sqrt((p1 * p0) ** 2 - l1 * u0 * (2 * p1 - l1) * (2 * p0 - u0))) / (u0 * (2 * p0 - u0))
    assert low[0] == pytest.approx(expected)
    assert lift[1] == 0.0 and low[1] == 0.0 and high[1] > 0
    assert lift[2] == math.inf and math.isnan(low[2])  # no unflagged outcome: lift unbounded, interval undefined


def test_groups_under_thirty_are_withheld_with_their_counts() -> None:
    flagged = np.array([True] * (MIN_OUTCOMES - 1) + [False] * 40)
    outcome = np.array([True] * 10 + [False] * 19 + [True] * 5 + [False] * 35)
    table = flag_table(pd.DataFrame({"f": flagged}), pd.DataFrame({"either": outcome}))
    row = table.iloc[0]
    assert (row["flagged"], row["flagged_outcomes"], row["unflagged"], row["unflagged_outcomes"]) == (29, 10, 40, 5)
    assert row["withheld"] and math.isnan(row["rate_flagged"]) and math.isnan(row["lift"])
    assert row["rate_unflagged"] == pytest.approx(5 / 40)  # the big enough group keeps its rate
    flagged[-1] = True  # 30 flagged, 39 unflagged: nothing withheld
    table = flag_table(pd.DataFrame({"f": flagged}), pd.DataFrame({"either": outcome}))
    assert not table.iloc[0]["withheld"] and table.iloc[0]["lift"] == pytest.approx((10 / 30) / (5 / 39))


def test_wilson_3_of_10_and_0_of_30_by_hand() -> None:
    # 3/10: z^2/n = 3.8415/10 = .38415, denominator 1.38415; centre (.3 + .19207)/1.38415 = .35551;
    # half 1.95996 * sqrt(.3 * .7/10 + 3.8415/400)/1.38415 = 1.95996 * .17494/1.38415 = .24772
    low, high = wilson([3, 0], [10, 30])
    assert low[0] == pytest.approx(0.1078, abs=1e-4) and high[0] == pytest.approx(0.6032, abs=1e-4)
    # 0/30: the lower end is 0 and the upper (z^2/n)/(1 + z^2/n) = .128049/1.128049 = .11351
    assert low[1] == 0.0 and high[1] == pytest.approx(0.11351, abs=1e-5)
    # no trials: no interval
    assert all(math.isnan(v) for v in np.concatenate(wilson([0], [0])))


def test_mover_lift_of_12_of_40_over_6_of_60_by_hand() -> None:
    """EVALS.md's worked example: rates .3 and .1, lift 3. Wilson 12/40 = [.18075, .45430], 6/60 =
    [.04664, .20149]. MOVER-R lower: p1 p0 = .03; l1 u0 (2 p1 - l1)(2 p0 - u0) = .036420 * .41925 *
    -.0014946 = -.0000228; (.03 - sqrt(.0009 + .0000228)) / (u0 (2 p0 - u0)) = -.000378 / -.000301 =
    1.2551. Upper: u1 l0 (2 p1 - u1)(2 p0 - l0) = .021189 * .14570 * .15336 = .00047345;
    (.03 + sqrt(.0009 - .00047345)) / (l0 (2 p0 - l0)) = .050653 / .0071527 = 7.081. (The cruder
    Katz log interval gives [1.23, 7.33].)"""
    (l1, u1), (l0, u0) = wilson(12, 40), wilson(6, 60)
    assert (float(l1), float(u1)) == pytest.approx((0.18075, 0.45430), abs=1e-5)
    assert (float(l0), float(u0)) == pytest.approx((0.04664, 0.20149), abs=1e-5)
    lift, low, high = lift_interval(12, 40, 6, 60)
    assert float(lift) == pytest.approx(3.0)
    assert float(low) == pytest.approx(1.2551, abs=1e-4) and float(high) == pytest.approx(7.0813, abs=1e-4)


def test_brier_and_reliability_bins_withhold_under_thirty() -> None:
    from workbench.calibration.stats import brier_table

    # 29 changes scored .9 (10 with an outcome) and 31 scored .1 (3 with one)
    scores = pd.DataFrame({"concept:x": [0.9] * 29 + [0.1] * 31})
    outcome = pd.Series([True] * 10 + [False] * 19 + [True] * 3 + [False] * 28)
    summary, bins = brier_table(scores, outcome)
    # Brier = (10 * .1^2 + 19 * .9^2 + 3 * .9^2 + 28 * .1^2) / 60 = (0.1 + 15.39 + 2.43 + 0.28) / 60
    assert summary.iloc[0]["brier"] == pytest.approx(18.2 / 60) and not summary.iloc[0]["withheld"]
    by_low = {round(r["low"], 1): r for r in bins.to_dict(orient="records")}
    assert by_low[0.9]["changes"] == 29 and by_low[0.9]["withheld"] and math.isnan(by_low[0.9]["outcome_rate"])
    assert by_low[0.1]["changes"] == 31 and by_low[0.1]["outcome_rate"] == pytest.approx(3 / 31)
    small, _ = brier_table(scores.iloc[:29], outcome.iloc[:29])
    assert small.iloc[0]["withheld"] and math.isnan(small.iloc[0]["brier"])
