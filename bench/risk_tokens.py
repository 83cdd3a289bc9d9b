"""Benchmark the risk vocabulary and the token-savings machinery on real trees.

Inputs: every file ``list_files`` keeps under the Python standard library of the running
interpreter (site-packages included when present, which makes it tens of thousands of paths).

- vocabulary: compile time; ``risk_concepts`` per call in each mode with its memo cleared
  (cold) and then repeated (warm);
- tokens: encoding load, o200k counting of every stdlib ``.py`` file cold (fresh counter)
  and warm (same counter, all hits), in tokens per second, and the library's own
  ``encode_ordinary_batch`` on 2 threads for comparison;
- naive dump: ``naive_dump`` of the stdlib root at the default budget, cold and warm.

    python bench/risk_tokens.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.code.walk import list_files, read_text
from workbench.reference.risk import concepts as risk
from workbench.suites.tokens import NAIVE_BUDGET, naive_dump
from workbench.tokens import TokenCounter, encoding

MODES = ("query", "path", "gate", "secret")


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def bench_vocabulary(paths: list[str], repeats: int) -> dict[str, Any]:
    compile_s = min(
        _timed(
            lambda: risk.compile_vocabulary(
                __import__("workbench.reference.risk.vocabulary", fromlist=["VOCABULARY"]).VOCABULARY
            )
        )[0]
        for _ in range(repeats)
    )
    risk.default_vocabulary()
    per_mode = {}
    for mode in MODES:
        colds, warms = [], []
        for _ in range(repeats):
            risk._classify.cache_clear()
            colds.append(_timed(lambda: [risk.risk_concepts(mode, p) for p in paths])[0])
            warms.append(_timed(lambda: [risk.risk_concepts(mode, p) for p in paths])[0])
        per_mode[mode] = {
            "cold_us_per_call": 1e6 * min(colds) / len(paths),
            "warm_us_per_call": 1e6 * min(warms) / len(paths),
        }
    return {"paths": len(paths), "compile_ms": 1e3 * compile_s, "modes": per_mode}


def bench_tokens(root: Path, files: list[str], repeats: int) -> dict[str, Any]:
    load_s, _ = _timed(encoding)
    texts = [read_text(root, rel) for rel in files]
    colds, warms, total = [], [], 0
    for _ in range(repeats):
        counter = TokenCounter()
        seconds, total = _timed(lambda: sum(counter.count(t) for t in texts))
        colds.append(seconds)
        warms.append(_timed(lambda: sum(counter.count(t) for t in texts))[0])
    batch = min(_timed(lambda: encoding().encode_ordinary_batch(texts, num_threads=2))[0] for _ in range(repeats))
    return {
        "files": len(files),
        "chars": sum(map(len, texts)),
        "tokens": total,
        "encoding_load_s": load_s,
        "cold_s": min(colds),
        "warm_s": min(warms),
        "cold_tokens_per_s": total / min(colds),
        "batch_2_threads_s": batch,
    }


def bench_naive(root: Path, repeats: int) -> dict[str, Any]:
    colds, warms, dump = [], [], None
    for _ in range(repeats):
        counter = TokenCounter()
        seconds, dump = _timed(lambda: naive_dump(root, counter))
        colds.append(seconds)
        warms.append(_timed(lambda: naive_dump(root, counter))[0])
    return {
        "budget": NAIVE_BUDGET,
        "tokens": dump.tokens,
        "files_read": len(dump.files),
        "cold_s": statistics.median(colds),
        "warm_s": statistics.median(warms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    listing_s, paths = _timed(lambda: list_files(args.root))
    python = [p for p in paths if p.endswith(".py") and not p.startswith("site-packages/")]
    result = {
        "root": str(args.root),
        "listing_s": listing_s,
        "vocabulary": bench_vocabulary(paths, args.repeats),
        "tokens": bench_tokens(args.root, python, args.repeats),
        "naive_dump": bench_naive(args.root, args.repeats),
    }
    print(json.dumps(result, indent=2) if args.json else result)


if __name__ == "__main__":
    main()
