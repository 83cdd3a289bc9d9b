"""The bm25 control answers search with symbols (plain BM25 over definitions), not bare files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Repo
from workbench.corpus import load_corpus
from workbench.run.runner import RunOptions, run
from workbench.targets.controls import Bm25Target

from ..conftest import REPO_ROOT, write_tree


def test_search_names_the_defining_symbol(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = write_tree(
        tmp_path / "repo",
        {
            "billing/tax.py": "def compute_tax(amount, rate):\n    return amount * rate\n\n\n"
            "def round_cents(value):\n    return round(value, 2)\n",
            "billing/invoice.py": "class Invoice:\n    def pay(self, amount):\n        '''Settle the invoice.'''\n"
            "        self.paid = amount\n",
            "README.md": "Billing helpers: tax and invoices.\n",
        },
    )
    target = Bm25Target()
    hits = target.search("compute tax", Repo("repo", repo), 5)
    assert (hits[0].file, hits[0].symbol) == ("billing/tax.py", "compute_tax")
    assert all(h.score and h.score > 0 for h in hits)
    pay = target.search("settle invoice", Repo("repo", repo), 5)
    assert (pay[0].file, pay[0].symbol) == ("billing/invoice.py", "Invoice.pay")
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
