"""A pytrec_eval-style scored run (``{case: {doc: score}}``) scored without reading its doc ids.

A run dict holds each doc of a case once and its scores fix the order, so a judged doc's position
is the number of docs of its case with a higher score. Its score is one ``dict.get`` per qrel (in
C, through ``map``), the scores of every case are sorted once, and the positions are binary searches
in them; the run's doc ids, millions of strings scattered in memory, are never touched. Ties are
the one thing scores cannot settle (trec_eval breaks them by doc id): when a judged doc shares its
score with another doc of its case, ``scored_run_hits`` declines and the ids are read after all.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

from ..columns import CASE
from ._columns import Side, take
from ._inputs import RELEVANCE, judged_gain, no_missing, primary_key
from ._interning import HashedDocs, floats, run_codes
from ._kernel import Hits, grid_width, hits, lower_bound, padded

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

_EMPTY: dict[Any, float] = {}


def is_scored_run(run: Any) -> bool:
    """A mapping whose every value is a ``{doc: score}`` dict."""
    return isinstance(run, Mapping) and all(isinstance(docs, dict) for docs in run.values())


def scored_run_hits(run: Mapping[Any, dict], qrels: Side, cases: Sequence[Any] | None) -> tuple[pd.Index, Hits] | None:
    """The case index and hit table of a scored run against the qrels; None when only the ids can
    settle it (a judged doc tied with another, a doc id the exact path would take for missing, a
    score or judged id of another type), so that ``evaluate`` reads them."""
    import numpy as np

    groups = list(run.values())
    if qrels.keys is None or any(map(operator.and_, map(dict.keys, groups), repeat(_missing_ids()))):
        return None
    lengths = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    try:
        scores = np.fromiter(chain.from_iterable(map(dict.values, groups)), np.float64, int(lengths.sum()))
    except (TypeError, ValueError, OverflowError):
        return None
    kept = lengths > 0  # a case with no docs has no rows (``cases`` names such cases)
    ids, lengths = np.fromiter(run, dtype=object, count=len(groups))[kept], lengths[kept]
    categories, run_case, q_case, gain = _checked(scores, (ids, lengths), qrels, cases)
    judged = np.flatnonzero(gain > 0)
    in_run = np.repeat(np.fromiter(map(run.get, qrels.case_runs, repeat(_EMPTY)), object), qrels.run_lengths)
    score = np.fromiter(  # each judged doc's score in the run, NaN where the run lacks it
        map(dict.get, in_run[judged], take(qrels.docs, judged), repeat(math.nan)),
        dtype=np.float64,
        count=judged.size,
    )
    found = ~np.isnan(score)
    run_of = np.full(len(categories), -1, dtype=np.int64)
    run_of[run_case] = np.arange(run_case.size)
    above = _higher_scores(scores, lengths, run_of[q_case[judged][found]], score[found])
    if above is None:
        return None
    returned = np.zeros(len(categories), dtype=np.int64)
    returned[run_case] = lengths
    return categories, hits(q_case[judged], gain[judged], found, above, returned)


def _checked(
    scores: np.ndarray, runs: tuple[np.ndarray, np.ndarray], qrels: Side, cases: Sequence[Any] | None
) -> tuple[pd.Index, np.ndarray, np.ndarray, np.ndarray]:
    """Case categories, the case code of each run and of each qrel, and the gains, after the checks
    (and with the errors) of every other input form; the run's rows get codes only for an error."""
    import numpy as np

    dtype, (run_case, q_runs) = run_codes(cases, [runs[0], qrels.case_runs])
    categories, q_case = dtype.categories, np.repeat(q_runs, qrels.run_lengths)
    relevance = floats(qrels.numbers[0], "qrels", RELEVANCE)
    if run_case.min(initial=0) < 0 or not np.isfinite(scores).all():
        r_case = np.repeat(run_case, runs[1])
        no_missing(r_case, "ranking", CASE)
        primary_key(None, scores, r_case, categories)  # raises: a score is not finite
    no_missing(q_case, "qrels", CASE)
    assert qrels.keys is not None  # hashed: every judged id is a str
    gain, _ = judged_gain(categories, HashedDocs(runs[0][:0], qrels.docs), q_case, qrels.keys, relevance)
    return categories, run_case, q_case, gain


def _higher_scores(scores: np.ndarray, lengths: np.ndarray, run: np.ndarray, score: np.ndarray) -> np.ndarray | None:
    """For each judged doc (its run and score), how many docs of that run score higher: each
    run's scores sorted (one row of a padded matrix each, or one flat sort when lengths vary
    widely; ``scores`` may be sorted in place), then two binary searches per judged doc. None if
    a judged doc's score is tied."""
    import numpy as np

    starts = np.cumsum(lengths) - lengths
    width = grid_width(lengths)
    if width is not None:  # padding sorts first and is never higher
        grid = padded(scores, lengths, width, -np.inf)
        grid.sort(axis=1)
        keys, lo = grid.ravel(), run * width
        hi = lo + width
    else:
        keys = scores[np.lexsort((scores, np.repeat(np.arange(lengths.size), lengths)))]
        lo, hi = starts[run], starts[run] + lengths[run]
    first = lower_bound(keys, lo, hi, score)
    after = lower_bound(keys, first, hi, np.nextafter(score, np.inf))
    return None if np.any(after - first > 1) else hi - after


def _missing_ids() -> frozenset[Any]:
    """Ids ``pd.factorize`` takes for no value, so that exact interning rejects them as a missing
    doc (a NaN that is none of these objects cannot be looked up, and is scored as an id)."""
    import numpy as np
    import pandas as pd

    return frozenset([None, math.nan, np.nan, pd.NA, pd.NaT])
