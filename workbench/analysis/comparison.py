"""Compare two runs (or a run and a baseline) case by case: one report, several renderings.

Both sides are paired by (suite, case); every metric present in both is
compared with ``workbench.stats`` (delta = B - A), per-case pass/fail gets
McNemar's test, and an A/B gate rule gives the verdict (``UNCHANGED`` when every
paired difference is zero). Improved / regressed and win / loss follow each metric's
direction (``registry.higher_is_better``: fewer pack tokens, less latency is better). ``Comparison`` holds
the frames for notebooks, ``to_dict`` is the ``--json`` object and
``to_markdown`` the terminal table. ``diff_cases`` is the per-case half alone
(no statistics, no scipy), for pages that only list what changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..columns import CASE, METRIC, PASSED, SUITE, TARGET, VALUE
from ..errors import CompareError, StoreError
from ..paths import Locations, SideRef
from ..store.headers import locations_for
from ..store.runs import RunLike
from . import stats
from .gates import FAIL, INSUFFICIENT_DATA, GateDecision, GateRule, default_rule
from .gates import UNCHANGED as NOTHING_CHANGED
from .registry import higher_is_better
from .sides import check_comparable, shared_only
from .statuses import IMPROVED, MISSING, NEW, REGRESSED, UNCHANGED

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

NO_GATE = "NO_GATE"
KEY = [SUITE, CASE, METRIC]
COMPARISON_COLUMNS = [
    SUITE,
    METRIC,
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "ci_low",
    "ci_high",
    "p_t",
    "p_wilcoxon",
    "p_randomization",
    "p_mcnemar",
    "p_holm",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "mde",
    "mde_sd",
    "reason",
    "higher_is_better",
]
CASE_COLUMNS = [SUITE, CASE, METRIC, "value_a", "value_b", "delta", "status", "higher_is_better"]
_TIE = 1e-12


@dataclass
class CaseDiff:
    """Side A vs side B case by case: each (suite, case, metric) labelled improved, regressed,
    unchanged, new or missing. No statistics, so no scipy: what a per-case listing needs."""

    a: str
    b: str
    cases: pd.DataFrame  # CASE_COLUMNS, one row per (suite, case, metric)


@dataclass
class Comparison(CaseDiff):
    """A ``CaseDiff`` with per-metric paired statistics and the gate verdict."""

    comparisons: pd.DataFrame  # COMPARISON_COLUMNS, one row per (suite, metric); metric "passed" = pass/fail
    gate: GateRule | None
    decision: GateDecision | None
    notes: tuple[str, ...] = ()  # e.g. a side ran with --repeat: its values are per-case means
    flakiness: dict[str, Any] | None = None  # with --repeat: the pass/fail flips flakiness explains (passk.py)

    @property
    def verdict(self) -> str:
        """PASS, FAIL, INSUFFICIENT_DATA, UNCHANGED, or NO_GATE when no rule applies to these metrics."""
        return self.decision.verdict if self.decision else NO_GATE

    @property
    def reason(self) -> str:
        """The verdict in one sentence."""
        if self.decision is None:
            return "No gate rule applies to these metrics (pass --gate RULE)."
        return self.decision.summary

    @property
    def change(self) -> GateDecision | None:
        """The gate rule read as a move from A to B (``REGRESSED``, ``IMPROVED``, ``UNCHANGED``,
        ``INSUFFICIENT_DATA``): what ``run --baseline`` judges; None when no rule applies."""
        if self.decision is not None and self.decision.verdict == NOTHING_CHANGED:
            return GateDecision(NOTHING_CHANGED, self.decision.reasons, self.decision.rule, _identical_line(self.cases))
        return self.gate.change(self.comparisons) if self.gate else None

    @property
    def failed(self) -> bool:
        """True when the gate verdict is FAIL, or INSUFFICIENT_DATA: a gate that cannot decide
        fails closed (the CLI exits 1)."""
        return self.verdict in (FAIL, INSUFFICIENT_DATA)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object; NaN and infinities become null."""
        from ..files import dumps

        return json.loads(
            dumps(
                {
                    "a": self.a,
                    "b": self.b,
                    "gate": str(self.gate) if self.gate else None,
                    "verdict": self.verdict,
                    "reason": self.reason,
                    "reasons": list(self.decision.reasons) if self.decision else [],
                    "change": self.change.to_dict() if self.change else None,
                    "comparisons": self.comparisons.to_dict("records"),
                    "cases": self.cases.to_dict("records"),
                    "notes": list(self.notes),
                    "flakiness": self.flakiness,
                }
            )
        )

    def to_markdown(self) -> str:
        """Per-metric table, pass/fail changes, detectable-effect note and the verdict."""
        from .comparison_text import comparison_markdown

        return comparison_markdown(self)

    __str__ = to_markdown


