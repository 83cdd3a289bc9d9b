"""A/B gate rules as data: which metric must improve, which must not regress, and how sure to be.

The default is go-code's SPLADE gate: PASS iff nDCG@10 improves with p < 0.05
(paired t-test) AND Recall@20 is non-inferior (delta >= -0.02 OR p >= 0.05);
FAIL otherwise; INSUFFICIENT_DATA below 2 pairs; UNCHANGED (set by ``compare``) when
every paired difference is zero. "Improves" follows each metric's direction (the
registry's ``higher_is_better``: a smaller pack or latency is an improvement). A rule
is evaluated on the per-metric comparison frame built by ``workbench.compare``; every
decision carries a one-sentence ``summary`` besides one reason per checked metric.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from ..columns import METRIC, SUITE
from ..errors import CompareError
from .registry import higher_is_better

if TYPE_CHECKING:
    import pandas as pd

PASS, FAIL, INSUFFICIENT_DATA, UNCHANGED = "PASS", "FAIL", "INSUFFICIENT_DATA", "UNCHANGED"
REGRESSED, IMPROVED = "REGRESSED", "IMPROVED"  # a run against a baseline: ``GateRule.change``
TESTS = {"t": "p_t", "wilcoxon": "p_wilcoxon", "randomization": "p_randomization"}


@dataclass(frozen=True)
class GateRule:
    """PASS iff ``primary`` improves significantly and ``noninferior`` does not significantly
    drop by more than ``margin`` (absolute, metric units)."""

    primary: str = "ndcg@10"
    noninferior: str | None = "recall@20"
    margin: float = 0.02
    alpha: float = 0.05
    test: str = "t"
    suite: str | None = None  # restrict metric look-up to one suite when names repeat

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise CompareError(f"gate rule: test must be one of {', '.join(TESTS)}, got {self.test!r}")
        if not 0.0 < self.alpha < 1.0:
            raise CompareError(f"gate rule: alpha must be in (0, 1), got {self.alpha}")
        if self.margin < 0.0:
            raise CompareError(f"gate rule: margin must be >= 0, got {self.margin}")
        if not self.primary:
            raise CompareError("gate rule: primary metric is empty")

    @property
    def p_column(self) -> str:
        """The comparison-frame column holding this rule's p-values."""
        return TESTS[self.test]

    def __str__(self) -> str:
        parts = {f.name: getattr(self, f.name) for f in fields(self)}
        return ",".join(
            f"{k}={'none' if v is None else v}" for k, v in parts.items() if not (k == "suite" and v is None)
        )

    @classmethod
    def parse(cls, text: str) -> GateRule:
        """``go-code``, ``retrieval``, ``primary=mrr,noninferior=recallAtK,margin=0.02,alpha=0.05,test=t``,
        or a preset with overrides (``go-code,alpha=0.01``); unnamed fields keep go-code's values."""
        rule, changes = PRESETS["go-code"], {}
        for position, token in enumerate(t.strip() for t in text.split(",") if t.strip()):
            key, sep, value = token.partition("=")
            key = key.strip()
            if not sep:
                if position or key not in PRESETS:
                    raise CompareError(
                        f"gate rule {text!r}: unknown preset {key!r} (presets: {', '.join(sorted(PRESETS))})"
                    )
                rule = PRESETS[key]
                continue
            changes[key] = _field_value(text, key, value.strip())
        return replace(rule, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def evaluate(self, comparisons: pd.DataFrame) -> GateDecision:
        """Apply the rule to a comparison frame (one row per suite and metric)."""
        primary = self._row(comparisons, self.primary)
        checks = [(self.primary, primary)]
        noninferior = None
        if self.noninferior:
            noninferior = self._row(comparisons, self.noninferior)
            checks.append((self.noninferior, noninferior))
        short = [f"{name}: {int(row['n'])} pair(s), need 2" for name, row in checks if row["n"] < 2]
        if short:
            return GateDecision(
                INSUFFICIENT_DATA,
                tuple(short),
                str(self),
                f"Too few paired cases to judge ({'; '.join(short)}); a gate that cannot decide fails.",
            )
        reasons = [self._primary_reason(primary)]
        improved = gain(primary) > 0 and primary[self.p_column] < self.alpha
        regressed = False
        if noninferior is not None:
            regressed = gain(noninferior) < -self.margin and noninferior[self.p_column] < self.alpha
            reasons.append(self._noninferior_reason(noninferior, regressed))
        verdict = PASS if improved and not regressed else FAIL
        return GateDecision(
            verdict, tuple(reasons), str(self), self._summary(primary, noninferior, improved, regressed)
        )

    def change(self, comparisons: pd.DataFrame) -> GateDecision:
        """The same rule read as "did B move from A": ``REGRESSED`` when the primary metric got
        significantly worse or the non-inferiority metric dropped beyond the margin significantly,
        ``IMPROVED`` when the primary got significantly better, else ``UNCHANGED``; below 2 pairs
        ``INSUFFICIENT_DATA``. ``summary`` is one line: ``REGRESSED: mrr 0.672 -> 0.018, p=3e-09``."""
        primary = self._row(comparisons, self.primary)
        checks = [(self.primary, primary)]
        if self.noninferior:
            checks.append((self.noninferior, self._row(comparisons, self.noninferior)))
        short = [f"{name}: {int(row['n'])} pair(s), need 2" for name, row in checks if row["n"] < 2]
        if short:
            line = f"{INSUFFICIENT_DATA}: too few paired cases to judge ({'; '.join(short)})"
            return GateDecision(INSUFFICIENT_DATA, tuple(short), str(self), line)
        significant = [(name, row) for name, row in checks if row[self.p_column] < self.alpha]
        worse = [(name, row) for name, row in significant if gain(row) < (0.0 if row is primary else -self.margin)]
        if worse:
            verdict, moved = REGRESSED, worse
        elif gain(primary) > 0 and primary[self.p_column] < self.alpha:
            verdict, moved = IMPROVED, [(self.primary, primary)]
        else:
            verdict, moved = UNCHANGED, [(self.primary, primary)]
        parts = [f"{name} {self._move(row)}" for name, row in moved]
        tail = "" if verdict != UNCHANGED else " (no significant change)"
        line = f"{verdict}: {'; '.join(parts)}{tail}"
        return GateDecision(verdict, tuple(parts), str(self), line)

    def _move(self, row: pd.Series) -> str:
        """``0.672 -> 0.018, p=3e-09`` for one comparison row."""
        return f"{row['mean_a']:.3f} -> {row['mean_b']:.3f}, p={row[self.p_column]:.3g}"

    def _summary(self, primary: pd.Series, noninferior: pd.Series | None, improved: bool, regressed: bool) -> str:
        """The decision in one sentence."""
        p = primary[self.p_column]
        change = f"delta {primary['delta']:+.3f}, p={p:.3g}"
        if improved:
            head = f"{self.primary} improved significantly ({change})"
        elif gain(primary) < 0 and p < self.alpha:
            head = f"{self.primary} regressed significantly ({change})"
        else:
            head = f"{self.primary} did not improve significantly ({change})"
        if noninferior is None:
            return f"{head}."
        if regressed:
            tail = (
                f"{self.noninferior} regressed beyond {self.margin:g} "
                f"(delta {noninferior['delta']:+.3f}, p={noninferior[self.p_column]:.3g})"
            )
        else:
            tail = f"{self.noninferior} did not regress beyond {self.margin:g}"
        return f"{head}, {'but' if improved and regressed else 'and'} {tail}."

    def _row(self, comparisons: pd.DataFrame, metric: str) -> pd.Series:
        rows = comparisons[comparisons[METRIC].str.lower() == metric.lower()]
        if self.suite is not None:
            rows = rows[rows[SUITE] == self.suite]
        if rows.empty:
            where = f" in suite {self.suite!r}" if self.suite else ""
            raise CompareError(
                f"gate metric {metric!r}{where} is not compared in both runs "
                f"(compared: {', '.join(sorted(set(comparisons[METRIC])))})"
            )
        if len(rows) > 1:
            raise CompareError(
                f"gate metric {metric!r} appears in suites {', '.join(rows[SUITE])}; add suite=<name> to the gate rule"
            )
        return rows.iloc[0]

    def _primary_reason(self, row: pd.Series) -> str:
        p = row[self.p_column]
        ok = gain(row) > 0 and p < self.alpha
        worse = gain(row) < 0 and p < self.alpha
        verdict = (
            "improves significantly" if ok else "regressed significantly" if worse else "no significant improvement"
        )
        return f"{self.primary}: delta {row['delta']:+.3f}, p={p:.3g} ({self.test}): {verdict}"

    def _noninferior_reason(self, row: pd.Series, regressed: bool) -> str:
        p = row[self.p_column]
        verdict = (
            f"significant regression beyond -{self.margin:g}"
            if regressed
            else f"non-inferior (delta >= -{self.margin:g} or p >= {self.alpha:g})"
        )
        return f"{self.noninferior}: delta {row['delta']:+.3f}, p={p:.3g} ({self.test}): {verdict}"


def gain(row: pd.Series) -> float:
    """A comparison row's delta signed so that positive is better (lower-is-better metrics flip)."""
    delta = float(row["delta"])
    return delta if higher_is_better(str(row[METRIC])) else -delta


@dataclass(frozen=True)
class GateDecision:
    """A gate verdict, one reason per checked metric, and the verdict in one sentence."""

    verdict: str
    reasons: tuple[str, ...]
    rule: str
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reasons": list(self.reasons), "rule": self.rule, "summary": self.summary}


PRESETS: dict[str, GateRule] = {
    "go-code": GateRule(),
    "retrieval": GateRule(primary="mrr", noninferior="recallAtK", suite="retrieval"),
}


def default_rule(comparisons: pd.DataFrame) -> GateRule | None:
    """The first preset whose metrics were all compared (go-code first), or None."""
    for rule in PRESETS.values():
        try:
            rule._row(comparisons, rule.primary)
            if rule.noninferior:
                rule._row(comparisons, rule.noninferior)
        except CompareError:
            continue
        return rule
    return None


def _field_value(text: str, key: str, value: str) -> Any:
    if key in ("margin", "alpha"):
        try:
            return float(value)
        except ValueError:
            raise CompareError(f"gate rule {text!r}: {key} must be a number, got {value!r}") from None
    if key in ("noninferior", "suite"):
        return None if value.lower() in ("", "none") else value
    if key in ("primary", "test"):
        return value
    raise CompareError(
        f"gate rule {text!r}: unknown key {key!r} (keys: primary, noninferior, margin, alpha, test, suite)"
    )
