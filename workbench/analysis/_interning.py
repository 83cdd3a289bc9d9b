"""From columns (``_columns.Side``) to what the kernel reads: hashed doc keys or exact categories.

Cases are always interned exactly, one ``pd.factorize`` over the run ids (cases come grouped, so a
few per thousand rows). Docs need no global interning to be scored: a doc only ever meets the
docs of its own case, so ``evaluate`` keys each by its string hash (``HashedDocs``; the kernel
checks the ids of rows it takes for one doc) and never builds a category index of all docs.
``intern_frames`` does build one (``exact_frames``): its frames are for people to read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..columns import CASE
from ..errors import UsageError
from ._columns import KEY_BITS, Side, objects, take
from ._inputs import DOC, RANK, RELEVANCE, SCORE, Inputs, inputs, no_missing, primary_key

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


@dataclass
class HashedDocs:
    """Hashed keys (``_columns.doc_column``) with the ids behind them, per ranking and qrels row."""

    r_ids: Any  # an object array, an arrow string array or ``RowIds`` (see ``_columns.take``)
    q_ids: Any
    bound: int = 1 << KEY_BITS
    exact: bool = False

    def ranked(self, rows: np.ndarray) -> np.ndarray:
        return take(self.r_ids, rows)

    def judged(self, rows: np.ndarray) -> np.ndarray:
        return take(self.q_ids, rows)

    def tie_order(self, rows: np.ndarray, runs: np.ndarray) -> np.ndarray:
        """Sorted by pyarrow, which compares two ids only within a run (the ids are all str)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        ids = self.r_ids.take(pa.array(rows)) if isinstance(self.r_ids, pa.Array) else take(self.r_ids, rows)
        tied = pa.table({"run": runs, "id": pa.array(ids, type=pa.string())})
        return pc.sort_indices(tied, sort_keys=[("run", "ascending"), ("id", "descending")]).to_numpy()


def hashed_inputs(ranking: Side, qrels: Side, cases: Sequence[Any] | None) -> Inputs | None:
    """Kernel inputs keyed by doc hashes; None when a doc id is not a str (use ``exact_frames``)."""
    if ranking.keys is None or qrels.keys is None:
        return None
    numbers = _numbers(ranking, qrels)
    categories, (r_case, q_case) = case_codes(cases, [ranking.runs, qrels.runs])
    no_missing(r_case, "ranking", CASE)
    no_missing(q_case, "qrels", CASE)
    rank, score, relevance = numbers
    primary = primary_key(rank, score, r_case, categories.categories)
    return inputs(
        categories.categories,
        HashedDocs(ranking.docs, qrels.docs),
        (r_case, ranking.keys, primary),
        (q_case, qrels.keys, relevance),
    )


def exact_frames(ranking: Side, qrels: Side, cases: Sequence[Any] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ranking and qrels frames, sharing case and doc categories (``intern_frames``)."""
    import numpy as np
    import pandas as pd

    rank, score, relevance = _numbers(ranking, qrels)
    case_dtype, (r_case, q_case) = case_codes(cases, [ranking.runs, qrels.runs])
    codes, uniques = pd.factorize(np.concatenate([objects(ranking.docs), objects(qrels.docs)]))
    doc_dtype = pd.CategoricalDtype(uniques)
    r_doc, q_doc = codes[: len(ranking.docs)], codes[len(ranking.docs) :]
    ranked = {CASE: _categorical(r_case, case_dtype), DOC: _categorical(r_doc, doc_dtype), RANK: rank}
    if score is not None:
        ranked[SCORE] = score
    judged = {CASE: _categorical(q_case, case_dtype), DOC: _categorical(q_doc, doc_dtype), RELEVANCE: relevance}
    return pd.DataFrame(ranked), pd.DataFrame(judged)


def _categorical(codes: np.ndarray, dtype: pd.CategoricalDtype) -> pd.Categorical:
    import pandas as pd

    return pd.Categorical.from_codes(codes, dtype=dtype)


def case_codes(
    first: Sequence[Any] | None, runs: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[pd.CategoricalDtype, list[np.ndarray]]:
    """One category per case id (``first`` first, then in order of appearance) and per-row codes
    (-1: no case) for each ``(run ids, run lengths)``."""
    import numpy as np

    dtype, codes = run_codes(first, [ids for ids, _ in runs])
    return dtype, [np.repeat(code, lengths) for code, (_, lengths) in zip(codes, runs)]


def run_codes(first: Sequence[Any] | None, runs: list[np.ndarray]) -> tuple[pd.CategoricalDtype, list[np.ndarray]]:
    """``case_codes`` per run rather than per row: one factorize of the run ids."""
    import numpy as np
    import pandas as pd

    head = np.fromiter(first or (), dtype=object)
    codes, uniques = pd.factorize(np.concatenate([head, *runs]))
    bounds = np.cumsum([head.size, *(ids.size for ids in runs)])
    return pd.CategoricalDtype(uniques), [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def floats(values: Any, what: str, column: str) -> np.ndarray:
    """``values`` as float64; a UsageError names the column when they are not numbers."""
    import numpy as np

    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise UsageError(f"{what}.{column}: expected numbers ({exc})") from None


def _numbers(ranking: Side, qrels: Side) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray]:
    """Rank (int64 when whole), score (or None) and relevance as arrays; a UsageError names a
    column that is not numbers."""
    rank = _ranks(floats(ranking.numbers[0], "ranking", RANK))
    score = floats(ranking.numbers[1], "ranking", SCORE) if len(ranking.numbers) > 1 else None
    return rank, score, floats(qrels.numbers[0], "qrels", RELEVANCE)


def _ranks(values: np.ndarray) -> np.ndarray:
    """Whole-number ranks as int64; anything else stays float for the kernel to reject by case."""
    import numpy as np

    if not np.isfinite(values).all():
        return values
    whole = values.astype(np.int64)
    return whole if np.array_equal(whole, values) else values
