"""The trend as a table: text for a terminal, markdown for a pull-request comment.

One block per line (target, suite, metric), its runs oldest first with every recording of each
baseline between them; the ``step`` column flags a significant move from the run before
(``REGRESSED`` or ``IMPROVED`` with its p), a new corpus version, and a recording's commits (the
one its run was made at, the one that stored it, and ``(current)`` for the file on disk now).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..columns import METRIC, SUITE, TARGET

if TYPE_CHECKING:
    import pandas as pd


class Trend(Protocol):
    """What the rendering reads of a ``trend.Trend`` (which imports this module)."""

    corpus: str
    points: pd.DataFrame
    baselines: pd.DataFrame
    versions: list[dict[str, Any]]
    notes: list[str]

    def table(self) -> pd.DataFrame: ...


HEADER = ["when", "run", "corpus", "target", "suite", "metric", "value", "95% CI", "n", "step"]
MARKDOWN_LIMIT = 60_000


def trend_rows(trend: Trend) -> pd.DataFrame:
    """One row per run and line, and one per baseline mark, by line then time (``HEADER``)."""
    import pandas as pd

    points = trend.points
    rows = [
        [
            _when(p.created),
            p.run_id,
            f"v{p.version}",
            p.target,
            p.suite,
            p.metric,
            _num(p.value),
            f"[{_num(p.ci_low)}, {_num(p.ci_high)}]",
            str(p.n),
            _step_text(p, first),
        ]
        for p, first in zip(points.itertuples(index=False), _new_version(points), strict=True)
    ]
    rows += [_baseline_row(trend, b) for b in trend.baselines.itertuples(index=False)]
    frame = pd.DataFrame(rows, columns=HEADER)
    return frame.sort_values([TARGET, SUITE, METRIC, "when"], kind="stable").reset_index(drop=True)


def _baseline_row(trend: Trend, b: Any) -> list[str]:
    """A baseline's mark on its line: when it was recorded, its value, and the commit."""
    where = _version_of(trend, b.corpus_sha256)
    mark = f"baseline recorded at commit {_short(b.git_commit, 12)}"
    committed = _short(getattr(b, "committed_in", None), 12)
    mark += f", committed in {committed}" if committed != "?" else ""
    mark += " (current)" if getattr(b, "on_disk", None) is True else ""
    return [_when(b.recorded), f"baseline {b.name}", where, b.target, b.suite, b.metric, _num(b.value), "", "", mark]


def _new_version(points: pd.DataFrame) -> list[bool]:
    """Whether each point is on another corpus version than the point before it on its line."""
    line = points[TARGET] + "\0" + points[SUITE] + "\0" + points[METRIC]
    return list((points["version"] != points["version"].shift()) & (line == line.shift()))


def _step_text(point: Any, new_version: bool) -> str:
    parts = [f"corpus changed (v{point.version})"] if new_version else []
    flag = point.step
    if isinstance(flag, str) and flag:
        delta, p, n = (getattr(point, c) for c in ("step_delta", "step_p", "step_n"))
        parts.append(f"{flag}: {delta:+.3f} on {n} shared cases, p={p:.3g}")
    return "; ".join(parts)


def _version_of(trend: Trend, sha: object) -> str:
    found = [v["version"] for v in trend.versions if v["sha256"] == sha]
    return f"v{found[0]}" if found else "other"


def _short(commit: object, length: int) -> str:
    """A commit's first ``length`` characters, ``?`` when there is none (None or NaN)."""
    return str(commit)[:length] if isinstance(commit, str) and commit else "?"


def _when(stamp: object) -> str:
    return str(stamp or "?").replace("T", " ").removesuffix("Z")[:16]


def _num(x: object) -> str:
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "-"
    return "-" if value != value else f"{value:.3f}"


def trend_summary(trend: Trend) -> str:
    """The trend in one line: runs, corpus versions, baselines, significant steps."""
    runs = trend.points["run_id"].nunique()
    steps = int(trend.points["step"].notna().sum()) if "step" in trend.points else 0
    marks = trend.baselines["name"].nunique() if len(trend.baselines) else 0
    takes = len(trend.baselines.drop_duplicates(["name", "recorded", "run_id"])) if len(trend.baselines) else 0
    return (
        f"Trend of {trend.corpus}: {runs} run(s), {len(trend.versions)} corpus version(s), "
        f"{marks} baseline(s) in {takes} recording(s), "
        f"{steps} significant step(s) between consecutive runs (paired t, p < 0.05)"
    )


def trend_text(trend: Trend) -> str:
    """The table for a terminal, under a one-line summary."""
    frame = trend.table()
    cells = [HEADER, *frame.astype(str).values.tolist()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join([trend_summary(trend), *trend.notes, "", *lines])


def trend_markdown(trend: Trend, limit: int = MARKDOWN_LIMIT) -> str:
    """The table as markdown for a PR comment, cut to ``limit`` characters (saying so)."""
    frame = trend.table()
    head = ["### workbench trend", "", trend_summary(trend), *trend.notes, ""]
    table = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    out = "\n".join(head + table)
    for row in frame.astype(str).values.tolist():
        line = "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
        if len(out) + len(line) + 200 > limit:
            return out + f"\n\n{len(frame)} rows in all; the rest are in `workbench trend --format json`."
        out += "\n" + line
    return out
