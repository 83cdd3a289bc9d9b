"""Every input form of ``evaluate`` as columns: row tuples, pytrec_eval-style dicts, TREC files.

One ``Side`` per input (the ranking or the qrels): cases as runs (rows arrive grouped by case, so
a case id is compared with its neighbour, not hashed per row), doc ids (with their hashed keys
when asked), and the numeric columns as given. No bytecode runs per row: columns come out of
``map`` over C builtins (``itemgetter``, ``len``, ``hash``) into numpy, or out of pyarrow
(``_trec``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sized
from dataclasses import dataclass
from itertools import chain, islice
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ._trec import trec_columns

if TYPE_CHECKING:
    import numpy as np

KEY_BITS = 48  # a hashed doc key: the id's hash, masked so ``key << position bits`` fits an int64
_BATCH = 1024  # doc ids gathered, then hashed, per batch (see ``doc_column``)
_KEYED = 1 << 20  # arrow strings keyed per pass (see ``utf8_keys``)
_SHAPES = {"ranking": "(case, doc, rank[, score])", "qrels": "(case, doc, relevance)"}
_WIDTHS = {"ranking": (3, 4), "qrels": (3,)}


@dataclass
class Side:
    """The ranking or the qrels as columns."""

    what: str  # "ranking" or "qrels"
    case_runs: np.ndarray  # object: the case id of each run of rows
    run_lengths: np.ndarray  # int64: rows per run (> 0)
    docs: Any  # the doc id of each row: an object array, or an arrow string array (TREC files)
    keys: np.ndarray | None  # int64 hashed keys of the docs (if asked for and every id is a str)
    numbers: list[Any]  # ranking: rank[, score]; qrels: relevance (sequences, converted by the caller)

    @property
    def runs(self) -> tuple[np.ndarray, np.ndarray]:
        return self.case_runs, self.run_lengths


def side_of(source: Any, what: str, hashed: bool) -> Side:
    """Columns from row tuples, a pytrec_eval-style dict (a run ``{case: {doc: score}}`` or
    ``{case: [docs in rank order]}``; qrels ``{case: {doc: relevance}}`` or ``{case: [docs]}``,
    relevance 1), or a TREC file path (run: ``case Q0 doc rank score tag``; qrels: ``case
    iteration doc relevance``). ``what`` is ``ranking`` or ``qrels``."""
    if isinstance(source, (str, Path)):
        return _trec_side(Path(source), what, hashed)
    if isinstance(source, Mapping):
        return _mapping_side(source, what, hashed)
    return _rows_side(source if isinstance(source, list) else list(source), what, hashed)


def _rows_side(rows: list, what: str, hashed: bool) -> Side:
    import numpy as np

    widths = set(map(len, rows)) or {_WIDTHS[what][0]}
    if len(widths) > 1 or not widths <= set(_WIDTHS[what]):
        raise UsageError(f"{what} rows must be {_SHAPES[what]} tuples")
    runs, lengths = case_runs(np.fromiter(map(itemgetter(0), rows), dtype=object, count=len(rows)))
    numbers = [list(map(itemgetter(i), rows)) for i in range(2, widths.pop())]
    if not hashed:
        return Side(what, runs, lengths, RowIds(rows).array(), None, numbers)
    batches = (list(map(itemgetter(1), rows[start : start + _BATCH])) for start in range(0, len(rows), _BATCH))
    return Side(what, runs, lengths, RowIds(rows), doc_keys(batches, len(rows)), numbers)


@dataclass
class RowIds:
    """The doc ids of row tuples, read from the rows when asked for: copying 10 M of them into an
    array costs more than every read the scoring makes (checks of equal keys, ties, errors)."""

    rows: list

    def __len__(self) -> int:
        return len(self.rows)

    def take(self, index: np.ndarray) -> np.ndarray:
        import numpy as np

        picked = map(self.rows.__getitem__, index.tolist())
        return np.fromiter(map(itemgetter(1), picked), dtype=object, count=index.size)

    def array(self) -> np.ndarray:
        import numpy as np

        return np.fromiter(map(itemgetter(1), self.rows), dtype=object, count=len(self.rows))


def take(ids: Any, index: np.ndarray) -> np.ndarray:
    """These rows of doc ids (an object array, an arrow string array, ``RowIds``) as an object array."""
    import numpy as np
    import pyarrow as pa

    if isinstance(ids, np.ndarray):
        return ids[index]
    return ids.take(index) if isinstance(ids, RowIds) else ids.take(pa.array(index)).to_numpy(zero_copy_only=False)


def objects(ids: Any) -> np.ndarray:
    """All the doc ids as an object array."""
    import numpy as np

    if isinstance(ids, np.ndarray):
        return ids
    return ids.array() if isinstance(ids, RowIds) else ids.to_numpy(zero_copy_only=False)


def case_runs(cases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs of equal neighbouring case ids: each run's id and length."""
    import numpy as np

    if not cases.size:
        return cases, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, cases[1:] != cases[:-1]])
    return cases[starts], np.diff(np.r_[starts, cases.size])


