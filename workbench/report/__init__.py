"""Reports: papermill rendering, offline HTML, the text scoreboard, figure builders and notebook views."""

from __future__ import annotations

from .._lazy import exports

_NAMES = {
    "render_report": "render",
    "notebooks_dir": "render",
    "Report": "render",
    "Page": "render",
    "render_scoreboard": "text",
    "render_markdown": "text",
    "lab_argv": "lab",
    "serve_lab": "lab",
    "plots": "plots",
    "views": "views",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = exports(__name__, _NAMES, frozenset({"views", "plots"}))
