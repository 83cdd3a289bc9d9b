"""Check: two runs of one corpus gave the same case rows and figures, timings aside.

    python bench/same_rows.py RUN_DIR_A RUN_DIR_B

Compares every ``cases.jsonl`` row (without ``seconds``) and ``summary.json``'s suites (without
timing figures), and prints the first difference; exit 1 on any. Issue 40 uses it on a mined corpus
run before and after the per-blob store (``bench/history.py``'s first run), beside ``bench/identical.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TIMING = ("seconds", "latency")


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not any(t in k for t in TIMING)}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def rows(run: Path) -> dict[tuple[str, str, str], Any]:
    found = {}
    for line in (run / "cases.jsonl").read_text().splitlines():
        row = json.loads(line)
        found[row["suite"], row["target"], row["case"]] = _clean(row)
    return found


def main() -> int:
    a, b = (Path(arg) for arg in sys.argv[1:3])
    left, right = rows(a), rows(b)
    if left.keys() != right.keys():
        print(f"different cases: {sorted(left.keys() ^ right.keys())[:5]}")
        return 1
    for key in sorted(left):
        if left[key] != right[key]:
            one, two = left[key], right[key]
            diff = {k: (one.get(k), two.get(k)) for k in one if one.get(k) != two.get(k)}
            print(f"row {key} differs: {json.dumps(diff)[:800]}")
            return 1
    suites = [_clean(json.loads((run / "summary.json").read_text())["suites"]) for run in (a, b)]
    if suites[0] != suites[1]:
        print("summary suites differ")
        return 1
    print(f"identical: {len(left)} case rows and the summary's suites (timings aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
