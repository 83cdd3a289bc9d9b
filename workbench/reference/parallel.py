"""Run ``extract_file`` over many files, in worker processes when that pays.

Parsing dominates a cold index (``ast`` and tree-sitter both run near 8 MB/s here),
so a large batch is split by size across forked workers; a small batch, a
single-core machine, a multi-threaded caller or a platform without ``fork`` runs in
this process. Either way each file comes back as two pickles, its facts and its symbols'
bodies (``bodies``; a file's content terms are summed from its bodies' where they tile it, so its
bytes are tokenized once): the parent unpickles the facts once and stores the same bytes in the
per-blob store (``blobstore``), and stores the bodies without unpickling them, so nothing is
pickled twice. A Python file also comes back with its definition ranges, walked from the same parse
(``extract.RANGES``: the ``bm25`` control reads them instead of parsing the file again). A worker
ends with its call, so it parses each Python file whole (``pychunks.parse_whole``): the groups a
long-lived process keeps for a module's next version would die with it.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..code.collector import collector_paused
from ..code.forking import fork_is_safe, workers
from ..code.pychunks import parse_whole
from ..code.tsranges import Range
from .bodies import Body, bodies_and_content
from .extract import FileFacts, extract_parsed

POOL_MIN_BYTES = 2_000_000
CHUNKS_PER_WORKER = 4


def _chunks(sizes: list[int], n: int) -> list[list[int]]:
    """Item indices dealt largest-first round-robin into ``n`` batches of similar size."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    return [order[k::n] for k in range(n) if order[k::n]]


Extracted = tuple[list[bytes], list[bytes], list[list[Range] | None]]  # per file: facts, bodies (pickled), ranges


def _read_and_extract(root: str, rels: list[str]) -> Extracted:
    """A batch, read one file at a time (no process holds every file's bytes): per file, its
    pickled facts and its pickled bodies (the parent stores these very bytes per blob), and its
    definition ranges when it is a Python file (else None)."""
    facts: list[bytes] = []
    bodies: list[bytes] = []
    ranges: list[list[Range] | None] = []
    with collector_paused():
        for rel in rels:
            data = (Path(root) / rel).read_bytes()
            found, defined = extract_parsed(rel, data, count_content=False)
            spans, found.content = bodies_and_content(data, found.outline.symbols)
            facts.append(pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
            bodies.append(pickle.dumps(spans, protocol=pickle.HIGHEST_PROTOCOL))
            ranges.append(defined)
    return facts, bodies, ranges


def forking_pays(total_bytes: int) -> bool:
    """Whether work on ``total_bytes`` of files is worth forking helpers for: two CPUs or more, and
    a process where forking is safe (``forking.fork_is_safe``)."""
    return workers() >= 2 and total_bytes >= POOL_MIN_BYTES and fork_is_safe()


def _pool_pays(sizes: list[int]) -> bool:
    return forking_pays(sum(sizes))


Batch = tuple[list[int], list[bytes], list[bytes], list[list[Range] | None]]  # indices, then ``Extracted``


def extract_batches(root: Path, rels: list[str], sizes: list[int]) -> Iterator[Batch]:
    """The FileFacts, bodies and (Python) definition ranges of ``rels`` (paths under ``root``,
    ``sizes`` in bytes) as batches, each yielded as soon as it is parsed."""
    if not _pool_pays(sizes):
        yield list(range(len(rels))), *_read_and_extract(str(root), rels)
        return
    n = workers()
    batches = _chunks(sizes, n * CHUNKS_PER_WORKER)
    done = 0
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"), initializer=parse_whole) as pool:
            jobs = [pool.submit(_read_and_extract, str(root), [rels[i] for i in batch]) for batch in batches]
            for batch, job in zip(batches, jobs):
                facts, bodies, ranges = job.result()
                done += 1
                yield batch, facts, bodies, ranges
    except (OSError, RuntimeError):  # a worker died: parse what is left here
        rest = [i for batch in batches[done:] for i in batch]
        yield rest, *_read_and_extract(str(root), [rels[i] for i in rest])


def extract_all(root: Path, rels: list[str], sizes: list[int]) -> list[tuple[FileFacts, list[Body]]]:
    """FileFacts and bodies of every file of ``rels`` (paths under ``root``, ``sizes`` in bytes), in order."""
    out: list[tuple[FileFacts, list[Body]] | None] = [None] * len(rels)
    for batch, facts, bodies, _ in extract_batches(root, rels, sizes):
        for i, one, spans in zip(batch, facts, bodies, strict=True):
            out[i] = (pickle.loads(one), pickle.loads(spans))
    return out  # type: ignore[return-value]
