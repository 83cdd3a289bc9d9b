"""The trend page's tables: every run of a corpus over time (``workbench.analysis.trend``), read
from ``workbench trend --json`` output, or computed for the corpus of the run a report is about."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pandas.io.formats.style import Styler

from ...analysis.trend import Trend
from ...analysis.trend import trend as compute_trend
from ...contract import CONTROL_TARGETS
from .._html import escaped
from .common import Html, Note, open_result, open_run, table

_NEEDS = ("corpus", "versions", "points", "baselines")


def open_trend(source: str | Path | dict[str, Any] | None = None, run_dir: str | Path | None = None) -> Trend:
    """The trend in ``source`` (a ``workbench trend --format json`` file or object), else the trend
    of the corpus of the run at ``run_dir`` (default: the latest) over the runs beside it, for its
    candidate targets and the metrics it has floors for (all its metrics when it has none)."""
    if source is not None:
        return Trend.from_dict(open_result(source, _NEEDS, "trend"))
    run = open_run(run_dir)
    corpus = (run.manifest.get("corpus") or {}).get("path")
    targets = [t for t in run.targets if t not in CONTROL_TARGETS] or list(run.targets)
    floors = sorted(
        {m for per in run.summary.get("suites", {}).values() for r in per.values() for m in r.get("thresholds") or {}}
    )
    return compute_trend(corpus, run.path.parent, targets=targets, metrics=floors or None)


def trend_header(trend: Trend) -> Html:
    """What the trend covers: the corpus, its versions (with their first run), runs and baselines."""
    versions = "".join(
        f"<li>v{v['version']}: sha256 <code>{escaped(str(v['sha256'])[:12])}</code>, from run "
        f"{escaped(str(v['first_run']))}</li>"
        for v in trend.versions
    )
    notes = "".join(f"<li>{escaped(str(n))}</li>" for n in trend.notes)
    from ...analysis.trend_text import trend_summary

    return Html(
        f"<p>{escaped(trend_summary(trend))}.</p><p>Corpus versions:</p><ul>{versions}</ul>"
        + (f"<ul>{notes}</ul>" if notes else "")
    )


def trend_table(trend: Trend) -> Styler | Note:
    """Every point by line then time, with the baselines between them and each flagged step."""
    frame = trend.table()
    if frame.empty:
        return Note("No run has a value for these targets and metrics.")
    return table(frame, "trend")
