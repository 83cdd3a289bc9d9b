"""Property tests (issue 13): 200 hostile variants per loader, none raising anything but WorkbenchError.

Each test starts from a valid document, mutates a few fields (wrong types, deletions, wrapping, NaN,
huge integers, lone surrogates, ``..`` paths) and sometimes corrupts the bytes, then loads it the way
workbench does, including what runs after loading (suite planning, comparing, merging, parsing)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from workbench.analysis.comparison import compare
from workbench.contract import Repo
from workbench.corpus import load_corpus, validate_corpus
from workbench.corpus.goldens import load_golden
from workbench.errors import WorkbenchError
from workbench.options import RunOptions
from workbench.run.merge import merge_runs
from workbench.run.runner import run
from workbench.store.baselines import list_baselines, load_baseline
from workbench.store.headers import read_header
from workbench.store.runs import load_run
from workbench.strictjson import loads_strict
from workbench.suites import get_suite, suite_names
from workbench.suites.findings import load_findings
from workbench.targets.protocol import ProtocolTarget

from ..conftest import REPO_ROOT, write_corpus
from ..hostile import LOADER_SETTINGS, hostile_json, hostile_jsonl, rewrite
from ..report_runs import build_run

GOLDEN_ROWS = [
    {"query": "where are orders listed", "expected": [{"file": "src/orders.ts", "symbol": "list"}]},
    {"id": "q2", "query": "users", "expected_top_3": ["src/users.ts:find", "find"], "language": "ts"},
]


def _corpus_doc() -> dict[str, Any]:
    return {
        "k": 5,
        "thresholds": {"retrieval": {"mrr": 0.5}, "risk": {"accuracy": 0.9}},
        "fixtureRoots": {"api": "fixtures/api"},
        "retrieval": [
            {
                "name": "orders",
                "query": "list orders",
                "repoFixture": "api",
                "expectedPrimary": ["src/orders.ts"],
                "expectedAnyOf": ["src/users.ts"],
            }
        ],
        "risk": [
            {
                "name": "r",
                "mode": "query",
                "query": "drop table",
                "expectedConcepts": ["sql"],
                "notExpectedConcepts": [],
            }
        ],
        "tokenSavings": [{"name": "t", "repoFixture": "api", "query": "orders"}],
        "harnessExecution": [
            {
                "name": "h",
                "repoFixture": "api",
                "commands": [{"kind": "test", "group": "validate", "command": "npm test"}],
            }
        ],
        "ranking": [{"name": "api", "repoFixture": "api", "golden": "ranking/api.jsonl"}],
    }


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    for rel in ("src/orders.ts", "src/users.ts"):
        (root / "fixtures" / "api" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "fixtures" / "api" / rel).write_text("export const x = 1;\n")
    path = write_corpus(root, _corpus_doc())
    (path.parent / "ranking").mkdir()
    (path.parent / "ranking" / "api.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLDEN_ROWS))
    shutil.copytree(REPO_ROOT / "corpus" / "findings", path.parent / "findings")
    return path.parent


def _plan_every_suite(path: Path) -> None:
    corpus = load_corpus(path)
    validate_corpus(path)
    for name in suite_names():
        suite = get_suite(name)
        suite.check(corpus)
        suite.plan(corpus, [])


@LOADER_SETTINGS
@given(data=hostile_json(_corpus_doc()))
def test_corpus_loader_is_total(corpus_dir: Path, data: bytes) -> None:
    path = corpus_dir / "corpus.json"
    rewrite(path, data)
    try:
        _plan_every_suite(path)
    except WorkbenchError:
        pass


RUN_DOC = {
    "k": 5,
    "thresholds": {"retrieval": {"mrr": 0.5}, "tokens": {"meanSavings": 0.1}},
    "fixtureRoots": {"api": "fixtures/api"},
    "retrieval": [
        {"name": "orders", "query": "list orders", "repoFixture": "api", "expectedPrimary": ["src/orders.ts"]}
    ],
    "tokenSavings": [{"name": "t", "repoFixture": "api", "query": "orders"}],
}


@pytest.mark.slow
@LOADER_SETTINGS
@given(data=hostile_json(RUN_DOC))
def test_a_corpus_that_loads_also_runs(corpus_dir: Path, data: bytes) -> None:
    """What loads must run: a value that validates cannot crash the run later (k = 1e30, a surrogate)."""
    path = corpus_dir / "run-corpus.json"
    rewrite(path, data)
    try:
        result = run(load_corpus(path), RunOptions(targets=["random"], out_dir=corpus_dir / "runs", progress=False))
    except WorkbenchError:  # refused on purpose (bad corpus, no suite with cases): one line, exit 3
        return
    load_run(result.path)


@LOADER_SETTINGS
@given(data=hostile_jsonl(GOLDEN_ROWS))
def test_golden_loader_is_total(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.getbasetemp() / "golden.jsonl"
    rewrite(path, data)
    try:
        load_golden(path)
    except WorkbenchError:
        pass


def _findings_files(corpus_dir: Path, kind: str) -> tuple[Path, Any]:
    folder = corpus_dir / "findings" / kind
    path = sorted(folder.rglob("*.json"))[0]
    original = REPO_ROOT / "corpus" / "findings" / path.relative_to(corpus_dir / "findings")
    return path, json.loads(original.read_text())


def _findings_corpus(corpus_dir: Path) -> Path:
    spec = json.loads((REPO_ROOT / "corpus" / "corpus.json").read_text())["findings"]
    path = corpus_dir / "findings.json"
    path.write_text(json.dumps({"findings": spec}))
    return path


GOLD = json.loads(sorted((REPO_ROOT / "corpus" / "findings" / "gold").glob("*.json"))[0].read_text())
RECORDED = json.loads(sorted((REPO_ROOT / "corpus" / "findings" / "runs").rglob("*.json"))[0].read_text())


@pytest.mark.parametrize("kind, doc", [("gold", GOLD), ("runs", RECORDED)])
def test_findings_loaders_are_total(corpus_dir: Path, kind: str, doc: Any) -> None:
    path, original = _findings_files(corpus_dir, kind)
    corpus = load_corpus(_findings_corpus(corpus_dir))

    @LOADER_SETTINGS
    @given(data=hostile_json(doc))
    def check(data: bytes) -> None:
        rewrite(path, data)
        try:
            get_suite("findings").plan(corpus, [])
            load_findings(corpus)
        except WorkbenchError:
            pass

    try:
        check()
    finally:
        path.write_text(json.dumps(original))


def _baseline_doc() -> dict[str, Any]:
    doc = json.loads((REPO_ROOT / "corpus" / "baselines" / "builtin.json").read_text())
    return dict(doc, cases=doc["cases"][:3])


@LOADER_SETTINGS
@given(data=hostile_json(_baseline_doc()))
def test_baseline_loader_is_total(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    folder = tmp_path_factory.getbasetemp() / "baselines"
    folder.mkdir(exist_ok=True)
    rewrite(folder / "good.json", json.dumps(_baseline_doc()))
    rewrite(folder / "hostile.json", data)
    assert "good.json" in " ".join(list_baselines(folder).dropna(subset=["name"])["path"])
    try:
        base = load_baseline(folder / "hostile.json")
        base.summary, base.manifest  # noqa: B018 (built lazily from the document)
        compare(base, load_baseline(folder / "good.json"))
    except WorkbenchError:
        pass


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("prop-runs")
    return build_run(root / "a", suites=("retrieval",)), build_run(root / "b", suites=("retrieval",), seed=1)


def _use_run(hostile: Path, other: Path, tmp: Path) -> None:
    read_header(hostile)
    run = load_run(hostile)
    compare(run, load_run(other))
    merge_runs([hostile, other], tmp / "merged")


@pytest.mark.parametrize("file", ["manifest.json", "summary.json", "cases.jsonl"])
def test_run_directory_loaders_are_total(runs: tuple[Path, Path], tmp_path: Path, file: str) -> None:
    good, other = runs
    hostile = Path(shutil.copytree(good, tmp_path / "hostile"))
    original = (good / file).read_bytes()
    if file == "cases.jsonl":
        strategy = hostile_jsonl([json.loads(line) for line in original.splitlines()[:5]])
    else:
        strategy = hostile_json(json.loads(original))

    @LOADER_SETTINGS
    @given(data=strategy)
    def check(data: bytes) -> None:
        rewrite(hostile / file, data)
        try:
            _use_run(hostile, other, tmp_path)
        except WorkbenchError:
            pass

    check()


ANSWERS = {
    "context_pack": {"primary": [{"repo": "api", "path": "src/a.ts"}], "related": ["src/b.ts"], "text": "x"},
    "risk_concepts": {"concepts": ["sql"]},
    "infer_harness": {"groups": {"validate": [{"kind": "test", "command": "npm test", "script": "test"}]}},
    "gate": {"verdict": "PASS", "checks": [{"name": "c", "status": "PASS", "summary": "s", "details": ["d"]}]},
    "search": {"hits": [{"file": "src/a.ts", "symbol": "a", "line": 3, "score": 0.5}]},
}


def _ask(target: ProtocolTarget, capability: str, repo: Repo) -> None:
    if capability == "context_pack":
        target.context_pack("q", [repo], 8)
    elif capability == "risk_concepts":
        target.risk_concepts("query", "q")
    elif capability == "infer_harness":
        target.infer_harness(repo)
    elif capability == "gate":
        target.gate(repo, {})
    else:
        target.search("q", repo, 20)


@pytest.mark.parametrize("capability", sorted(ANSWERS))
def test_protocol_answers_are_total(capability: str, tmp_path: Path) -> None:
    repo = Repo("api", tmp_path)

    @LOADER_SETTINGS
    @given(data=hostile_json(ANSWERS[capability]))
    def check(data: bytes) -> None:
        def send(_capability: str, request: dict[str, Any]) -> Any:
            return loads_strict(data, "answer", WorkbenchError)

        try:
            _ask(ProtocolTarget("hostile", send), capability, repo)
        except WorkbenchError:
            pass

    check()
