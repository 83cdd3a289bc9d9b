"""Start-up stays cheap with eager package ``__init__``s: the CLI loads no layer above the corpus
until a command needs it, and importing every subpackage loads none of the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "papermill", "pyarrow", "tree_sitter", "ray", "jsonschema", "tqdm")
PROBE = """
import json, sys
import workbench.cli
cli = sorted({m.split(".")[1] for m in sys.modules if m.startswith("workbench.")})
import workbench.analysis, workbench.corpus, workbench.interchange, workbench.reference, workbench.report
import workbench.online, workbench.run, workbench.store, workbench.suites, workbench.targets
print(json.dumps({"cli": cli, "heavy": sorted(m for m in %r if m in sys.modules)}))
"""


def test_the_cli_loads_only_base_modules_and_eager_packages_load_no_heavy_library() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,)], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["cli"] == ["cli", "contract", "errors", "options", "paths"]
    assert found["heavy"] == []
