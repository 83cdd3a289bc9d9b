"""Standard formats: a SWE-bench-style instance file run end to end, TREC export read back by pytrec_eval,
TREC and go-code imports scored by workbench's own rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.git_history import commit, init
from workbench.cli import main
from workbench.corpus import validate_corpus
from workbench.run.runner import run_eval
from workbench.store.runs import load_run

PATCH = """diff --git a/src/orders.py b/src/orders.py
index 1111111..2222222 100644
--- a/src/orders.py
+++ b/src/orders.py
@@ -1,2 +1,2 @@
-def refund(order):
+def refund(order, partial=False):
diff --git a/src/new_module.py b/src/new_module.py
new file mode 100644
--- /dev/null
+++ b/src/new_module.py
@@ -0,0 +1 @@
+x = 1
"""


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))


def _shop(repos: Path) -> str:
    repo = init(repos / "acme__shop")
    base = commit(
        repo,
        "start",
        {
            "src/orders.py": "def refund(order):\n    '''Refund a paid order to the card it was paid with.'''\n",
            "src/users.py": "def find_user(name):\n    '''Look a customer up by e-mail.'''\n",
            "src/stock.py": "def reserve(item):\n    '''Hold warehouse stock for a cart.'''\n",
        },
        0,
    )
    commit(repo, "later", {"src/orders.py": "def refund(order, partial=False):\n    pass\n"}, 1)
    return base


def _instances(tmp_path: Path, base: str) -> Path:
    rows = [
        {
            "instance_id": "acme__shop-1",
            "repo": "acme/shop",
            "base_commit": base,
            "patch": PATCH,
            "problem_statement": "Refunding paid orders fails when only part of one shipped.",
            "test_patch": "diff --git a/tests/test_orders.py b/tests/test_orders.py\n--- a/tests/test_orders.py\n",
        },
        {
            "instance_id": "acme__shop-2",
            "repo": "acme/shop",
            "base_commit": base,
            "patch": PATCH.replace("orders", "stock").replace("refund", "reserve"),
            "problem_statement": "Holding warehouse stock for a cart double counts items.",
        },
        {
            "instance_id": "acme__shop-3",
            "repo": "acme/shop",
            "base_commit": base,
            "patch": PATCH.split("diff --git a/src/new")[0].replace("orders", "users"),
            "problem_statement": "find_user should look a customer up by e-mail, case-insensitively.",
        },
    ]
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_swebench_instances_run_end_to_end_and_export_to_pytrec_eval(tmp_path: Path) -> None:
    import pytrec_eval

    base = _shop(tmp_path / "repos")
    corpus = tmp_path / "swe" / "corpus.json"
    assert (
        main(
            [
                "import",
                "swebench",
                str(_instances(tmp_path, base)),
                "--repos",
                str(tmp_path / "repos"),
                "--out",
                str(corpus),
            ]
        )
        == 0
    )
    data = json.loads(corpus.read_text())
    cases = {c["name"]: c for c in data["retrieval"]}
    assert cases["acme__shop-1"]["expectedPrimary"] == ["src/orders.py"]  # the added file is not gold
    assert cases["acme__shop-1"]["revision"] == base and cases["acme__shop-1"]["tests"] == ["tests/test_orders.py"]
    assert cases["acme__shop-3"]["shape"] == "names-symbol" and cases["acme__shop-1"]["shape"] == "names-file"
    # the patches replace line 1, the ``def`` line, of each file at base_commit
    assert cases["acme__shop-1"]["expectedSymbols"] == ["src/orders.py:refund"]
    assert cases["acme__shop-3"]["expectedSymbols"] == ["src/users.py:find_user"]
    assert validate_corpus(corpus) == []
    run = run_eval(corpus, suites=["retrieval"], targets=["bm25", "random"], out_dir=tmp_path / "runs", progress=False)
    assert run.summary["suites"]["retrieval"]["bm25"]["cases"] == 3
    out = tmp_path / "trec"
    assert main(["export", str(run.path), "--format", "trec", "--out", str(out)]) == 0
    with (out / "qrels.txt").open() as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    k = run.manifest["corpus"]["k"]
    for target in ("bm25", "random"):
        with (out / f"{target}.run").open() as handle:
            ranking = pytrec_eval.parse_run(handle)
        top = {q: dict(sorted(docs.items(), key=lambda d: -d[1])[:k]) for q, docs in ranking.items()}
        full = pytrec_eval.RelevanceEvaluator(qrels, {f"recall_{k}", f"ndcg_cut_{k}", f"P_{k}"}).evaluate(ranking)
        cut = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top)
        ours = run.scores[(run.scores.target == target)].pivot_table(index="case", columns="metric", values="value")
        for case, row in ours.iterrows():
            theirs = full.get(case, {})
            returned = min(k, len(ranking.get(case, {})))
            assert row["recallAtK"] == pytest.approx(theirs.get(f"recall_{k}", 0.0), abs=1e-9)
            assert row["ndcgAtK"] == pytest.approx(theirs.get(f"ndcg_cut_{k}", 0.0), abs=1e-9)
            assert row["mrr"] == pytest.approx(cut.get(case, {}).get("recip_rank", 0.0), abs=1e-9)
            expected_p = theirs.get(f"P_{k}", 0.0) * k / returned if returned else 0.0
            assert row["precisionAtK"] == pytest.approx(expected_p, abs=1e-9)
        means = run.summary["suites"]["retrieval"][target]["metrics"]
        assert means["recallAtK"] == pytest.approx(
            sum(full.get(c, {}).get(f"recall_{k}", 0.0) for c in ours.index) / len(ours), abs=1e-9
        )
    # and back: the exported files imported as a run score exactly as the run did
    assert (
        main(
            [
                "import",
                "trec",
                str(out / "qrels.txt"),
                str(out / "bm25.run"),
                str(out / "random.run"),
                "--out",
                str(tmp_path / "back" / "corpus.json"),
                "--runs-dir",
                str(tmp_path / "back" / "runs"),
            ]
        )
        == 0
    )
    back = load_run(next((tmp_path / "back" / "runs").iterdir()))
    symbol_level = ("symbolAccAtK", "symbolRecallAtK", "symbolMrr")
    for target in ("bm25", "random"):
        # TREC carries the file level only: the round trip has no symbol level
        metrics = run.summary["suites"]["retrieval"][target]["metrics"]
        measured = [metrics.pop(m) for m in symbol_level]
        # bm25's packs rank symbols (its symbol search); random's carry none, so its level is skipped
        assert all(v is not None for v in measured) if target == "bm25" else measured == [None] * 3
        assert back.summary["suites"]["retrieval"][target]["metrics"] == pytest.approx(metrics, abs=1e-12)


def test_swebench_errors_name_the_instance(tmp_path: Path) -> None:
    base = _shop(tmp_path / "repos")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps(
            {"instance_id": "x-1", "repo": "acme/shop", "base_commit": base, "patch": PATCH, "problem_statement": ""}
        )
        + "\n"
    )
    assert main(["import", "swebench", str(bad), "--repos", str(tmp_path / "repos")]) == 3
    bad.write_text(
        json.dumps(
            {
                "instance_id": "x-2",
                "repo": "acme/missing",
                "base_commit": base,
                "patch": PATCH,
                "problem_statement": "p",
            }
        )
        + "\n"
    )
    assert main(["import", "swebench", str(bad), "--repos", str(tmp_path / "repos")]) == 3


@pytest.mark.parametrize("spelling", ["../../other", "../other", "acme/../../other", "OTHER_ABS", "./shop", ".hidden"])
def test_swebench_repo_never_leaves_repos(tmp_path: Path, capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    """Issue 41, item 6: an instance's ``repo`` is a name looked up under --repos, never a path."""
    base = _shop(tmp_path / "elsewhere" / "repos")  # a real clone outside --repos, reachable by path
    shutil.move(tmp_path / "elsewhere" / "repos" / "acme__shop", tmp_path / "other")
    (tmp_path / "repos").mkdir()
    repo = str(tmp_path / "other") if spelling == "OTHER_ABS" else spelling
    bad = tmp_path / "bad.jsonl"
    row = {"instance_id": "x-1", "repo": repo, "base_commit": base, "patch": PATCH, "problem_statement": "p"}
    bad.write_text(json.dumps(row) + "\n")
    (tmp_path / "repos" / "acme").mkdir()  # so acme/../../other would reach tmp_path/other
    assert (
        main(["import", "swebench", str(bad), "--repos", str(tmp_path / "repos"), "--out", str(tmp_path / "c.json")])
        == 3
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.jsonl: instance 'x-1': repo must be a plain name" in err, err
    assert not (tmp_path / "c.json").exists()


def test_trec_import_scores_like_trec_eval(tmp_path: Path) -> None:
    import pytrec_eval

    (tmp_path / "q.qrels").write_text("q1 0 a.py 1\nq1 0 b.py 2\nq2 0 c.py 1\nq3 0 d.py 0\n")
    (tmp_path / "r.run").write_text(
        "q1 Q0 x.py 1 3.0 sys\nq1 Q0 b.py 2 2.0 sys\nq1 Q0 a.py 3 2.0 sys\nq2 Q0 z.py 1 1.0 sys\nq9 Q0 c.py 1 1.0 sys\n"
    )
    corpus = tmp_path / "trec" / "corpus.json"
    assert (
        main(
            [
                "import",
                "trec",
                str(tmp_path / "q.qrels"),
                str(tmp_path / "r.run"),
                "--out",
                str(corpus),
                "--runs-dir",
                str(tmp_path / "runs"),
            ]
        )
        == 0
    )
    run = load_run(next((tmp_path / "runs").iterdir()))
    assert run.targets == ["sys"]
    returned = run.cases.set_index("case")["returned"]
    assert returned["q1"] == ["x.py", "b.py", "a.py"]  # equal scores: docid descending, as trec_eval
    binary = {"q1": {"a.py": 1, "b.py": 1}, "q2": {"c.py": 1}}
    with (tmp_path / "r.run").open() as handle:
        ranking = pytrec_eval.parse_run(handle)
    theirs = pytrec_eval.RelevanceEvaluator(binary, {"recall_5", "recip_rank"}).evaluate(ranking)
    ours = run.scores.pivot_table(index="case", columns="metric", values="value")
    assert ours.loc["q1", "recallAtK"] == pytest.approx(theirs["q1"]["recall_5"], abs=1e-9)
    assert ours.loc["q1", "mrr"] == pytest.approx(theirs["q1"]["recip_rank"], abs=1e-9)
    assert ours.loc["q2", "recallAtK"] == 0.0
    q3 = run.scores[run.scores.case == "q3"]  # no relevant document: a fallback case, null and out of the means
    assert len(q3) == 4 and q3.value.isna().all()


def test_go_code_report_becomes_a_ranking_run(tmp_path: Path) -> None:
    report = tmp_path / "eval.json"
    report.write_text(
        json.dumps(
            {
                "name": "splade",
                "per_query": [
                    {
                        "id": "a",
                        "query": "parse config",
                        "expected_top_3": [{"file": "config.go", "symbol": "Parse"}],
                        "results": [{"file": "main.go", "symbol": "main"}, {"file": "config.go", "symbol": "Parse"}],
                    },
                    {
                        "id": "b",
                        "query": "open db",
                        "expected_top_3": [{"file": "db.go", "symbol": "Open"}],
                        "results": [],
                    },
                ],
            }
        )
    )
    corpus = tmp_path / "gc" / "corpus.json"
    assert main(["import", "go-code", str(report), "--out", str(corpus), "--runs-dir", str(tmp_path / "runs")]) == 0
    run = load_run(next((tmp_path / "runs").iterdir()))
    assert run.targets == ["splade"]
    metrics = run.summary["suites"]["ranking"]["splade"]["metrics"]
    assert metrics["mrr"] == pytest.approx(0.25) and metrics["recall@20"] == pytest.approx(0.5)


def _diff(path: str, new: bool = False) -> str:
    head = "new file mode 100644\n--- /dev/null\n" if new else f"index 1..2 100644\n--- a/{path}\n"
    return f"diff --git a/{path} b/{path}\n{head}+++ b/{path}\n@@ -1 +1 @@\n-x\n+y\n"


def test_swebench_gold_is_the_modified_source_files_only(tmp_path: Path) -> None:
    """The one gold rule ``mine`` uses: docs, changelogs, tests and added files are never gold."""
    repo = init(tmp_path / "repos" / "acme__shop")
    base = commit(
        repo,
        "start",
        {
            "src/orders.py": "def refund(order):\n    pass\n",
            "CHANGES.rst": "Changes\n",
            "docs/config.rst": "Config\n",
            "tests/test_orders.py": "def test_refund():\n    pass\n",
            "pyproject.toml": "[project]\n",
        },
        0,
    )
    patch = "".join(
        _diff(p) for p in ("CHANGES.rst", "docs/config.rst", "src/orders.py", "tests/test_orders.py", "pyproject.toml")
    ) + _diff("src/refunds.py", new=True)
    rows = [
        {
            "instance_id": "acme__shop-9",
            "repo": "acme/shop",
            "base_commit": base,
            "patch": patch,
            "problem_statement": "Refunds of partly shipped orders fail.",
            "test_patch": _diff("tests/test_refunds.py", new=True),
        },
        {
            "instance_id": "acme__shop-10",
            "repo": "acme/shop",
            "base_commit": base,
            "patch": _diff("CHANGES.rst") + _diff("docs/config.rst"),
            "problem_statement": "Document the refund window.",
        },
    ]
    instances = tmp_path / "instances.json"
    instances.write_text(json.dumps(rows))
    corpus = tmp_path / "swe" / "corpus.json"
    assert main(["import", "swebench", str(instances), "--repos", str(tmp_path / "repos"), "--out", str(corpus)]) == 0
    data = json.loads(corpus.read_text())
    assert data["goldScope"] == {"exclude": ["tests", "docs", "examples", "generated"]}  # the rule it labelled by
    (case,) = data["retrieval"]  # the docs-only instance has no gold: skipped
    assert case["expectedPrimary"] == ["src/orders.py"]
    assert case["expectedSymbols"] == ["src/orders.py:refund"]  # only gold files give symbols
    assert case["tests"] == ["tests/test_orders.py", "tests/test_refunds.py"]
    assert case["dropped"] == {
        "CHANGES.rst": "doc file",
        "docs/config.rst": "doc file",
        "pyproject.toml": "manifest file",
        "src/refunds.py": "added by the patch (absent at base_commit)",
    }
    assert validate_corpus(corpus) == []


def test_swebench_and_mine_share_the_gold_rule() -> None:
    from workbench.interchange.swebench import gold_files
    from workbench.mining.filters import MineFilters, classify
    from workbench.mining.history import Commit

    paths = ("CHANGES.rst", "docs/index.md", "src/app.py", "src/app_test.go", "tests/test_app.py", "setup.py")
    mined = classify(
        Commit("a" * 40, ("b" * 40,), "D", "d@x", 0, "fix the app", tuple(("M", p) for p in paths)), MineFilters()
    )
    imported = gold_files("".join(_diff(p) for p in paths), "")
    assert imported.source == mined.source == ("src/app.py",)
    assert imported.tests == mined.tests == ("src/app_test.go", "tests/test_app.py")
