"""Runs and baselines on disk: run directories, pandas-free headers, atomic files, baselines and floors."""

from __future__ import annotations

from ..files import write_json_atomic, write_text_atomic
from .baselines import Baseline, baseline_corpus, list_baselines, load_baseline, record_baseline
from .floors import baseline_table
from .headers import check_side, is_complete_run, latest_run, locations_for, read_header
from .runs import Run, load_run, write_run

__all__ = [
    "Baseline",
    "Run",
    "baseline_corpus",
    "baseline_table",
    "check_side",
    "is_complete_run",
    "latest_run",
    "list_baselines",
    "load_baseline",
    "load_run",
    "locations_for",
    "read_header",
    "record_baseline",
    "write_json_atomic",
    "write_run",
    "write_text_atomic",
]
