"""The bm25 control answers search with symbols (textbook BM25 over definitions), not bare files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Repo
from workbench.corpus import load_corpus
from workbench.reference.symtable import spans
from workbench.run.runner import RunOptions, run
from workbench.targets.bm25_symbols import _extents, _python_ends
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
    assert [(h.file, h.symbol) for h in readme] == [("README.md", "")]  # a file without symbols is a file hit
    assert target.search("zzzz", Repo("repo", repo), 5) == []


@pytest.mark.slow
def test_bm25_ranking_control_scores_on_the_shipped_goldens(tmp_path: Path) -> None:
    result = run(
        load_corpus(REPO_ROOT / "corpus" / "corpus.json"),
        RunOptions(suites=["ranking"], targets=["bm25"], out_dir=tmp_path, progress=False),
    )
    metrics = result.summary["suites"]["ranking"]["bm25"]["metrics"]
    assert metrics["ndcg@10"] > 0.3, json.dumps(metrics)  # file-only hits scored 0.020


def test_a_symbol_extends_over_the_symbols_nested_in_it() -> None:
    data = b"class A:\n    def b(self):\n        pass\n\nx = 1\ndef c():\n    pass\n"
    defined = [("A", "class", 1), ("A.b", "method", 2), ("x", "variable", 5), ("c", "function", 6)]
    own = spans(data, [1, 2, 5, 6])
    line = [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]  # line n starts at line[n - 1]
    assert own[0] == (0, line[1])  # alone, the class ends where its method starts
    # Python: each def/class ends at its last line (ast), the class holding its method; x keeps its span.
    assert _extents("m.py", defined, data) == [(0, line[3]), (line[1], line[3]), own[2], (line[5], len(data))]
    # Elsewhere a symbol runs through the spans of the symbols indented deeper after it.
    assert _extents("m.js", defined, data) == [(0, own[1][1]), own[1], own[2], own[3]]
    go = b"type T struct {\n\tn int\n}\n\nfunc (t T) M() int {\n\treturn t.n\n}\n"
    go_defined = [("T", "type", 1), ("T.M", "method", 5)]
    assert _extents("m.go", go_defined, go) == spans(go, [1, 5])  # Go methods are top-level declarations


def test_python_ends_follow_indentation_not_signatures_or_comments() -> None:
    source = (
        b"def f(\n"  # 1
        b"    a,\n"  # 2
        b") -> int:\n"  # 3: a closing bracket at the def's depth does not end it
        b"    # note\n"  # 4
        b"    def g():\n"  # 5
        b"        return a\n"  # 6
        b"\n"  # 7
        b"# trailing comment\n"  # 8
        b"    return g()\n"  # 9: a comment at depth 0 inside the body does not end it either
        b"\n"  # 10
        b"X = 1\n"  # 11
        b"class C: pass\n"  # 12
    )
    assert _python_ends(source.split(b"\n"), [1, 5, 12]) == {1: 9, 5: 6, 12: 12}
    # The documented miss: a string whose lines are dedented ends the block early (ast says line 4).
    text = b'def h():\n    s = """\nflush left\n"""\n    return s\n'
    assert _python_ends(text.split(b"\n"), [1]) == {1: 2}
