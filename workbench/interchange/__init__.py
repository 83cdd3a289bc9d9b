"""Other tools' formats in and out: SWE-bench instances, TREC qrels and runs, go-code eval reports.

``import_swebench`` writes a retrieval corpus; ``import_trec`` and ``import_go_code`` write a corpus
and a run, built through the same manifest and store writers as ``workbench run``; ``export_trec``
writes a run's retrieval results for trec_eval, pytrec_eval and ranx.
"""

from __future__ import annotations

from .gocode import import_go_code
from .swebench import import_swebench
from .trec import export_trec, import_trec

__all__ = ["export_trec", "import_go_code", "import_swebench", "import_trec"]
