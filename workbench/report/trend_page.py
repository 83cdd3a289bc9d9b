"""The trend page on its own (``workbench trend --out DIR``): ``notebooks/trend.ipynb`` executed on
one ``workbench trend --format json`` result (see ``single_page``). Inside a run's report the same
notebook computes the trend of the run's corpus itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .render import DEFAULT_TIMEOUT
from .single_page import render_single_page

PAGE = "trend"


def render_trend(
    data: dict[str, Any], out_dir: Path | str, timeout: float = DEFAULT_TIMEOUT, notebook_dir: Path | None = None
) -> Path:
    """Write ``trend.json`` and render ``trend.html`` (and the executed notebook) into ``out_dir``;
    a RenderError names the failing cell, after the partial page is written."""
    return render_single_page(PAGE, data, out_dir, timeout, notebook_dir)


__all__ = ["render_trend"]
