"""A/B gate rules: parsing, presets and the go-code decision table."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.analysis.gates import FAIL, INSUFFICIENT_DATA, PASS, PRESETS, GateRule, default_rule
from workbench.errors import CompareError


def _frame(*rows: tuple) -> pd.DataFrame:
    """(suite, metric, n, delta, p_t) rows; the other tests' p-values are set apart to catch mix-ups."""
    frame = pd.DataFrame(rows, columns=["suite", "metric", "n", "delta", "p_t"])
    return frame.assign(p_wilcoxon=0.5, p_randomization=0.001)


def test_default_is_the_go_code_rule() -> None:
    rule = GateRule()
    assert (rule.primary, rule.noninferior, rule.margin, rule.alpha, rule.test) == (
        "ndcg@10",
        "recall@20",
        0.02,
        0.05,
        "t",
    )
    assert PRESETS["go-code"] == rule


def test_parse_presets_overrides_and_full_rules() -> None:
    assert GateRule.parse("go-code") == GateRule()
    assert GateRule.parse("retrieval") == GateRule(primary="mrr", noninferior="recallAtK", suite="retrieval")
    assert GateRule.parse("go-code, alpha=0.01").alpha == 0.01
    full = GateRule.parse("primary=mrr,noninferior=recallAtK,margin=0.03,alpha=0.1,test=wilcoxon")
    assert full == GateRule(primary="mrr", noninferior="recallAtK", margin=0.03, alpha=0.1, test="wilcoxon")
    assert GateRule.parse("primary=mrr,noninferior=none").noninferior is None
    for rule in (GateRule(), full, PRESETS["retrieval"]):
        assert GateRule.parse(str(rule)) == rule


@pytest.mark.parametrize(
    "text,message",
    [
        ("bogus", "unknown preset 'bogus'"),
        ("primary=mrr,speed=3", "unknown key 'speed'"),
        ("alpha=high", "alpha must be a number"),
        ("test=z", "test must be one of"),
        ("alpha=1.5", "alpha must be in"),
        ("margin=-1", "margin must be >= 0"),
        ("primary=mrr,go-code", "unknown preset"),
    ],
)
def test_parse_rejects_bad_rules_with_one_line(text: str, message: str) -> None:
    with pytest.raises(CompareError, match=message):
        GateRule.parse(text)


def test_pass_needs_a_significant_gain_and_no_significant_loss() -> None:
    rule = GateRule()
    ok = rule.evaluate(_frame(("ranking", "ndcg@10", 30, 0.05, 0.01), ("ranking", "recall@20", 30, -0.01, 0.2)))
    assert ok.verdict == PASS and len(ok.reasons) == 2
    # a big recall drop that is not significant is still non-inferior (p >= alpha)
    noisy = rule.evaluate(_frame(("ranking", "ndcg@10", 30, 0.05, 0.01), ("ranking", "recall@20", 30, -0.2, 0.3)))
    assert noisy.verdict == PASS


@pytest.mark.parametrize(
    "ndcg,recall",
    [
        ((0.05, 0.2), (0.0, 1.0)),  # gain not significant
        ((-0.05, 0.01), (0.0, 1.0)),  # significant, but a loss
        ((0.05, 0.01), (-0.05, 0.01)),  # recall significantly regressed beyond the margin
    ],
)
def test_fail_cases(ndcg: tuple, recall: tuple) -> None:
    frame = _frame(("ranking", "ndcg@10", 30, *ndcg), ("ranking", "recall@20", 30, *recall))
    assert GateRule().evaluate(frame).verdict == FAIL


def test_insufficient_data_below_two_pairs() -> None:
    frame = _frame(("ranking", "ndcg@10", 1, 0.5, 1.0), ("ranking", "recall@20", 1, 0.0, 1.0))
    decision = GateRule().evaluate(frame)
    assert decision.verdict == INSUFFICIENT_DATA and "need 2" in decision.reasons[0]


def test_the_rule_reads_the_p_column_of_its_test() -> None:
    frame = _frame(("retrieval", "mrr", 30, 0.05, 0.5), ("retrieval", "recallAtK", 30, 0.0, 1.0))
    assert GateRule.parse("retrieval").evaluate(frame).verdict == FAIL
    assert GateRule.parse("retrieval,test=randomization").evaluate(frame).verdict == PASS


def test_metric_lookup_errors_and_suite_disambiguation() -> None:
    frame = _frame(
        ("retrieval", "mrr", 30, 0.05, 0.01),
        ("ranking", "mrr", 30, 0.05, 0.01),
        ("retrieval", "recallAtK", 30, 0.0, 1.0),
    )
    with pytest.raises(CompareError, match="appears in suites"):
        GateRule(primary="mrr", noninferior=None).evaluate(frame)
    with pytest.raises(CompareError, match="'ndcg@10' is not compared"):
        GateRule().evaluate(frame)
    assert GateRule(primary="MRR", noninferior="recallatk", suite="retrieval").evaluate(frame).verdict == PASS


def test_default_rule_picks_the_preset_the_metrics_support() -> None:
    ranking = _frame(("ranking", "ndcg@10", 5, 0, 1), ("ranking", "recall@20", 5, 0, 1))
    retrieval = _frame(("retrieval", "mrr", 5, 0, 1), ("retrieval", "recallAtK", 5, 0, 1))
    assert default_rule(ranking) == PRESETS["go-code"]
    assert default_rule(retrieval) == PRESETS["retrieval"]
    assert default_rule(_frame(("risk", "accuracy", 5, 0, 1))) is None
