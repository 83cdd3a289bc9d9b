"""The calibration report page: ``notebooks/calibration.ipynb`` executed on one
``workbench calibrate --json`` result (see ``single_page``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .render import DEFAULT_TIMEOUT
from .single_page import render_single_page

PAGE = "calibration"


def render_calibration(
    data: dict[str, Any], out_dir: Path | str, timeout: float = DEFAULT_TIMEOUT, notebook_dir: Path | None = None
) -> Path:
    """Write ``calibration.json`` and render ``calibration.html`` (and the executed notebook) into
    ``out_dir``; a RenderError names the failing cell, after the partial page is written."""
    return render_single_page(PAGE, data, out_dir, timeout, notebook_dir)


__all__ = ["render_calibration"]
