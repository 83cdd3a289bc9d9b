"""Stable column names of every frame workbench produces.

Frames are tidy and long; notebooks, stats and the store refer to these
constants, never to string literals.
"""

from __future__ import annotations

SUITE = "suite"
TARGET = "target"
CASE = "case"
METRIC = "metric"
VALUE = "value"
PASSED = "passed"
ERROR = "error"

SCORE_COLUMNS = [SUITE, TARGET, CASE, METRIC, VALUE]
CASE_KEY = [SUITE, TARGET, CASE]

# Interleaving (workbench/online): one row per shown item, per case, per (method, tasks) of the
# sensitivity table.
RANK = "rank"
DOC = "doc"
TEAM = "team"
RELEVANT = "relevant"
CLICKED = "clicked"
CLICKS_A = "clicks_a"
CLICKS_B = "clicks_b"
OUTCOME = "outcome"
METHOD = "method"
TASKS = "tasks"
POWER = "power"
SHOWN_AT = "at"  # when an impression was shown (the log's ISO time, "" if it gave none)
REPOS = "repos"  # the repositories of an impression's shown files, "+"-joined
