"""Baseline-diff and significance views over a ``workbench.compare`` Comparison.

Side A is the reference (the baseline, or a control target of the same run), side B the
candidate target of this run; every delta is B - A, paired by case. Without a baseline
these helpers return one ``Note`` each instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, METRIC, PASSED, SUITE
from ...errors import WorkbenchError
from ...paths import Locations
from ...store.runs import Run
from .._html import escaped
from .._kernel_cache import identity, remember, stamp
from .common import Html, Note, primary_target, table, unless_quiet

CASE_STATUSES = ("regressed", "mixed", "improved", "new", "missing", "unchanged")


def open_baseline(spec: str | None, where: Locations | None = None, run: Run | None = None) -> Any:
    """The baseline side named by ``spec`` (a baseline name, a run directory or ``RUN#TARGET``)
    in ``where`` (default: the project's runs, and the baselines beside ``run``'s corpus, else the
    project's corpus's; ``workbench report`` hands the notebooks a resolved path, so its
    ``--corpus`` holds), or a Note when none was given or it cannot be found. Cached per process,
    like ``open_run``."""
    if not spec:
        return Note("No baseline given (set the baseline parameter: a baseline name, a run or RUN#TARGET).")
    from ...analysis.comparison import load_side
    from ...store.headers import locations_for

    try:
        where = where or locations_for([str(run.path)] if run is not None else [], None, Locations.project().runs)
        side = where.side(str(spec))
        return remember(("side", str(spec), stamp(side.path)), lambda: load_side(side))
    except WorkbenchError as exc:
        return Note(f"Baseline {spec!r} unavailable: {exc}")


def compare_runs(
    run: Run, base: Any, target: str | None = None, against: str | None = None, gate: str | None = None, seed: int = 0
) -> Any:
    """Compare ``target`` of ``run`` (default: the first non-control) with ``base``, or, when
    there is no baseline and ``against`` names another target of the run, with that target:
    per-case changes, paired statistics per metric and the gate verdict.

    Cached in the kernel by the files of both sides and the options (``_kernel_cache``), so a
    kernel that renders several notebooks compares once."""
    target = target or primary_target(run)
    problem = _unpaired(run, base, target, against)
    if problem is not None:
        return problem
    reference = base if _has_side(base) else run.select(str(against))
    from ...analysis.comparison import compare

    key = ("compare", identity(run), identity(base) if _has_side(base) else f"#{against}", target, gate, seed)
    return remember(
        key, lambda: _guarded(lambda: compare(reference, run.select(target), gate=gate, seed=seed), reference, target)
    )


def diff_runs(run: Run, base: Any, target: str | None = None) -> Any:
    """Per-case changes of ``target`` (default: the first non-control) against ``base``, without
    the statistics of ``compare_runs`` (no scipy, a few milliseconds): what ``describe``,
    ``change_counts`` and ``changed_cases`` need. Cached per process like ``compare_runs``."""
    target = target or primary_target(run)
    problem = _unpaired(run, base, target, None)
    if problem is not None:
        return problem
    from ...analysis.comparison import diff_cases

    return remember(
        ("cases", identity(run), identity(base), target),
        lambda: _guarded(lambda: diff_cases(base, run.select(target)), base, target),
    )


def _has_side(base: Any) -> bool:
    return base is not None and not isinstance(base, Note)


def _unpaired(run: Run, base: Any, target: str, against: str | None) -> Note | None:
    """The Note shown instead of a comparison, or None when there is a side to compare with."""
    if target not in run.targets:
        return Note(f"No target {target!r} in this run (has {', '.join(run.targets)}).")
    if _has_side(base):
        return None
    if not against or against == target:
        return base if isinstance(base, Note) else open_baseline(None)
    if against not in run.targets:
        return Note(f"No baseline, and no {against!r} target in this run to compare {target} with.")
    return None


def _guarded(build: Callable[[], Any], reference: Any, target: str) -> Any:
    """``build()``, or a Note saying why the two sides cannot be compared."""
    try:
        return build()
    except WorkbenchError as exc:
        return Note(f"Cannot compare {target} with {getattr(reference, 'run_id', reference)}: {exc}")


def describe(comparison: Any) -> Html | Note:
    """Which two sides are compared, and how many cases they share."""
    if isinstance(comparison, Note):
        return comparison
    paired = comparison.cases.dropna(subset=["value_a", "value_b"])[[SUITE, CASE]].drop_duplicates()
    same = getattr(comparison, "verdict", None) == "UNCHANGED"
    nothing = f"<p><b>Nothing changed</b>: {escaped(comparison.reason)}</p>" if same else ""
    return Html(
        f"<p><b>A</b> (reference): {escaped(comparison.a)}<br><b>B</b> (candidate): "
        f"{escaped(comparison.b)}<br>delta = B - A, paired by case over {len(paired)} "
        f"case(s) in {paired[SUITE].nunique()} suite(s).</p>{nothing}"
    )


def case_status(comparison: Any) -> pd.DataFrame:
    """One row per (suite, case): regressed, mixed, improved, new, missing or unchanged, and what moved.

    Computed once per comparison and kept on it (a page lists several statuses from one); treat
    it as read-only."""
    cached = comparison.__dict__.get("_case_status")
    if cached is None:
        cached = comparison.__dict__["_case_status"] = _case_status(comparison.cases)
    return cached


def _case_status(rows: pd.DataFrame) -> pd.DataFrame:
    flags = rows.assign(
        _new=rows["status"].eq("new"),
        _missing=rows["status"].eq("missing"),
        _improved=rows["status"].eq("improved"),
        _regressed=rows["status"].eq("regressed"),
    )
    agg = flags.groupby([SUITE, CASE], sort=False).agg(
        new=("_new", "all"), missing=("_missing", "all"), improved=("_improved", "any"), regressed=("_regressed", "any")
    )
    status = np.select(
        [agg["new"], agg["missing"], agg["improved"] & agg["regressed"], agg["regressed"], agg["improved"]],
        ["new", "missing", "mixed", "regressed", "improved"],
        "unchanged",
    )
    moved = rows[rows["status"].isin(["improved", "regressed"])]
    text = pd.Series(
        [_change(m, a, b) for m, a, b in zip(moved[METRIC], moved["value_a"], moved["value_b"])],
        index=moved.index,
        dtype=object,
    )
    changes = text.groupby([moved[SUITE], moved[CASE]], sort=False).agg("; ".join)
    out = agg.assign(status=status).join(changes.rename("changes")).reset_index()
    return out[[SUITE, CASE, "status", "changes"]].fillna({"changes": ""})


def _change(metric: str, a: float, b: float) -> str:
    if metric == PASSED:
        return f"{'PASS' if a > 0.5 else 'FAIL'} -> {'PASS' if b > 0.5 else 'FAIL'}"
    return f"{metric} {a:.3f} -> {b:.3f}"


def heading(comparison: Any, title: str, text: str = "") -> Html:
    """A section heading (and its one-paragraph introduction) of a page over a comparison, or
    nothing when there is no comparison: the page then says why once (``describe``), not once
    under every heading."""
    if isinstance(comparison, Note):
        return Html("")
    intro = f"<p>{escaped(text)}</p>" if text else ""
    return Html(f"<h2>{escaped(title)}</h2>{intro}")


def change_counts(comparison: Any, quiet: bool = False) -> Styler | Html:
    """Per suite, how many cases regressed, improved, appeared, disappeared or stayed the same
    (``quiet``: nothing instead of the Note a page already showed)."""
    if isinstance(comparison, Note):
        return unless_quiet(comparison, quiet)
    shown, one_sided = two_sided(comparison)
    line = " ".join(f"{suite}: not in {side}." for suite, side in one_sided.items())
    if shown.empty:
        return Note(line or "No cases to count.")
    counts = pd.crosstab(shown[SUITE], shown["status"]).reindex(columns=list(CASE_STATUSES), fill_value=0)
    styled = table(counts.reset_index().rename_axis(columns=None), "change-counts")
    return styled.set_caption(line) if line else styled


def changed_cases(
    comparison: Any, status: str = "regressed", suite: str | Sequence[str] | None = None, quiet: bool = False
) -> Styler | Html:
    """The cases with one status (``regressed``, ``improved``, ``new``, ``missing``, ``mixed``),
    optionally of one suite or of some (a page lists only its own suites); ``quiet``: nothing
    instead of the Note a page already showed."""
    if isinstance(comparison, Note):
        return unless_quiet(comparison, quiet)
    statuses = case_status(comparison)
    wanted = [suite] if isinstance(suite, str) else list(suite or [])
    chosen = statuses[(statuses["status"] == status) & (statuses[SUITE].isin(wanted) if wanted else True)]
    suite = "/".join(wanted) or None
    scope = f" {suite}" if suite else ""
    absent = _absent_suites(statuses, status) if status in ("new", "missing") else {}
    line = ""
    if absent:  # a suite one side did not run at all is one line, not one row per case
        side = "this run" if status == "missing" else "the baseline"
        line = f"Not in {side}: " + ", ".join(f"{s} ({n} case(s))" for s, n in absent.items()) + "."
        chosen = chosen[~chosen[SUITE].isin(list(absent))]
    if chosen.empty:
        return Note(line or f"No {status}{scope} cases.")
    caption = f"{len(chosen)} {status}{scope} case(s)" + (f". {line}" if line else "")
    return table(chosen.drop(columns="status"), f"cases-{status}{'-' + suite if suite else ''}").set_caption(caption)


def two_sided(comparison: Any) -> tuple[pd.DataFrame, dict[str, str]]:
    """The case statuses of the suites both sides ran, and each suite only one side ran -> the side
    it is missing from (``this run`` or ``the baseline``): such a suite is one line, not a count."""
    statuses = case_status(comparison)
    one_sided = {
        **{s: "this run" for s in _absent_suites(statuses, "missing")},
        **{s: "the baseline" for s in _absent_suites(statuses, "new")},
    }
    return statuses[~statuses[SUITE].isin(list(one_sided))], one_sided


def _absent_suites(statuses: pd.DataFrame, status: str) -> dict[str, int]:
    """Suites every case of which has ``status`` (new or missing): one side did not run the suite."""
    per = statuses.groupby(SUITE, sort=False)["status"].agg(lambda s: (s == status).all() and len(s))
    return {str(suite): int(n) for suite, n in per.items() if n}


def metric_deltas(comparison: Any, quiet: bool = False) -> Styler | Html:
    """Per metric: the two means, the paired delta with its bootstrap 95% CI, wins/ties/losses
    (``quiet``: nothing instead of the Note a page already showed)."""
    if isinstance(comparison, Note):
        return unless_quiet(comparison, quiet)
    frame = comparison.comparisons
    if frame.empty:
        return Note("The two sides share no metric to compare.")
    shown = frame[
        [SUITE, METRIC, "n", "mean_a", "mean_b", "delta", "ci_low", "ci_high", "wins", "ties", "losses", "effect_size"]
    ].rename(columns={"mean_a": "A", "mean_b": "B", "effect_size": "d_z"})
    return table(shown, "metric-deltas")  # 3 decimals, as ``workbench compare`` prints them


def p_values(comparison: Any, alpha: float = 0.05) -> Styler | Note:
    """Every test's p-value per metric, and whether it is significant before and after Holm."""
    if isinstance(comparison, Note):
        return comparison
    frame = comparison.comparisons
    if frame.empty:
        return Note("The two sides share no metric to test.")
    raw = np.where(frame[METRIC] == PASSED, frame["p_mcnemar"], frame["p_t"])
    shown = frame[[SUITE, METRIC, "n", "p_t", "p_wilcoxon", "p_randomization", "p_mcnemar", "p_holm"]].assign(
        **{
            f"p < {alpha:g}": np.where(np.isnan(raw), "-", np.where(raw < alpha, "yes", "no")),
            "after Holm": np.where(frame["p_holm"].isna(), "-", np.where(frame["p_holm"] < alpha, "yes", "no")),
        }
    )
    tests = ["p_t", "p_wilcoxon", "p_randomization", "p_mcnemar", "p_holm"]
    styled = table(shown, "p-values").format("{:.3g}", subset=tests, na_rep="-")  # as the CLI prints them
    return styled.set_caption(
        "p_t, p_wilcoxon, p_randomization: paired tests of the metric; p_mcnemar: pass/fail; "
        "Holm corrects across the metrics of this comparison"
    )


def gate_verdict(comparison: Any) -> Html | Note:
    """The A/B gate rule, its verdict in one sentence, and one reason per checked metric."""
    if isinstance(comparison, Note):
        return comparison
    if comparison.decision is None:
        return Note("No gate rule applies to these metrics (verdict NO_GATE); pass gate='primary=...'.")
    decision = comparison.decision
    colour = {"PASS": "#137333", "FAIL": "#c5221f"}.get(decision.verdict, "#555")
    reasons = "".join(f"<li>{escaped(r)}</li>" for r in decision.reasons if r != decision.summary)
    listed = f"<ul>{reasons}</ul>" if reasons else ""
    return Html(
        f"<p>Gate <code>{escaped(str(decision.rule))}</code>: "
        f'<b style="color:{colour}">{decision.verdict}</b>. {escaped(decision.summary)}</p>{listed}'
    )


def detectable_effect(comparison: Any) -> Styler | Note:
    """The smallest change each metric could detect with this many cases (paired t, 80% power)."""
    if isinstance(comparison, Note):
        return comparison
    frame = comparison.comparisons
    frame = frame[frame[METRIC] != PASSED]
    if frame.empty:
        return Note("No metric to size.")
    detectable = np.where(frame["mde"].isna(), "-", np.where(frame["delta"].abs() >= frame["mde"], "yes", "no"))
    shown = (
        frame[[SUITE, METRIC, "n", "delta", "mde", "mde_sd"]]
        .assign(**{"|delta| >= MDE": detectable})
        .rename(columns={"mde": "MDE", "mde_sd": "MDE (SD units)"})
    )
    return table(shown, "detectable-effect", precision=4).set_caption(
        "A change smaller than the MDE cannot be told apart from noise with this many cases."
    )