def compare(
    a: RunLike | str,
    b: RunLike | str,
    gate: GateRule | str | None = None,
    seed: int = 0,
    on_shared_cases: bool = False,
) -> Comparison:
    """Compare run-like ``a`` and ``b`` (``Run``, ``Run.select(t)``, a loaded baseline, or any
    spec the CLI takes: ``RUN``, ``RUN#TARGET``, a baseline name).

    ``gate`` is a rule, a rule string, ``"none"`` for no gate, or None for the first
    preset whose metrics both sides have (go-code, then retrieval). Sides of different corpora
    (manifest SHA-256) or k are refused; ``on_shared_cases`` compares the case names both have.
    """
    import numpy as np

    from .passk import flaky_flips, flips_note

    where = locations_for([side for side in (b, a) if isinstance(side, str)], None, None)
    a, b = (resolve_side(side, where) if isinstance(side, str) else side for side in (a, b))
    rule, automatic = _requested_rule(gate)
    different = check_comparable(a, b, on_shared_cases)
    long_a, long_b = long_values(a), long_values(b)
    shared: tuple[str, ...] = ()
    if different:
        long_a, long_b, note = shared_only(long_a, long_b)
        shared = (note,)
    diff = CaseDiff(side_label(a), side_label(b), align(long_a, long_b))
    table = metric_table(diff.cases, seed=seed, alpha=rule.alpha if rule else 0.05)
    if automatic:
        rule = default_rule(table)
    p = np.where(table[METRIC] == PASSED, table["p_mcnemar"], table[rule.p_column if rule else "p_t"])
    table["p_holm"] = stats.holm(p.astype(float))
    decision = unchanged_decision(diff.cases, rule) or (rule.evaluate(table) if rule else None)
    flips = flaky_flips(a.cases, b.cases)
    notes = shared + _repeat_notes(a, b) + ((flips_note(flips),) if flips else ())
    return Comparison(diff.a, diff.b, diff.cases, table[COMPARISON_COLUMNS], rule, decision, notes, flips)


def _repeat_notes(a: RunLike, b: RunLike) -> tuple[str, ...]:
    """Say when a side ran every case several times (``--repeat``): its values are each case's mean."""
    import pandas as pd

    notes = []
    for label, side in (("A", a), ("B", b)):
        k = pd.to_numeric(side.cases["repeats"], errors="coerce").max() if "repeats" in side.cases else None
        if k is not None and k > 1:
            notes.append(f"{label} ran every case {int(k)} times: its values are each case's mean over its repeats")
    return tuple(notes)


def unchanged_decision(cases: pd.DataFrame, rule: GateRule | None) -> GateDecision | None:
    """``UNCHANGED`` when the sides share paired values and every paired difference is zero, else None."""
    paired = cases.dropna(subset=["value_a", "value_b"])
    if paired.empty or (paired["delta"].abs() > _TIE).any():
        return None
    alone = int(cases["status"].isin([NEW, MISSING]).sum())
    extra = f" ({alone} value(s) on one side only are not compared)" if alone else ""
    summary = (
        f"Every paired difference is zero: both sides score the same on all {len(paired)} shared "
        f"case-metric values{extra}, so nothing changed."
    )
    return GateDecision(NOTHING_CHANGED, (summary,), str(rule) if rule else "none", summary)


