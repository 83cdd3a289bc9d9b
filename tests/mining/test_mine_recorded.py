"""Mining a generated history gives exactly the output recorded before issue 24's speed-up.

``data/generated_mine.json`` was written by the code on main before the change (blob cache,
lazy parsing, literal pre-checks, pipelined commit reads); any change in cases, shapes, drop
counts or their order shows up here byte for byte. ``expectedSymbols`` (issue 21) came later:
it is compared without that field, so every field recorded before it stays byte-identical.
``data/generated_polyglot_mine.json`` (Python, TypeScript, JavaScript and Go modules, messages
decorated as real ones are) was written whole, ``expectedSymbols`` included, by the code on main
at bd1f197, before issue 24's third round (log filters first, lazy candidates, batched reads, the
sample without numpy, shared TS/JS ranges).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.git_history import fast_import_history
from workbench.mining.mine import MineResult, mine

RECORDED = Path(__file__).parent / "data" / "generated_mine.json"
RECORDED_POLYGLOT = Path(__file__).parent / "data" / "generated_polyglot_mine.json"


def _mined(result: MineResult) -> dict[str, Any]:
    return {
        "commits": result.commits,
        "candidates": result.candidates,
        "dropped": dict(sorted(result.dropped.items())),
        "cases": result.cases,
    }


def test_generated_history_mines_the_recorded_cases(tmp_path: Path) -> None:
    repo = fast_import_history(tmp_path / "gen", 600, files=40, seed=7)
    result = mine(repo, max_cases=40, seed=3, fixture="gen", progress=False)
    mined = _mined(result)
    existing = [{key: value for key, value in case.items() if key != "expectedSymbols"} for case in result.cases]
    assert json.dumps({**mined, "cases": existing}, indent=1, sort_keys=True) + "\n" == RECORDED.read_text()
    assert result.commits == 600 and len(result.cases) == 40
    # the new field (issue 21): every generated commit edits a function, in the files it expects
    for case in result.cases:
        assert case["expectedSymbols"] and all(
            s.split(":")[0] in case["expectedPrimary"] for s in case["expectedSymbols"]
        )


def test_a_polyglot_history_mines_the_recorded_cases_byte_for_byte(tmp_path: Path) -> None:
    languages = (".py", ".ts", ".js", ".go")
    repo = fast_import_history(tmp_path / "poly", 900, files=48, seed=11, languages=languages, varied=True)
    result = mine(repo, max_cases=60, seed=5, fixture="poly", progress=False)
    assert json.dumps(_mined(result), indent=1, sort_keys=True) + "\n" == RECORDED_POLYGLOT.read_text()
    gold = {path.rsplit(".", 1)[1] for case in result.cases for path in case["expectedPrimary"]}
    assert gold == {"py", "ts", "js", "go"} and all(case.get("expectedSymbols") for case in result.cases)


def test_gold_blobs_parse_a_blob_once_for_its_names_and_ranges() -> None:
    from workbench.mining import blobs
    from workbench.mining.shapes import outline_of, symbol_names
    from workbench.reference.enclosing import definition_ranges

    cache = blobs.GoldBlobs(keep_trees=2)
    source = b"class Parser:\n    def parse_header(self, x):\n        return x\n"
    assert cache.names("b1", "a/x.py", source) == {"Parser", "parse_header", "Parser.parse_header"}
    assert cache.names("b1", "b/y.py", source) == cache.names("b1", "a/x.py", source)  # same blob: cached
    assert cache.ranges("b1", "a/x.py", source) == definition_ranges("a/x.py", source)
    assert cache.parses == 1  # names and ranges of one Python blob share one parse
    script = b"export class Store {\n  load(id: string) {\n    return id\n  }\n}\nfunction helper() {}\n"
    assert cache.names("t1", "s.ts", script) == frozenset(symbol_names(outline_of("s.ts", script)))
    assert sorted(cache.ranges("t1", "s.ts", script)) == sorted(definition_ranges("s.ts", script))
    assert cache.parses == 2  # one tree-sitter parse for both too
    assert cache.names("b1", "c/z.txt", source) == frozenset() and cache.parses == 2  # no parser for it
    assert cache.ranges("b2", "m.py", b"def broken(:\n") == [] and cache.names("b2", "m.py", b"def broken(:\n") == set()
    for blob in ("b3", "b4", "b5"):
        cache.ranges(blob, "m.py", b"def f():\n    pass\n")
    assert cache.parses == 6 and len(cache._trees) == 2  # only the last trees are kept
