"""Reports: papermill rendering, offline HTML, the text scoreboard, figure builders and notebook views.

``views`` and ``plots`` are namespaces of pandas and matplotlib helpers for the notebooks: they are
imported on first use (``workbench.report.views``), so importing this package stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from .calibration_page import render_calibration
from .interleaving_page import render_interleaving
from .lab import lab_argv, serve_lab
from .render import Page, Report, notebooks_dir, render_report
from .text import latencies, render_markdown, render_scoreboard
from .trend_page import render_trend

NAMESPACES = ("plots", "views")

if TYPE_CHECKING:
    from . import plots, views
else:  # not seen by type checkers: an unknown ``report.name`` stays a type error

    def __getattr__(name: str) -> ModuleType:
        """The ``plots`` or ``views`` namespace module, imported the first time it is named."""
        if name not in NAMESPACES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return import_module(f"{__name__}.{name}")


__all__ = [
    "Page",
    "Report",
    "latencies",
    "lab_argv",
    "notebooks_dir",
    "plots",
    "render_calibration",
    "render_interleaving",
    "render_markdown",
    "render_report",
    "render_scoreboard",
    "render_trend",
    "serve_lab",
    "views",
]
