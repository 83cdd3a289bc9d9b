"""Issue 20, item 10: with ``--json`` stdout holds the JSON alone, whatever writes to file
descriptor 1 during the run (as Ray's "A worker died" log line did)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from workbench.cli import main
from workbench.contract import FileRef, Pack


class _Noisy:
    name, version = "noisy", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int) -> Pack:
        os.write(1, b"(raylet) A worker died or was killed while executing a task\n")
        print("a library's print", flush=True)
        return Pack(primary=[FileRef(repos[0].name, "src/orders.ts")])


def noisy() -> _Noisy:
    return _Noisy()


def test_json_stdout_holds_only_the_json(tiny_corpus: Path, tmp_path: Path, capfd) -> None:
    args = [
        "run",
        "--corpus",
        str(tiny_corpus),
        "--suite",
        "retrieval",
        "--target",
        "python:tests.cli.test_json_stdout:noisy",
    ]
    code = main([*args, "--out", str(tmp_path / "runs"), "--json"])
    out, err = capfd.readouterr()
    assert code in (0, 1)
    assert out.lstrip().startswith("{"), out[:500]
    summary = json.loads(out)  # the whole of stdout is one JSON document
    assert "noisy" in summary["suites"]["retrieval"]
    assert "A worker died" in err and "a library's print" in err
