"""``evaluate`` gives the same scores from row tuples, pytrec_eval-style dicts, TREC files and frames."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval

from tests.analysis.test_metrics import oracle_runs, random_data
from workbench.analysis import _columns
from workbench.analysis import _trec as trec_reader
from workbench.analysis._columns import side_of
from workbench.analysis._inputs import KeyCollision
from workbench.analysis._interning import hashed_inputs
from workbench.analysis._kernel import find_hits
from workbench.analysis._scored_run import scored_run_hits
from workbench.analysis.metrics import evaluate, intern_frames
from workbench.errors import UsageError

METRICS = ["P@2", "R@3", "RR", "nDCG@3"]
# q1: docs by score c (3.0), a (2.0), b (2.0; ties go to the larger id: b before a), d (0.5)
RUN = {"q1": {"a": 2.0, "b": 2.0, "c": 3.0, "d": 0.5}, "q2": {"x": 1.0, "y": 0.0}}
QRELS = {"q1": {"a": 1, "d": 2}, "q2": {"z": 1}, "q3": {"w": 1}}


def _rows() -> tuple[list[tuple], list[tuple]]:
    ranking = [(c, d, r, s) for c, docs in RUN.items() for r, (d, s) in enumerate(docs.items(), 1)]
    qrels = [(c, d, rel) for c, docs in QRELS.items() for d, rel in docs.items()]
    return ranking, qrels


def _trec(tmp_path: Path) -> tuple[Path, Path]:
    ranking, qrels = _rows()
    run = tmp_path / "run.trec"
    run.write_text("".join(f"{c} Q0 {d} {r} {s} tag\n" for c, d, r, s in ranking))
    judged = tmp_path / "qrels.trec"
    judged.write_text("".join(f"{c} 0 {d} {rel}\n" for c, d, rel in qrels))
    return run, judged


def test_every_input_form_scores_the_same(tmp_path: Path) -> None:
    ranking, qrels = _rows()
    run_file, qrels_file = _trec(tmp_path)
    frames = intern_frames(ranking, qrels)
    results = [
        evaluate(ranking, qrels, METRICS),
        evaluate(RUN, QRELS, METRICS),
        evaluate(run_file, qrels_file, METRICS),
        evaluate(str(run_file), str(qrels_file), METRICS),
        evaluate(*frames, METRICS),
    ]
    for other in results[1:]:
        pd.testing.assert_frame_equal(other, results[0])
    wide = results[0].pivot(index="case", columns="metric", values="value")
    # q1 order c, b, a, d: P@2 = 0/2, R@3 = 1/2 (a at 3), RR = 1/3, nDCG@3 = (1/log2 4) / (2 + 1/log2 3)
    assert wide.loc["q1", "P@2"] == 0.0
    assert wide.loc["q1", "R@3"] == 0.5
    assert wide.loc["q1", "RR"] == pytest.approx(1 / 3)
    assert wide.loc["q1", "nDCG@3"] == pytest.approx(0.5 / (2 + 1 / 1.5849625007211563))
    assert wide.loc["q2", "RR"] == 0.0
    assert wide.loc["q3", "R@3"] == 0.0  # judged, never ranked


def test_ranked_lists_and_doc_sets() -> None:
    from_dicts = intern_frames({"q": ["a", "b"], "empty": []}, {"q": ["b"]})
    from_rows = intern_frames([("q", "a", 1), ("q", "b", 2)], [("q", "b", 1)])
    for got, want in zip(from_dicts, from_rows):
        pd.testing.assert_frame_equal(got, want)
    wide = evaluate({"q": ["a", "b"]}, {"q": ["b"]}, ["RR"]).set_index("case")["value"]
    assert wide["q"] == 0.5


def test_bad_trec_line_names_file_and_line(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q Q0 a 1 1.0 tag\nq Q0 b two 0.5 tag\n")
    with pytest.raises(UsageError, match=r"run.trec:2: expected numbers"):
        evaluate(run, {"q": ["a"]}, ["RR"])
    run.write_text("q Q0 a 1\n")
    with pytest.raises(UsageError, match=r"run.trec:1: a TREC ranking line has 6 fields, found 4"):
        evaluate(run, {"q": ["a"]}, ["RR"])
    with pytest.raises(UsageError, match="not a string"):
        evaluate({"q": "abc"}, {"q": ["a"]}, ["RR"])


# ---------------------------------------------------------------- every form, at scale and at the edges

ALL = ["P@5", "R@20", "RR", "RR@3", "nDCG@10", "precisionAtK", "Success@1"]


def _run_and_judged(ranking: list[tuple], qrels: list[tuple]) -> tuple[dict, dict]:
    judged: dict[str, dict[str, float]] = {}
    for case, doc, rel in qrels:
        judged.setdefault(case, {})[doc] = rel
    return oracle_runs(ranking), judged


def _write_trec(run: dict, judged: dict, folder: Path, sep: str = " ") -> tuple[Path, Path]:
    run_file, qrels_file = folder / f"run{len(sep)}.trec", folder / f"qrels{len(sep)}.trec"
    lines = [
        sep.join([c, "Q0", d, str(r), repr(s), "tag"])
        for c, docs in run.items()
        for r, (d, s) in enumerate(docs.items(), 1)
    ]
    run_file.write_text("\r\n\n".join(lines) + "\n")  # CRLF and blank lines: both readers skip them
    qrels_file.write_text(
        "".join(f"{c}{sep}0{sep}{d}{sep}{rel}\n" for c, docs in judged.items() for d, rel in docs.items())
    )
    return run_file, qrels_file


def _hashed(ranking: object, qrels: object) -> None:
    """Scored by hashed keys, not fallen back to exact interning (which gives the same scores)."""
    inputs = hashed_inputs(side_of(ranking, "ranking", True), side_of(qrels, "qrels", True), None)
    assert inputs is not None
    find_hits(inputs)  # raises KeyCollision if ids of one key differ


@pytest.mark.parametrize("scored", [False, True])
def test_rows_frames_dicts_and_trec_files_agree_on_random_runs(tmp_path: Path, scored: bool) -> None:
    ranking, qrels = random_data(seed=21 + scored, graded=True, scored=scored)  # duplicates and ties
    exact = evaluate(*intern_frames(ranking, qrels), ALL, k=5)
    _hashed(ranking, qrels)
    pd.testing.assert_frame_equal(evaluate(ranking, qrels, ALL, k=5), exact)
    run, judged = _run_and_judged(ranking, qrels)  # each doc once per case, with a score
    rows = [(c, d, r, s) for c, docs in run.items() for r, (d, s) in enumerate(docs.items(), 1)]
    want = evaluate(rows, qrels, ALL, k=5)
    pd.testing.assert_frame_equal(evaluate(run, judged, ALL, k=5), want)
    for sep in (" ", "\t"):  # plain (pyarrow's reader) and not (line by line)
        files = _write_trec(run, judged, tmp_path, sep)
        _hashed(*files)
        pd.testing.assert_frame_equal(evaluate(*files, ALL, k=5), want)


def _untied_run(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    run, judged = {}, {}
    for c in range(80):
        docs = rng.choice(60, size=rng.integers(0, 40), replace=False)
        run[f"q{c}"] = {f"src/f{d}.py": float(s) for d, s in zip(docs, rng.permutation(500)[: docs.size] / 7)}
        judged[f"q{c + 5}"] = {f"src/f{d}.py": int(rng.integers(0, 3)) for d in rng.choice(60, size=4, replace=False)}
    return run, judged


def test_a_scored_run_dict_is_scored_from_its_scores(tmp_path: Path) -> None:
    run, judged = _untied_run(seed=5)
    assert scored_run_hits(run, side_of(judged, "qrels", True), None) is not None  # no id read
    rows = [(c, d, r, s) for c, docs in run.items() for r, (d, s) in enumerate(docs.items(), 1)]
    qrels = [(c, d, rel) for c, docs in judged.items() for d, rel in docs.items()]
    got = evaluate(run, judged, ALL, k=5)
    pd.testing.assert_frame_equal(got, evaluate(rows, qrels, ALL, k=5))
    qrels_file = tmp_path / "qrels.trec"  # forms mix: a run dict with a qrels file
    qrels_file.write_text("".join(f"{c} 0 {d} {rel}\n" for c, d, rel in qrels))
    pd.testing.assert_frame_equal(evaluate(run, qrels_file, ALL, k=5), got)
    wide = got.pivot(index="case", columns="metric", values="value")
    theirs = pytrec_eval.RelevanceEvaluator(judged, {"P_5", "recall_20", "recip_rank", "ndcg_cut_10"}).evaluate(run)
    scored = [c for c in theirs if c in run and any(rel > 0 for rel in judged[c].values())]
    assert len(scored) > 40
    for ours, trec in [("P@5", "P_5"), ("R@20", "recall_20"), ("RR", "recip_rank"), ("nDCG@10", "ndcg_cut_10")]:
        assert np.allclose(wide.loc[scored, ours].astype(float), [theirs[c][trec] for c in scored], atol=1e-12)


def test_a_judged_doc_tied_with_another_is_ordered_by_id() -> None:
    run, judged = _untied_run(seed=6)
    case, doc = next((c, d) for c, ds in judged.items() for d, rel in ds.items() if rel > 0 and d in run.get(c, {}))
    docs = run[case]
    docs["zz"] = docs[doc]  # ties with a judged doc; "zz" sorts first
    assert scored_run_hits(run, side_of(judged, "qrels", True), None) is None
    rows = [(c, d, r, s) for c, ds in run.items() for r, (d, s) in enumerate(ds.items(), 1)]
    qrels = [(c, d, rel) for c, ds in judged.items() for d, rel in ds.items()]
    pd.testing.assert_frame_equal(evaluate(run, judged, ALL, k=5), evaluate(rows, qrels, ALL, k=5))


def test_hash_collisions_fall_back_to_exact_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    ranking, qrels = random_data(seed=4, graded=True, scored=True)
    exact = evaluate(*intern_frames(ranking, qrels), ALL, k=5)
    monkeypatch.setattr(_columns, "KEY_BITS", 1)  # every id of a case shares one of two keys
    with pytest.raises(KeyCollision):
        inputs = hashed_inputs(side_of(ranking, "ranking", True), side_of(qrels, "qrels", True), None)
        assert inputs is not None
        find_hits(inputs)
    pd.testing.assert_frame_equal(evaluate(ranking, qrels, ALL, k=5), exact)


def test_ids_that_are_not_strings_are_interned_exactly() -> None:
    got = evaluate([("q", 1, 1), ("q", 2, 2), ("q", 1.0, 3)], [("q", 2, 1)], ["RR", "precisionAtK"], k=5)
    assert got["value"].tolist() == [0.5, 0.5]  # 1 and 1.0 are one doc: two returned, 2 is second
    with pytest.raises(UsageError, match="ranking frame: row 1 has no doc"):
        evaluate([("q", "a", 1), ("q", None, 2)], [("q", "a", 1)], ["RR"])
    with pytest.raises(UsageError, match="ranking frame: row 1 has no doc"):
        evaluate({"q": {"a": 1.0, None: 0.5}}, {"q": {"a": 1}}, ["RR"])


def test_dict_forms() -> None:
    with pytest.raises(UsageError, match=r"ranking rows must be \(case, doc, rank\[, score\]\)"):
        evaluate({"q": {"a": 1.0}, "p": ["b"]}, {"q": ["a"]}, ["RR"])
    mixed = evaluate({"q": ["a", "b"]}, {"q": {"b": 2}, "p": ["x"]}, ["nDCG@2", "RR"])
    assert mixed["value"].tolist() == [pytest.approx(1 / math.log2(3)), 0.5, 0.0, 0.0]
    with pytest.raises(UsageError, match="case 'q': doc 'a' is judged twice"):
        evaluate({"q": {"a": 1.0}}, {"q": ["a", "a"]}, ["RR"])


def test_plain_trec_files_read_the_same_by_arrow_and_by_lines(tmp_path: Path) -> None:
    run, judged = _run_and_judged(*random_data(seed=9, graded=True, scored=True))
    for path, what in zip(_write_trec(run, judged, tmp_path), ["ranking", "qrels"]):
        fast, slow = trec_reader._by_arrow(path, what), trec_reader._by_lines(path, what, path.read_bytes())
        assert fast is not None
        for a, b in zip(fast[:2], slow[:2]):
            assert a.to_pylist() == b.tolist()
        for a, b in zip(fast[2], slow[2]):
            assert np.asarray(a, dtype=float).tolist() == np.asarray(b, dtype=float).tolist()


@pytest.mark.parametrize(
    "line, message",
    [
        ("q Q0 a 0x10 1.5 tag", "run.trec:2: expected numbers"),  # pyarrow would read 16
        ("q Q0 a 1 1.5 tag extra", "run.trec:2: a TREC ranking line has 6 fields, found 7"),
        ("q Q0 a\xa0b 1 1.5 tag", "run.trec:2: a TREC ranking line has 6 fields, found 7"),  # str.split splits on NBSP
        ("q Q0 a 1.0 1.5 tag", "run.trec:2: expected numbers"),
        ("q  a 1 1.5 tag", "run.trec:2: a TREC ranking line has 6 fields, found 5"),  # pyarrow: an empty field
    ],
)
def test_bad_trec_lines_after_a_good_one(tmp_path: Path, line: str, message: str) -> None:
    run = tmp_path / "run.trec"
    run.write_text(f"q Q0 b 1 2.0 tag\n{line}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        evaluate(run, {"q": ["a"]}, ["RR"])


def test_utf8_keys_are_equal_exactly_for_equal_strings() -> None:
    words = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x00", "src/f1.py", "src/f10.py", "é", "ü" * 9]
    arrow = pa.array(["pad", *words, *words]).slice(1)  # offsets not starting at 0
    keys = _columns.utf8_keys(arrow)
    n = len(words)
    assert keys[:n].tolist() == keys[n:].tolist()
    assert len(set(keys[:n].tolist())) == n
    assert keys.min() >= 0 and keys.max() < 1 << _columns.KEY_BITS
    assert _columns.utf8_keys(pa.array([], type=pa.string())).size == 0
    assert _columns.utf8_keys(pa.array(["", ""])).tolist() == [keys[0]] * 2
