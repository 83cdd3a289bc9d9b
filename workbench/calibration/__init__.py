"""Calibration: do a target's risk flags predict reverts and fixes in a repository's history?"""

from __future__ import annotations

from .calibrate import OUTCOMES, Calibration, calibrate
from .outcomes import FIX_RULE, Window, is_fix, parse_window
from .render import lift_text, rate_text, render_text
from .stats import MIN_OUTCOMES, lift_interval, wilson

__all__ = [
    "FIX_RULE",
    "MIN_OUTCOMES",
    "OUTCOMES",
    "Calibration",
    "Window",
    "calibrate",
    "is_fix",
    "lift_interval",
    "lift_text",
    "parse_window",
    "rate_text",
    "render_text",
    "wilson",
]
