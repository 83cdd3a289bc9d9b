"""The vectorized kernel behind ``workbench.analysis.metrics``: validate integer-coded inputs, order
each case's ranking (trec_eval tie-breaking), drop duplicates, and reduce hits to per-case values.

Everything here works on numpy arrays of category codes; nothing hashes a string except the
tie-break on doc ids, which sorts the doc categories once per call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..columns import CASE
from ..errors import UsageError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

DOC, RANK, SCORE, RELEVANCE = "doc", "rank", "score", "relevance"


# ---------------------------------------------------------------- validation


@dataclass
class _Inputs:
    """Integer-coded, validated inputs of one evaluation."""

    cases: pd.Index
    docs: pd.Index
    r_case: np.ndarray
    r_doc: np.ndarray
    primary: np.ndarray  # ascending = better: rank, or -score
    q_case: np.ndarray
    q_doc: np.ndarray
    gain: np.ndarray


def prepare(ranking: pd.DataFrame, qrels: pd.DataFrame, cases: Sequence[str] | None) -> _Inputs:
    require_columns(ranking, "ranking", [CASE, DOC], any_of=[RANK, SCORE])
    require_columns(qrels, "qrels", [CASE, DOC, RELEVANCE])
    case_cats, (r_case, q_case) = _align([ranking[CASE], qrels[CASE]], first=cases or ())
    doc_cats, (r_doc, q_doc) = _align([ranking[DOC], qrels[DOC]])
    for codes, frame, what, col in (
        (r_case, ranking, "ranking", CASE),
        (r_doc, ranking, "ranking", DOC),
        (q_case, qrels, "qrels", CASE),
        (q_doc, qrels, "qrels", DOC),
    ):
        _no_missing(codes, frame, what, col)
    primary = _primary(ranking, r_case, case_cats)
    gain = _finite(qrels[RELEVANCE], q_case, case_cats, "qrels", RELEVANCE)
    _unique_qrels(q_case, q_doc, len(doc_cats), case_cats, doc_cats)
    keep = gain > 0
    q_case, q_doc, gain = q_case[keep], q_doc[keep], gain[keep]
    return _Inputs(case_cats, doc_cats, r_case, r_doc, primary, q_case, q_doc, gain)


def require_columns(frame: pd.DataFrame, what: str, columns: list[str], any_of: Sequence[str] = ()) -> None:
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise UsageError(f"{what}: expected a DataFrame or row tuples, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if any_of and not any(c in frame.columns for c in any_of):
        missing.append(" or ".join(any_of))
    if missing:
        raise UsageError(f"{what} frame: missing column {', '.join(map(repr, missing))}")


def _align(columns: list[pd.Series], first: Sequence[Any] = ()) -> tuple[pd.Index, list[np.ndarray]]:
    """Codes of several columns against one category index (fast when they already share it)."""
    import numpy as np
    import pandas as pd

    cats = [c.array if isinstance(c.dtype, pd.CategoricalDtype) else pd.Categorical(c) for c in columns]
    head = cats[0].categories
    if not len(first) and all(c.categories is head or c.categories.equals(head) for c in cats[1:]):
        return head, [np.asarray(c.codes, dtype=np.int64) for c in cats]
    union = pd.Index(list(dict.fromkeys(first)))
    for c in cats:
        union = union.append(c.categories[~c.categories.isin(union)])
    return union, [np.asarray(c.set_categories(union).codes, dtype=np.int64) for c in cats]


def _no_missing(codes: np.ndarray, frame: pd.DataFrame, what: str, column: str) -> None:
    import numpy as np

    bad = np.flatnonzero(codes < 0)
    if bad.size:
        raise UsageError(f"{what} frame: row {frame.index[bad[0]]!r} has no {column}")


def _primary(ranking: pd.DataFrame, case: np.ndarray, cats: pd.Index) -> np.ndarray:
    """The sort key, ascending = better: ``-score`` if there is a score, else ``rank``."""
    import numpy as np

    if SCORE in ranking.columns:
        return -_finite(ranking[SCORE], case, cats, "ranking", SCORE)
    rank = ranking[RANK].to_numpy()
    if rank.dtype.kind not in "iu":
        rank = _finite(ranking[RANK], case, cats, "ranking", RANK)
    bad = np.flatnonzero((rank < 1) | (rank != np.floor(rank))) if rank.dtype.kind == "f" else np.flatnonzero(rank < 1)
    if bad.size:
        raise UsageError(f"ranking: case {cats[case[bad[0]]]!r}: rank must be an integer >= 1, got {rank[bad[0]]:g}")
    return rank.astype(np.int64, copy=False)


def _finite(column: pd.Series, case: np.ndarray, cats: pd.Index, what: str, name: str) -> np.ndarray:
    import numpy as np

    try:
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise UsageError(f"{what}.{name}: expected numbers, got {column.dtype}") from None
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise UsageError(f"{what}: case {cats[case[bad[0]]]!r}: {name} must be a finite number, got {values[bad[0]]:g}")
    return values


def _unique_qrels(case: np.ndarray, doc: np.ndarray, n_docs: int, cases: pd.Index, docs: pd.Index) -> None:
    import numpy as np

    keys = np.sort(case * max(n_docs, 1) + doc)
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if dup.size:
        c, d = divmod(int(keys[dup[0]]), max(n_docs, 1))
        raise UsageError(f"qrels: case {cases[c]!r}: doc {docs[d]!r} is judged twice")


# ---------------------------------------------------------------- kernel


def _order(case: np.ndarray, primary: np.ndarray, doc: np.ndarray, docs: pd.Index) -> np.ndarray | None:
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
    return _break_ties(order, tie, doc, docs) if tie.any() else order


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


def _break_ties(order: np.ndarray, tie: np.ndarray, doc: np.ndarray, docs: pd.Index) -> np.ndarray:
    """Reorder each run of tied rows by doc id, descending (trec_eval's strcmp)."""
    import numpy as np

    in_run = np.zeros(order.size, dtype=bool)
    in_run[1:] |= tie
    in_run[:-1] |= tie
    slots = np.flatnonzero(in_run)
    run_id = np.cumsum(np.r_[True, ~tie[slots[1:] - 1]])
    rows = order[slots]
    text_rank = np.empty(len(docs), dtype=np.int64)
    text_rank[docs.astype(str).argsort()] = np.arange(len(docs))
    order = order.copy()
    order[slots] = rows[np.argsort(run_id * len(docs) + (len(docs) - 1 - text_rank[doc[rows]]))]
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


def find_hits(x: _Inputs) -> _Hits:
    """Match qrels against the rankings: binary search of qrel keys in sorted (case, doc) keys."""
    import numpy as np

    n_cases, n_docs = len(x.cases), max(len(x.docs), 1)
    order = _order(x.r_case, x.primary, x.r_doc, x.docs)
    case = x.r_case if order is None else x.r_case[order]
    doc = x.r_doc if order is None else x.r_doc[order]
    counts = np.bincount(case, minlength=n_cases)
    starts = np.cumsum(counts) - counts
    pairs = _pairs(case, doc, counts, starts, n_docs)
    position, returned = _positions(case, pairs.dropped, counts, starts)
    q_keys = x.q_case * pairs.base + x.q_doc
    at = np.minimum(np.searchsorted(pairs.keys, q_keys), max(pairs.keys.size - 1, 0))
    found = (pairs.keys[at] == q_keys) if pairs.keys.size else np.zeros(q_keys.size, dtype=bool)
    ideal = np.lexsort((-x.gain, x.q_case))
    return _Hits(
        x.q_case[found],
        position(pairs.rows(at[found])),
        x.gain[found],
        returned,
        np.bincount(x.q_case, minlength=n_cases),
        x.q_case[ideal],
        _within_case(x.q_case[ideal], n_cases),
        x.gain[ideal],
    )


@dataclass
class _Pairs:
    """Sorted ``case * base + doc`` keys of the ranked rows; equal keys stay in ranking order."""

    keys: np.ndarray
    base: int
    dropped: np.ndarray  # rows repeating an earlier (case, doc)
    rows: Callable[[np.ndarray], np.ndarray]  # index into keys -> row


_PAD_LIMIT = 2.0  # padded cells per ranked row the per-case sort may cost before the flat sort is used


def _pairs(case: np.ndarray, doc: np.ndarray, counts: np.ndarray, starts: np.ndarray, n_docs: int) -> _Pairs:
    """Sort the (case, doc) keys: per case in a padded matrix when rankings are of similar length."""
    import numpy as np

    width = int(counts.max()) if case.size else 0
    cells = np.count_nonzero(counts) * width
    shift = max(width - 1, 0).bit_length()
    if not case.size or cells > _PAD_LIMIT * case.size or (n_docs + 1) << shift >= 2**62:
        return _flat_pairs(case, doc, n_docs)
    return _dense_pairs(case, doc, counts, starts, n_docs, width, shift)


def _flat_pairs(case: np.ndarray, doc: np.ndarray, n_docs: int) -> _Pairs:
    import numpy as np

    keys = case * n_docs + doc
    perm = np.argsort(keys, kind="stable")
    keys = keys[perm]
    return _Pairs(keys, n_docs, perm[1:][keys[1:] == keys[:-1]], perm.__getitem__)


def _dense_pairs(
    case: np.ndarray, doc: np.ndarray, counts: np.ndarray, starts: np.ndarray, n_docs: int, width: int, shift: int
) -> _Pairs:
    """One row per answered case holding ``doc << shift | position``, sorted row-wise."""
    import numpy as np

    present = np.flatnonzero(counts)
    cell = np.arange(case.size)
    cell -= starts[case]  # position within the case
    if present.size * width == case.size:  # every ranking has the same length: no padding
        grid = (cell | (doc << shift)).reshape(present.size, width)
    else:
        grid = np.full((present.size, width), n_docs << shift, dtype=np.int64)
        grid[(np.cumsum(counts > 0) - 1)[case], cell] = cell | (doc << shift)
    grid.sort(axis=1)
    keys = grid >> shift
    r, c = np.nonzero((keys[:, 1:] == keys[:, :-1]) & (keys[:, 1:] < n_docs))
    keys += (present * (n_docs + 1))[:, None]
    mask = (1 << shift) - 1
    first = starts[present]
    flat = grid.ravel()

    def rows(index: np.ndarray) -> np.ndarray:
        return first[index // width] + (flat[index] & mask)

    return _Pairs(keys.ravel(), n_docs + 1, first[r] + (grid[r, c + 1] & mask), rows)


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


def _within_case(case: np.ndarray, n_cases: int) -> np.ndarray:
    """0-based index of each row within its case, for rows grouped by case."""
    import numpy as np

    counts = np.bincount(case, minlength=n_cases)
    return np.arange(case.size) - np.repeat(np.cumsum(counts) - counts, counts)


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
