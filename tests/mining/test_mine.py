"""Mining cases from a git history: filters, query cleaning, shapes, sampling, corpus output."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.concurrency import race
from tests.git_history import commit, git, init, shop_history
from workbench.cli import main
from workbench.mining.filters import MineFilters
from workbench.mining.mine import mine, mine_corpus, spread_sample
from workbench.mining.queries import build_query, clean_subject
from workbench.mining.shapes import names_file, names_symbol
from workbench.options import MineOptions


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("hist") / "shop"
    return repo, shop_history(repo)


@pytest.mark.parametrize(
    "subject, query",
    [
        ("fix(orders): refund fails for partially shipped orders (#12)", "refund fails for partially shipped orders"),
        ("feat!: add retries. Closes #12", "add retries"),
        ("Fix crash when the cart is empty, fixes #45 and #46", "Fix crash when the cart is empty"),
        ("router: support HEAD requests (gh-77)", "router: support HEAD requests"),
        (":bug: handle a missing header", "handle a missing header"),
        ("[fix] redirect loops on login", "redirect loops on login"),
        ("fix #12: handle a crash", "handle a crash"),
        ("Merge parser changes (see #9) into the lexer.", "Merge parser changes into the lexer"),
        ("parse https://example.com/a/b/pull/31 links", "parse links"),
    ],
)
def test_clean_subject(subject: str, query: str) -> None:
    assert clean_subject(subject) == query


def test_with_body_adds_the_first_paragraph_without_trailers() -> None:
    body = "The total was rounded once\nper line (#4).\n\nSecond paragraph.\n\nSigned-off-by: A <a@b.c>"
    assert build_query("fix: totals", body) == "totals"
    assert build_query("fix: totals", body, with_body=True) == "totals. The total was rounded once per line"
    assert build_query("fix: totals", "Signed-off-by: A <a@b.c>", with_body=True) == "totals"


def test_each_filter_drops_its_commit(shop: tuple[Path, dict[str, str]]) -> None:
    repo, shas = shop
    result = mine(repo, max_cases=None, progress=False)
    kept = {case["source"]["commit"] for case in result.cases}
    assert kept == {shas["task"], shas["symbol"], shas["duplicate"]}  # of two equal queries, the newest
    assert result.dropped == Counter(
        {
            "root": 1,
            "release": 1,
            "bot": 1,
            "revert": 1,
            "new-or-deleted-source": 1,
            "vague-query": 1,
            "too-many-files": 1,
            "no-source": 2,  # the docs commit changes only the README: the file filters come first
            "duplicate-query": 1,
        }
    )
    assert result.commits == 13 and result.candidates == 3
    table = result.drop_table()
    assert "too-many-files" in table and "13 commits read" in table


def test_cases_run_at_the_parent_and_expect_the_modified_source(shop: tuple[Path, dict[str, str]]) -> None:
    repo, shas = shop
    cases = {c["source"]["commit"]: c for c in mine(repo, max_cases=None, progress=False).cases}
    task = cases[shas["task"]]
    assert task["revision"] == shas["root"]
    assert task["expectedPrimary"] == ["src/orders.py"]
    assert task["tests"] == ["tests/test_orders.py"]
    assert task["query"] == "refund fails for partially shipped orders"
    assert task["name"] == f"shop-{shas['task'][:10]}" and task["repoFixture"] == "shop"


def test_cases_expect_the_definitions_the_commit_changes(shop: tuple[Path, dict[str, str]]) -> None:
    repo, shas = shop
    cases = {c["source"]["commit"]: c for c in mine(repo, max_cases=None, progress=False).cases}
    assert cases[shas["task"]]["expectedSymbols"] == ["src/orders.py:OrderBook.refund_payment"]
    assert cases[shas["symbol"]]["expectedSymbols"] == ["src/users.py:find_user"]
    # its parent holds only ``customer = 1``: a module-level change, so no symbol and no field
    assert "expectedSymbols" not in cases[shas["duplicate"]]
    assert list(cases[shas["task"]])[4:6] == ["expectedPrimary", "expectedSymbols"]


def test_shapes(shop: tuple[Path, dict[str, str]]) -> None:
    repo, shas = shop
    shapes = {c["source"]["commit"]: c["shape"] for c in mine(repo, max_cases=None, progress=False).cases}
    assert shapes[shas["task"]] == "names-file"  # "orders" is the stem of src/orders.py
    assert shapes[shas["symbol"]] == "names-symbol"  # find_user is defined in src/users.py at the parent
    assert shapes[shas["duplicate"]] == "words-only"
    assert names_file("the request parser breaks", ["src/request_parser.py"])
    assert not names_file("the mapping breaks", ["src/map.py"])
    assert names_symbol("call parse() twice", ["parse"]) and not names_symbol("parse it twice", ["parse"])
    assert names_symbol("OrderBook leaks", ["OrderBook"])


def test_path_and_date_filters(shop: tuple[Path, dict[str, str]]) -> None:
    repo, shas = shop
    billing = mine(repo, MineFilters(paths=("src/billing/**",)), max_cases=None, progress=False)
    assert [c["expectedPrimary"] for c in billing.cases] == [["src/billing/invoice.py"]]
    # every commit whose source lies outside the path, whatever its message (path reads only the log entry)
    assert billing.dropped["path"] == 5
    early = mine(repo, MineFilters(until=1_700_000_000 + 2 * 3600), max_cases=None, progress=False)
    assert {c["source"]["commit"] for c in early.cases} == {shas["task"], shas["symbol"]}


def test_sampling_is_seeded_and_spread_over_the_history(tmp_path: Path) -> None:
    repo = init(tmp_path / "long")
    commit(repo, "start", {"src/a.py": "x = 0\n"}, 0)
    for step in range(1, 41):
        commit(repo, f"handle case number {step} of the parser", {"src/a.py": f"x = {step}\n"}, step)
    first = mine(repo, max_cases=8, seed=3, progress=False).cases
    again = mine(repo, max_cases=8, seed=3, progress=False).cases
    other = mine(repo, max_cases=8, seed=4, progress=False).cases
    assert first == again and first != other
    numbers = [int(c["query"].split()[3]) for c in first]
    assert numbers == sorted(numbers)  # oldest first
    assert [(n - 1) // 5 for n in numbers] == list(range(8))  # one pick in each eighth of the history
    assert len(spread_sample(list(range(3)), 8, 0)) == 3  # type: ignore[arg-type]


def test_append_keeps_other_content(shop: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = shop
    out = tmp_path / "corpus.json"
    other = {"name": "hand-made", "query": "q", "repoFixture": "api", "expectedPrimary": ["a.ts"]}
    out.write_text(
        json.dumps(
            {
                "k": 3,
                "thresholds": {"risk": {"accuracy": 0.5}},
                "fixtureRoots": {"api": "api"},
                "retrieval": [other],
                "risk": [{"name": "r", "mode": "query", "query": "x", "expectedConcepts": []}],
            }
        )
    )
    with pytest.raises(Exception, match="--append"):
        mine_corpus(repo, MineOptions(out=out, progress=False))
    mine_corpus(repo, MineOptions(out=out, append=True, progress=False, max_cases=None))
    mine_corpus(
        repo, MineOptions(out=out, append=True, progress=False, max_cases=None)
    )  # again: same names replaced, not doubled
    data = json.loads(out.read_text())
    assert data["k"] == 3 and data["thresholds"] == {"risk": {"accuracy": 0.5}} and len(data["risk"]) == 1
    assert data["retrieval"][0] == other and len(data["retrieval"]) == 4
    assert data["fixtureRoots"]["api"] == "api"
    assert (out.parent / data["fixtureRoots"]["shop"]).resolve() == repo.resolve()


def test_cli_dry_run_writes_nothing(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = shop
    out = tmp_path / "mined.json"
    assert main(["mine", str(repo), "--out", str(out), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert not out.exists()
    assert "release" in printed and "candidates" in printed
    assert main(["mine", str(repo), "--since", "not-a-date"]) == 2


@pytest.mark.parametrize(
    "path, test",
    [
        ("tests/test_orders.py", True),
        ("src/index.test-d.ts", True),
        ("werkzeug/testsuite/cache.py", True),
        ("src/a.spec.tsx", True),
        ("src/werkzeug/testing.py", False),
        ("src/latest.py", False),
        ("src/spec.ts", False),
    ],
)
def test_tests_are_told_from_source(path: str, test: bool) -> None:
    from workbench.mining.filters import is_test

    assert is_test(path) is test


@pytest.mark.parametrize(
    "subject, dropped_by",
    [
        ("Bump to dev version", "release"),
        ("2.1.0", "release"),
        ("This is 3.2-dev", "release"),
        ("Bump to 4.2-dev", "release"),
        ("This is 6.6", "release"),
        ("Release 1.2.3", "release"),
        ("v1.2.3", "release"),
        ("Prepare 26.1.0", "release"),
        ("Start new release cycle", "release"),
        ("This is why the router drops headers", None),
        ("Correct fix for #1234", "dangling-query"),
        ("Minor polish to the #815 work", None),
        ("Add narrative docs for #787 (#801)", "dangling-query"),
        ("Bump urllib3 from 1.26.4 to 1.26.5", "dependency"),
        ("chore(deps): update eslint", "dependency"),
        ("ci: cache pip", "docs-ci-chore"),
        ("fix typo in the router", "style-only"),
        ("Version 4.1", "release"),
        ("version 2.0.3: changelog", "release"),
        ("4.1.0 release", "release"),
        ("Fix bad import. This", "dangling-query"),
        ("Reorder logger.go imports", "style-only"),
        ("s/currect/current", "style-only"),
        ("Fix comments", "style-only"),
        ("Run gofmt over the router", "style-only"),
        ("Fix the import of the router when the cache is cold", None),
        ("Version the cache keys by schema", None),
        ('Revert "add retries"', "revert"),
        ("handle a missing header in the router", None),
    ],
)
def test_message_filters(subject: str, dropped_by: str | None) -> None:
    from workbench.mining.filters import MineFilters, classify, first_failure
    from workbench.mining.history import Commit

    commit = Commit("a" * 40, ("b" * 40,), "Dev", "dev@example.com", 0, subject, (("M", "src/router.py"),))
    assert first_failure(classify(commit, MineFilters()), MineFilters()) == dropped_by


def test_cli_ext_keeps_only_those_languages(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = shop  # its source files are Python
    assert main(["mine", str(repo), "--out", str(tmp_path / "py.json"), "--ext", "py"]) == 0
    assert main(["mine", str(repo), "--out", str(tmp_path / "all.json")]) == 0
    python_only = json.loads((tmp_path / "py.json").read_text())["retrieval"]
    assert python_only and python_only == json.loads((tmp_path / "all.json").read_text())["retrieval"]
    assert main(["mine", str(repo), "--out", str(tmp_path / "go.json"), "--ext", ".go,.ts"]) == 0
    assert json.loads((tmp_path / "go.json").read_text()).get("retrieval", []) == []
    capsys.readouterr()
    assert main(["mine", str(repo), "--ext", ".cobol"]) == 2
    assert ".cobol is not a language the engine parses" in capsys.readouterr().err


def test_dry_run_counts_release_and_dangling_commits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init(tmp_path / "proj")
    commit(repo, "start", {"src/router.py": "def route(path):\n    return path\n"}, 0)
    for step, subject in enumerate(["This is 3.2-dev", "Bump to 4.2-dev", "This is 6.6", "Correct fix for #12"], 1):
        commit(repo, subject, {"src/router.py": f"def route(path):\n    return path  # {step}\n"}, step)
    commit(repo, "Strip the query string before routing", {"src/router.py": "def route(p):\n    return p\n"}, 9)
    assert main(["mine", str(repo), "--dry-run"]) == 0
    table = {line.split()[0]: int(line.split()[-1]) for line in capsys.readouterr().out.splitlines()[1:]}
    assert table["release"] == 3 and table["dangling-query"] == 1 and table["candidates"] == 1


def test_fixture_names_come_from_the_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.corpus.sources import open_repo

    work = init(tmp_path / "click")
    commit(work, "start", {"src/core.py": "def main():\n    pass\n"}, 0)
    git(work, "remote", "add", "origin", "https://example.invalid/pallets/click.git")
    bare = tmp_path / "mirrors" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True, capture_output=True)
    git(bare, "remote", "set-url", "origin", "git@example.invalid:pallets/click.git")
    plain = tmp_path / "mirrors" / "flask.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(work), str(plain)], check=True)
    git(plain, "remote", "remove", "origin")
    assert open_repo(work).name == "click"
    assert open_repo(bare).name == "click"  # a bare folder named "repo": the remote's name
    assert open_repo(plain).name == "flask"  # no remote: the folder without .git
    out = tmp_path / "named.json"
    assert main(["mine", str(bare), "--out", str(out), "--name", "cli-lib"]) == 0
    assert list(json.loads(out.read_text())["fixtureRoots"]) == ["cli-lib"]
    assert main(["mine", str(bare), "--name", "no/slashes"]) == 2  # a usage mistake
    assert "--name 'no/slashes'" in capsys.readouterr().err


def test_cli_refuses_a_negative_seed(shop: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = shop
    assert main(["mine", str(repo), "--seed", "-1", "--dry-run"]) == 2
    assert "--seed -1: must be an integer >= 0" in capsys.readouterr().err


def test_concurrent_appends_into_one_corpus_keep_every_case(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41 item 4: two ``mine --append`` into one corpus at once, 20 times: every case of both
    is kept every time (the read-modify-write holds the corpus's lock). Mining itself is replaced by a
    few milliseconds' wait that hands back three cases, so the race, not the mining, is timed."""
    import importlib
    import time

    mining = importlib.import_module("workbench.mining.mine")  # the module, not the function

    def fake_mine(repo, filters, max_cases, seed, fixture, dry_run, progress):  # noqa: ANN001, ANN003, ANN202
        time.sleep(0.005)  # the time between reading the corpus and writing it
        case = {"query": "q", "repoFixture": fixture, "expectedPrimary": []}
        cases = [{"name": f"{fixture}-{i}", **case} for i in range(3)]
        return mining.MineResult(repo=repo, fixture=fixture, cases=cases)

    monkeypatch.setattr(mining, "mine", fake_mine)
    repo, _ = shop
    for round_ in range(20):
        out = tmp_path / f"round{round_}" / "corpus.json"
        calls = [
            lambda name=name, out=out: mine_corpus(repo, MineOptions(out=out, append=True, name=name, progress=False))
            for name in ("one", "two")
        ]
        assert not [r for r in race(*calls) if isinstance(r, Exception)]
        data = json.loads(out.read_text())
        assert sorted(c["name"] for c in data["retrieval"]) == [f"{n}-{i}" for n in ("one", "two") for i in range(3)]
        assert sorted(data["fixtureRoots"]) == ["one", "two"]


def test_mining_says_how_far_it_is_through_the_commits_and_then_the_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a terminal, plain lines on stderr: the commits read, then the cases shaped (reading and
    parsing gold files is most of a long mine), each with its count; nothing on stdout."""
    from tests.git_history import fast_import_history

    monkeypatch.setenv("WORKBENCH_PROGRESS_SECONDS", "0")
    repo = fast_import_history(tmp_path / "gen", 300, files=30, seed=3)
    result = mine(repo, max_cases=70, seed=1, fixture="gen", progress=True)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(result.cases) == 70
    commits = [line for line in lines if line.startswith("mining gen: ")]
    cases = [line for line in lines if line.startswith("cases of gen: ")]
    assert commits and commits[-1].startswith("mining gen: 300")
    assert (
        len(cases) >= 3
        and cases[0].startswith("cases of gen: 32/70")
        and cases[-1].startswith("cases of gen: 70/70 (100%)")
    )
    assert lines.index(commits[-1]) < lines.index(cases[0])
