"""Mined cases mean something (issue 38 item 5): a generated history holding a release, a dangling
query, style-only and typo-only commits, a change to an example only and a generated mirror beside
its source mines none of them as a case, counts each drop, and labels by the corpus rule it writes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.git_history import commit, init
from workbench.cli import main
from workbench.mining.mine import mine, mine_corpus
from workbench.options import MineOptions

SOURCE = "def load(name):\n    return name\n"


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = init(tmp_path_factory.mktemp("meaning") / "lib")
    shas = {}
    seed = {
        "src/loader.py": SOURCE,
        "src/cache.ts": "export const cache = 1;\n",
        "deno/lib/cache.ts": "export const cache = 1;\n",
        "examples/demo.py": "print(1)\n",
    }
    commit(repo, "initial layout of the loader package", seed, 0)
    steps = [
        ("release", "Version 4.1", {"src/loader.py": SOURCE + "VERSION = '4.1'\n"}),
        ("dangling", "Fix bad import. This", {"src/loader.py": SOURCE + "import os\n"}),
        ("wrapped", "Make the loader keep its cache warm when the name it is asked", {"src/loader.py": SOURCE + "#\n"}),
        ("style", "Reorder loader.py imports", {"src/loader.py": "import sys\n" + SOURCE}),
        ("typo", "s/currect/current", {"src/loader.py": SOURCE + "# current\n"}),
        ("example", "Show the loader reading a missing name", {"examples/demo.py": "print(2)\n"}),
        (
            "mirror",
            "Expire the cache after a minute of disuse",
            {"src/cache.ts": "export const cache = 2;\n", "deno/lib/cache.ts": "export const cache = 2;\n"},
        ),
        (
            "task",
            "Return None when the loader cannot find a name",
            {"src/loader.py": SOURCE.replace("name\n", "None\n")},
        ),
    ]
    for step, (key, message, files) in enumerate(steps, 1):
        if key == "wrapped":
            message += "\nfor twice is missing"
        shas[key] = commit(repo, message, files, step)
    return repo, shas


def test_no_release_dangling_style_or_out_of_scope_commit_becomes_a_case(history: tuple[Path, dict[str, str]]) -> None:
    repo, shas = history
    result = mine(repo, max_cases=None, progress=False)
    kept = {case["source"]["commit"] for case in result.cases}
    assert kept == {shas["task"], shas["mirror"]}
    mirror = next(c for c in result.cases if c["source"]["commit"] == shas["mirror"])
    assert mirror["expectedPrimary"] == ["src/cache.ts"]  # the generated mirror is never gold
    assert result.dropped == Counter({"root": 1, "release": 1, "dangling-query": 2, "style-only": 2, "out-of-scope": 1})


def test_the_corpus_states_its_rule_and_validates(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = history
    out = tmp_path / "corpus.json"
    mine_corpus(repo, MineOptions(out=out, max_cases=None, progress=False))
    data = json.loads(out.read_text())
    assert data["goldScope"] == {"exclude": ["tests", "docs", "examples", "generated"]}
    assert main(["validate", "--corpus", str(out)]) == 0


def test_dry_run_counts_each_drop(history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history
    assert main(["mine", str(repo), "--dry-run"]) == 0
    table = capsys.readouterr().out
    for name, count in (("release", 1), ("dangling-query", 2), ("style-only", 2), ("out-of-scope", 1)):
        assert any(line.split()[:3] == [name, "dropped", str(count)] for line in table.splitlines()), (name, table)


@pytest.mark.parametrize(
    "message, cut",
    [
        ("Fix bad import. This", True),
        ("Ripped out dict-specific code from native_dict,\nmade it native_itermethods", True),
        ("Made it possible to change the type to be used for URL and form\nparameters.  This fixes #417.", True),
        ("use cryptography instead of pyOpenSSL\npyOpenSSL is only a wrapper", False),  # short: not wrapped
        ("Return the error of context.File in c.contentDisposition now\ncontext.Attachment uses it", False),
        ("Improve the error handling of multipart requests in the reader\n\nstandard/request: return it", False),
        ("This is why the router drops headers", False),
    ],
)
def test_a_subject_cut_off_mid_sentence(message: str, cut: bool) -> None:
    from workbench.mining.history import Commit
    from workbench.mining.messages import cut_off

    assert cut_off(Commit("a" * 40, ("b" * 40,), "D", "d@x", 0, message)) is cut
