"""The calibration page's tables, read from ``workbench calibrate --json`` output (a dict or its file).

The page shows what the command measured and nothing else: withheld figures stay withheld with
their count, exactly as the terminal report prints them (``workbench.calibration.render``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ...calibration import OUTCOMES, lift_text, rate_text
from .._html import escaped
from .common import Html, Note, open_result, table

_NEEDS = ("repo", "target", "flags", "outcomes", "observed", "changes")


def open_calibration(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """The calibration result at ``source`` (a ``--json`` file), checked to be one; a RenderError names the file."""
    return open_result(source, _NEEDS, "calibration")


def calibration_header(data: dict[str, Any]) -> Html:
    """What was read and counted: repository, target, window, changes observed and censored, outcomes, notes."""
    window = data.get("window") or {}
    span = f"{window['commits']} commits" if window.get("commits") else f"{window.get('days', '?')} days"
    outcomes = ", ".join(f"{k} {data['outcomes'].get(k, 0)}" for k in OUTCOMES)
    gated = "" if data.get("gated") is None else f" The gate judged {data['gated']} change(s): {data['gateVerdicts']}."
    keys = ("commits", "changes", "observed", "censored", "fixCommits", "blameCalls")
    said = {key: escaped(data.get(key, "?")) for key in keys} | {"least": escaped(data.get("minOutcomes", 30))}
    text = (
        f"<p><b>{escaped(data['repo'])}</b> with target <code>{escaped(data['target'])}</code>, "
        f"window {escaped(span)}: {said['commits']} commits read, {said['changes']} changes, "
        f"{said['observed']} observed, {said['censored']} censored (window not over at the newest commit). "
        f"Outcomes: {escaped(outcomes)} ({said['fixCommits']} fix commits examined, "
        f"{said['blameCalls']} blame calls).{escaped(gated)} A rate needs at least "
        f"{said['least']} observed changes in its group; intervals are Wilson 95%, lifts MOVER-R.</p>"
    )
    notes = "".join(f"<li>{escaped(str(n))}</li>" for n in data.get("notes") or [])
    return Html(text + (f"<ul>{notes}</ul>" if notes else ""))


def calibration_flags(data: dict[str, Any], outcome: str = "either") -> Styler | Note:
    """Per flag, for one outcome: changes flagged and not, the two rates with intervals, and the lift
    (its frame is ``.data``; every cell is shown whole and escaped)."""
    rows = [r for r in data["flags"] if r["outcome"] == outcome]
    if not rows:
        return Note(f"No flag to show for '{outcome}': the target flagged no observed change.")
    frame = pd.DataFrame(
        {
            "flag": [r["flag"] for r in rows],
            "flagged": [r["flagged"] for r in rows],
            "rate flagged [95%]": [
                rate_text(r["rate_flagged"], r["rate_flagged_low"], r["rate_flagged_high"], r["flagged"]) for r in rows
            ],
            "unflagged": [r["unflagged"] for r in rows],
            "rate unflagged [95%]": [
                rate_text(r["rate_unflagged"], r["rate_unflagged_low"], r["rate_unflagged_high"], r["unflagged"])
                for r in rows
            ],
            "lift [95%]": [lift_text(r) for r in rows],
        }
    )
    return table(frame, f"calibration-flags-{outcome}")


def brier_scores(data: dict[str, Any]) -> Styler | Note:
    """Per scored flag: the Brier score against 'either' (withheld under the minimum), with its count."""
    rows = data.get("brier")
    if not rows:
        return Note("The target gave no scores (risk_concepts answered sets), so there is no Brier score.")
    frame = pd.DataFrame(rows)
    frame["brier"] = [None if w else b for b, w in zip(frame["brier"], frame["withheld"], strict=True)]
    return table(frame[["flag", "changes", "brier", "withheld"]], "brier-scores")


__all__ = ["brier_scores", "calibration_flags", "calibration_header", "open_calibration"]
