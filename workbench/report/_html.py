"""An executed notebook as one offline HTML page: outputs only, figures inline, nothing fetched.

nbconvert's ``HTMLExporter`` renders the lab template and then re-parses the whole page with
BeautifulSoup to add image alt text and make cells focusable: half of its time on a report page,
and the CSS selectors it compiles for that cost as much again once per process. ``PageExporter``
puts both into the page as it is rendered instead (the alt text a figure gives in its output
metadata, the focus attribute by one substitution), so the page is the same without the re-parse.

Every text a page shows (from a corpus, a repository, an engine or a run) is escaped here and
nowhere else: ``escaped`` for the views' own HTML and the index page, ``escape_table`` for every
table a pandas ``Styler`` renders (pandas writes cell, header and caption text raw).
"""

from __future__ import annotations

import html
import logging
import re
import threading
from typing import Any

# The lab template without the script tags that load require.js, MathJax and mermaid from a CDN,
# and with the figures' alt text (nbconvert adds a placeholder after rendering when none is given).
OFFLINE_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
{%- if 'image/png' in output.metadata.get('filenames', {}) %}
<img src="{{ output.metadata.filenames['image/png'] | posix_path | escape_html }}"
{%- else %}
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- endif %}
alt="{{ ((output | get_metadata('alt', 'image/png')) or NO_ALT) | escape_html }}"
{%- for key in ('width', 'height') %}
{%- set size = output | get_metadata(key, 'image/png') %}
{%- if size is not none %} {{ key }}={{ size | escape_html }}{% endif %}
{%- endfor %}
class="
{%- if output | get_metadata('unconfined', 'image/png') %}unconfined{% endif %}
{%- if output | get_metadata('needs_background', 'image/png') in ('light', 'dark') %}
 jp-needs-{{ output | get_metadata('needs_background', 'image/png') }}-background
{%- endif %}">
</div>
{%- endblock data_png %}
"""
NO_ALT = "No description has been provided for this image"  # nbconvert's words
# Cells papermill adds get a random id; a stable one keeps the same run's pages identical.
STABLE_IDS = {"injected-parameters": "injected-parameters", "papermill-error-cell-tag": "papermill-error"}
# What HTMLExporter makes focusable (tabindex="0") after rendering, by class.
_FOCUSABLE = re.compile(r'(<div class="[^"]*\b(?:jp-Cell-inputWrapper|jp-OutputArea-output)\b[^"]*")')

# What a table id may hold: pandas writes it into an attribute and into the page's CSS selectors.
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")

_EXPORTER: Any = None
_LOCK = threading.Lock()


def escaped(value: object) -> str:
    """``value`` as text HTML shows literally (``<``, ``>``, ``&`` and both quotes escaped)."""
    return html.escape(str(value), quote=True)


def safe_id(name: str) -> str:
    """``name`` with every character an id attribute or a CSS selector could misread replaced by ``-``."""
    return _UNSAFE_ID.sub("-", name)


def escape_table(rendered: dict[str, Any]) -> dict[str, Any]:
    """A pandas Styler's render dict (what ``Styler._translate`` gives its template) with every text
    escaped: cell and header values (whatever formatter made them), the caption, and the table id
    kept to safe characters. Blank header cells keep pandas' ``&nbsp;``."""
    rendered["uuid"] = safe_id(str(rendered.get("uuid", "")))
    caption = rendered.get("caption")
    if isinstance(caption, str):
        rendered["caption"] = escaped(caption)
    elif isinstance(caption, (list, tuple)):
        rendered["caption"] = [escaped(part) for part in caption]
    for row in [*rendered.get("head", []), *rendered.get("body", [])]:
        for cell in row:
            if "display_value" in cell and "blank" not in str(cell.get("class", "")).split():
                cell["display_value"] = escaped(cell["display_value"])
    return rendered


def _exporter_class() -> type:
    """``HTMLExporter`` with its BeautifulSoup pass replaced (nbconvert loads on first use)."""
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class PageExporter(HTMLExporter):
        def from_notebook_node(  # type: ignore[override]  # returns HTML text, not a notebook
            self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any
        ) -> tuple[str, dict[str, Any]]:
            """HTMLExporter.from_notebook_node's filters and rendering, then the focus attributes."""
            language = nb.metadata.get("language_info", {})
            lexer = language.get("pygments_lexer", language.get("name"))
            self.register_filter(
                "highlight_code", self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            )
            resources = self._init_resources(resources)
            self.register_filter(
                "filter_data_type",
                WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources),
            )
            page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return _FOCUSABLE.sub(r'\1 tabindex="0"', page), resources

    return PageExporter


def to_html(nb: Any) -> str:
    """An executed notebook as one offline HTML page: outputs only, figures inline.
    ``None`` converts an empty notebook, to load nbconvert and compile its template early."""
    global _EXPORTER
    from ._kernels import nbformat

    with _LOCK:
        if _EXPORTER is None:
            from jinja2 import DictLoader

            quiet = logging.getLogger("workbench.report.nbconvert")
            quiet.setLevel(logging.ERROR)
            _EXPORTER = _exporter_class()(
                template_file="offline.html.j2",
                exclude_input=True,
                exclude_input_prompt=True,
                exclude_output_prompt=True,
                log=quiet,
                extra_loaders=[DictLoader({"offline.html.j2": OFFLINE_TEMPLATE})],
            )
            _EXPORTER.environment.globals["NO_ALT"] = NO_ALT
        for index, cell in enumerate(nb.cells if nb is not None else []):
            tag = next((t for t in cell.get("metadata", {}).get("tags", []) if t in STABLE_IDS), None)
            if tag:
                cell["id"] = f"{STABLE_IDS[tag]}-{index}"
        return _EXPORTER.from_notebook_node(nb if nb is not None else nbformat.v4.new_notebook())[0]
