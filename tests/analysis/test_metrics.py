"""workbench.metrics against pytrec_eval (trec_eval) on random rankings, plus hand-worked cases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from workbench.analysis import _kernel as metric_kernel
from workbench.analysis.metrics import Metric, aggregate, evaluate, frames_from_results, intern_frames, parse_metric
from workbench.columns import CASE, METRIC, VALUE
from workbench.errors import UsageError, WorkbenchError

# workbench metric -> (trec measure, cut-off for truncating the run first or None)
ORACLE = {
    "P@5": "P_5",
    "P@10": "P_10",
    "R@5": "recall_5",
    "R@20": "recall_20",
    "RR": "recip_rank",
    "nDCG@5": "ndcg_cut_5",
    "nDCG@10": "ndcg_cut_10",
    "nDCG": "ndcg",
    "Success@1": "success_1",
    "Success@5": "success_5",
}
TRUNCATED = {"RR@3": 3, "RR@5": 5}


def random_data(seed: int, graded: bool, scored: bool, n_cases: int = 150, length: int | None = None):
    """Random rankings (with duplicates, ties, empty and missing cases) and qrels."""
    rng = np.random.default_rng(seed)
    docs = [f"src/f{j}.py" for j in range(40)]  # "f9" > "f10" as strings: ties test strcmp
    ranking, qrels = [], []
    for c in range(n_cases):
        case = f"q{c}"
        size = length if length is not None else rng.integers(0, 25)
        for rank, doc in enumerate(rng.choice(docs, size=size), 1):
            score = float(rng.integers(0, 6)) if scored else None
            ranking.append(
                (case, doc, int(rng.integers(1, 8)) if not scored and c % 3 == 0 else rank)
                + ((score,) if scored else ())
            )
        for doc in rng.choice(docs, size=rng.integers(0, 7), replace=False):
            qrels.append((case, doc, int(rng.integers(0, 4 if graded else 2))))
    return ranking, qrels


def oracle_runs(ranking) -> dict[str, dict[str, float]]:
    """The trec run: best score per doc (first occurrence wins); ranks become scores -rank."""
    run: dict[str, dict[str, float]] = {}
    for case, doc, rank, *score in ranking:
        value = score[0] if score else -float(rank)
        per_case = run.setdefault(case, {})
        per_case[doc] = max(value, per_case.get(doc, -math.inf))
    return run


def truncate(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """Keep each case's top k in trec order: score descending, then doc id descending."""
    return {
        case: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:k]) for case, docs in run.items()
    }


def oracle(ranking, qrels) -> dict[str, dict[str, float]]:
    """Expected values from pytrec_eval for cases it scores (answered, with a relevant doc)."""
    judged: dict[str, dict[str, int]] = {}
    for case, doc, rel in qrels:
        judged.setdefault(case, {})[doc] = rel
    run = oracle_runs(ranking)
    measures = {m.rsplit("_", 1)[0] if m[-1].isdigit() else m for m in ORACLE.values()}
    full = pytrec_eval.RelevanceEvaluator(judged, {*measures, "num_ret", "P"}).evaluate(run)
    expected = {case: {ours: vals[trec] for ours, trec in ORACLE.items()} for case, vals in full.items()}
    for name, k in TRUNCATED.items():
        cut = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"}).evaluate(truncate(run, k))
        for case in expected:
            expected[case][name] = cut[case]["recip_rank"]
    for case, vals in full.items():
        shown = min(5, vals["num_ret"])
        expected[case]["precisionAtK"] = vals["P_5"] * 5 / shown if shown else 0.0
    relevant = {case for case, doc, rel in qrels if rel > 0}
    return {case: vals for case, vals in expected.items() if case in relevant}


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("scored", [False, True])
@pytest.mark.parametrize("layout", ["flat", "padded", "uniform"])
def test_matches_pytrec_eval(graded: bool, scored: bool, layout: str, monkeypatch) -> None:
    monkeypatch.setattr(metric_kernel, "_PAD_LIMIT", 0.0 if layout == "flat" else np.inf)
    ranking, qrels = random_data(
        seed=7 + 2 * graded + scored, graded=graded, scored=scored, length=20 if layout == "uniform" else None
    )
    names = [*ORACLE, *TRUNCATED, "precisionAtK"]
    frame = evaluate(ranking, qrels, names, k=5)
    got = frame.pivot(index=CASE, columns=METRIC, values=VALUE)
    expected = pd.DataFrame(oracle(ranking, qrels)).T[names]
    assert len(expected) > 50
    diff = (got.loc[expected.index, names].astype(float) - expected.astype(float)).abs()
    assert diff.to_numpy().max() <= 1e-9, diff.max()
    assert got["nDCG@10"].max() <= 1.0 + 1e-12


