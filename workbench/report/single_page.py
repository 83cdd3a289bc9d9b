"""A page of its own, outside a run's pages: one notebook executed with papermill on one JSON result
and converted to offline HTML, as ``workbench report`` does for a run (same kernel set-up, same
converter, inputs hidden, figures embedded). The calibration and interleaving pages are such pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import RenderError
from ..files import write_text_atomic
from ._html import to_html
from .render import DEFAULT_TIMEOUT, WARMUP, notebook_paths, start_kernel


def render_single_page(
    page: str,
    data: dict[str, Any],
    out_dir: Path | str,
    timeout: float = DEFAULT_TIMEOUT,
    notebook_dir: Path | None = None,
) -> Path:
    """Write ``PAGE.json`` and render ``PAGE.html`` (and the executed notebook) into ``out_dir``, the
    notebook's one parameter (named ``page``) naming the JSON file; a RenderError names the failing
    cell, after the partial page is written."""
    from . import _kernel_pool
    from ._kernels import execute_notebook

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    source = notebook_paths([page], notebook_dir)[0]
    result = out / f"{page}.json"
    write_text_atomic(result, json.dumps(data, indent=2, allow_nan=False) + "\n")
    slot = _kernel_pool.take(Path.cwd(), WARMUP)
    try:
        start_kernel(slot)
        nb, error = execute_notebook(source, out / source.name, {page: str(result.resolve())}, slot, timeout)
    except BaseException:
        slot.shutdown()
        raise
    _kernel_pool.give(slot)
    html_page = out / f"{page}.html"
    if nb is not None:
        write_text_atomic(html_page, to_html(nb))
    if error:
        raise RenderError(f"{source.name}: {error} (partial page in {html_page})")
    return html_page
