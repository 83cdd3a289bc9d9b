"""The scoreboard page: the run's verdict, floors, a target leaderboard and the failing cases.

Built for a newcomer who has a minute: what passed, what failed, and why.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, ERROR, PASSED, SUITE, TARGET
from ...store.runs import Run
from ...store.verdicts import FAIL, NO_FLOORS, PASS, SKIPPED, pair_verdict, run_verdict
from .._html import escaped
from ..text import verdict_text
from .common import (
    FAIL_CSS,
    MUTED_CSS,
    PASS_CSS,
    Html,
    Note,
    is_control,
    joined,
    k_of,
    label,
    scope_text,
    table,
    targets_of,
)
from .costs import cost_frame
from .reasons import explain


def run_header(run: Run) -> Html:
    """The run's identity and overall verdict, with the roles of its targets."""
    manifest, summary = run.manifest, run.summary
    corpus = manifest.get("corpus") or {}
    verdict = run_verdict(summary)
    colour = {PASS: "#137333", FAIL: "#c5221f"}.get(verdict, "#5f6368")
    targets = " · ".join(escaped(label(t)) for t in targets_of(run))
    facts = [
        f"created {manifest.get('created', '?')}",
        f"corpus {corpus.get('path', '?')} (sha256 {str(corpus.get('sha256', ''))[:12]}, k={k_of(run)})",
        scope_text(run),
        f"commit {manifest.get('git_commit') or 'unknown'}",
        f"sandbox: {summary.get('sandbox') or 'unknown'}",
    ]
    return Html(
        f'<h3>Run {escaped(run.run_id)}: <span style="color:{colour}">{verdict}</span></h3>'
        f"<p>{escaped(', '.join(facts))}</p>"
        f"<p>Targets: {targets}. Controls calibrate the report and never gate the verdict.</p>"
    )


def verdicts(run: Run) -> Styler | Note:
    """Suite x target: PASS/FAIL with the cases passed and, on failure, the floors missed."""
    suites = run.summary.get("suites") or {}
    if not suites:
        return Note("This run has no suite results.")
    targets = targets_of(run)
    frame = pd.DataFrame(
        [
            {"suite": suite, **{label(t): verdict_text(per[t]) if t in per else "-" for t in targets}}
            for suite, per in suites.items()
        ]
    )
    controls = [label(t) for t in targets if is_control(t)]
    styler = table(frame, "verdicts", [label(t) for t in targets if not is_control(t)])
    return styler.map(lambda _: MUTED_CSS, subset=controls) if controls else styler


def floor_frame(run: Run) -> pd.DataFrame:
    """Long frame of every summary metric: suite, metric, floor, target, value."""
    rows = [
        {
            SUITE: suite,
            "metric": metric,
            "floor": (result.get("thresholds") or {}).get(metric),
            TARGET: target,
            "value": value,
        }
        for suite, per in (run.summary.get("suites") or {}).items()
        for target, result in per.items()
        if not result.get("skipped")
        for metric, value in (result.get("metrics") or {}).items()
    ]
    frame = pd.DataFrame(rows, columns=[SUITE, "metric", "floor", TARGET, "value"])
    return frame.astype({"floor": "float64", "value": "float64"})


def floors(run: Run) -> Styler | Note:
    """Every metric against its floor, one column per target; misses in red, controls greyed."""
    long = floor_frame(run)
    if long.empty:
        return Note("This run has no metrics to compare with floors.")
    targets = [t for t in targets_of(run) if t in set(long[TARGET])]
    wide = long.set_index([SUITE, "metric", TARGET])["value"].unstack(TARGET).reindex(columns=targets)
    floor = long.groupby([SUITE, "metric"], sort=False)["floor"].first()
    wide = wide.reindex(floor.index).assign(floor=floor).reset_index()
    wide = wide[[SUITE, "metric", "floor", *targets]].rename_axis(columns=None)

    def colour(column: pd.Series) -> list[str]:
        if is_control(str(column.name)):
            return [MUTED_CSS] * len(column)
        values = column.to_numpy(float)
        met = values >= wide["floor"].to_numpy(float)
        judged = wide["floor"].notna().to_numpy() & ~np.isnan(values)  # a target without the metric
        return [(PASS_CSS if ok else FAIL_CSS) if shown else "" for ok, shown in zip(met, judged)]

    styler = table(wide, "floors").apply(colour, subset=targets)
    return styler.relabel_index([label(str(c)) if c in targets else c for c in wide.columns], axis="columns")


