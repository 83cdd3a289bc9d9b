"""Run ``extract_file`` over many files, in worker processes when that pays.

Parsing dominates a cold index (``ast`` and tree-sitter both run near 8 MB/s here),
so a large batch is split by size across forked workers; a small batch, a
single-core machine, a multi-threaded caller or a platform without ``fork`` runs in
this process.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

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


def _chunks(sizes: list[int], n: int) -> list[list[int]]:
    """Item indices dealt largest-first round-robin into ``n`` batches of similar size."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    return [order[k::n] for k in range(n) if order[k::n]]


def _read_and_extract(root: str, rels: list[str]) -> list[FileFacts]:
    """A worker's batch: read each file here, so the parent never holds every file's bytes."""
    return extract_many([(rel, (Path(root) / rel).read_bytes()) for rel in rels])


def extract_all(root: Path, rels: list[str], sizes: list[int]) -> list[FileFacts]:
    """FileFacts for every file of ``rels`` (paths under ``root``, ``sizes`` in bytes), in order."""
    n = workers()
    # Forking a process that runs other threads (a progress bar, a runner's --jobs) can
    # deadlock the child on a lock some thread held: parse in this process then.
    if n < 2 or sum(sizes) < POOL_MIN_BYTES or threading.active_count() > 1 or \
            "fork" not in multiprocessing.get_all_start_methods():
        return [extract_many([(rel, (root / rel).read_bytes())])[0] for rel in rels]
    batches = _chunks(sizes, n * CHUNKS_PER_WORKER)
    out: list[FileFacts | None] = [None] * len(rels)
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
            jobs = [pool.submit(_read_and_extract, str(root), [rels[i] for i in batch]) for batch in batches]
            for batch, job in zip(batches, jobs):
                for i, facts in zip(batch, job.result()):
                    out[i] = facts
    except (OSError, RuntimeError):
        return [extract_many([(rel, (root / rel).read_bytes())])[0] for rel in rels]
    return [f for f in out]  # type: ignore[misc]