def _identical_line(cases: pd.DataFrame) -> str:
    """The one-line ``UNCHANGED`` of two sides whose paired values are all equal."""
    paired = int(cases.dropna(subset=["value_a", "value_b"]).shape[0])
    return f"{NOTHING_CHANGED}: every paired difference is zero ({paired} case-metric values)"


def diff_cases(a: RunLike, b: RunLike) -> CaseDiff:
    """Pair run-like ``a`` and ``b`` by (suite, case, metric) and label every change."""
    return CaseDiff(side_label(a), side_label(b), align(long_values(a), long_values(b)))


def _requested_rule(gate: GateRule | str | None) -> tuple[GateRule | None, bool]:
    """The explicit rule (or None), and whether to pick a preset from the compared metrics."""
    if gate is None:
        return None, True
    if isinstance(gate, GateRule):
        return gate, False
    if gate.strip().lower() == "none":
        return None, False
    return GateRule.parse(gate), False


def side_label(run: RunLike) -> str:
    """``<run-id>#<target>`` for a single-target side, else the run id."""
    targets = list(run.targets)
    return f"{run.run_id}#{targets[0]}" if len(targets) == 1 else str(run.run_id)


def long_values(run: RunLike) -> pd.DataFrame:
    """One side as a long (suite, case, metric, value) frame; per-case pass/fail as metric ``passed``."""
    import pandas as pd

    targets = sorted(set(run.scores[TARGET].dropna()) | set(run.cases[TARGET].dropna()))
    if len(targets) > 1:
        raise CompareError(
            f"{run.run_id}: has targets {', '.join(targets)}; compare one of them as {run.run_id}#<target>"
        )
    passed = run.cases[[SUITE, CASE, PASSED]].rename(columns={PASSED: VALUE}).assign(**{METRIC: PASSED})
    passed[VALUE] = pd.to_numeric(passed[VALUE].astype(object), errors="coerce")
    frame = pd.concat([run.scores[KEY + [VALUE]], passed[KEY + [VALUE]]], ignore_index=True)
    frame[VALUE] = frame[VALUE].astype(float)
    duplicated = frame.duplicated(KEY)
    if duplicated.any():
        suite, case, metric = frame.loc[duplicated.idxmax(), KEY]
        raise CompareError(f"{run.run_id}: two values for {suite}[{case}].{metric}")
    return frame


def align(long_a: pd.DataFrame, long_b: pd.DataFrame) -> pd.DataFrame:
    """Outer-join both sides on (suite, case, metric) and label each row's change."""
    import numpy as np
    import pandas as pd

    merged = long_a.merge(long_b, on=KEY, how="outer", suffixes=("_a", "_b"), indicator=True, sort=False)
    # A value neither side has (a fallback case's metrics) is no comparison: not counted anywhere.
    merged = merged[merged[f"{VALUE}_a"].notna() | merged[f"{VALUE}_b"].notna()].reset_index(drop=True)
    va, vb = merged[f"{VALUE}_a"].to_numpy(float), merged[f"{VALUE}_b"].to_numpy(float)
    fa, fb = ~np.isnan(va), ~np.isnan(vb)
    delta = vb - va
    upward = directions(merged[METRIC])
    gain = np.where(upward, delta, -delta)
    where = merged["_merge"].to_numpy()
    status = np.select(
        [
            where == "left_only",
            where == "right_only",
            fa & fb & (gain > _TIE),
            fa & fb & (gain < -_TIE),
            fa & ~fb,
            ~fa & fb,
        ],
        [MISSING, NEW, IMPROVED, REGRESSED, MISSING, NEW],
        default=UNCHANGED,
    )
    return pd.DataFrame(
        {
            SUITE: merged[SUITE],
            CASE: merged[CASE],
            METRIC: merged[METRIC],
            "value_a": va,
            "value_b": vb,
            "delta": delta,
            "status": status,
            "higher_is_better": upward,
        }
    )


