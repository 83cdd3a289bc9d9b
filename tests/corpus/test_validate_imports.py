"""`workbench validate` stays fast by importing neither pandas nor jsonschema's IRI grammars."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import REPO_ROOT

PROBE = """
import sys
from workbench.corpus import validate_corpus
problems = validate_corpus(sys.argv[1])
print(len(problems), 'pandas' in sys.modules, 'rfc3987_syntax' in sys.modules)
import rfc3987_syntax  # still importable afterwards: it was kept out, not broken
"""


def test_validate_loads_no_pandas_and_no_format_grammars() -> None:
    corpus = REPO_ROOT / "corpus" / "corpus.json"
    done = subprocess.run([sys.executable, "-c", PROBE, str(corpus)], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "False", "False"]
