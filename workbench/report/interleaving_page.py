"""The interleaving report page: ``notebooks/interleaving.ipynb`` executed on one
``workbench interleave analyze --json`` result (see ``single_page``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .render import DEFAULT_TIMEOUT
from .single_page import render_single_page

PAGE = "interleaving"


def render_interleaving(
    data: dict[str, Any], out_dir: Path | str, timeout: float = DEFAULT_TIMEOUT, notebook_dir: Path | None = None
) -> Path:
    """Write ``interleaving.json`` (an ``interleave analyze`` result) and render ``interleaving.html``:
    the preference over time, per repository, and the tasks each engine won."""
    return render_single_page(PAGE, data, out_dir, timeout, notebook_dir)


__all__ = ["render_interleaving"]
