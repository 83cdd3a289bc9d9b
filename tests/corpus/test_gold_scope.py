"""A corpus's ``goldScope`` (issue 38 item 3): checked by validate, sent to every target, recorded in
the run, shown in reports; a corpus without it behaves as before."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_corpus, write_tree
from workbench.cli import main
from workbench.contract import GoldScope, Pack, Repo
from workbench.corpus import load_corpus
from workbench.corpus.load import validate_corpus
from workbench.errors import CorpusError
from workbench.run.runner import RunOptions, run

SCOPE = {"exclude": ["tests", "docs", "examples", "generated"]}
SEEN: list[Any] = []


def _corpus(tmp_path: Path, scope: dict[str, Any] | None, gold: str = "src/orders.py") -> Path:
    write_tree(
        tmp_path / "fixtures" / "shop",
        {
            "src/orders.py": "def cancel_order():\n    pass\n",
            "src/users.py": "def find_user():\n    pass\n",
            "src/payments.py": "def refund():\n    pass\n",
            "tests/test_orders.py": "def test_cancel():\n    pass\n",
        },
    )
    case = {"name": "cancel", "query": "cancel an order", "repoFixture": "shop", "expectedPrimary": [gold]}
    data = {"k": 5, "fixtureRoots": {"shop": "fixtures/shop"}, "retrieval": [case]}
    return write_corpus(tmp_path, {**data, **({"goldScope": scope} if scope is not None else {})})


class Recorder:
    """A Python target that records the scope each pack request carries."""

    name = "recorder"
    version = "1"

    def context_pack(self, query: str, repos: list[Repo], limit: int, gold_scope: GoldScope | None = None) -> Pack:
        SEEN.append(gold_scope)
        return Pack()


def recorder() -> Recorder:
    return Recorder()


def test_validate_names_the_file_case_and_field_of_gold_the_scope_excludes(tmp_path: Path, capsys) -> None:
    path = _corpus(tmp_path, SCOPE, gold="tests/test_orders.py")
    problems = [str(p) for p in validate_corpus(path)]
    assert problems == [
        "retrieval[0].expectedPrimary[0]: 'tests/test_orders.py' is a tests file, which the corpus's goldScope "
        "excludes (case 'cancel')"
    ]
    assert main(["validate", "--corpus", str(path)]) == 3
    assert f"{path}: retrieval[0].expectedPrimary[0]: 'tests/test_orders.py'" in capsys.readouterr().err
    with pytest.raises(CorpusError, match=r"corpus.json: retrieval\[0\].expectedPrimary\[0\]"):
        load_corpus(path)


def test_without_a_scope_any_file_may_be_gold(tmp_path: Path) -> None:
    path = _corpus(tmp_path, None, gold="tests/test_orders.py")
    assert validate_corpus(path) == [] and load_corpus(path).gold_scope is None


def test_an_unknown_kind_is_a_schema_error(tmp_path: Path) -> None:
    path = _corpus(tmp_path, {"exclude": ["tests", "vendored"]})
    assert any("goldScope.exclude" in str(p) for p in validate_corpus(path))


@pytest.mark.parametrize("scope", [SCOPE, None])
def test_every_target_is_sent_the_scope_and_the_run_records_it(tmp_path: Path, scope: Any, monkeypatch) -> None:
    path = _corpus(tmp_path, scope)
    log = tmp_path / "requests.jsonl"
    engine = tmp_path / "engine.py"
    engine.write_text(
        "import json, sys\n"
        f"log = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    log.write(line); log.flush()\n"
        "    print(json.dumps({'primary': []}), flush=True)\n"
    )
    SEEN.clear()
    targets = [f"cmd:{sys.executable} {engine}", f"python:{__name__}:recorder"]
    done = run(load_corpus(path), RunOptions(targets=targets, out_dir=tmp_path / "runs", progress=False, timeout=10))
    packs = [json.loads(line) for line in log.read_text().splitlines() if '"context_pack"' in line]
    assert packs and all(p.get("goldScope") == scope for p in packs)
    assert SEEN == [GoldScope(tuple(scope["exclude"])) if scope else None]
    assert done.manifest["corpus"].get("goldScope") == scope


def test_the_retrieval_page_states_the_scope_and_what_guess_solves(tmp_path: Path) -> None:
    from workbench.report.views import given_away

    path = _corpus(tmp_path, SCOPE)
    done = run(load_corpus(path), RunOptions(targets=["guess", "bm25"], out_dir=tmp_path / "runs", progress=False))
    text = given_away(done).text
    assert "tests, docs, examples, generated files are never gold" in text
    assert "guess (paths only, no contents) already solves 1 of 1 cases (100%)" in text  # "orders" names it
    bare = run(
        load_corpus(_corpus(tmp_path / "bare", None)),
        RunOptions(targets=["bm25"], out_dir=tmp_path / "runs2", progress=False),
    )
    assert given_away(bare).text.startswith("No gold scope: any file may be gold. The guess control did not run")


def test_serve_passes_the_scope_on_and_refuses_a_malformed_one(tmp_path: Path) -> None:
    from workbench.targets import Dispatcher

    (tmp_path / "shop").mkdir()
    served = Dispatcher(Recorder(), {"shop": tmp_path / "shop"})
    SEEN.clear()
    body = {"query": "cancel", "repos": [{"name": "shop"}], "limit": 3}
    assert served.answer("/v1/context_pack", {**body, "goldScope": SCOPE})[0] == 200
    assert served.answer("/v1/context_pack", body)[0] == 200
    assert SEEN == [GoldScope(("tests", "docs", "examples", "generated")), None]
    status, answer = served.answer("/v1/context_pack", {**body, "goldScope": {"exclude": "tests"}})
    assert status == 200 and "goldScope" in answer["error"]  # the protocol's error answer
