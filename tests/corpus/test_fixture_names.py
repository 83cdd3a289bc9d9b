"""Issue 20, item 1: a fixture name is a name, never a path. A case naming a fixture outside
``fixtureRoots`` resolves only inside the corpus's ``fixtures/`` folder; ``validate`` and ``run``
refuse ``../../../../etc`` and its kin with one line naming the case and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.errors import CorpusError
from workbench.paths import name_problem, safe_id

from ..conftest import write_corpus


def _corpus(tmp_path: Path, fixture: str) -> Path:
    (tmp_path / "fixtures" / "api").mkdir(parents=True)
    (tmp_path / "fixtures" / "api" / "a.py").write_text("x = 1\n")
    case = {"name": "escape", "query": "users", "repoFixture": fixture, "expectedPrimary": []}
    return write_corpus(tmp_path, {"retrieval": [case]})


@pytest.mark.parametrize("name", ["../../../../etc", "..", "api/../../..", "/etc", ".hidden", "a\\..\\b", "a//b"])
def test_a_path_as_fixture_name_is_refused_by_validate_and_run(tmp_path: Path, name: str, capsys) -> None:
    corpus = _corpus(tmp_path, name)
    problems = validate_corpus(corpus)
    assert len(problems) == 1
    assert "retrieval[0].repoFixture" in str(problems[0]) and "plain name" in str(problems[0])
    assert problems[0].case == "escape"
    with pytest.raises(CorpusError, match=r"retrieval\[0\]\.repoFixture.*not a path"):
        load_corpus(corpus)
    code = main(["run", "--corpus", str(corpus), "--suite", "retrieval", "--out", str(tmp_path / "runs")])
    assert code == 3
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    assert "passwd" not in capsys.readouterr().out


def test_a_plain_fixture_name_still_resolves_in_the_fixtures_folder(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "api")
    assert validate_corpus(corpus) == []
    assert load_corpus(corpus).fixtures["api"] == (tmp_path / "fixtures" / "api").resolve()


def test_a_declared_fixture_root_may_still_name_any_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    corpus = _corpus(tmp_path, "outside")
    data = corpus.read_text().replace('"retrieval"', f'"fixtureRoots": {{"outside": "{elsewhere}"}}, "retrieval"')
    corpus.write_text(data)
    assert validate_corpus(corpus) == []


@pytest.mark.parametrize("text", ["../x", "a/b", "..", ".", "", "a b", "x\n", "\udc80"])
def test_safe_id_is_one_plain_component(text: str) -> None:
    cleaned = safe_id(text)
    assert "/" not in cleaned and not cleaned.startswith(".") and cleaned
    assert name_problem(cleaned) is None


def test_run_tags_and_go_code_names_never_become_paths(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_text("q1 0 a.py 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 a.py 1 1.0 ../../evil/tag\n")
    runs = tmp_path / "runs"
    out = ["--runs-dir", str(runs)]
    qrels, run = str(tmp_path / "q.qrels"), str(tmp_path / "r.run")
    assert main(["import", "trec", qrels, run, "--out", str(tmp_path / "t" / "c.json"), *out]) == 0
    report = tmp_path / "eval.json"
    report.write_text(
        '{"name": "../../go/evil", "per_query": [{"query": "q", "expected_top_3": ["F"], "results": []}]}'
    )
    assert main(["import", "go-code", str(report), "--out", str(tmp_path / "g" / "c.json"), *out]) == 0
    made = sorted(p.name for p in runs.iterdir())
    assert len(made) == 2 and all("/" not in name and ".." not in name for name in made)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.json", "g", "q.qrels", "r.run", "runs", "t"]
    exported = tmp_path / "export"
    tagged = runs / next(n for n in made if n.endswith("evil-tag"))
    assert main(["export", "--format", "trec", str(tagged), "--out", str(exported)]) == 0
    assert sorted(p.name for p in exported.iterdir()) == ["evil-tag.run", "qrels.txt"]