def test_cases_trec_skips_are_zero_or_nan() -> None:
    ranking, qrels = random_data(seed=3, graded=True, scored=False)
    got = evaluate(ranking, qrels, ["P@5", "R@5", "RR", "nDCG@5", "Success@5"]).pivot(
        index=CASE, columns=METRIC, values=VALUE
    )
    answered = {case for case, *_ in ranking}
    relevant = {case for case, doc, rel in qrels if rel > 0}
    unanswered = sorted(relevant - answered)
    no_relevant = sorted(answered - relevant)
    assert unanswered and no_relevant
    assert (got.loc[unanswered] == 0).all().all()
    assert got.loc[no_relevant, ["R@5", "RR", "nDCG@5"]].isna().all().all()
    assert (got.loc[no_relevant, ["P@5", "Success@5"]] == 0).all().all()


def values(ranking, qrels, names, **kwargs) -> dict[tuple[str, str], float]:
    frame = evaluate(ranking, qrels, names, **kwargs)
    return {(str(c), str(m)): v for c, m, v in frame[[CASE, METRIC, VALUE]].itertuples(index=False)}


def test_score_ties_break_on_doc_id_descending_as_strings() -> None:
    ranking = [("q", "f10", 9, 1.0), ("q", "f9", 1, 1.0), ("q", "f2", 5, 0.5)]
    got = values(ranking, [("q", "f10", 1)], ["RR", "P@1"])
    assert got[("q", "RR")] == 0.5  # "f9" > "f10": f9 first, rank column ignored
    assert got[("q", "P@1")] == 0.0


def test_rank_ties_break_like_score_ties() -> None:
    got = values([("q", "a", 1), ("q", "b", 1), ("q", "c", 2)], [("q", "a", 1)], ["RR"])
    assert got[("q", "RR")] == 0.5


def test_duplicates_count_once_at_first_position() -> None:
    ranking = [("q", "a", 1), ("q", "a", 2), ("q", "b", 3), ("q", "b", 4)]
    got = values(ranking, [("q", "b", 1), ("q", "c", 1)], ["P@2", "precisionAtK", "RR", "R@2", "nDCG@2"], k=5)
    assert got[("q", "P@2")] == 0.5
    assert got[("q", "precisionAtK")] == 0.5  # two distinct files returned
    assert got[("q", "RR")] == 0.5
    assert got[("q", "R@2")] == 0.5
    assert got[("q", "nDCG@2")] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))


def test_precision_divides_by_files_returned_not_k() -> None:
    ranking = [("one", "a.ts", 1), ("two", "a.ts", 1), ("two", "b.ts", 2)]
    qrels = [("one", "a.ts", 1), ("two", "a.ts", 1), ("none", "a.ts", 1)]
    got = values(ranking, qrels, ["precisionAtK", "P@5", "recallAtK"], k=5)
    assert got[("one", "precisionAtK")] == 1.0 and got[("one", "P@5")] == 0.2
    assert got[("two", "precisionAtK")] == 0.5
    assert got[("none", "precisionAtK")] == 0.0 and got[("none", "recallAtK")] == 0.0


