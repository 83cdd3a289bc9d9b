"""Run ``extract_file`` over many files, in forked processes when that pays.

Parsing dominates a cold index (``ast`` and tree-sitter both run near 10 MB/s here).
A large batch is cut into chunks, largest files first, each chunk a fixed share of
the bytes still undealt (guided self-scheduling: big chunks early, small ones to even
out the finish). This process and one forked child per extra CPU pull chunk numbers
from a pipe pre-filled with them (GNU make's jobserver idiom: reading one token is
atomic) until it is empty, so a core slowed by another job just takes fewer chunks.
A child pickles each chunk's facts into an anonymous temp file as it goes (a file,
unlike a full pipe, never blocks the writer); this process keeps its own facts
unpickled. A child that fails costs only time: chunks nobody returned are parsed
here. A small batch, one CPU, a multi-threaded caller (a forked child can deadlock on
a lock another thread held) or a platform without ``fork`` parses serially.
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .extract import FileFacts, extract_many

POOL_MIN_BYTES = 2_000_000
CHUNK_SHARE = 2  # a chunk takes 1 / (CHUNK_SHARE x processes) of the bytes not yet dealt
MIN_CHUNK_BYTES = 64_000
MAX_CHUNKS = 4096  # their tokens (4 bytes each) must fit in a pipe's buffer before any reader starts
_TOKEN = struct.Struct("<I")


def workers() -> int:
    """Processes for a cold index (this one included): the CPUs this process may use, at most 8."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:
        count = os.cpu_count() or 1
    return min(count, 8)


def _chunks(sizes: list[int], n: int) -> list[list[int]]:
    """Item indices, largest first, cut into chunks of ``remaining / (CHUNK_SHARE n)`` bytes (at
    least ``MIN_CHUNK_BYTES``): big early chunks keep the overhead low, small late ones even out
    the finish."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    remaining = sum(sizes)
    floor = max(MIN_CHUNK_BYTES, remaining // MAX_CHUNKS)
    chunks: list[list[int]] = []
    current: list[int] = []
    filled = 0
    for i in order:
        if not current:
            target = max(floor, remaining // (CHUNK_SHARE * n))
        current.append(i)
        filled += sizes[i]
        remaining -= sizes[i]
        if filled >= target:
            chunks.append(current)
            current, filled = [], 0
    return chunks + ([current] if current else [])


def _extract(root: Path, rels: list[str], chunk: list[int]) -> list[FileFacts]:
    """One chunk: read each file here, so no process holds every file's bytes."""
    return extract_many([(rels[i], (root / rels[i]).read_bytes()) for i in chunk])


def _tokens(tasks: int) -> Iterator[int]:
    """Chunk numbers taken from the ``tasks`` pipe until it is empty."""
    while True:
        token = os.read(tasks, _TOKEN.size)
        if len(token) < _TOKEN.size:
            return
        yield _TOKEN.unpack(token)[0]


def _fork_worker(tasks: int, root: Path, rels: list[str], chunks: list[list[int]]) -> tuple[int, IO[bytes]]:
    """Fork a child that parses the chunks it takes from ``tasks``, pickling each chunk's facts to
    an anonymous temp file as soon as it is done (a file never blocks the writer the way a full
    pipe would): (pid, file)."""
    spool = tempfile.TemporaryFile()
    try:
        pid = os.fork()
    except OSError:
        spool.close()
        raise
    if pid == 0:  # the child: never return into the caller's code, never run its exit handlers
        code = 1
        try:
            for k in _tokens(tasks):
                pickle.dump((k, _extract(root, rels, chunks[k])), spool, protocol=pickle.HIGHEST_PROTOCOL)
            spool.flush()
            code = 0
        finally:
            os._exit(code)
    return pid, spool


def _collect(pid: int, spool: IO[bytes]) -> dict[int, list[FileFacts]]:
    """A child's results once it has exited (empty if it failed)."""
    done: dict[int, list[FileFacts]] = {}
    with spool:
        _, status = os.waitpid(pid, 0)
        if status != 0:
            return done
        spool.seek(0)
        try:
            while True:
                k, facts = pickle.load(spool)
                done[k] = facts
        except EOFError:
            return done
        except (pickle.PickleError, ValueError, TypeError):
            return {}


def _forked(root: Path, rels: list[str], chunks: list[list[int]], n: int) -> dict[int, list[FileFacts]]:
    """Chunks parsed by this process and ``n - 1`` forked children, by chunk number."""
    tasks, filler = os.pipe()
    children: list[tuple[int, IO[bytes]]] = []
    try:
        os.write(filler, b"".join(_TOKEN.pack(k) for k in range(len(chunks))))
        os.close(filler)
        filler = -1
        for _ in range(n - 1):
            children.append(_fork_worker(tasks, root, rels, chunks))
        done = {k: _extract(root, rels, chunks[k]) for k in _tokens(tasks)}
        while children:
            done.update(_collect(*children.pop()))
        return done
    finally:
        for pid, spool in children:  # only after an error here: stop and reap the rest
            spool.close()
            try:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(tasks)
        if filler >= 0:
            os.close(filler)


def fork_safe() -> bool:
    """Whether forking is available and safe: no other thread could hold a lock the child needs."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _pool_allowed(total_bytes: int, n: int) -> bool:
    return n >= 2 and total_bytes >= POOL_MIN_BYTES and fork_safe()


def extract_all(root: Path, rels: list[str], sizes: list[int]) -> list[FileFacts]:
    """FileFacts for every file of ``rels`` (paths under ``root``, ``sizes`` in bytes), in order."""
    n = workers()
    if not _pool_allowed(sum(sizes), n):
        return _extract(root, rels, list(range(len(rels))))
    chunks = _chunks(sizes, n)
    try:
        done = _forked(root, rels, chunks, n)
    except OSError:
        done = {}
    out: list[FileFacts | None] = [None] * len(rels)
    for k, chunk in enumerate(chunks):
        facts = done.get(k)
        if facts is None:  # a child failed: parse its chunks here
            facts = _extract(root, rels, chunk)
        for i, f in zip(chunk, facts):
            out[i] = f
    return out  # type: ignore[return-value]
