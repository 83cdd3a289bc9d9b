"""Issue 41, item 1: every text a report page shows is escaped in one place (``report/_html.py``):
a ``Table`` (what every view's ``table`` makes) escapes cells, headers and captions whatever a view
did after ``table``, and no other module of the report escapes or styles on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from workbench.report._html import escape_table, escaped, safe_id
from workbench.report.views.common import Note, Table, table

from ..conftest import REPO_ROOT

PAYLOAD = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
SHOWN = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"


def _rendered(frame: pd.DataFrame, name: str = "t") -> str:
    styler = table(frame, name).set_caption(f"caption {PAYLOAD}")
    styler = styler.format(lambda v: f"{v} {PAYLOAD}", subset=["n"])  # a view's own formatter, after table
    return styler.relabel_index([f"col {PAYLOAD}", "n"], axis="columns").to_html()


def test_a_table_escapes_cells_headers_captions_and_later_formatters() -> None:
    page = _rendered(pd.DataFrame({PAYLOAD: [PAYLOAD, f"a\n{PAYLOAD}"], "n": [1, 2]}))
    assert "<img" not in page and "<script" not in page
    assert page.count(SHOWN) == 6  # two cells, two formatted numbers, a header, the caption
    assert "a\n&lt;img" in page  # text stays text: line breaks kept for white-space:pre-line


def test_a_table_id_cannot_leave_its_attribute_or_css_selector() -> None:
    page = _rendered(pd.DataFrame({"a": ["x"], "n": [1]}), name='cases-"></table><script>alert(3)</script>')
    assert "<script" not in page and 'id="T_cases-----table--script-alert-3---script-"' in page
    assert re.search(r"#T_cases-----table--script-alert-3---script- td", page)


def test_the_choke_point_on_its_own() -> None:
    assert escaped(PAYLOAD) == SHOWN and escaped(3) == "3" and escaped("'") == "&#x27;"
    assert safe_id("a b<c>_d-1") == "a-b-c-_d-1"
    rendered = {
        "uuid": "x<y",
        "caption": ("a<b", "c"),
        "head": [
            [{"class": "blank level0", "display_value": "&nbsp;"}, {"class": "col_heading", "display_value": "<h>"}]
        ],
        "body": [[{"class": "data", "display_value": "<d>"}]],
    }
    out = escape_table(rendered)
    assert out["uuid"] == "x-y" and out["caption"] == ["a&lt;b", "c"]
    assert [c["display_value"] for c in out["head"][0]] == ["&nbsp;", "&lt;h&gt;"]
    assert out["body"][0][0]["display_value"] == "&lt;d&gt;"


def test_a_note_shows_its_text_literally() -> None:
    assert SHOWN in str(Note(PAYLOAD)) and "<img" not in str(Note(PAYLOAD))


def test_no_report_module_escapes_or_builds_a_styler_on_its_own() -> None:
    """One place: ``html.escape`` only in ``_html.py``, a Styler only through ``views.common.table``."""
    report = REPO_ROOT / "workbench" / "report"
    own: list[str] = []
    for path in sorted(report.rglob("*.py")):
        text = path.read_text()
        rel = path.relative_to(report).as_posix()
        if rel != "_html.py" and re.search(r"\bhtml\.escape\b|^import html$", text, re.M):
            own.append(f"{rel}: html.escape")
        if rel != "views/common.py" and re.search(r"\.style\b\s*(\.|$)|\bStyler\(|\bTable\(", text, re.M):
            own.append(f"{rel}: builds a Styler")
    assert not own, own
    assert issubclass(Table, pd.io.formats.style.Styler)


def test_every_styler_a_view_returns_is_a_table(tmp_path: Path) -> None:
    from workbench.report import views

    from ..report_runs import hostile_run

    run = views.open_run(hostile_run(tmp_path, lambda field: f"{field} {PAYLOAD}"))
    shown = [
        views.verdicts(run),
        views.floors(run),
        views.leaderboard(run),
        views.failures(run),
        views.retrieval_cases(run),
        views.retrieval_by_fixture(run),
        views.risk_cases(run),
        views.harness_commands(run),
        views.findings_by_rule(run),
        views.metric_by_case(run, "ranking", "ndcg@10"),
        views.group_metrics(run, "ranking", "category"),
        views.costs(run),
    ]
    for view in shown:
        assert isinstance(view, Table), type(view)
        page = view.to_html()
        assert "<img" not in page and "<script" not in page, page[:2000]
    assert any(SHOWN in view.to_html() for view in shown)


def test_the_calibration_and_interleaving_headers_show_every_field_literally() -> None:
    from workbench.report import views

    calibration = {
        **{key: PAYLOAD for key in ("repo", "target", "commits", "changes", "observed", "censored")},
        **{key: PAYLOAD for key in ("fixCommits", "blameCalls", "minOutcomes", "gated", "gateVerdicts")},
        "window": {"commits": PAYLOAD},
        "outcomes": {"either": PAYLOAD},
        "notes": [PAYLOAD],
    }
    interleaving = {
        "a": PAYLOAD,
        "b": PAYLOAD,
        "log": PAYLOAD,
        "counts": {"impressions": PAYLOAD, "tasks": PAYLOAD, PAYLOAD: 1},
        "preference": {"wins_a": PAYLOAD, "ties": PAYLOAD, "wins_b": PAYLOAD, "p": 0.5, "preference": 0.1}
        | {"ci_low": 0.0, "ci_high": 0.2},
        "problems": [PAYLOAD],
    }
    for page in (views.calibration_header(calibration), views.interleaving_header(interleaving)):
        assert "<img" not in page and "<script" not in page, page
        assert SHOWN in page
