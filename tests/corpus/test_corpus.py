"""Corpus loading and validation: every malformed kind is one clear line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.errors import CorpusError

from ..conftest import write_corpus


def _problems(tmp_path: Path, data) -> list[str]:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return [str(p) for p in validate_corpus(path)]


def test_loads_the_tiny_corpus_with_foreign_keys(tiny_corpus: Path) -> None:
    corpus = load_corpus(tiny_corpus)
    assert corpus.k == 5
    assert corpus.thresholds == {"retrieval": {"precisionAtK": 0.5, "recallAtK": 0.5, "mrr": 0.5}}
    assert corpus.fixture_dir("api") == (tiny_corpus.parent.parent / "fixtures" / "api").resolve()
    assert corpus.is_executable("api")
    assert len(corpus.cases("retrieval")) == 4 and corpus.cases("risk") == []
    assert len(corpus.sha256) == 64


def test_solumbe_style_corpus_loads_unchanged(tmp_path: Path) -> None:
    """Their layout: evals/corpus.json, roots relative to the repo root, comments beside values."""
    (tmp_path / "evals" / "fixtures" / "shop-api" / "src").mkdir(parents=True)
    (tmp_path / "evals" / "fixtures" / "shop-api" / "src" / "a.ts").write_text("x")
    for directory in ("base", "changes/secret-content"):
        (tmp_path / "evals" / "fixtures" / "shop-api" / directory).mkdir(parents=True)
    path = tmp_path / "evals" / "corpus.json"
    path.write_text(
        json.dumps(
            {
                "$schema": "./corpus.schema.note",
                "description": "d",
                "k": 5,
                "thresholds": {"comment": "floors", "retrieval": {"precisionAtK": 0.82}, "risk": {"accuracy": 0.96}},
                "fixtureRoots": {"comment": "Logical fixture name -> directory", "shop-api": "evals/fixtures/shop-api"},
                "retrieval": [
                    {
                        "name": "r",
                        "comment": "c",
                        "query": "q",
                        "repoFixture": "shop-api",
                        "expectedPrimary": ["src/a.ts"],
                    }
                ],
                "risk": [
                    {
                        "name": "s",
                        "mode": "secret",
                        "path": ".env.production",
                        "expectedConcepts": ["secret"],
                        "notExpectedConcepts": [],
                    }
                ],
                "gateEffectiveness": [
                    {
                        "name": "g",
                        "repoFixture": "shop-api",
                        "changeSet": "secret-content",
                        "expectedVerdict": "FAIL",
                        "options": {"runValidation": True},
                        "expectedChecks": [
                            {"name": "Secret safety", "status": "FAIL", "detailsInclude": ".env.production"}
                        ],
                    }
                ],
                "harnessExecution": [
                    {
                        "name": "h",
                        "repoFixture": "shop-api",
                        "commands": [{"kind": "test", "group": "validate", "command": "npm test", "script": "test"}],
                    }
                ],
            }
        )
    )
    assert validate_corpus(path) == []
    corpus = load_corpus(path)
    assert set(corpus.fixtures) == {"shop-api"} and corpus.is_executable("shop-api")


def test_absolute_fixture_roots_are_read_but_never_executable(tmp_path: Path, tiny_corpus: Path) -> None:
    data = json.loads(tiny_corpus.read_text())
    data["fixtureRoots"] = {"api": str((tiny_corpus.parent.parent / "fixtures" / "api").resolve())}
    corpus = load_corpus(write_corpus(tmp_path / "other", data | {"retrieval": data["retrieval"][:3]}))
    assert not corpus.is_executable("api")


def test_relative_root_escaping_the_corpus_parent_is_not_executable(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    path = write_corpus(tmp_path / "project", {"fixtureRoots": {"x": "../../outside"}, "retrieval": []})
    corpus = load_corpus(path)
    assert "x" in corpus.fixtures and not corpus.is_executable("x")


@pytest.mark.parametrize(
    "data, expected",
    [
        (
            {"retrieval": [{"name": "a", "query": "q", "repoFixture": "f", "expectedPrimary": "a.ts"}]},
            'retrieval[0].expectedPrimary: expected a list of strings, got "a.ts"',
        ),
        (
            {"retrieval": [{"name": "a", "repoFixture": "f", "expectedPrimary": []}]},
            "retrieval[0]: missing required field 'query'",
        ),
        (
            {"retrieval": [{"name": "a", "query": "q", "expectedPrimary": []}]},
            "retrieval[0]: needs exactly one of repoFixture or repoFixtures",
        ),
        (
            {"risk": [{"name": "r", "mode": "vibes", "query": "q", "expectedConcepts": []}]},
            'risk[0].mode: expected one of query, path, gate, secret, got "vibes"',
        ),
        ({"k": "5"}, 'k: expected an integer, got "5"'),
        ({"thresholds": {"retrieval": {"mrr": "high"}}}, 'thresholds.retrieval.mrr: expected a number, got "high"'),
        (
            {
                "gateEffectiveness": [
                    {"name": "g", "repoFixture": "f", "changeSet": "../etc", "expectedVerdict": "FAIL"}
                ]
            },
            "gateEffectiveness[0].changeSet: must match",
        ),
        ({"retrieval": {"a": 1}}, "retrieval: expected a list, got"),
        (
            {
                "retrieval": [
                    {"name": "a", "query": "q", "repoFixture": "f", "expectedPrimary": [], "expectedSymbols": "x"}
                ]
            },
            'retrieval[0].expectedSymbols: expected a list of strings, got "x"',
        ),
        (
            {
                "retrieval": [
                    {"name": "a", "query": "q", "repoFixture": "f", "expectedPrimary": [], "expectedSymbols": ["a.py"]}
                ]
            },
            "retrieval[0].expectedSymbols[0]: must be path:Name (a file, a colon, a definition name such as "
            "Class.method), got \"a.py\" (case 'a')",
        ),
        (
            {
                "retrieval": [
                    {
                        "name": "a",
                        "query": "q",
                        "repoFixture": "f",
                        "expectedPrimary": [],
                        "expectedSymbols": ["../x.py:f"],
                    }
                ]
            },
            "retrieval[0].expectedSymbols[0]: must not leave the fixture",
        ),
        ({"fixtureRoots": {"f": "missing-dir"}}, "fixtureRoots.f: directory 'missing-dir' not found"),
    ],
)
def test_each_malformed_field_is_named(tmp_path: Path, data: dict, expected: str) -> None:
    problems = _problems(tmp_path, data)
    assert any(p.startswith(expected) for p in problems), problems


def test_problem_names_the_case(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path, {"retrieval": [{"name": "shop-refund", "query": "q", "repoFixture": "f", "expectedPrimary": "a.ts"}]}
    )
    assert "(case 'shop-refund')" in problems[0]


def test_expected_files_must_exist(tiny_corpus: Path) -> None:
    data = json.loads(tiny_corpus.read_text())
    data["retrieval"][0]["expectedPrimary"] = ["src/nope.ts"]
    data["retrieval"][3]["expectedAnyOf"] = ["mobile/src/x.ts"]
    tiny_corpus.write_text(json.dumps(data))
    problems = [str(p) for p in validate_corpus(tiny_corpus)]
    assert "retrieval[0].expectedPrimary[0]: 'src/nope.ts' does not exist in fixture 'api' (case 'orders')" in problems
    assert any(p.startswith("retrieval[3].expectedAnyOf[0]: multi-repo path") for p in problems)


def test_unknown_fixture_is_named_at_the_case(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path, {"retrieval": [{"name": "a", "query": "q", "repoFixture": "ghost", "expectedPrimary": []}]}
    )
    assert problems == ["retrieval[0].repoFixture: unknown fixture 'ghost' (not in fixtureRoots) (case 'a')"]


def test_duplicate_case_names(tiny_corpus: Path) -> None:
    data = json.loads(tiny_corpus.read_text())
    data["retrieval"].append(dict(data["retrieval"][0]))
    tiny_corpus.write_text(json.dumps(data))
    assert "retrieval[4].name: duplicate case name 'orders'" in [str(p) for p in validate_corpus(tiny_corpus)]


@pytest.mark.parametrize("content", ["", "{", "[1, 2]", "\xff\xfe", '{"retrieval": [1]}'])
def test_load_raises_one_corpus_error_line(tmp_path: Path, content: str) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize("command", [["validate"], ["run"]])
@pytest.mark.parametrize("content", ["{", '{"retrieval": [{"name": 1}]}', '{"k": -1}'])
def test_cli_exits_3_without_traceback(tmp_path: Path, capsys, command, content) -> None:
    path = tmp_path / "c.json"
    path.write_text(content)
    assert main([*command, "--corpus", str(path)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(path) in err


def test_cli_validate_ok(tiny_corpus: Path, capsys) -> None:
    assert main(["validate", "--corpus", str(tiny_corpus)]) == 0
    assert "ok" in capsys.readouterr().out


def test_missing_corpus_file(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="corpus file not found"):
        load_corpus(tmp_path / "absent.json")


def test_a_valid_corpus_is_not_validated_again_while_its_bytes_are_unchanged(
    tiny_corpus: Path, tmp_path: Path, monkeypatch
) -> None:
    import workbench.corpus.load as corpus_module

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    checked = []
    real = corpus_module.schema_problems
    monkeypatch.setattr(corpus_module, "schema_problems", lambda data: checked.append(1) or real(data))
    load_corpus(tiny_corpus)
    load_corpus(tiny_corpus)
    assert len(checked) == 1, "the pass is remembered"
    tiny_corpus.write_text(tiny_corpus.read_text().replace('"list orders"', '"list all orders"'))
    load_corpus(tiny_corpus)
    assert len(checked) == 2, "one changed byte: validated again"
    tiny_corpus.write_text(tiny_corpus.read_text().replace('"k": 5', '"k": "five"'))
    for _ in range(2):
        with pytest.raises(CorpusError, match="k"):
            load_corpus(tiny_corpus)
    assert len(checked) == 4, "a corpus with problems is always validated, so they are always listed"
