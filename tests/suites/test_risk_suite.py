"""The risk suite: observing a target, scoring hand-made outcomes (errored ones too), the confusion view."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from workbench.columns import CASE, METRIC, PASSED, VALUE
from workbench.corpus import Corpus
from workbench.errors import CorpusError, TargetError
from workbench.reference.risk.concepts import risk_concepts
from workbench.suites.base import Outcome, RunContext
from workbench.suites.risk import RiskSuite, concept_confusion

MONEY, AUTH = "money flow", "auth/security"


class Answers:
    """A target that answers from a table, or with whatever it was given."""

    name, version = "table", "1"

    def __init__(self, table: dict[tuple[str, str], object]) -> None:
        self.table = table
        self.calls: list[tuple[str, str]] = []

    def risk_concepts(self, mode: str, text: str) -> object:
        self.calls.append((mode, text))
        return self.table[(mode, text)]


class Vocabulary:
    """The built-in vocabulary as a target."""

    name, version = "vocab", "1"
    risk_concepts = staticmethod(risk_concepts)


def _case(name: str, mode: str, text: str, expected=(), not_expected=()) -> dict:
    key = "query" if mode == "query" else "path"
    return {
        "name": name,
        "mode": mode,
        key: text,
        "expectedConcepts": list(expected),
        "notExpectedConcepts": list(not_expected),
    }


@pytest.fixture
def ctx(tmp_path: Path) -> RunContext:
    return RunContext(corpus=Corpus(path=tmp_path / "corpus.json", data={"risk": []}, sha256=""))


def test_run_case_observes_sorted_concepts_missing_and_unexpected(ctx: RunContext) -> None:
    target = Answers({("path", "src/pay/roles.guard.ts"): {"money flow", "auth/security", "data model"}})
    case = _case("guard", "path", "src/pay/roles.guard.ts", [AUTH, "configuration"], [MONEY])
    seen = RiskSuite().run_case(target, case, ctx)
    assert target.calls == [("path", "src/pay/roles.guard.ts")]
    assert seen == {
        "concepts": ["auth/security", "data model", "money flow"],
        "missing": ["configuration"],
        "unexpected": ["money flow"],
    }


def test_query_mode_sends_the_query(ctx: RunContext) -> None:
    target = Answers({("query", "refund a payment"): [MONEY]})
    seen = RiskSuite().run_case(target, _case("q", "query", "refund a payment", [MONEY]), ctx)
    assert seen["missing"] == [] and seen["concepts"] == [MONEY]


@pytest.mark.parametrize(
    "answer,message", [("money flow", "returned str"), (None, "returned NoneType"), ([1], "non-string concept")]
)
def test_garbage_answers_fail_the_case(ctx: RunContext, answer: object, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        RiskSuite().run_case(Answers({("query", "x"): answer}), _case("q", "query", "x"), ctx)


@pytest.mark.parametrize(
    "case,message",
    [
        ({"name": "m", "mode": "paths", "path": "a"}, r"risk case 'm': mode must be one of"),
        ({"name": "t", "mode": "path", "path": "  "}, r"risk case 't': needs a non-empty 'query' or 'path'"),
        ({"name": "l", "mode": "path", "path": "a", "expectedConcepts": "gate"}, r"expectedConcepts must be a list"),
    ],
)
def test_malformed_cases_name_the_case_and_field(ctx: RunContext, case: dict, message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        RiskSuite().run_case(Answers({}), case, ctx)


def _outcomes() -> list[Outcome]:
    ok = _case("ok", "path", "src/auth/roles.guard.ts", [AUTH], [MONEY])
    wrong = _case("wrong", "query", "fix payload parsing", [], [MONEY])
    missed = _case("missed", "secret", ".env", ["secret"])
    broken = _case("broken", "gate", "src/billing.ts", ["gate"], ["secret"])
    return [
        Outcome(ok, {"concepts": [AUTH], "missing": [], "unexpected": []}),
        Outcome(wrong, {"concepts": [MONEY], "missing": [], "unexpected": [MONEY]}),
        Outcome(missed, {"concepts": [], "missing": ["secret"], "unexpected": []}),
        Outcome(broken, None, error="TargetError: engine crashed"),
    ]


def test_score_gives_one_accuracy_row_per_case_and_errors_score_zero(ctx: RunContext) -> None:
    scored = RiskSuite().score(_outcomes(), ctx)
    assert scored.scores[CASE].tolist() == ["ok", "wrong", "missed", "broken"]
    assert set(scored.scores[METRIC]) == {"accuracy"}
    assert scored.scores[VALUE].tolist() == [1.0, 0.0, 0.0, 0.0]
    rows = {row["case"]: row for row in scored.case_rows}
    assert [rows[n][PASSED] for n in ("ok", "wrong", "missed", "broken")] == [True, False, False, False]
    assert rows["broken"]["concepts"] is None and rows["broken"]["missing"] == ["gate"]
    assert rows["wrong"]["unexpected"] == [MONEY] and rows["wrong"]["text"] == "fix payload parsing"
    assert rows["ok"]["labels"] == [
        {"concept": AUTH, "expected": True, "returned": True},
        {"concept": MONEY, "expected": False, "returned": False},
    ]


def test_aggregate_is_the_mean_accuracy(ctx: RunContext) -> None:
    suite = RiskSuite()
    scored = suite.score(_outcomes(), ctx)
    assert suite.aggregate(scored.scores, pd.DataFrame(scored.case_rows)) == {"accuracy": 0.25}
    empty = suite.score([], ctx)
    assert suite.aggregate(empty.scores, pd.DataFrame()) == {"accuracy": None}


def test_concept_confusion_counts_each_label(ctx: RunContext) -> None:
    rows = pd.DataFrame(RiskSuite().score(_outcomes(), ctx).case_rows).assign(target="t")
    table = concept_confusion(rows).set_index(["mode", "concept"])
    assert table.loc[("path", AUTH), ["tp", "fn", "fp", "tn"]].tolist() == [1, 0, 0, 0]
    assert table.loc[("path", MONEY), "tn"] == 1
    assert table.loc[("query", MONEY), "fp"] == 1
    assert table.loc[("secret", "secret"), "fn"] == 1
    assert table.loc[("gate", "gate"), "fn"] == 1 and table.loc[("gate", "secret"), "tn"] == 1
    assert (table["target"] == "t").all()


def test_concept_confusion_without_labels() -> None:
    rows = pd.DataFrame({"case": ["a"], "mode": ["query"], "labels": [[]]})
    assert concept_confusion(rows).columns.tolist() == ["mode", "concept", "tp", "fn", "fp", "tn"]


def test_builtin_vocabulary_as_a_target(ctx: RunContext) -> None:
    suite = RiskSuite()
    cases = [
        _case("payload", "query", "fix payload parsing", [], [MONEY]),
        _case("guard", "path", "roles.guard.ts", [AUTH], [MONEY]),
    ]
    outcomes = [Outcome(c, suite.run_case(Vocabulary(), c, ctx)) for c in cases]
    scored = suite.score(outcomes, ctx)
    assert suite.aggregate(scored.scores, pd.DataFrame(scored.case_rows)) == {"accuracy": 1.0}


def test_shipped_risk_cases_cover_every_mode_and_pass_with_the_builtin_vocabulary() -> None:
    from workbench.corpus import load_corpus

    corpus = load_corpus(Path(__file__).resolve().parents[2] / "corpus" / "corpus.json")
    cases = corpus.cases("risk")
    assert len(cases) >= 25 and {c["mode"] for c in cases} == {"query", "path", "gate", "secret"}
    ctx = RunContext(corpus=corpus)
    suite = RiskSuite()
    scored = suite.score([Outcome(c, suite.run_case(Vocabulary(), c, ctx)) for c in cases], ctx)
    failed = [row["case"] for row in scored.case_rows if not row[PASSED]]
    assert failed == []
