"""The retrieval suite at symbol level (issue 21): a pack's ranked ``symbols`` against a case's
``expectedSymbols``; an engine that returns none has those metrics skipped with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import FileRef, Pack, Repo, SymbolRef
from workbench.errors import TargetError
from workbench.run.runner import run_eval
from workbench.wire import encode_answer, parse_pack

from ..conftest import write_corpus

RANKED = [
    ("src/client.py", "HTTPConnection.putheader"),
    ("src/util.py", "quote"),
    ("src/client.py", "HTTPConnection.send"),
]


class _Engine:
    version = "1"

    def __init__(self, name: str, symbols: bool) -> None:
        self.name, self.symbols = name, symbols

    def context_pack(self, query: str, repos: list[Repo], limit: int = 8) -> Pack:
        ranked = [SymbolRef(repos[0].name, path, name) for path, name in RANKED] if self.symbols else None
        return Pack(primary=[FileRef(repos[0].name, "src/client.py")], symbols=ranked)


def with_symbols() -> _Engine:
    return _Engine("with-symbols", True)


def without_symbols() -> _Engine:
    return _Engine("files-only", False)


def _corpus(tmp_path: Path) -> Path:
    for rel in ("src/client.py", "src/util.py"):
        (tmp_path / "fixtures" / "app" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fixtures" / "app" / rel).write_text("x = 1\n")
    gold = ["src/client.py:putheader", "src/client.py:HTTPConnection.send"]
    return write_corpus(
        tmp_path,
        {
            "k": 2,
            "fixtureRoots": {"app": "../fixtures/app"},
            "retrieval": [
                {
                    "name": "c1",
                    "query": "q",
                    "repoFixture": "app",
                    "expectedPrimary": ["src/client.py"],
                    "expectedSymbols": gold,
                },
                {"name": "c2", "query": "q", "repoFixture": "app", "expectedPrimary": ["src/util.py"]},
            ],
        },
    )


def test_symbol_level_scores_and_skips(tmp_path: Path) -> None:
    targets = [f"python:tests.suites.test_retrieval_symbols:{f}" for f in ("with_symbols", "without_symbols")]
    run = run_eval(_corpus(tmp_path), suites=["retrieval"], targets=targets, out_dir=tmp_path / "runs", progress=False)
    summary = run.summary["suites"]["retrieval"]
    # c1: the bare label matches rank 1, the qualified one rank 3; k = 2 -> Acc 0, Recall 1/2, MRR 1
    assert {m: summary["with-symbols"]["metrics"][m] for m in ("symbolAccAtK", "symbolRecallAtK", "symbolMrr")} == {
        "symbolAccAtK": 0.0,
        "symbolRecallAtK": 0.5,
        "symbolMrr": 1.0,
    }
    assert "skipped_metrics" not in summary["with-symbols"]
    files_only = summary["files-only"]
    assert [files_only["metrics"][m] for m in ("symbolAccAtK", "symbolRecallAtK", "symbolMrr")] == [None] * 3
    assert set(files_only["skipped_metrics"]) == {"symbolAccAtK", "symbolRecallAtK", "symbolMrr"}
    assert "carry no ranked 'symbols'" in files_only["skipped_metrics"]["symbolMrr"]
    assert files_only["metrics"]["mrr"] == summary["with-symbols"]["metrics"]["mrr"] == 0.5  # file level as before
    scores = run.scores
    symbol_rows = scores[scores.metric.str.startswith("symbol")]
    assert set(symbol_rows.target) == {"with-symbols"} and set(symbol_rows.case) == {"c1"}
    rows = [json.loads(line) for line in (run.path / "cases.jsonl").read_text().splitlines()]
    c1 = next(r for r in rows if r["case"] == "c1" and r["target"] == "with-symbols")
    assert c1["symbolRanks"] == [1, 3] and c1["returnedSymbols"][0] == "src/client.py:HTTPConnection.putheader"
    assert "expectedSymbols" not in next(r for r in rows if r["case"] == "c2" and r["target"] == "with-symbols")
    from workbench.report.text import render_scoreboard

    board = render_scoreboard(run.summary, k=2)
    assert "sym-acc@2=0, sym-r@2=0.500, sym-mrr=1" in board
    assert "  - not measured: symbolAccAtK, symbolRecallAtK, symbolMrr (skipped: the target's context_pack" in board


def test_a_corpus_without_gold_symbols_has_no_symbol_metrics(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    data = json.loads(path.read_text())
    del data["retrieval"][0]["expectedSymbols"]
    path.write_text(json.dumps(data))
    run = run_eval(
        path,
        suites=["retrieval"],
        targets=["python:tests.suites.test_retrieval_symbols:with_symbols"],
        out_dir=tmp_path / "runs",
        progress=False,
    )
    summary = run.summary["suites"]["retrieval"]["with-symbols"]
    assert set(summary["metrics"]) == {"precisionAtK", "recallAtK", "mrr", "ndcgAtK"}
    assert "skipped_metrics" not in summary


def test_pack_symbols_parse_strictly_and_round_trip() -> None:
    repos = [Repo("app", Path("/x"))]
    body = {
        "primary": ["a.py"],
        "symbols": [{"path": "a.py", "name": "C.m"}, {"repo": "app", "path": "b.py", "name": "f"}],
    }
    pack = parse_pack(body, repos)
    assert pack.symbols == [SymbolRef("app", "a.py", "C.m"), SymbolRef("app", "b.py", "f")]
    assert encode_answer("context_pack", pack)["symbols"][0] == {"repo": "app", "path": "a.py", "name": "C.m"}
    assert parse_pack({"primary": []}, repos).symbols is None
    assert "symbols" not in encode_answer("context_pack", parse_pack({"primary": []}, repos))
    for bad, message in [
        ({"symbols": "f"}, "'symbols' should be a list"),
        ({"symbols": [{"path": "a.py"}]}, "symbols[0] should be {repo, path, name}"),
        ({"symbols": [{"path": "../a.py", "name": "f"}]}, "symbols[0].path: invalid answer"),
        ({"symbols": [{"repo": "zzz", "path": "a.py", "name": "f"}]}, "symbols[0].repo: invalid answer"),
        ({"symbols": [{"path": "a.py", "name": "f"}] * 1001}, "more than the cap of 1000"),
    ]:
        with pytest.raises(TargetError, match=None) as raised:
            parse_pack(bad, repos)
        assert message in str(raised.value)


def test_symbol_floors_are_skipped_for_an_engine_without_symbols(tmp_path: Path) -> None:
    """Floors on metrics a target's answers cannot carry are skipped with the reason, never a FAIL
    of ``symbolAccAtK missing < 0.35``; the engine that does return symbols is held to them."""
    path = _corpus(tmp_path)
    data = json.loads(path.read_text())
    data["thresholds"] = {"retrieval": {"mrr": 0.4, "symbolAccAtK": 0.35}}
    path.write_text(json.dumps(data))
    targets = [f"python:tests.suites.test_retrieval_symbols:{f}" for f in ("with_symbols", "without_symbols")]
    run = run_eval(path, suites=["retrieval"], targets=targets, out_dir=tmp_path / "runs", progress=False)
    files_only, with_symbols = (run.summary["suites"]["retrieval"][t] for t in ("files-only", "with-symbols"))
    assert files_only["verdict"] == "PASS" and files_only["failures"] == []
    assert files_only["skipped_floors"] == {"symbolAccAtK": files_only["skipped_metrics"]["symbolAccAtK"]}
    assert with_symbols["verdict"] == "FAIL" and with_symbols["failures"] == ["symbolAccAtK 0.000 < 0.35"]
    from workbench.report.text import render_scoreboard

    board = render_scoreboard(run.summary, k=2)
    assert "  - floor skipped: symbolAccAtK >= 0.35 (skipped: the target's context_pack answers" in board
    assert "missing < 0.35" not in board
