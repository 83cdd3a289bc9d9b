"""The interleaving page's tables, read from ``workbench interleave analyze LOG --json`` output (a
dict or its file): what the log held, the preference per repository, and the tasks each engine won.

Outcomes are the analysis's own (``a``, ``tie``, ``b`` per task); the page recomputes nothing but
counts and the preference ``(wins B - wins A) / n`` of a subset, the same formula as the whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CLICKS_A, CLICKS_B, OUTCOME, REPOS, SHOWN_AT
from ...errors import RenderError
from .._html import escaped
from .common import Html, Note, open_result, table

_NEEDS = ("log", "a", "b", "counts", "problems", "preference", "cases")
WON = {"a": "A", "b": "B"}


def open_interleaving(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """The analysis at ``source`` (an ``interleave analyze --json`` file), checked to be one; a
    RenderError names the file and what it lacks."""
    return open_result(source, _NEEDS, "interleaving", "(write it with `workbench interleave analyze --json`)")


def tasks(data: dict[str, Any]) -> pd.DataFrame:
    """One row per task with feedback, oldest first (ties in time keep the log's order)."""
    frame = pd.DataFrame(data["cases"], columns=["impression", SHOWN_AT, REPOS, "query", CLICKS_A, CLICKS_B, OUTCOME])
    frame[SHOWN_AT] = frame[SHOWN_AT].fillna("")
    frame[REPOS] = frame[REPOS].fillna("")
    return frame.sort_values(SHOWN_AT, kind="stable").reset_index(drop=True)


def interleaving_header(data: dict[str, Any]) -> Html:
    """Which engines, how many impressions, tasks and problems, and the overall preference."""
    counts = data["counts"]
    problems = {k: v for k, v in counts.items() if k not in ("lines", "impressions", "feedback", "tasks") and v}
    said = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in problems.items()) or "none"
    a, b = escaped(str(data["a"])), escaped(str(data["b"]))
    shown_at, tasks_n = escaped(counts.get("impressions", 0)), escaped(counts.get("tasks", 0))
    text = (
        f"<p><b>{a}</b> (A) against <b>{b}</b> (B), log <code>{escaped(str(data['log']))}</code>: "
        f"{shown_at} impressions, {tasks_n} with feedback (tasks). "
        f"Problems counted (and left out): {escaped(said)}.</p>"
    )
    pref = data["preference"]
    if pref is None:
        return Html(text + "<p>No task with feedback: no preference.</p>")
    favours = "B" if pref["preference"] > 0 else "A" if pref["preference"] < 0 else "neither"
    text += (
        f"<p>Wins A {escaped(pref['wins_a'])}, ties {escaped(pref['ties'])}, wins B {escaped(pref['wins_b'])}; "
        f"sign test p = {pref['p']:.3g}. "
        f"Preference (wins B - wins A) / n = {pref['preference']:+.3f}, 95% bootstrap interval "
        f"[{pref['ci_low']:+.3f}, {pref['ci_high']:+.3f}] (favours {favours}).</p>"
    )
    shown = "".join(f"<li>{escaped(str(p))}</li>" for p in data["problems"])
    return Html(text + (f"<p>First problems:</p><ul>{shown}</ul>" if shown else ""))


def _tally(frame: pd.DataFrame) -> pd.DataFrame:
    wins = pd.crosstab(frame[REPOS], frame[OUTCOME]).reindex(columns=["a", "tie", "b"], fill_value=0)
    out = pd.DataFrame(
        {"tasks": wins.sum(axis=1), "wins A": wins["a"], "ties": wins["tie"], "wins B": wins["b"]}, index=wins.index
    )
    out["preference"] = ((out["wins B"] - out["wins A"]) / out["tasks"]).round(3)
    return out


def interleaving_by_repo(data: dict[str, Any]) -> Styler | Note:
    """Per repository (the repositories an impression showed files of): tasks, wins and the preference."""
    frame = tasks(data)
    if frame.empty:
        return Note("No task with feedback, so no repository to compare on.")
    tally = _tally(frame.assign(**{REPOS: frame[REPOS].replace("", "(none shown)")}))
    tally.index.name = "repositories"
    return table(tally.sort_values(["tasks", "preference"], ascending=[False, True]).reset_index(), "by-repo")


def interleaving_won(data: dict[str, Any], team: str) -> Styler | Note:
    """The tasks engine ``team`` (``a`` or ``b``) won: when, where, the whole query and both click counts."""
    if team not in WON:
        raise RenderError(f"interleaving_won: team should be 'a' or 'b', got {team!r}")
    frame = tasks(data)
    won = frame[frame[OUTCOME] == team]
    name = data[team]
    if won.empty:
        return Note(f"{name} ({WON[team]}) won no task.")
    frame = won[[SHOWN_AT, REPOS, "query", CLICKS_A, CLICKS_B]].rename(
        columns={CLICKS_A: f"clicks A ({data['a']})", CLICKS_B: f"clicks B ({data['b']})"}
    )
    return table(frame.reset_index(drop=True), f"won-{team}")
