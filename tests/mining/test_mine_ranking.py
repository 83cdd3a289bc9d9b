"""``mine --ranking``: the mined commits as a ranking golden, run at their revisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.git_history import shop_history
from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.errors import CorpusError, UsageError
from workbench.mining.mine import mine_corpus
from workbench.mining.ranking_out import golden_lines, language, merged_golden, with_ranking_set
from workbench.options import MineOptions
from workbench.run.runner import RunOptions, run


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("hist") / "shop"
    return repo, shop_history(repo)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _mined(repo: Path, directory: Path) -> tuple[Path, Path]:
    """A corpus mined from ``repo`` with --ranking into ``directory``: (corpus, golden)."""
    out = directory / "corpus.json"
    mine_corpus(repo, MineOptions(out=out, ranking=True, max_cases=None, progress=False))
    return out, directory / "corpus.shop.ranking.jsonl"


def test_each_case_with_gold_symbols_becomes_one_golden_line(shop: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = shop
    out = tmp_path / "corpus.json"
    result, _ = mine_corpus(repo, MineOptions(out=out, ranking=True, max_cases=None, progress=False))
    golden = tmp_path / "corpus.shop.ranking.jsonl"
    assert result.ranking == (golden, len(_lines(golden)))
    lines = {line["id"]: line for line in _lines(golden)}
    with_symbols = [c for c in result.cases if c.get("expectedSymbols")]
    assert 0 < len(with_symbols) < len(result.cases)  # module-level changes give no line
    assert list(lines) == [c["name"] for c in with_symbols]
    for case in with_symbols:
        line = lines[case["name"]]
        assert line["query"] == case["query"] and line["expected_top_3"] == case["expectedSymbols"]
        assert line["revision"] == case["revision"] and line["category"] == case["shape"]
        assert line["language"] == "python" and case["source"]["commit"] in line["notes"]
    symbol_case = next(c for c in result.cases if c["source"]["commit"] == shas["symbol"])
    assert lines[symbol_case["name"]]["expected_top_3"] == ["src/users.py:find_user"]
    data = json.loads(out.read_text())
    assert data["ranking"] == [{"name": "shop", "repoFixture": "shop", "golden": golden.name}]
    assert validate_corpus(out) == []


def test_the_ranking_suite_searches_each_query_at_its_revision(
    shop: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, shas = shop
    out, _ = _mined(repo, tmp_path)
    # find_user is gone at HEAD (src/users.py is ``customer = 1`` there): only the parent's tree has it
    assert "find_user" not in (repo / "src" / "users.py").read_text()
    result = run(
        load_corpus(out),
        RunOptions(suites=["ranking"], targets=["builtin"], out_dir=tmp_path / "runs", progress=False),
    )
    rows = result.cases.set_index("case")
    name = f"shop/shop-{shas['symbol'][:10]}"
    assert rows.loc[name, "passed"]
    scores = result.scores[(result.scores["case"] == name) & (result.scores["metric"] == "mrr")]
    assert scores["value"].item() == 1.0


def test_append_replaces_lines_in_place_and_refuses_an_existing_golden_without_it(
    shop: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, _ = shop
    out, golden = _mined(repo, tmp_path)
    first = golden.read_text()
    with golden.open("a") as handle:
        handle.write('{"id": "hand-written", "query": "the invoice", "expected_top_3": ["render_invoice"]}\n')
    mine_corpus(repo, MineOptions(out=out, append=True, ranking=True, max_cases=None, progress=False))
    lines = golden.read_text().splitlines()
    assert "\n".join(lines[:-1]) + "\n" == first and json.loads(lines[-1])["id"] == "hand-written"
    assert len(json.loads(out.read_text())["ranking"]) == 1
    out.unlink()
    before = golden.read_text()
    with pytest.raises(CorpusError, match="corpus.shop.ranking.jsonl: exists; pass --append"):
        mine_corpus(repo, MineOptions(out=out, ranking=True, max_cases=None, progress=False))
    assert not out.exists() and golden.read_text() == before


def test_ranking_needs_out(shop: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = shop
    assert main(["mine", str(repo), "--ranking"]) == 2
    assert "--ranking needs --out FILE" in capsys.readouterr().err
    with pytest.raises(UsageError, match="--ranking needs --out"):
        mine_corpus(repo, MineOptions(ranking=True, progress=False))


def test_cli_reports_the_golden(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = shop
    assert main(["mine", str(repo), "--out", str(tmp_path / "c.json"), "--ranking"]) == 0
    err = capsys.readouterr().err
    count = len(_lines(tmp_path / "c.shop.ranking.jsonl"))
    assert f"ranking: {count} quer" in err and "c.shop.ranking.jsonl" in err


def test_a_revision_that_is_no_commit_is_a_validation_problem_naming_the_query(
    shop: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, _ = shop
    out, golden = _mined(repo, tmp_path)
    lines = _lines(golden)
    lines[0]["revision"] = "0" * 40
    golden.write_text("".join(json.dumps(line) + "\n" for line in lines))
    problems = [str(p) for p in validate_corpus(out)]
    assert len(problems) == 1
    assert f"{golden}: query {lines[0]['id']!r}.revision" in problems[0] and "is not a commit" in problems[0]


def test_golden_helpers() -> None:
    assert language(["a.go", "b.go", "c.py"]) == "go" and language(["a.ts", "b.js"]) == "javascript"
    assert language(["README", "x.cobol"]) == ""
    case = {
        "name": "r-1",
        "query": "q",
        "revision": "abc",
        "shape": "words-only",
        "source": {"commit": "def"},
        "expectedSymbols": ["a.ts:A.run"],
    }
    assert golden_lines([case, {**case, "name": "r-2", "expectedSymbols": []}]) == [
        {
            "id": "r-1",
            "query": "q",
            "expected_top_3": ["a.ts:A.run"],
            "revision": "abc",
            "language": "typescript",
            "category": "words-only",
            "notes": "mined from commit def",
        }
    ]
    assert merged_golden([{"id": "a", "v": 1}, {"id": "b"}], [{"id": "a", "v": 2}, {"id": "c"}]) == [
        {"id": "a", "v": 2},
        {"id": "b"},
        {"id": "c"},
    ]
    kept = {"name": "other", "repoFixture": "o", "golden": "o.jsonl"}
    data = with_ranking_set({"ranking": [kept, {"name": "r", "golden": "old"}]}, "r", "new.jsonl")
    assert data["ranking"] == [kept, {"name": "r", "repoFixture": "r", "golden": "new.jsonl"}]
    assert with_ranking_set({}, "r", "g")["ranking"] == [{"name": "r", "repoFixture": "r", "golden": "g"}]
