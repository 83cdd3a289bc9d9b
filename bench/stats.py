"""Benchmark workbench.stats on one large paired comparison.

Every paired statistic on N paired cases (default 100,000) with 10,000 bootstrap
resamples and 10,000 sign-flip permutations, plus McNemar on the pass/fail
vectors and Holm over the family; ``--naive`` also times the textbook chunked
methods (bounded-integer index bootstrap, +-1 sign matrix times the vector) the
implementation replaces. Peak memory is traced with tracemalloc (numpy reports
its buffers to it).

    python bench/stats.py --n 100000 --repeat 3 [--naive] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from workbench.analysis import stats


def synthetic(n: int, seed: int, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-case metric values for A and B: continuous in [0, 1], or reciprocal-rank levels."""
    rng = np.random.default_rng(seed)
    if discrete:
        levels = np.array([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 1.0])
        return rng.choice(levels, n), rng.choice(levels, n, p=[0.1, 0.05, 0.05, 0.1, 0.1, 0.2, 0.4])
    a = rng.random(n)
    return a, np.clip(a + rng.normal(0.002, 0.1, n), 0.0, 1.0)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, int, Any]:
    """Best wall time over ``repeat`` calls, peak traced bytes of one call, and its result."""
    best, peak, result = float("inf"), 0, None
    for i in range(repeat):
        if i == 0:
            tracemalloc.start()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
        if i == 0:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    return best, peak, result


def naive_bootstrap(d: np.ndarray, resamples: int, seed: int, rows: int = 64) -> np.ndarray:
    rng, out = np.random.default_rng(seed), np.empty(resamples)
    for s in range(0, resamples, rows):
        size = min(rows, resamples - s)
        out[s : s + size] = np.take(d, rng.integers(0, d.size, size=(size, d.size))).mean(axis=1)
    return out


def naive_sign_flip(d: np.ndarray, permutations: int, seed: int, rows: int = 64) -> int:
    rng, hits, target = np.random.default_rng(seed), 0, abs(d.sum())
    for s in range(0, permutations, rows):
        signs = rng.integers(0, 2, size=(min(rows, permutations - s), d.size), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= target))
    return hits


def bench(n: int, repeat: int, seed: int, discrete: bool, naive: bool) -> dict[str, Any]:
    a, b = synthetic(n, seed, discrete)
    d = b - a
    parts: dict[str, Callable[[], Any]] = {
        "paired t (scipy)": lambda: stats.paired_t(d),
        "Wilcoxon (scipy)": lambda: stats.wilcoxon(d),
        "sign-flip, 10,000 permutations": lambda: stats.sign_flip(d, 10_000, seed),
        "bootstrap CI, 10,000 resamples": lambda: stats.bootstrap_ci(d, 10_000, seed=seed),
        "McNemar exact": lambda: stats.mcnemar(a >= 0.5, b >= 0.5),
        "d_z, win/tie/loss": lambda: (stats.cohens_dz(d), stats.win_tie_loss(d)),
        "MDE (uncached)": lambda: (stats.mde_sd.cache_clear(), stats.mde_sd(d.size)),
        "Holm over 20 p-values": lambda: stats.holm(np.random.default_rng(seed).random(20)),
    }
    if naive:
        parts["naive bootstrap (bounded ints + take)"] = lambda: naive_bootstrap(d, 10_000, seed)
        parts["naive sign-flip (int8 signs @ d)"] = lambda: naive_sign_flip(d, 10_000, seed)
    rows = {}
    for name, fn in parts.items():
        seconds, peak, _ = timed(fn, repeat)
        rows[name] = {"seconds": round(seconds, 4), "peak_mib": round(peak / 2**20, 1)}
    seconds, peak, result = timed(
        lambda: (
            stats.mde_sd.cache_clear(),
            stats.paired_comparison(a, b, seed=seed),
            stats.mcnemar(a >= 0.5, b >= 0.5),
        ),
        repeat,
    )
    rows["all of the above: paired_comparison + McNemar"] = {
        "seconds": round(seconds, 4),
        "peak_mib": round(peak / 2**20, 1),
    }
    comparison = result[1]
    return {
        "n": n,
        "discrete": discrete,
        "repeat": repeat,
        "rows": rows,
        "check": {
            "delta": comparison.delta,
            "ci": [comparison.ci_low, comparison.ci_high],
            "p_t": comparison.p_t,
            "p_randomization": comparison.p_randomization,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--naive", action="store_true", help="also time the textbook methods")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [bench(args.n, args.repeat, args.seed, discrete, args.naive) for discrete in (False, True)]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for result in results:
        kind = "discrete (reciprocal-rank levels)" if result["discrete"] else "continuous"
        print(f"\nn = {result['n']:,} paired cases, {kind}, best of {result['repeat']}")
        print("| what | seconds | peak MiB |\n| --- | ---: | ---: |")
        for name, row in result["rows"].items():
            print(f"| {name} | {row['seconds']:.3f} | {row['peak_mib']} |")
        print(f"check: {result['check']}")


if __name__ == "__main__":
    main()
