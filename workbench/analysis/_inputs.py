"""What the metric kernel reads: validated, integer-keyed arrays, and how doc keys map back to ids.

A doc key identifies a doc within its case. Frames give exact keys (category codes, ``CodedDocs``);
row tuples, dicts and TREC files give hashed keys (``HashedDocs``, built in ``_columns.py``), where
two different ids could share a key: the kernel then checks the ids of every pair of rows it takes
for one doc, and a ``KeyCollision`` sends the evaluation to exact keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..columns import CASE
from ..errors import UsageError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

DOC, RANK, SCORE, RELEVANCE = "doc", "rank", "score", "relevance"


class KeyCollision(Exception):
    """Two different doc ids of one case share a hashed key (never raised for exact keys)."""


class DocIds(Protocol):
    """Doc ids behind the integer keys: their bound, whether equal keys prove equal ids, the ids."""

    @property
    def bound(self) -> int:
        """Every key is in ``[0, bound)``."""
        ...

    @property
    def exact(self) -> bool:
        """Equal keys are the same doc; if not, the kernel compares the ids of rows with equal keys."""
        ...

    def ranked(self, rows: np.ndarray) -> np.ndarray:
        """The doc ids of these ranking rows."""
        ...

    def judged(self, rows: np.ndarray) -> np.ndarray:
        """The doc ids of these qrels rows."""
        ...

    def tie_order(self, rows: np.ndarray, runs: np.ndarray) -> np.ndarray:
        """The order of these ranking rows by ``runs`` (each a run of tied rows), then by doc id
        as strings, descending (trec_eval's strcmp)."""
        ...


@dataclass
class Inputs:
    """Integer-coded, validated inputs of one evaluation."""

    cases: pd.Index
    docs: DocIds
    r_case: np.ndarray
    r_doc: np.ndarray
    primary: np.ndarray  # ascending = better: rank, or -score
    q_case: np.ndarray  # the relevant qrels (gain > 0) only
    q_doc: np.ndarray
    gain: np.ndarray
    q_rows: np.ndarray  # the row of each in the qrels given (what ``DocIds.judged`` takes)


@dataclass
class CodedDocs:
    """Exact keys: codes into one category index shared by the ranking and the qrels."""

    categories: pd.Index
    r_doc: np.ndarray
    q_doc: np.ndarray
    exact: bool = True
    _ranks: np.ndarray | None = field(default=None, repr=False)

    @property
    def bound(self) -> int:
        return len(self.categories)

    def ranked(self, rows: np.ndarray) -> np.ndarray:
        return self.categories.to_numpy()[self.r_doc[rows]]

    def judged(self, rows: np.ndarray) -> np.ndarray:
        return self.categories.to_numpy()[self.q_doc[rows]]

    def tie_order(self, rows: np.ndarray, runs: np.ndarray) -> np.ndarray:
        import numpy as np
        import pandas as pd

        if self._ranks is None:  # each category's place among them as strings, once
            self._ranks = np.empty(len(self.categories), dtype=np.int64)
            self._ranks[pd.Index(self.categories).astype(str).argsort()] = np.arange(len(self.categories))
        return np.lexsort((-self._ranks[self.r_doc[rows]], runs))


# ---------------------------------------------------------------- frames


def prepare(ranking: pd.DataFrame, qrels: pd.DataFrame, cases: Sequence[str] | None) -> Inputs:
    """Validated inputs from a ranking frame and a qrels frame (see ``metrics``' docstring)."""
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
        no_missing(codes, what, col, frame.index)
    if SCORE in ranking.columns:
        primary = primary_key(None, _float_column(ranking, SCORE, "ranking"), r_case, case_cats)
    else:
        rank = ranking[RANK].to_numpy()
        rank = rank if rank.dtype.kind in "iu" else _float_column(ranking, RANK, "ranking")
        primary = primary_key(rank, None, r_case, case_cats)
    relevance = _float_column(qrels, RELEVANCE, "qrels")
    return inputs(case_cats, CodedDocs(doc_cats, r_doc, q_doc), (r_case, r_doc, primary), (q_case, q_doc, relevance))


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


def _float_column(frame: pd.DataFrame, name: str, what: str) -> np.ndarray:
    import numpy as np

    try:
        return frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise UsageError(f"{what}.{name}: expected numbers, got {frame[name].dtype}") from None


# ---------------------------------------------------------------- checks shared by every input form


def no_missing(codes: np.ndarray, what: str, column: str, index: Any = None) -> None:
    """Reject a code of -1 (no value), naming the row (its frame index label, or its position)."""
    import numpy as np

    bad = np.flatnonzero(codes < 0)
    if bad.size:
        row = int(bad[0]) if index is None else index[bad[0]]
        raise UsageError(f"{what} frame: row {row!r} has no {column}")


def primary_key(rank: np.ndarray | None, score: np.ndarray | None, case: np.ndarray, cases: pd.Index) -> np.ndarray:
    """The sort key, ascending = better: ``-score`` if there is a score (finite), else ``rank``
    (whole, >= 1; int64 or float)."""
    if score is not None:
        return -_finite(score, case, cases, "ranking", SCORE)
    assert rank is not None
    return _ranks(rank, case, cases)


def inputs(
    cases: pd.Index,
    docs: DocIds,
    ranked: tuple[np.ndarray, np.ndarray, np.ndarray],
    judged: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> Inputs:
    """``Inputs`` from coded columns: ranked ``(case, doc, primary_key)``, judged ``(case, doc,
    relevance)`` with relevance as floats (checked finite here; > 0 is relevant)."""
    import numpy as np

    r_case, r_doc, primary = ranked
    q_case, q_doc, relevance = judged
    gain, keep = judged_gain(cases, docs, q_case, q_doc, relevance)
    return Inputs(cases, docs, r_case, r_doc, primary, q_case[keep], q_doc[keep], gain[keep], np.flatnonzero(keep))


def judged_gain(
    cases: pd.Index, docs: DocIds, q_case: np.ndarray, q_doc: np.ndarray, relevance: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The qrels' gains, checked (finite, no doc judged twice for a case), and which are relevant (> 0)."""
    gain = _finite(relevance, q_case, cases, "qrels", RELEVANCE)
    _unique_qrels(q_case, q_doc, cases, docs)
    return gain, gain > 0


def _ranks(rank: Any, case: np.ndarray, cats: pd.Index) -> np.ndarray:
    """Whole ranks >= 1 as int64 (floats are checked to be whole and finite)."""
    import numpy as np

    if rank.dtype.kind not in "iu":
        rank = _finite(rank, case, cats, "ranking", RANK)
    bad = np.flatnonzero((rank < 1) | (rank != np.floor(rank))) if rank.dtype.kind == "f" else np.flatnonzero(rank < 1)
    if bad.size:
        raise UsageError(f"ranking: case {cats[case[bad[0]]]!r}: rank must be an integer >= 1, got {rank[bad[0]]:g}")
    return rank.astype(np.int64, copy=False)


def _finite(values: np.ndarray, case: np.ndarray, cats: pd.Index, what: str, name: str) -> np.ndarray:
    import numpy as np

    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise UsageError(f"{what}: case {cats[case[bad[0]]]!r}: {name} must be a finite number, got {values[bad[0]]:g}")
    return values


def _unique_qrels(case: np.ndarray, doc: np.ndarray, cases: pd.Index, docs: DocIds) -> None:
    """Reject a doc judged twice for one case (hashed keys: a shared key of two ids is a collision)."""
    import numpy as np

    order = np.lexsort((doc, case))
    case, doc = case[order], doc[order]
    same = np.flatnonzero((case[1:] == case[:-1]) & (doc[1:] == doc[:-1]))
    if not same.size:
        return
    first, second = docs.judged(order[same]), docs.judged(order[same + 1])
    if not docs.exact and not np.all(first == second):
        raise KeyCollision
    raise UsageError(f"qrels: case {cases[case[same[0]]]!r}: doc {first[0]!r} is judged twice")