def test_fewer_than_k_and_empty_results() -> None:
    got = values(
        [("q", "a", 1)],
        [("q", "a", 2), ("q", "b", 1), ("empty", "a", 1)],
        ["R@10", "nDCG@10", "Success@10", "RR@10"],
        cases=["empty", "q"],
    )
    assert got[("q", "R@10")] == 0.5
    assert got[("q", "nDCG@10")] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    assert got[("q", "Success@10")] == 1.0 and got[("q", "RR@10")] == 1.0
    assert all(got[("empty", m)] == 0.0 for m in ["R@10", "nDCG@10", "Success@10", "RR@10"])


def test_cutoff_excludes_hits_below_k() -> None:
    got = values([("q", "x", 1), ("q", "y", 2), ("q", "a", 3)], [("q", "a", 1)], ["RR@2", "RR@3", "RR"])
    assert got == {("q", "RR@2"): 0.0, ("q", "RR@3"): pytest.approx(1 / 3), ("q", "RR"): pytest.approx(1 / 3)}


def test_every_case_and_metric_has_a_row_in_case_order() -> None:
    frame = evaluate([("b", "x", 1)], [("a", "x", 1)], ["mrr", "ndcgAtK"], k=3, cases=["z", "a"])
    assert list(frame.columns) == [CASE, METRIC, VALUE]
    assert list(frame[CASE].astype(str)) == ["z", "z", "a", "a", "b", "b"]
    assert list(frame[METRIC].astype(str)) == ["mrr", "ndcgAtK"] * 3


def test_frames_with_different_categories_are_recoded() -> None:
    ranking, qrels = random_data(seed=11, graded=True, scored=True, n_cases=40)
    shared = evaluate(ranking, qrels, ["nDCG@10", "RR"])
    r_frame, q_frame = intern_frames(ranking, qrels)
    plain = r_frame.astype({CASE: str, "doc": str}).sample(frac=1.0, random_state=1)
    other = q_frame.assign(doc=pd.Categorical(q_frame["doc"].astype(str)))
    recoded = evaluate(plain, other, ["nDCG@10", "RR"])
    key = [CASE, METRIC]
    merged = shared.astype({CASE: str}).merge(recoded.astype({CASE: str}), on=key)
    assert len(merged) == len(shared)
    np.testing.assert_allclose(merged["value_x"], merged["value_y"], atol=1e-12)


def test_unsorted_rank_frame_gives_the_same_values() -> None:
    ranking, qrels = random_data(seed=5, graded=False, scored=False, n_cases=60)
    r_frame, q_frame = intern_frames(ranking, qrels)
    shuffled = r_frame.sample(frac=1.0, random_state=2)
    a = evaluate(r_frame, q_frame, ["P@5", "nDCG@10", "RR"])
    b = evaluate(shuffled, q_frame, ["P@5", "nDCG@10", "RR"])
    pd.testing.assert_frame_equal(a, b)


def test_intern_frames_share_categories() -> None:
    ranking, qrels = intern_frames([("q", "a", 1, 0.5)], [("q", "b", 1), ("p", "a", 0)], cases=["z"])
    assert ranking["doc"].cat.categories is qrels["doc"].cat.categories
    assert list(ranking[CASE].cat.categories) == ["z", "q", "p"]
    assert list(ranking.columns) == [CASE, "doc", "rank", "score"]
    assert ranking["rank"].dtype == np.int64 and qrels["relevance"].dtype == np.float64


def test_frames_from_results() -> None:
    ranking, qrels = frames_from_results({"q": ["a", "b"]}, {"q": ["b"], "r": {"c": 2}})
    got = evaluate(ranking, qrels, ["RR", "R@1"])
    assert got[VALUE].tolist() == [0.5, 0.0, 0.0, 0.0]
    assert list(got[CASE].astype(str).unique()) == ["q", "r"]


def test_aggregate_skips_nan() -> None:
    frame = evaluate([("q", "a", 1)], [("q", "a", 1), ("p", "b", 0)], ["RR", "P@1"], cases=["p"])
    assert aggregate(frame) == {"RR": 1.0, "P@1": 0.5}