def doc_column(batches: Iterable[list[Any]], n: int, hashed: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The ``n`` doc ids (given as lists of a thousand) as an object array, and their keys if
    ``hashed`` (``doc_keys``)."""
    import numpy as np

    if not hashed:
        return np.fromiter(chain.from_iterable(batches), dtype=object, count=n), None
    docs = np.empty(n, dtype=object)
    return docs, doc_keys(batches, n, into=docs)


def doc_keys(batches: Iterable[list[Any]], n: int, into: np.ndarray | None = None) -> np.ndarray | None:
    """The keys of ``n`` doc ids given as lists of a thousand: ``str.__hash__`` masked to
    ``KEY_BITS``; None when an id is not a str (exact interning then decides what equals what).
    ``into``, if given, receives the ids too.

    Hashing ids scattered in memory stalls on one cache miss after another; gathering a batch into
    a list first touches them with misses that overlap, so hashing the batch then hits the cache
    (0.24 s instead of 0.52 s of CPU for the benchmark's 2 M ids: shared objects in random order).
    """
    import numpy as np

    keys: np.ndarray | None = np.empty(n, dtype=np.int64)
    start = 0
    for batch in batches:
        end = start + len(batch)
        if into is not None:
            into[start:end] = batch
        if keys is not None:
            try:
                keys[start:end] = np.fromiter(map(str.__hash__, batch), dtype=np.int64, count=len(batch))
            except TypeError:  # not a str
                keys = None
        start = end
    return None if keys is None else keys & ((1 << KEY_BITS) - 1)


def _batches(ids: Iterable[Any]) -> Iterator[list[Any]]:
    source = iter(ids)
    return iter(lambda: list(islice(source, _BATCH)), [])


def _mapping_side(source: Mapping, what: str, hashed: bool) -> Side:
    """A pytrec_eval-style dict: per case a ``{doc: value}`` mapping or a collection of docs."""
    import numpy as np

    groups = {case: _group(case, docs, what) for case, docs in source.items()}
    valued = [type(docs) is dict or isinstance(docs, Mapping) for docs in groups.values()]
    if what == "ranking" and len(set(valued)) > 1:
        raise UsageError(f"ranking rows must be {_SHAPES['ranking']} tuples")
    lengths = np.fromiter(map(len, groups.values()), dtype=np.int64, count=len(groups))
    n = int(lengths.sum())
    docs, keys = doc_column(_batches(chain.from_iterable(groups.values())), n, hashed)
    values = [group.values() if has else [1] * len(group) for group, has in zip(groups.values(), valued)]
    if what == "qrels":
        numbers: list[Any] = [list(chain.from_iterable(values))]
    else:  # the rank is the position in the dict; a score, if given, decides the order
        numbers = [np.arange(1, n + 1) - np.repeat(np.cumsum(lengths) - lengths, lengths)]
        numbers += [list(chain.from_iterable(values))] if any(valued) else []
    keep = lengths > 0  # a case with no docs has no rows (``cases`` names such cases)
    runs = np.fromiter(groups, dtype=object, count=len(groups))
    return Side(what, runs[keep], lengths[keep], docs, keys, numbers)


def _group(case: Any, docs: Any, what: str) -> Any:
    if type(docs) is dict or type(docs) is list:  # the usual forms, without abstract-class checks
        return docs
    if isinstance(docs, str):
        raise UsageError(f"{what}: case {case!r} needs a collection of docs or {{doc: value}}, not a string")
    return docs if isinstance(docs, Sized) else list(docs)


# ---------------------------------------------------------------- TREC files


def _trec_side(path: Path, what: str, hashed: bool) -> Side:
    import numpy as np

    cases, ids, numbers = trec_columns(path, what)
    if isinstance(ids, np.ndarray):  # read line by line
        docs, keys = doc_column(_batches(ids), ids.size, hashed)
        return Side(what, *case_runs(cases), docs, keys, numbers)
    runs = _arrow_runs(cases)
    if not hashed:
        return Side(what, *runs, ids.to_numpy(zero_copy_only=False), None, numbers)
    return Side(what, *runs, ids, utf8_keys(ids), numbers)


def _arrow_runs(cases: Any) -> tuple[np.ndarray, np.ndarray]:
    """``case_runs`` of an arrow string array: compared there, only the run ids made Python strings."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(cases):
        return np.empty(0, dtype=object), np.zeros(0, dtype=np.int64)
    change = pc.not_equal(cases.slice(1), cases.slice(0, len(cases) - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, change])
    return cases.take(pa.array(starts)).to_numpy(zero_copy_only=False), np.diff(np.r_[starts, len(cases)])


_MIX = (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)  # MurmurHash3's 64-bit finalizer constants


def utf8_keys(ids: Any) -> np.ndarray:
    """Keys of the strings of an arrow string array, from their UTF-8 bytes, without a Python
    object per string: the length, then each 8-byte word of a string (the last one zero-padded),
    combined by multiply-add and mixed at the end (MurmurHash3's finalizer); masked to ``KEY_BITS``.

    A million strings at a time: temporaries of 8 MB are reused by the allocator, where arrays of
    80 MB are mapped afresh each time and cost a page fault per 4 KB (half the time at 10 M)."""
    import numpy as np

    keys = np.empty(len(ids), dtype=np.int64)
    for start in range(0, len(ids), _KEYED):
        keys[start : start + _KEYED] = _utf8_keys(ids.slice(start, _KEYED))
    return keys


def _utf8_keys(ids: Any) -> np.ndarray:
    import numpy as np

    _, offsets, data = ids.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[ids.offset : ids.offset + len(ids) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
    padded = np.concatenate([data[offsets[0] : offsets[-1]], np.zeros(8, dtype=np.uint8)])
    words = np.ndarray(shape=(padded.size - 7,), dtype="<u8", buffer=padded, strides=(1,))  # one at every byte
    masks = np.array([(1 << 8 * n) - 1 for n in range(8)] + [2**64 - 1], dtype=np.uint64)
    start, length = (offsets[:-1] - offsets[0]).astype(np.int64), np.diff(offsets).astype(np.int64)
    keys, shortest = length.astype(np.uint64), int(length.min())
    for at in range(0, int(length.max()), 8):
        live = slice(None) if at < shortest else np.flatnonzero(length > at)
        word = words[start[live] + at]
        if at + 8 > shortest:  # some strings end in this word
            word &= masks[np.minimum(length[live] - at, 8)]
        keys[live] = keys[live] * np.uint64(_MIX[0]) + word
    return (_mixed(keys) & np.uint64((1 << KEY_BITS) - 1)).astype(np.int64)


def _mixed(x: np.ndarray) -> np.ndarray:
    import numpy as np

    x = x ^ (x >> np.uint64(33))
    x *= np.uint64(_MIX[0])
    x ^= x >> np.uint64(33)
    x *= np.uint64(_MIX[1])
    x ^= x >> np.uint64(33)
    return x
