"""Run ``extract_file`` over many files, in worker processes when that pays.

Parsing dominates a cold index (``ast`` and tree-sitter both run near 8 MB/s here),
so a large batch is split by size across forked workers; a small batch, a
single-core machine or a platform without ``fork`` runs in this process.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from .extract import FileFacts, extract_many

POOL_MIN_BYTES = 2_000_000
CHUNKS_PER_WORKER = 4


def workers() -> int:
    """Worker processes for a cold index: the CPUs this process may use, at most 8."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:
        count = os.cpu_count() or 1
    return min(count, 8)


def _chunks(items: list[tuple[str, bytes]], n: int) -> list[list[int]]:
    """Item indices dealt largest-first round-robin into ``n`` batches of similar size."""
    order = sorted(range(len(items)), key=lambda i: -len(items[i][1]))
    return [order[k::n] for k in range(n) if order[k::n]]


def extract_all(items: list[tuple[str, bytes]]) -> list[FileFacts]:
    """FileFacts for every ``(path, bytes)`` item, in order."""
    n = workers()
    if n < 2 or sum(len(data) for _, data in items) < POOL_MIN_BYTES or \
            "fork" not in multiprocessing.get_all_start_methods():
        return extract_many(items)
    batches = _chunks(items, n * CHUNKS_PER_WORKER)
    out: list[FileFacts | None] = [None] * len(items)
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
            for batch, facts in zip(batches, pool.map(extract_many, [[items[i] for i in b] for b in batches])):
                for i, f in zip(batch, facts):
                    out[i] = f
    except (OSError, RuntimeError):
        return extract_many(items)
    return [f for f in out]  # type: ignore[misc]
