"""Issue 41, minors: an expected file that is a symlink (engines never return one) and an expected
file spelled in another Unicode normalization than the fixture's or the engine's are said, naming
the case and the field: by ``validate``, and, at scoring time, in the case's reasons."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from workbench.cli import main
from workbench.corpus import validate_corpus
from workbench.report.views.reasons import explain
from workbench.suites.base import Outcome
from workbench.suites.retrieval import RetrievalSuite, spelling_notes

from ..conftest import write_corpus

NFC = unicodedata.normalize("NFC", "src/café.py")
NFD = unicodedata.normalize("NFD", "src/café.py")


def _corpus(tmp_path: Path, expected: str) -> Path:
    case = {"name": "c1", "query": "refund", "repoFixture": "api", "expectedPrimary": [expected]}
    return write_corpus(tmp_path, {"fixtureRoots": {"api": "fixtures/api"}, "retrieval": [case]})


def _fixture(tmp_path: Path) -> Path:
    root = tmp_path / "fixtures" / "api" / "src"
    root.mkdir(parents=True)
    (root / "real.py").write_text("x = 1\n")
    return root


def test_a_symlinked_expected_file_is_refused_naming_case_and_field(tmp_path: Path, capsys) -> None:
    src = _fixture(tmp_path)
    (src / "link.py").symlink_to("real.py")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.py").write_text("o = 1\n")
    (src / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    for expected in ("src/link.py", "src/linked/o.py"):
        (problem,) = validate_corpus(_corpus(tmp_path, expected))
        assert problem.location == "retrieval[0].expectedPrimary[0]" and problem.case == "c1"
        assert "symlink" in problem.message and "could ever return it" in problem.message
    assert main(["validate", "--corpus", str(_corpus(tmp_path, "src/link.py"))]) != 0
    assert (
        "retrieval[0].expectedPrimary[0]: 'src/link.py' in fixture 'api' is or lies under a symlink"
        in capsys.readouterr().err
    )
    assert validate_corpus(_corpus(tmp_path, "src/real.py")) == []


def test_validate_says_when_the_fixture_spells_a_path_in_another_normalization(tmp_path: Path) -> None:
    src = _fixture(tmp_path)
    (src.parent / NFD).write_text("c = 1\n")
    (problem,) = validate_corpus(_corpus(tmp_path, NFC))
    assert problem.case == "c1" and "another Unicode normalization" in problem.message
    assert validate_corpus(_corpus(tmp_path, NFD)) == []


def test_a_pack_holding_another_normalization_is_a_miss_that_is_said() -> None:
    assert spelling_notes([NFC], [NFD]) and spelling_notes([NFD], [NFC])
    assert spelling_notes([NFC], [NFC, "other.py"]) == [] and spelling_notes(["a.py"], ["b.py"]) == []
    case = {"name": "c1", "query": "q", "repoFixture": "api", "expectedPrimary": [NFC]}
    row = RetrievalSuite._case_row(Outcome(case, {"primary": [NFD], "related": [], "reasons": {}}, None, 0.1), 5)
    assert not row["passed"] and "another Unicode normalization" in row["spelling"][0]
    assert "another Unicode normalization (NFC/NFD): counted as a miss" in explain({**row, "suite": "retrieval"}, 5)


def test_a_symlink_in_a_git_fixture_is_refused_at_its_revision(tmp_path: Path) -> None:
    from ..git_history import commit, git, init

    repo = init(tmp_path / "fixtures" / "api")
    (repo / "src").mkdir()
    (repo / "src" / "link.py").symlink_to("real.py")
    first = commit(repo, "start", {"src/real.py": "x = 1\n"}, 0)
    git(repo, "rm", "-q", "src/link.py")
    later = commit(repo, "a plain file now", {"src/link.py": "y = 2\n"}, 1)

    def problems(revision: str) -> list[str]:
        case = {
            "name": "c1",
            "query": "q",
            "repoFixture": "api",
            "revision": revision,
            "expectedPrimary": ["src/link.py"],
        }
        data = {"fixtureRoots": {"api": "fixtures/api"}, "retrieval": [case]}
        return [str(p) for p in validate_corpus(write_corpus(tmp_path, data))]

    (linked,) = problems(first)
    assert linked.startswith("retrieval[0].expectedPrimary[0]: 'src/link.py' is a symlink at") and "'c1'" in linked
    assert problems(later) == []
