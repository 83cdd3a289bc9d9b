"""A searchable, sortable table of every retrieval case, for runs of hundreds or thousands of cases.

It is an itables (DataTables) table rendered offline: ``interactive_tables()`` embeds the
DataTables bundle once in the page (no CDN: the page opens from disk), and
``retrieval_table(run)`` shows one row per case, worst first for the primary target, with
the case's repository, shape, query, expected files, and per target its pass/fail,
reciprocal rank and nDCG, plus the primary target's top file. Cells are plain text and
kept short so 2,000 cases stay well inside a 3 MB page.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...columns import CASE, PASSED, TARGET
from ...store.runs import Run
from .common import Html, Note, joined, primary_target, suite_rows, targets_of, wide_scores
from .retrieval import case_shapes, fixture_key, worst_first

QUERY_CHARS = 140
# The table fits the page: long paths and queries wrap anywhere instead of widening it (a table
# wider than the page hides its last targets' columns behind a scrollbar).
FIT_CSS = (
    "<style>#retrieval-cases-all td, #retrieval-cases-all th {overflow-wrap: anywhere; word-break: break-word;}</style>"
)
LAYOUT = {"topStart": "pageLength", "topEnd": "search", "bottomStart": "info", "bottomEnd": "paging"}


def interactive_tables() -> Html:
    """Load the DataTables bundle into the page (offline); call once, before the first table."""
    from itables import init_notebook_mode

    init_notebook_mode(all_interactive=False, connected=False)
    return Html("")


def _short(text: Any, limit: int) -> str:
    value = str(text or "")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def case_frame(run: Run) -> pd.DataFrame | Note:
    """One row per retrieval case: its fields, then per target pass, RR and nDCG; worst first."""
    rows = suite_rows(run, "retrieval")
    if isinstance(rows, Note):
        return rows
    lead = primary_target(run)
    first = rows[rows[TARGET] == lead]
    first = worst_first(first if len(first) else rows.drop_duplicates(CASE), run)
    frame = pd.DataFrame(
        {
            CASE: first[CASE].to_numpy(),
            "repository": first["fixtures"].map(fixture_key).to_numpy(),
            "shape": case_shapes(first).to_numpy(),
            "query": first["query"].map(lambda q: _short(q, QUERY_CHARS)).to_numpy(),
            "expected": first["expected"].map(lambda e: _short(joined(e), 120)).to_numpy(),
            f"top file ({lead})": first["returned"].map(lambda r: r[0] if isinstance(r, list) and r else "").to_numpy(),
        }
    )
    wide = wide_scores(run, "retrieval").set_index([TARGET, CASE])
    for target in targets_of(run):
        mine = rows[rows[TARGET] == target].set_index(CASE)
        if mine.empty:
            continue
        passed = mine[PASSED].reindex(frame[CASE])
        frame[f"pass {target}"] = passed.map(lambda v: "" if pd.isna(v) else ("PASS" if v else "FAIL")).to_numpy()
        for metric, short in (("mrr", "RR"), ("ndcgAtK", "nDCG")):
            if metric in wide.columns:
                values = (
                    wide[metric].xs(target, level=TARGET).reindex(frame[CASE])
                    if target in wide.index.get_level_values(TARGET)
                    else pd.Series(float("nan"), index=frame[CASE])
                )
                frame[f"{short} {target}"] = values.round(3).to_numpy()
    return frame


def retrieval_table(run: Run, page_length: int = 25) -> Html | Note:
    """Every retrieval case in one searchable, sortable, paged table (offline DataTables)."""
    frame = case_frame(run)
    if isinstance(frame, Note):
        return frame
    from itables import to_html_datatable

    caption = (
        f"{len(frame)} cases, worst first for {primary_target(run)}; type in the search box to filter "
        "(by repository, shape, file or words), click a column to sort"
    )
    return Html(
        FIT_CSS
        + to_html_datatable(
            frame,
            caption=caption,
            connected=False,
            autoWidth=False,
            style="table-layout:auto;width:100%;margin:auto;caption-side:bottom",
            maxBytes=0,
            maxRows=0,
            pageLength=page_length,
            lengthMenu=[10, 25, 100, 500],
            layout=LAYOUT,
            classes="display compact",
            showIndex=False,
            table_id="retrieval-cases-all",
        )
    )
