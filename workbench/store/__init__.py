"""Runs and baselines on disk: run directories, pandas-free headers, atomic files, baselines and floors."""

from __future__ import annotations

from .._lazy import exports

_NAMES = {
    "Run": "runs",
    "load_run": "runs",
    "write_run": "runs",
    "latest_run": "headers",
    "read_header": "headers",
    "is_complete_run": "headers",
    "check_side": "headers",
    "Baseline": "baselines",
    "load_baseline": "baselines",
    "list_baselines": "baselines",
    "record_baseline": "baselines",
    "baseline_table": "floors",
    "write_json_atomic": "files",
    "write_text_atomic": "files",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = exports(__name__, _NAMES)
