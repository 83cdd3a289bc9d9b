"""The calibration report page: ``notebooks/calibration.ipynb`` executed with papermill on one
``workbench calibrate --json`` result and converted to offline HTML, as ``workbench report`` does
for a run's pages (same kernel set-up, same converter, inputs hidden, figures embedded)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import RenderError
from ..store.files import write_text_atomic
from ._html import to_html
from .render import DEFAULT_TIMEOUT, WARMUP, notebook_paths, start_kernel

PAGE = "calibration"


def render_calibration(
    data: dict[str, Any], out_dir: Path | str, timeout: float = DEFAULT_TIMEOUT, notebook_dir: Path | None = None
) -> Path:
    """Write ``calibration.json`` and render ``calibration.html`` (and the executed notebook) into
    ``out_dir``; a RenderError names the failing cell, after the partial page is written."""
    from ._kernels import KernelSlot, execute_notebook

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    source = notebook_paths([PAGE], notebook_dir)[0]
    result = out / f"{PAGE}.json"
    write_text_atomic(result, json.dumps(data, indent=2, allow_nan=False) + "\n")
    slot = KernelSlot(Path.cwd(), WARMUP)
    try:
        start_kernel(slot)
        nb, error = execute_notebook(source, out / source.name, {"calibration": str(result.resolve())}, slot, timeout)
    finally:
        slot.shutdown()
    page = out / f"{PAGE}.html"
    if nb is not None:
        write_text_atomic(page, to_html(nb))
    if error:
        raise RenderError(f"{source.name}: {error} (partial page in {page})")
    return page


__all__ = ["render_calibration"]
