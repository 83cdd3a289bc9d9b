"""The per-index file table and what reads it: the same answers as a pass over every file, per query."""

from __future__ import annotations

import posixpath
import random
from pathlib import Path

import numpy as np
import pytest

from workbench.reference import related
from workbench.reference.filetable import file_table, module_stem
from workbench.reference.index import build
from workbench.reference.pack import ranked
from workbench.reference.query import analyse
from workbench.reference.scored import Scored
from workbench.reference.signals import named_files
from workbench.reference.text import symbol_keys

from ..conftest import write_tree

LIB = "from app import ledger\n\ndef run_job(x):\n    return ledger.step(x)\n"
FILES = {
    "app/__init__.py": "",
    "app/ledger.py": "def step(x):\n    return x\n",
    "app/ledger.pyi": "def step(x: int) -> int: ...\n",
    "app/jobs.py": LIB,
    "app/jobs_extra.py": LIB,
    "app/sub/__init__.py": "",
    "app/sub/ledger.py": "from app import ledger\n",
    "tests/test_ledger.py": "from app import ledger\n",
    "tests/test_jobs.py": "from app import jobs\n",
    "tests/ledger_test.py": "x = 1\n",
    "tests/test_helpers.py": "from app import ledger\n",
    "docs/ledger.md": "# ledger\n",
    "examples/ledger_demo.py": "from app import ledger\n",
    "pkg/a.go": "package pkg\n",
    "pkg/b.go": "package pkg\n",
    "pkg/b_test.go": "package pkg\n",
    "README.md": "app\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    root = write_tree(tmp_path_factory.mktemp("table") / "repo", FILES)
    return build(root)


def _scored(index, final: np.ndarray) -> Scored:
    return Scored(index, final, np.zeros(len(index.files), dtype=np.float32))


def test_ranked_orders_like_a_sort_over_every_file(index):
    rng = random.Random(7)
    for _ in range(50):
        finals = [np.asarray([rng.choice([0.0, 0.5, 1.0, 2.0]) for _ in index.files]) for _ in range(2)]
        for repos in ([finals[0]], finals):
            scored = [_scored(index, final) for final in repos]
            expected = sorted(
                ((float(f[d]), r, d) for r, f in enumerate(repos) for d in range(len(index.files)) if f[d] > 0),
                key=lambda t: (-t[0], index.files[t[2]].count("/"), index.files[t[2]]),
            )
            assert list(ranked(scored)) == expected


@pytest.mark.parametrize(
    "query",
    [
        "look at app/ledger.py",
        "fix ledger.py",
        "./tests/test_ledger.py fails",
        "sub/ledger.py",
        "the Ledger class",
        "JobsExtra",
    ],
)
def test_named_files_agree_with_a_pass_over_every_path(index, query: str):
    q = analyse(query)
    expected: dict[int, float] = {}
    for mention in q.files:
        mention = mention.lstrip("./")
        for i, path in enumerate(index.files):
            strength = 2.2 if path == mention or path.endswith("/" + mention) else 0.0
            if not strength and posixpath.basename(path) == posixpath.basename(mention):
                strength = 2.0
            expected[i] = max(expected.get(i, 0.0), strength)
    for ident in q.identifiers:
        for i, path in enumerate(index.files):
            stem = posixpath.basename(path).rsplit(".", 1)[0]
            if set(symbol_keys(ident)) & set(symbol_keys(stem)) and not related.quiet(index.kinds[i], q):
                expected[i] = max(expected.get(i, 0.0), 2.0)
    found = {doc: round(strength, 6) for doc, (strength, _) in named_files(index, q).items()}
    assert found == {doc: round(v, 6) for doc, v in expected.items() if v}


def test_tests_of_a_file_are_those_named_after_it_or_importing_it_with_a_shared_word(index):
    ledger = index.files.index("app/ledger.py")
    found = [index.files[j] for _, j, _ in related._tests([_scored(index, np.zeros(len(index.files)))], [(0, ledger)])]
    assert found == ["tests/ledger_test.py", "tests/test_ledger.py"]  # test_helpers imports ledger but shares no word
    assert module_stem("web/orders.service.spec.ts") == "orders"


def _graph_by_loop(scored, chosen, q):
    """The neighbour rule written as a loop over every neighbour: the first reason of each, best first."""
    found: dict[tuple[int, int], tuple[float, str]] = {}
    for r, d in chosen:
        ids, relations, together = related._neighbour_ids(scored[r], d)
        for j, relation, n in zip(ids, relations, together, strict=True):
            if (r, j) in chosen or related.quiet(scored[r].index.kinds[j], q):
                continue
            if (r, j) not in found:
                found[(r, j)] = (float(scored[r].final[j]), related._reason(scored[r].index, d, j, relation, n))
    ranked_found = sorted(found.items(), key=lambda kv: -kv[1][0])
    return [(r, d, reason) for (r, d), (_, reason) in ranked_found[: related.MAX_GRAPH]]


def test_graph_neighbours_agree_with_a_loop_over_every_neighbour(index):
    rng = random.Random(3)
    q = analyse("run the job step")
    names = ["app/ledger.py", "app/jobs.py", "app/ledger.pyi", "pkg/a.go", "app/sub/ledger.py"]
    for _ in range(30):
        scored = [_scored(index, np.asarray([rng.choice([0.0, 0.3, 0.7]) for _ in index.files])) for _ in range(2)]
        chosen = [(rng.randrange(2), index.files.index(rng.choice(names))) for _ in range(3)]
        chosen = list(dict.fromkeys(chosen))
        assert related._graph(scored, chosen, q) == _graph_by_loop(scored, chosen, q)


def test_go_siblings_and_stubs_come_from_the_table(index):
    table = file_table(index)
    a, b = index.files.index("pkg/a.go"), index.files.index("pkg/b.go")
    assert table.go_packages["pkg"] == [a, b]  # the test file is not the package
    ids, relations, _ = related._neighbour_ids(_scored(index, np.zeros(len(index.files))), a)
    assert [(index.files[j], rel) for j, rel in zip(ids, relations, strict=True)] == [("pkg/b.go", related.GO_PACKAGE)]
    stub = index.files.index("app/ledger.pyi")
    assert related._stub_siblings(table.by_path, "app/ledger.py") == [stub]


def test_the_table_is_kept_on_the_index_and_never_pickled(index, tmp_path: Path):
    import pickle

    assert file_table(index) is file_table(index)
    assert pickle.loads(pickle.dumps(index)).derived == {}


def test_rank_files_is_the_order_the_pack_draws_its_primary_files_from(tmp_path: Path):
    from workbench.contract import Repo
    from workbench.reference import build_pack
    from workbench.reference.pack import rank_files

    repo = Repo("r", write_tree(tmp_path / "repo", FILES))
    query = "run the ledger job step"
    files = [path for _, path in rank_files(query, [repo], 20)]
    primary = [ref.path for ref in build_pack(query, [repo]).primary]
    assert files[:2] == primary[:2] == ["app/jobs.py", "app/jobs_extra.py"]
    assert len(files) == len(set(files)) and rank_files(query, [repo], 1) == [("r", files[0])]
