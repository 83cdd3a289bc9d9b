"""What strict loading costs: ``loads_strict`` and ``read_jsonl`` against plain ``json``.

Builds a synthetic ``cases.jsonl`` and a baseline-shaped document (seeded), then times, best of
``--repeat``: ``json.loads`` vs ``loads_strict`` on the document, and per-line ``json.loads`` vs
``workbench.strictjson.read_jsonl`` on the JSONL file. Also times the refusal of a 3,000-deep
document. Prints a Markdown table (or ``--json``).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.errors import StoreError
from workbench.strictjson import loads_strict, read_jsonl


def _rows(n: int, rng: random.Random) -> list[dict]:
    return [
        {
            "suite": "retrieval",
            "target": "builtin",
            "case": f"case-{i}",
            "passed": rng.random() > 0.2,
            "error": None,
            "returned": [f"src/file{rng.randrange(500)}.ts" for _ in range(8)],
            "ranks": [rng.randrange(1, 20) for _ in range(3)],
            "seconds": round(rng.random(), 4),
            "query": "where is the refund amount computed for partial orders",
        }
        for i in range(n)
    ]


def _best(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best time of each function over ``repeat`` rounds, the functions interleaved in every round
    (so a noisy neighbour slows them alike)."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            started = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = _rows(args.cases, random.Random(0))
    document = json.dumps({"format": 1, "cases": rows})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        plain_lines = lambda: [json.loads(line) for line in path.read_text().splitlines() if line.strip()]  # noqa: E731
        deep = "[" * 3000 + "]" * 3000

        def refuse() -> None:
            try:
                loads_strict(deep, "deep", StoreError)
            except StoreError:
                pass

        results = _best(
            {
                "document json.loads": lambda: json.loads(document),
                "document loads_strict": lambda: loads_strict(document, "doc", StoreError),
                "jsonl json.loads per line": plain_lines,
                "jsonl read_jsonl (strict)": lambda: read_jsonl(path, "run file", StoreError),
                "refuse 3,000-deep": refuse,
            },
            args.repeat,
        )
    size = len(document) / 2**20
    if args.json:
        print(json.dumps({"cases": args.cases, "document_mb": round(size, 1), "seconds": results}, indent=2))
        return
    print(f"{args.cases:,} case rows, document {size:.1f} MB, best of {args.repeat}\n")
    print("| what | seconds |\n| --- | ---: |")
    for name, seconds in results.items():
        print(f"| {name} | {seconds:.4f} |")


if __name__ == "__main__":
    main()