@pytest.mark.parametrize(
    "spec, k, name",
    [
        ("P@5", None, "P@5"),
        ("precisionAtK", 5, "P_ret@5"),
        ("nDCG@10", None, "nDCG@10"),
        ("ndcg@10", None, "nDCG@10"),
        ("recall@20", None, "R@20"),
        ("R@20", None, "R@20"),
        ("RR@5", None, "RR@5"),
        ("mrr", 5, "RR@5"),
        ("mrr", None, "RR"),
        ("recip_rank", None, "RR"),
        ("ndcg_cut_10", None, "nDCG@10"),
        ("P_5", None, "P@5"),
        ("hit@3", None, "Success@3"),
        ("recallAtK", 4, "R@4"),
        ("ndcgAtK", 3, "nDCG@3"),
        ("mrr@10", 5, "RR@10"),
    ],
)
def test_parse_metric(spec: str, k: int | None, name: str) -> None:
    metric = parse_metric(spec, k=k)
    assert metric.name == name and metric.label == spec
    assert parse_metric(metric.name) == metric


def test_metric_spellings() -> None:
    assert parse_metric("precisionAtK", k=5).corpus_name == "precisionAtK"
    assert parse_metric("R@5").corpus_name == "recallAtK"
    assert parse_metric("P@5").corpus_name is None
    assert str(Metric("nDCG", 10)) == "nDCG@10"


@pytest.mark.parametrize(
    "spec, k, message",
    [
        ("bogus@5", None, "unknown metric 'bogus@5'"),
        ("P", None, "needs a cut-off"),
        ("precisionAtK", None, "needs the corpus k"),
        ("R@0", None, "cut-off must be an integer >= 1"),
        ("P@x", None, "unknown metric"),
    ],
)
def test_parse_metric_errors(spec: str, k: int | None, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_metric(spec, k=k)


@pytest.mark.parametrize(
    "ranking, qrels, message",
    [
        ([("q", "a", 0)], [("q", "a", 1)], "case 'q': rank must be an integer >= 1, got 0"),
        ([("q", "a", 1.5)], [("q", "a", 1)], "case 'q': rank must be an integer >= 1"),
        ([("q", "a", 1, float("nan"))], [("q", "a", 1)], "case 'q': score must be a finite number"),
        ([("q", "a", 1)], [("q", "a", 1), ("q", "a", 0)], "case 'q': doc 'a' is judged twice"),
        ([("q", "a", 1)], [("q", "a", None)], "case 'q': relevance must be a finite number"),
        ([("q", "a")], [("q", "a", 1)], r"ranking rows must be \(case, doc, rank\[, score\]\)"),
        ([("q", "a", "first")], [("q", "a", 1)], "ranking.rank: expected numbers"),
    ],
)
def test_bad_rows_raise_one_line_errors(ranking, qrels, message) -> None:
    with pytest.raises(WorkbenchError, match=message):
        evaluate(ranking, qrels, ["RR"])


def test_bad_frames_raise_errors() -> None:
    ranking, qrels = intern_frames([("q", "a", 1)], [("q", "a", 1)])
    with pytest.raises(UsageError, match="ranking frame: missing column 'rank or score'"):
        evaluate(ranking.drop(columns="rank"), qrels, ["RR"])
    with pytest.raises(UsageError, match="qrels frame: missing column 'relevance'"):
        evaluate(ranking, qrels.drop(columns="relevance"), ["RR"])
    with pytest.raises(UsageError, match="both be DataFrames or both be row tuples"):
        evaluate(ranking, [("q", "a", 1)], ["RR"])
    with pytest.raises(UsageError, match="has no doc"):
        evaluate(ranking.assign(doc=pd.Categorical([None])), qrels, ["RR"])


def test_missing_rank_in_a_nullable_column_names_the_case() -> None:
    ranking, qrels = intern_frames([("q", "a", 1), ("p", "b", 2)], [("q", "a", 1)])
    ranking["rank"] = pd.array([1, None], dtype="Int64")
    with pytest.raises(UsageError, match="case 'p': rank must be a finite number, got nan"):
        evaluate(ranking, qrels, ["RR"])
