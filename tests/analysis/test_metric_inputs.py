"""``evaluate`` gives the same scores from row tuples, pytrec_eval-style dicts, TREC files and frames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

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
