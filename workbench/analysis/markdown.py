"""GitHub-flavoured markdown for a pull-request comment or ``$GITHUB_STEP_SUMMARY``: a table and
the verdict, never longer than GitHub accepts (65,536 characters; we stay under 65,000).

``fit`` keeps the heading and the verdict whole and drops table rows from the end, saying how many
were left out, so a truncated summary still ends with what was decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..columns import METRIC, PASSED

if TYPE_CHECKING:
    from .comparison import Comparison

LIMIT = 65_000


def fit(head: list[str], rows: list[str], tail: list[str], limit: int = LIMIT, where: str = "") -> str:
    """``head`` + table ``rows`` + ``tail`` as one text of at most ``limit`` characters."""
    text = "\n".join([*head, *rows, *tail])
    if len(text) <= limit:
        return text
    note = f"_Table truncated: {{shown}} of {len(rows)} rows shown{f'; {where}' if where else ''}._"
    budget = limit - len("\n".join([*head, *tail, note.format(shown=len(rows))])) - 2
    kept: list[str] = []
    for row in rows:
        budget -= len(row) + 1
        if budget < 0:
            break
        kept.append(row)
    text = "\n".join([*head, *kept, "", note.format(shown=len(kept)), *tail])
    return text[:limit]  # a heading or verdict alone longer than the limit is cut as a last resort


def table(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[str]]:
    """A markdown table as (header and rule lines, row lines); ``|`` in a cell is escaped."""

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(header), "|" + "|".join(" --- " for _ in header) + "|"], [line(r) for r in rows]


def comparison_github(comparison: Comparison, limit: int = LIMIT) -> str:
    """``workbench compare --format markdown``: the sides, the per-metric table and the verdict."""
    from .comparison_text import _HEADER, _case_lines, _metric_cells, _pass_fail_lines, _verdict_lines

    rows = comparison.comparisons
    metrics = rows[rows[METRIC] != PASSED]
    head, body = table(_HEADER, [_metric_cells(row) for row in metrics.itertuples(index=False)])
    verdict = [line.strip() for line in _verdict_lines(comparison) if line.strip()]
    intro = [
        f"### workbench compare: {comparison.verdict}",
        "",
        f"A: `{comparison.a}`  ",
        f"B: `{comparison.b}` (delta = B - A, paired by case)",
        *(f"> {note}" for note in comparison.notes),
        "",
    ]
    changes = [line.strip() for line in _pass_fail_lines(rows[rows[METRIC] == PASSED]) + _case_lines(comparison.cases)]
    tail = ["", *(f"- {line}" for line in changes if line), "", f"**{verdict[0]}**", *verdict[1:]]
    return fit(intro + head, body, tail, limit, "`workbench compare --json` has every row")
