"""What a file says about itself (docstrings, a leading comment) is a field; stems join word forms."""

from __future__ import annotations

from pathlib import Path

from workbench.code.outline import Outline
from workbench.code.pysymbols import python_outline
from workbench.contract import Repo
from workbench.reference import build_pack
from workbench.reference.fields import doc_terms
from workbench.reference.text import terms


def test_docstrings_and_leading_comments_give_doc_terms():
    source = b'"""Retry with backoff.\n\nDetails nobody reads."""\nclass Pump:\n    """Pumps water."""\n'
    outline = python_outline(source)
    assert outline.docs == ["Retry with backoff.", "Pumps water."]
    assert set(doc_terms(outline, "")) == set(terms("retry backoff pumps water"))
    assert set(doc_terms(Outline(), "// Package ledger keeps accounts.\npackage ledger\n")) == set(
        terms("package ledger keeps accounts")
    )
    assert doc_terms(Outline(), "package ledger\n// not a header\n") == {}


def test_stemming_joins_scans_and_scanner():
    assert terms("scans") == terms("scanner") == terms("scanning") == ["scan"]


def test_the_file_that_says_what_it_does_ranks_first(tmp_path: Path):
    """The same words, once as the module's docstring and once as a trailing comment."""
    files = {
        "pkg/pump.py": '"""Retry failed uploads with exponential backoff."""\n\ndef run(job):\n    return job\n',
        "pkg/jobs.py": "def run(job):\n    return job\n\n# Retry failed uploads with exponential backoff.\n",
        "pkg/misc.py": "def noop():\n    return None\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    pack = build_pack("retry uploads with backoff", [Repo("repo", str(tmp_path))])
    assert pack.primary[0].path == "pkg/pump.py"