def directions(metrics: pd.Series) -> np.ndarray:
    """``higher_is_better`` of each metric name, looked up once per distinct name."""
    import pandas as pd

    names = pd.Series(metrics, dtype=object)
    lookup = {name: higher_is_better(str(name)) for name in names.dropna().unique()}
    return names.map(lookup).fillna(True).to_numpy(bool)


def metric_table(cases: pd.DataFrame, seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """One row of paired statistics per (suite, metric) that both sides report."""
    import pandas as pd

    seen_a = cases.loc[cases["status"] != NEW, [SUITE, METRIC]].drop_duplicates()
    seen_b = cases.loc[cases["status"] != MISSING, [SUITE, METRIC]].drop_duplicates()
    keys = list(seen_a.merge(seen_b, on=[SUITE, METRIC]).itertuples(index=False, name=None))
    paired = cases[cases["value_a"].notna() & cases["value_b"].notna()]
    groups = dict(list(paired.groupby([SUITE, METRIC], sort=False)))
    rows = [_metric_row(suite, metric, groups.get((suite, metric)), seed, alpha) for suite, metric in keys]
    table = pd.DataFrame(rows, columns=[c for c in COMPARISON_COLUMNS if c != "p_holm"])
    last = table[METRIC].eq(PASSED)  # pass/fail after the metrics of each suite
    table = table.assign(_last=last).sort_values([SUITE, "_last"], kind="stable")
    return table.drop(columns="_last").reset_index(drop=True)


def _metric_row(suite: str, metric: str, group: pd.DataFrame | None, seed: int, alpha: float) -> dict[str, Any]:
    import numpy as np

    a = group["value_a"].to_numpy() if group is not None else np.empty(0)
    b = group["value_b"].to_numpy() if group is not None else np.empty(0)
    result = stats.paired_comparison(a, b, seed=seed, alpha=alpha)
    row = {SUITE: suite, METRIC: metric, **result.to_dict()}
    if result.n < 2:  # no test on fewer than 2 pairs: no p-value, rather than a p of 1
        row.update(p_t=float("nan"), p_wilcoxon=float("nan"), p_randomization=float("nan"))
    row["reason"] = "; ".join(row.pop("reasons")) or None
    row["p_mcnemar"] = stats.mcnemar(a > 0.5, b > 0.5).p if metric == PASSED and a.size else float("nan")
    row["higher_is_better"] = higher_is_better(metric)
    if not row["higher_is_better"]:  # a win is a smaller value
        row["wins"], row["losses"] = row["losses"], row["wins"]
    return row


def resolve_run(spec: str, where: Locations | None = None) -> RunLike:
    """``RUN`` (a run directory or a run id under ``where.runs``) or ``RUN#TARGET``; a
    CompareError when there is no such run."""
    return load_side((where or Locations.of()).run(spec))


def resolve_side(spec: str, where: Locations | None = None) -> RunLike:
    """A run (``RUN``, ``RUN#TARGET``, see ``resolve_run``), else a baseline by file or name in
    ``where.baselines`` (default locations)."""
    return load_side((where or Locations.of()).side(spec))


def load_side(side: SideRef) -> RunLike:
    """The run or baseline a located spec names, narrowed to its ``#TARGET`` if it has one."""
    from ..store.baselines import load_baseline
    from ..store.runs import load_run

    return _narrow(load_run(side.path) if side.is_run else load_baseline(side.path), side.target, side.spec)


def _narrow(side: RunLike, target: str, spec: str) -> RunLike:
    if not target:
        return side
    if target not in side.targets:
        raise StoreError(f"{spec}: no target {target!r} (has {', '.join(side.targets)})")
    return side.select(target)
