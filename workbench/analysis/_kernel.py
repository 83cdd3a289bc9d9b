"""The vectorized kernel behind ``workbench.analysis.metrics``: order each case's ranking (trec_eval
tie-breaking), drop duplicates, find the judged docs, and reduce hits to per-case values.

Everything here works on numpy arrays of integer keys (``_inputs.Inputs``); doc ids are read only to
break ties and, when keys are hashes, to check that rows taken for one doc hold one id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._inputs import DOC, RANK, RELEVANCE, SCORE, DocIds, Inputs, KeyCollision, prepare, require_columns

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DOC",
    "RANK",
    "RELEVANCE",
    "SCORE",
    "Hits",
    "find_hits",
    "grid_width",
    "hits",
    "padded",
    "lower_bound",
    "prepare",
    "require_columns",
]


# ---------------------------------------------------------------- kernel


def _order(case: np.ndarray, primary: np.ndarray, docs: DocIds) -> np.ndarray | None:
    """Row order by (case, primary, doc id descending); None when the rows already are in it."""
    import numpy as np

    if case.size < 2:
        return None
    same = case[1:] == case[:-1]
    if np.all((case[1:] > case[:-1]) | (same & (primary[1:] > primary[:-1]))):
        return None
    order = _sort_by_case_then(case, primary)
    case_o, prim_o = case[order], primary[order]
    tie = (case_o[1:] == case_o[:-1]) & (prim_o[1:] == prim_o[:-1])
    return _break_ties(order, tie, docs) if tie.any() else order


def _sort_by_case_then(case: np.ndarray, primary: np.ndarray) -> np.ndarray:
    """Argsort by (case, primary), one int key when it fits; tied rows are reordered after.

    Stable (timsort) because it is fastest on the usual nearly-sorted input.
    """
    import numpy as np

    if primary.dtype.kind == "i":
        low, span = primary.min(), int(primary.max() - primary.min()) + 1
        if (int(case.max()) + 1) * span < 2**62:
            return np.argsort(case * span + (primary - low), kind="stable")
    return np.lexsort((primary, case))


def _break_ties(order: np.ndarray, tie: np.ndarray, docs: DocIds) -> np.ndarray:
    """Reorder each run of tied rows by doc id, descending (trec_eval's strcmp)."""
    import numpy as np

    in_run = np.zeros(order.size, dtype=bool)
    in_run[1:] |= tie
    in_run[:-1] |= tie
    slots = np.flatnonzero(in_run)
    run_id = np.cumsum(np.r_[True, ~tie[slots[1:] - 1]])
    rows = order[slots]
    order = order.copy()
    order[slots] = rows[docs.tie_order(rows, run_id)]
    return order


@dataclass
class _Hits:
    """Relevant docs found in the rankings (first occurrences) and per-case counts."""

    case: np.ndarray  # case code of each hit
    pos: np.ndarray  # 0-based position after duplicates are dropped
    gain: np.ndarray
    returned: np.ndarray  # per case: distinct docs returned
    relevant: np.ndarray  # per case: relevant docs in the qrels
    ideal_case: np.ndarray  # qrels sorted by (case, gain desc), for the ideal DCG
    ideal_pos: np.ndarray
    ideal_gain: np.ndarray


def find_hits(x: Inputs) -> _Hits:
    """Match qrels against the rankings: binary search of each qrel's doc key in its case's sorted keys."""
    import numpy as np

    n_cases = len(x.cases)
    order = _order(x.r_case, x.primary, x.docs)
    case = x.r_case if order is None else x.r_case[order]
    doc = x.r_doc if order is None else x.r_doc[order]
    counts = np.bincount(case, minlength=n_cases)
    starts = np.cumsum(counts) - counts
    pairs = _pairs(case, doc, counts, starts, x.docs.bound)
    lo, hi = pairs.segments(x.q_case)
    at = lower_bound(pairs.keys, lo, hi, x.q_doc)
    found = at < hi
    found[found] = pairs.keys[at[found]] == x.q_doc[found]
    rows = pairs.rows(at[found])
    if not x.docs.exact:  # hashed keys: every pair of rows taken for one doc must hold one id
        original = (lambda r: r) if order is None else order.__getitem__
        _same_ids(x.docs.judged(x.q_rows[found]), x.docs.ranked(original(rows)))
        _same_ids(x.docs.ranked(original(pairs.kept)), x.docs.ranked(original(pairs.dropped)))
    position, returned = _positions(case, pairs.dropped, counts, starts)
    return hits(x.q_case, x.gain, found, position(rows), returned)


def hits(q_case: np.ndarray, gain: np.ndarray, found: np.ndarray, pos: np.ndarray, returned: np.ndarray) -> _Hits:
    """The hit table from the relevant qrels (case, gain), which of them were found in the
    rankings and at what 0-based position, and how many distinct docs each case returned."""
    import numpy as np

    ideal = np.lexsort((-gain, q_case))
    n_cases = returned.size
    return _Hits(
        q_case[found],
        pos,
        gain[found],
        returned,
        np.bincount(q_case, minlength=n_cases),
        q_case[ideal],
        within_runs(np.bincount(q_case, minlength=n_cases)),
        gain[ideal],
    )


def _same_ids(a: np.ndarray, b: np.ndarray) -> None:
    import numpy as np

    if not np.all(a == b):
        raise KeyCollision


def lower_bound(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per target, the first index in its segment ``[lo, hi)`` of ``keys`` (sorted within each
    segment) holding a key >= the target, or ``hi``: a binary search of every segment at once."""
    import numpy as np

    lo, hi = lo.copy(), hi.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) >> 1
        below = open_ & (keys[np.where(open_, mid, 0)] < target)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


@dataclass
class _Pairs:
    """Each case's doc keys of the ranked rows, sorted within the case; equal keys stay in ranking order."""

    keys: np.ndarray
    segments: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # case codes -> [lo, hi) in keys
    rows: Callable[[np.ndarray], np.ndarray]  # index into keys -> row
    dropped: np.ndarray  # rows repeating an earlier (case, doc)
    kept: np.ndarray  # for each dropped row, the row before it with the same key


_PAD_LIMIT = 2.0  # padded cells per ranked row the per-case sort may cost before the flat sort is used


def grid_width(counts: np.ndarray) -> int | None:
    """The width of a matrix with one row per non-empty case (padded to the longest), or None
    when padding would cost more than ``_PAD_LIMIT`` cells per row (sort flat instead)."""
    import numpy as np

    rows = int(counts.sum())
    width = int(counts.max()) if rows else 0
    return width if rows and np.count_nonzero(counts) * width <= _PAD_LIMIT * rows else None


def _pairs(case: np.ndarray, doc: np.ndarray, counts: np.ndarray, starts: np.ndarray, bound: int) -> _Pairs:
    """Sort the doc keys of each case: in a padded matrix when rankings are of similar length."""
    width = grid_width(counts)
    shift = max((width or 0) - 1, 0).bit_length()
    if width is None or (bound + 1) << shift >= 2**62:
        return _flat_pairs(case, doc, counts, starts, bound)
    return _dense_pairs(case, doc, counts, starts, bound, width, shift)


def _flat_pairs(case: np.ndarray, doc: np.ndarray, counts: np.ndarray, starts: np.ndarray, bound: int) -> _Pairs:
    """One stable sort of all rows by (case, doc); the rows are grouped by case already."""
    import numpy as np

    if not case.size or (int(case[-1]) + 1) * bound < 2**62:
        perm = np.argsort(case * bound + doc, kind="stable")
    else:
        perm = np.lexsort((doc, case))
    keys = doc[perm]
    same = (keys[1:] == keys[:-1]) & (case[1:] == case[:-1])

    def segments(q_case: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return starts[q_case], starts[q_case] + counts[q_case]

    return _Pairs(keys, segments, perm.__getitem__, perm[1:][same], perm[:-1][same])


def _dense_pairs(
    case: np.ndarray, doc: np.ndarray, counts: np.ndarray, starts: np.ndarray, bound: int, width: int, shift: int
) -> _Pairs:
    """One row per answered case holding ``doc << shift | position``, sorted row-wise."""
    import numpy as np

    present = np.flatnonzero(counts)
    grid = padded(doc << shift, counts[present], width, bound << shift)
    grid |= np.arange(width)  # the position within the case (padding stays above every doc)
    grid.sort(axis=1)
    keys = grid >> shift
    r, c = np.nonzero((keys[:, 1:] == keys[:, :-1]) & (keys[:, 1:] < bound))
    mask = (1 << shift) - 1
    first = starts[present]
    flat = grid.ravel()
    grid_row = np.full(counts.size, -1, dtype=np.int64)
    grid_row[present] = np.arange(present.size)

    def rows(index: np.ndarray) -> np.ndarray:
        return first[index // width] + (flat[index] & mask)

    def segments(q_case: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = grid_row[q_case]
        lo = np.where(at >= 0, at * width, 0)
        return lo, np.where(at >= 0, lo + width, 0)

    kept, dropped = first[r] + (grid[r, c] & mask), first[r] + (grid[r, c + 1] & mask)
    return _Pairs(keys.ravel(), segments, rows, dropped, kept)


def within_runs(lengths: np.ndarray) -> np.ndarray:
    """0-based index of each row within its run, for runs of consecutive rows ``lengths`` long."""
    import numpy as np

    index = np.arange(int(lengths.sum()))
    index -= np.repeat(np.cumsum(lengths) - lengths, lengths)
    return index


def padded(values: np.ndarray, lengths: np.ndarray, width: int, fill: float) -> np.ndarray:
    """Each run of ``values`` (consecutive runs ``lengths`` long, none empty) as a row of a matrix
    ``width`` wide, ``fill`` after it; a view of ``values`` when every run is ``width`` long.

    Written with as few full-size temporaries as possible: at 10 M rows each is 80 MB, mapped
    afresh and paid for in page faults (0.08 s apiece here)."""
    import numpy as np

    if values.size == lengths.size * width:
        return values.reshape(lengths.size, width)
    grid = np.full((lengths.size, width), fill, dtype=values.dtype)
    cell = np.arange(values.size)
    cell += np.repeat(np.arange(lengths.size) * width - (np.cumsum(lengths) - lengths), lengths)
    grid.ravel()[cell] = values
    return grid


def _positions(case: np.ndarray, dropped: np.ndarray, counts: np.ndarray, starts: np.ndarray):
    """A row -> position function over rows grouped by case, and distinct docs per case.

    A row's position is its index within its case minus the dropped duplicates
    before it (few: counted by binary search, not a pass over every row).
    """
    import numpy as np

    dropped = np.sort(dropped)
    returned = counts - np.bincount(case[dropped], minlength=counts.size)

    def position(rows: np.ndarray) -> np.ndarray:
        first = starts[case[rows]]
        return rows - first - (np.searchsorted(dropped, rows) - np.searchsorted(dropped, first))

    return position, returned


# ---------------------------------------------------------------- per-case measures
# Each takes the hit table and the cut-off (inf: the whole ranking) and returns one value per case;
# ``registry.py`` names them. Cases without a relevant doc are handled there.

Hits = _Hits


def _found(h: _Hits, k: float) -> np.ndarray:
    import numpy as np

    top = h.pos < k
    return np.bincount(h.case[top], minlength=h.relevant.size).astype(np.float64)


def precision(h: _Hits, k: float) -> np.ndarray:
    """Relevant in the top k / k (trec_eval P)."""
    return _found(h, k) / k


def precision_returned(h: _Hits, k: float) -> np.ndarray:
    """Relevant in the top k / docs returned in the top k; 0 when nothing was returned."""
    import numpy as np

    shown = np.minimum(h.returned, k)
    return np.where(shown > 0, _found(h, k) / np.maximum(shown, 1), 0.0)


def success(h: _Hits, k: float) -> np.ndarray:
    """1 when any relevant doc is in the top k."""
    import numpy as np

    return (_found(h, k) > 0).astype(np.float64)


def recall(h: _Hits, k: float) -> np.ndarray:
    """Relevant in the top k / relevant."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return _found(h, k) / h.relevant


def reciprocal_rank(h: _Hits, k: float) -> np.ndarray:
    """1 / rank of the first relevant doc within k, else 0."""
    import numpy as np

    top = h.pos < k
    first = np.full(h.relevant.size, np.inf)
    np.minimum.at(first, h.case[top], h.pos[top])
    return 1.0 / (first + 1.0)


def ndcg(h: _Hits, k: float) -> np.ndarray:
    """DCG@k / ideal DCG@k, gain = relevance, log2(rank + 1) discount (trec_eval ndcg_cut)."""
    import numpy as np

    top, n = h.pos < k, h.relevant.size
    with np.errstate(divide="ignore", invalid="ignore"):
        return _dcg(h.case[top], h.pos[top], h.gain[top], n) / _ideal(h, k, n)


def _dcg(case: np.ndarray, pos: np.ndarray, gain: np.ndarray, n: int) -> np.ndarray:
    import numpy as np

    return np.bincount(case, weights=gain / np.log2(pos + 2.0), minlength=n)


def _ideal(h: _Hits, k: float, n: int) -> np.ndarray:
    top = h.ideal_pos < k
    return _dcg(h.ideal_case[top], h.ideal_pos[top], h.ideal_gain[top], n)
