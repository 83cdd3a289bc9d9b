"""Issue 41 item 14: TREC numbers are read as trec_eval reads them (ASCII digits, C ``atoi``/``atof``),
by both TREC readers alike (the importer and ``evaluate``'s), and what trec_eval would read otherwise
than Python is refused with one line naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.analysis import _trec as evaluate_reader
from workbench.errors import CorpusError, UsageError
from workbench.interchange.trec import read_trec

# Python's int/float read these; atoi/atof read a prefix of them or nothing (or, for 1e2, 1).
MISREAD_INTEGERS = ["1_0", "\u0661\u0660", "\uff11\uff10", "1e2", "2.5", "0x10", "99999999999"]
MISREAD_NUMBERS = ["1_0", "\u0661.5", "\uff11.0", "0x10", "inf", "nan", "1e400", "1.5e", "１"]
READ_ALIKE = {"3": 3.0, "-1": -1.0, "+2": 2.0, "2.0": 2.0, "1e2": 100.0, ".5": 0.5, "5.": 5.0, "-1.5E-3": -0.0015}


@pytest.mark.parametrize("text", MISREAD_INTEGERS)
def test_a_relevance_trec_eval_would_misread_is_refused_by_both_readers(tmp_path: Path, text: str) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text(f"q1 0 a.py 1\nq1 0 b.py {text}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"q\.qrels:2: .*relevance .* as trec_eval reads it \(field 4\)"):
        read_trec([qrels])
    with pytest.raises(UsageError, match=r"q\.qrels:2: .*relevance .* as trec_eval reads it \(field 4\)"):
        evaluate_reader.trec_columns(qrels, "qrels")


@pytest.mark.parametrize("text", MISREAD_NUMBERS)
def test_a_score_trec_eval_would_misread_is_refused_by_both_readers(tmp_path: Path, text: str) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 a.py 1\n")
    run.write_text(f"q1 Q0 a.py 1 0.5 sys\nq1 Q0 b.py 2 {text} sys\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"r\.run:2: .*score .* as trec_eval reads it \(field 5\)"):
        read_trec([qrels, run])
    with pytest.raises(UsageError, match=r"r\.run:2: .*score .* as trec_eval reads it \(field 5\)"):
        evaluate_reader.trec_columns(run, "ranking")


@pytest.mark.parametrize("text", ["1_0", "\u0661", "\uff11", "1e2", "1.0"])
def test_a_rank_trec_eval_would_misread_is_refused(tmp_path: Path, text: str) -> None:
    run = tmp_path / "r.run"
    run.write_text(f"q1 Q0 a.py {text} 0.5 sys\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"r\.run:1: .*rank .* \(field 4\)"):
        evaluate_reader.trec_columns(run, "ranking")


def test_numbers_both_read_alike_are_read_the_same_by_both_readers(tmp_path: Path) -> None:
    """The same values through the importer, the fast (pyarrow) and the line-by-line reading."""
    scores = list(READ_ALIKE)
    run = tmp_path / "r.run"
    run.write_text("".join(f"q1 Q0 d{i} {i + 1} {t} sys\n" for i, t in enumerate(scores)))
    _, ranked = read_trec([_qrels(tmp_path), run])
    imported = dict(ranked["sys"]["q1"])
    fast = evaluate_reader.trec_columns(run, "ranking")[2][1]
    slow = evaluate_reader._by_lines(run, "ranking", run.read_bytes())[2][1]
    want = [READ_ALIKE[t] for t in scores]
    assert [imported[f"d{i}"] for i in range(len(scores))] == want
    assert list(fast) == want and list(slow) == want
    qrels = tmp_path / "g.qrels"
    qrels.write_text("q1 0 a 2.0\nq1 0 b -1\nq1 0 c +3\n")
    assert read_trec([qrels])[0]["q1"] == {"a": 2, "b": -1, "c": 3}
    assert list(evaluate_reader.trec_columns(qrels, "qrels")[2][0]) == [2.0, -1.0, 3.0]


def _qrels(tmp_path: Path) -> Path:
    path = tmp_path / "q.qrels"
    path.write_text("q1 0 d0 1\n")
    return path


def test_what_the_fast_reading_lets_pyarrow_parse_is_read_as_trec_eval_reads_it() -> None:
    """``evaluate``'s fast reading lets pyarrow parse number fields made of digits, signs and ``.eE``:
    every such text (up to 4 characters) pyarrow takes whole must match the rule, to the same value."""
    import itertools
    import re

    import pyarrow as pa
    import pyarrow.compute as pc

    from workbench.strictjson import TREC_INTEGER, TREC_NUMBER

    texts = ["".join(t) for n in range(1, 5) for t in itertools.product("01+-.eE", repeat=n)]
    for kind, rule in ((pa.float64(), TREC_NUMBER), (pa.int64(), TREC_INTEGER)):
        for text in texts:
            try:
                value = pc.cast(pa.array([text]), kind)[0].as_py()
            except pa.ArrowInvalid:
                continue
            assert re.fullmatch(rule, text) and float(text) == value, (kind, text, value)