def leaderboard(run: Run) -> Styler | Note:
    """Targets ranked by the share of cases they pass, controls included for calibration."""
    cases = run.cases
    if cases.empty:
        return Note("This run has no cases.")
    errors = cases[ERROR].notna() & cases[ERROR].astype(str).ne("")
    seconds = pd.to_numeric(cases["seconds"], errors="coerce") if "seconds" in cases else np.nan
    stats = (
        cases.assign(_passed=cases[PASSED].fillna(False).astype(bool), _error=errors, _seconds=seconds)
        .groupby(TARGET, sort=False)
        .agg(cases=(CASE, "size"), passed=("_passed", "sum"), errors=("_error", "sum"), seconds=("_seconds", "mean"))
    )
    stats["pass rate"] = stats["passed"] / stats["cases"]
    spent = cost_frame(run).set_index("target")[["cost (USD)", "cost/case (USD)"]]  # NaN: no usage reported
    stats = stats.join(spent).join(_suite_pass_rates(cases)).sort_values("pass rate", ascending=False, kind="stable")
    stats.insert(0, "role", ["control" if is_control(t) else "candidate" for t in stats.index])
    frame = stats.reset_index().rename(columns={"seconds": "mean seconds/case"})
    return table(frame, "leaderboard", precision=4).set_caption(
        "Cost is what the engines reported (usage.cost_usd); - where an engine reported none (unknown, never 0)"
    )


def _suite_pass_rates(cases: pd.DataFrame) -> pd.DataFrame:
    rates = cases.assign(_passed=cases[PASSED].fillna(False).astype(float)).pivot_table(
        index=TARGET, columns=SUITE, values="_passed", aggfunc="mean", sort=False
    )
    return rates.rename(columns=lambda s: f"{s} pass rate")


def failures(run: Run, limit: int = 40) -> Styler | Note:
    """The failing cases of the gating targets (controls only when nothing else ran), with why."""
    cases = run.cases
    gating = [t for t in targets_of(run) if not is_control(t)] or targets_of(run)
    failed = cases[cases[TARGET].isin(gating) & ~cases[PASSED].fillna(False).astype(bool)]
    if failed.empty:
        return Note(f"Every case of {', '.join(gating)} passed.")
    k = k_of(run)
    frame = failed[[SUITE, TARGET, CASE]].assign(why=[explain(row, k) for row in failed.to_dict("records")])
    shown = frame.head(limit)
    more = f" ({len(frame) - limit} more not shown)" if len(frame) > limit else ""
    return table(shown, "failures").set_caption(f"{len(frame)} failing case(s){more}")


def headline(run: Run) -> Html:
    """One sentence per gating target: which suites met their floors, and how many cases passed.

    A suite passes on its floors, so "every suite passed" and "few cases passed" can both be true;
    the sentence says which is which instead of joining them into a contradiction."""
    cases = run.cases
    lines = []
    for target in [t for t in targets_of(run) if not is_control(t)] or targets_of(run):
        mine = cases[cases[TARGET] == target]
        passed = int(np.sum(mine[PASSED].fillna(False).astype(bool)))
        listed = [(s, per[target]) for s, per in (run.summary.get("suites") or {}).items() if target in per]
        ran = [(s, pair_verdict(result)) for s, result in listed if pair_verdict(result) != SKIPPED]
        bad = [s for s, v in ran if v == FAIL]
        unjudged = [s for s, v in ran if v == NO_FLOORS]
        name = f"<b>{escaped(target)}</b>"
        if not ran:
            lines.append(f"<li>{name} ran no suite: every suite was skipped.</li>")
            continue
        if bad:
            verdict = f"fails {escaped(joined(bad))} ({len(bad)} of the {len(ran)} suite(s) it ran)"
        elif len(unjudged) == len(ran):
            verdict = f"has no floors in any of the {len(ran)} suite(s) it ran (NO FLOORS: nothing was judged)"
        elif unjudged:
            verdict = (
                f"meets the floors of all {len(ran) - len(unjudged)} judged suite(s) it ran "
                f"({escaped(joined(unjudged))}: NO FLOORS)"
            )
        else:
            verdict = f"meets the floors of all {len(ran)} suite(s) it ran"
        lines.append(f"<li>{name} {verdict}; {passed} of its {len(mine)} case(s) pass.</li>")
    return Html(f"<ul>{''.join(lines)}</ul>")


def controls(run: Run) -> Styler | Note:
    """Each candidate against each control on the suite's headline metric: both means, the paired
    delta, n and the t-test's p-value, and whether it beats the control (below one is in red)."""
    section = run.summary.get("controls") or {}
    rows = [
        {
            SUITE: suite,
            "candidate": cand,
            "control": ctrl,
            "metric": c["metric"],
            "n": c["n"],
            "candidate value": c["candidate"],
            "control value": c["control"],
            "delta": c["delta"],
            "p": "-" if c["p"] is None else f"{c['p']:.3g}",
            "verdict": "beats" if c["beats"] else "BELOW (warning)" if c["below"] else "not significantly better",
        }
        for suite, per in section.items()
        for cand, versus in per.items()
        for ctrl, c in versus.items()
    ]
    if not rows:
        return Note("This run has no candidate and control that scored the same headline metric.")
    frame = pd.DataFrame(rows)
    styler = table(frame, "controls")
    return styler.map(lambda v: FAIL_CSS if str(v).startswith("BELOW") else "", subset=["verdict"])
