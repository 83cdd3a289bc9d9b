"""The bm25 control answers search with symbols (textbook BM25 over definitions), not bare files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Repo
from workbench.corpus import load_corpus
from workbench.reference.text import tokens
from workbench.run.runner import RunOptions, run
from workbench.targets.bm25_symbols import documents
from workbench.targets.controls import Bm25Target

from ..conftest import REPO_ROOT, write_tree

BILLING = {
    "billing/tax.py": "def compute_tax(amount, rate):\n    return amount * rate\n\n\n"
    "def round_cents(value):\n    return round(value, 2)\n",
    "billing/invoice.py": "class Invoice:\n    def pay(self, amount):\n        '''Settle the invoice.'''\n"
    "        self.paid = amount\n\n    def void(self, reason):\n        '''Cancel it and record why.'''\n"
    "        self.voided = reason\n",
    "README.md": "Billing helpers: tax and invoices.\n",
}


def test_search_names_the_defining_symbol(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = write_tree(tmp_path / "repo", BILLING)
    target = Bm25Target()
    hits = target.search("compute tax", Repo("repo", repo), 5)
    assert (hits[0].file, hits[0].symbol) == ("billing/tax.py", "compute_tax")
    assert all(h.score and h.score > 0 for h in hits)
    pay = target.search("settle invoice", Repo("repo", repo), 5)
    assert (pay[0].file, pay[0].symbol) == ("billing/invoice.py", "Invoice.pay")
    # A class's document is its whole source, its methods too, so a method's words find it as well.
    why = [(h.file, h.symbol) for h in target.search("record why", Repo("repo", repo), 5)]
    assert why == [("billing/invoice.py", "Invoice.void"), ("billing/invoice.py", "Invoice")]
    readme = target.search("helpers", Repo("repo", repo), 5)
    assert readme == []  # only definitions are documents, as in a textbook BM25 over symbol chunks
    assert target.search("zzzz", Repo("repo", repo), 5) == []


def test_pack_symbols_are_the_symbol_search_with_the_pack_files_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    tree = {
        "a.py": "def alpha():\n    return 'ledger'\n",  # the best definition: short, all about it
        "b.py": '"""Ledger ledger ledger: the ledger module."""\nLEDGER = "ledger"\n\n\n'
        "def beta(x, y, z):\n    total = x + y + z\n    return ('ledger', total)\n",  # the best file
        **{f"{name}.py": f"def {name}():\n    pass\n" for name in ("c", "d", "e", "f")},
    }
    repo = Repo("repo", write_tree(tmp_path / "repo", tree))
    target = Bm25Target()
    assert [(h.file, h.symbol) for h in target.search("ledger", repo, 50)] == [("a.py", "alpha"), ("b.py", "beta")]
    pack = target.context_pack("ledger", [repo], 1)
    assert [ref.path for ref in pack.primary] == ["b.py"]
    assert pack.symbols is not None
    assert [(s.repo, s.path, s.name) for s in pack.symbols] == [("repo", "b.py", "beta"), ("repo", "a.py", "alpha")]
    assert target.context_pack("zzzz", [repo], 8).symbols == []  # nothing matches: no symbols, and it says so


@pytest.mark.slow
def test_bm25_ranking_control_scores_on_the_shipped_goldens(tmp_path: Path) -> None:
    result = run(
        load_corpus(REPO_ROOT / "corpus" / "corpus.json"),
        RunOptions(suites=["ranking"], targets=["bm25"], out_dir=tmp_path, progress=False),
    )
    metrics = result.summary["suites"]["ranking"]["bm25"]["metrics"]
    assert metrics["ndcg@10"] > 0.3, json.dumps(metrics)  # file-only hits scored 0.020


def test_each_definition_is_one_document_of_its_path_name_and_source_lines(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    source = (
        "import os\n"  # 1: module level, in no document
        "@cached\n"  # 2: a decorator starts its definition
        "def outer(path):\n"
        "    def inner():\n"  # a nested function belongs to the function it is in
        "        return os.sep\n"
        "    return inner\n"
        "class Box:\n"
        "    def open(self):\n"
        "        return 1\n"
    )
    root = write_tree(tmp_path / "repo", {"pkg/util.py": source, "notes.txt": "outer box\n"})
    files, symbols, docs = documents(root)
    assert list(zip(files, symbols)) == [("pkg/util.py", "outer"), ("pkg/util.py", "Box"), ("pkg/util.py", "Box.open")]
    lines = source.split("\n")
    # the same tokens (BM25 reads counts and lengths; a document keeps its terms as counts per blob)
    assert sorted(docs[0]) == sorted(tokens("pkg util.py") + tokens("outer") + tokens("\n".join(lines[1:6])))
    assert sorted(docs[1]) == sorted(tokens("pkg util.py") + tokens("Box") + tokens("\n".join(lines[6:9])))
    assert "import" not in docs[0] and "inner" in docs[0]
