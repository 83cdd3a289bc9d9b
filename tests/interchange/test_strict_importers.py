"""Issue 20, item 6: every importer reads strictly, checks its numbers, refuses duplicates naming
both lines, and writes all of its files or none."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.errors import CorpusError
from workbench.interchange.formats import read_records, trec_id
from workbench.interchange.gocode import import_go_code
from workbench.interchange.swebench import import_swebench
from workbench.interchange.trec import import_trec, read_trec, trec_order

from ..hostile import rewrite

QRELS = "q1 0 a.py 1\nq2 0 b.py 1\n"


def _trec(tmp_path: Path, qrels: str, run: str | None = None) -> list[Path]:
    (tmp_path / "q.qrels").write_text(qrels)
    paths = [tmp_path / "q.qrels"]
    if run is not None:
        (tmp_path / "r.run").write_text(run)
        paths.append(tmp_path / "r.run")
    return paths


@pytest.mark.parametrize(
    "qrels, run, message",
    [
        ("q1 0 a.py inf\n", None, r"q\.qrels:1: .*relevance 'inf' is not an integer"),
        ("q1 0 a.py 1e400\n", None, r"q\.qrels:1: .*relevance '1e400'"),
        ("q1 0 a.py 1.5\n", None, r"q\.qrels:1: .*relevance '1.5'"),
        ("q1 0 a.py nan\n", None, r"q\.qrels:1: .*relevance 'nan'"),
        (QRELS, "q1 Q0 a.py 1 NaN sys\n", r"r\.run:1: .*score 'NaN' is not a finite number"),
        (QRELS, "q1 Q0 a.py 1 1e400 sys\n", r"r\.run:1: .*score '1e400'"),
        (
            "q1 0 a.py 1\nq2 0 b.py 1\nq1 0 a.py 0\n",
            None,
            r"q\.qrels:3: duplicate qrels line .*'q1'.*'a\.py' \(first at .*q\.qrels:1\)",
        ),
        (
            QRELS,
            "q1 Q0 a.py 1 2 s\nq1 Q0 b.py 2 1 s\nq1 Q0 a.py 3 0 s\n",
            r"r\.run:3: duplicate run line .*\(first at .*r\.run:1\)",
        ),
    ],
)
def test_trec_numbers_and_duplicates_are_refused_with_their_line(
    tmp_path: Path, qrels: str, run: str | None, message: str
) -> None:
    with pytest.raises(CorpusError, match=message):
        read_trec(_trec(tmp_path, qrels, run))


def test_trec_import_refuses_non_utf8_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_bytes(b"q1 0 a.py 1\nq2 0 \xff.py 1\n")
    with pytest.raises(CorpusError, match=r"q\.qrels:2: not UTF-8"):
        read_trec([tmp_path / "q.qrels"])


def test_a_failed_import_leaves_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.interchange import gocode, trec

    def broken(*args, **kwargs):
        raise CorpusError("the run could not be written")

    monkeypatch.setattr(trec, "recorded_run", broken)
    monkeypatch.setattr(gocode, "recorded_run", broken)
    out = tmp_path / "out" / "deep" / "corpus.json"
    with pytest.raises(CorpusError, match="could not be written"):
        import_trec(_trec(tmp_path, QRELS, "q1 Q0 a.py 1 1 s\n"), out, runs_dir=tmp_path / "runs")
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()
    report = tmp_path / "eval.json"
    report.write_text(json.dumps({"per_query": [{"query": "q", "expected_top_3": ["F"], "results": []}]}))
    with pytest.raises(CorpusError, match="could not be written"):
        import_go_code([report], out, runs_dir=tmp_path / "runs")
    assert not (tmp_path / "out").exists()


def test_a_bad_second_go_code_report_writes_nothing(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({"per_query": [{"query": "q", "expected_top_3": ["F"], "results": []}]}))
    bad.write_text('{"per_query": [{"query": "q", "expected_top_3": ["F"], "id": ' + "7" * 5000 + "}]}")
    out = tmp_path / "gc" / "corpus.json"
    with pytest.raises(CorpusError, match=r"bad\.json: integer literal of 5000 digits"):
        import_go_code([good, bad], out, runs_dir=tmp_path / "runs")
    assert not (tmp_path / "gc").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 3000 + "]" * 3000, "nested deeper than 64 levels"),
        ('{"per_query": [{"query": "q\\ud800", "expected_top_3": ["F"]}]}', "lone surrogate"),
        (
            json.dumps({"per_query": [{"query": q, "expected_top_3": ["F"], "id": "a"} for q in ("q", "r")]}),
            r"per_query\[1\]\.id: duplicate id 'a' \(first at .*per_query\[0\]\.id\)",
        ),
    ],
)
def test_go_code_reports_are_read_strictly(tmp_path: Path, text: str, message: str) -> None:
    report = tmp_path / "eval.json"
    report.write_text(text)
    with pytest.raises(CorpusError, match=message):
        import_go_code([report], tmp_path / "gc" / "corpus.json", runs_dir=tmp_path / "runs")
    assert not (tmp_path / "gc").exists()


def test_duplicate_swebench_instance_ids_are_an_error_naming_both_lines(tmp_path: Path, capsys) -> None:
    row = {
        "instance_id": "acme__shop-1",
        "repo": "acme/shop",
        "base_commit": "0" * 40,
        "patch": "x",
        "problem_statement": "x",
    }
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(row) + "\n\n" + json.dumps(row) + "\n")
    with pytest.raises(
        CorpusError,
        match=r"instances\.jsonl:3: instance 'acme__shop-1': duplicate instance_id \(first at .*instances\.jsonl:1",
    ):
        import_swebench([path], tmp_path, None)
    code = main(["import", "swebench", str(path), "--repos", str(tmp_path), "--out", str(tmp_path / "c.json")])
    assert code == 3 and not (tmp_path / "c.json").exists()
    assert "duplicate instance_id" in capsys.readouterr().err


@pytest.mark.parametrize("text", ['[{"a": 1}, 2]', '{"a": NaN}', '{"a": 1}\n{"b": \n', b'{"a": "\xff"}'])
def test_instance_files_are_read_strictly(tmp_path: Path, text: str | bytes) -> None:
    path = tmp_path / "i.jsonl"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CorpusError, match=r"i\.jsonl"):
        read_records(path, "instance")


TOKENS = st.text(st.characters(categories=("L", "N", "P", "S"), exclude_characters="#"), min_size=1, max_size=8)
FIELD = st.one_of(TOKENS, st.sampled_from(["inf", "-inf", "nan", "1e400", "1.5", "0", "-1", "99999999999"]))


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(FIELD, min_size=1, max_size=7), max_size=6))
def test_read_trec_is_total(tmp_path: Path, rows: list[list[str]]) -> None:
    """Any lines load or fail with one CorpusError naming the file; never a traceback, never NaN."""
    path = tmp_path / "any.txt"
    rewrite(path, "".join(" ".join(row) + "\n" for row in rows))
    try:
        qrels, runs = read_trec([path])
    except CorpusError as exc:
        assert str(exc).startswith(str(path))
        return
    assert all(isinstance(rel, int) and abs(rel) <= 1000 for docs in qrels.values() for rel in docs.values())
    assert all(math.isfinite(score) for by_q in runs.values() for pairs in by_q.values() for _, score in pairs)


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(TOKENS, st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=1, max_size=8))
@example(scored={"%80": 0.0, "%00": 1.0})  # once read back as escapes: not UTF-8, a NUL
def test_read_trec_keeps_every_run_line(tmp_path: Path, scored: dict[str, float]) -> None:
    """Every line is kept, its id as written before ``trec_id`` escaped it (``%80`` is an escape)."""
    path = tmp_path / "r.txt"
    lines = ["q 0 d 1"]
    lines += [f"q Q0 {trec_id(doc)} {rank} {score!r} tag" for rank, (doc, score) in enumerate(scored.items(), 1)]
    rewrite(path, "\n".join(lines) + "\n")
    _, runs = read_trec([path])
    assert sorted(runs["tag"]["q"]) == sorted(scored.items())
    assert trec_order(runs["tag"]["q"]) == [
        d for d, _ in sorted(scored.items(), key=lambda p: (p[1], p[0]), reverse=True)
    ]
