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
