"""Per-case ranking metrics, vectorized over every case of a run at once.

ir_measures style: a metric is a small frozen value (``Metric``) with a
canonical name; values are computed per case first (``evaluate``), means second
(``aggregate``).

Input frames (what the runner produces; ``intern_frames`` builds them):

- ranking: ``case`` and ``doc`` (pandas Categoricals), ``rank`` (int >= 1, the
  engine's order) and/or ``score`` (float). Ids are interned once as category
  codes, so scoring never hashes a string.
- qrels: ``case``, ``doc`` (the same categories), ``relevance`` (number; > 0 is
  relevant and is the nDCG gain, so graded and binary judgements both work).

Frames whose categories differ, or plain string columns, are accepted and recoded.
``evaluate`` also takes row tuples, pytrec_eval-style dicts (``{case: {doc: score}}``,
``{case: [docs]}``; qrels ``{case: {doc: relevance}}``) and TREC run/qrels file paths;
every form gives the same scores. None of them runs bytecode per row (``_columns``,
``_trec``), and none interns doc ids into categories: a doc only meets the docs of its
own case, so each is keyed by its string hash, checked id by id where two rows are taken
for one doc (``_interning``); a scored run dict is scored from its scores alone
(``_scored_run``). ``intern_frames`` does build categories, for frames people read.

Rules (trec_eval's, except where said):

- Order: by ``rank`` ascending; if ``score`` is present, by score descending
  and ``rank`` is ignored. Ties (equal rank, or equal score) go to the larger
  doc id by string comparison, as trec_eval does.
- Duplicates: a doc counts once, at its first position; later copies are dropped
  and the docs after them move up.
- Cases: one output row per case and metric, for every case category (union of
  both frames, plus ``cases``). A case with qrels but no ranking scores 0.
- A case with no relevant doc is undefined for R, RR and nDCG: NaN (trec_eval
  skips such queries; the suite decides). P, P_ret and Success are 0 there.

Measures (``@k`` is the cut-off; the corpus spellings take the corpus ``k``):

=========  =========================================  ===============
measure    per case                                   corpus spelling
=========  =========================================  ===============
P@k        relevant in top k / k                      -
P_ret@k    relevant in top k / min(k, distinct        precisionAtK
           docs returned)
R@k        relevant in top k / relevant               recallAtK
RR@k       1 / rank of first relevant in top k, or 0  mrr
nDCG@k     DCG@k / ideal DCG@k, gain = relevance,     ndcgAtK
           discount log2(rank + 1) (trec ndcg_cut)
Success@k  1 if any relevant in top k                 -
=========  =========================================  ===============

``parse_metric`` also reads trec_eval names (``P_5``, ``recall_20``,
``ndcg_cut_10``, ``recip_rank``, ``success_1``) and ``hit@k`` for Success@k.
``P_ret`` is the solumbe/otito precision: packs are tiny on purpose, so the
denominator is what was returned (0 returned scores 0). R, RR, nDCG and
Success also work without a cut-off (whole ranking). With binary relevance
nDCG equals the go-code rule (ideal from the number of expected items) and is
never above 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, METRIC, VALUE
from ..errors import UsageError
from ._columns import side_of
from ._inputs import KeyCollision
from ._interning import exact_frames, hashed_inputs
from ._kernel import Hits, find_hits, prepare, require_columns
from ._scored_run import is_scored_run, scored_run_hits
from .registry import MEASURES as REGISTRY
from .registry import lookup, rank_measures

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

CORPUS_NAMES = {m.name: m.corpus_name for m in rank_measures() if m.corpus_name}
_NAME = re.compile(r"^([A-Za-z_]+?)(?:[@_](\d+))?$")


@dataclass(frozen=True)
class Metric:
    """One measure at one cut-off; ``spelling`` only remembers how it was asked for."""

    measure: str
    cutoff: int | None = None
    spelling: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.measure not in REGISTRY or REGISTRY[self.measure].per_case is None:
            known = ", ".join(m.name for m in rank_measures())
            raise UsageError(f"unknown measure {self.measure!r}; known: {known}")
        if self.cutoff is not None and (not isinstance(self.cutoff, int) or self.cutoff < 1):
            raise UsageError(f"metric {self.measure}: cut-off must be an integer >= 1, got {self.cutoff!r}")
        if self.cutoff is None and REGISTRY[self.measure].needs_cutoff:
            raise UsageError(f"metric {self.measure} needs a cut-off, e.g. {self.measure}@5")

    @property
    def name(self) -> str:
        """Canonical ir_measures-style name: ``P@5``, ``nDCG@10``, ``RR``."""
        return self.measure if self.cutoff is None else f"{self.measure}@{self.cutoff}"

    @property
    def corpus_name(self) -> str | None:
        """The corpus threshold spelling (``precisionAtK``, ...), if this measure has one."""
        return CORPUS_NAMES.get(self.measure) if self.cutoff is not None else None

    @property
    def label(self) -> str:
        """The spelling asked for, else the canonical name: what output frames carry."""
        return self.spelling or self.name

    def __str__(self) -> str:
        return self.label


def parse_metric(spec: str | Metric, k: int | None = None) -> Metric:
    """Parse ``P@5``, ``ndcg@10``, ``recall_20``, ``RR``, or a corpus spelling with ``k``.

    ``k`` (the corpus cut-off) only applies to the corpus spellings; ``mrr``
    without ``k`` is RR over the whole ranking.
    """
    if isinstance(spec, Metric):
        return spec
    text = str(spec).strip()
    match = _NAME.match(text)
    if match is None:
        raise UsageError(
            f"unknown metric {text!r}; known: P@k, P_ret@k, R@k, RR[@k], nDCG@k, "
            "Success@k, precisionAtK, recallAtK, mrr, ndcgAtK"
        )
    word = match.group(1)
    measure = lookup(word)
    if (
        measure is not None
        and measure.per_case is not None
        and match.group(2) is None
        and word.lower() == (measure.corpus_name or "").lower()
    ):
        if k is None and measure.name != "RR":
            raise UsageError(f"metric {text!r} needs the corpus k")
        return Metric(measure.name, k, spelling=text)
    if measure is None or measure.per_case is None:
        raise UsageError(
            f"unknown metric {text!r}; known: P@k, P_ret@k, R@k, RR[@k], nDCG@k, "
            "Success@k, precisionAtK, recallAtK, mrr, ndcgAtK"
        )
    cutoff = int(match.group(2)) if match.group(2) is not None else None
    return Metric(measure.name, cutoff, spelling=text)


def metric_values(metric: Metric, hits: Hits) -> np.ndarray:
    """One metric for every case, from the hit table; NaN where the measure is undefined."""
    import numpy as np

    measure = REGISTRY[metric.measure]
    if measure.per_case is None:
        raise UsageError(f"measure {measure.name} is computed by its suite, not from a ranking")
    values = measure.per_case(hits, metric.cutoff if metric.cutoff is not None else np.inf)
    return np.where(hits.relevant == 0, np.nan, values) if measure.undefined_without_relevant else values


# ---------------------------------------------------------------- public entry points


def intern_frames(ranking: Any, qrels: Any, cases: Sequence[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build the ranking and qrels frames from row tuples (or dicts, or TREC files), sharing case
    and doc categories.

    Ranking rows are ``(case, doc, rank)`` or ``(case, doc, rank, score)``; qrel
    rows ``(case, doc, relevance)``. ``cases`` come first in the case categories,
    so cases with no rows at all are still scored.
    """
    return exact_frames(side_of(ranking, "ranking", False), side_of(qrels, "qrels", False), cases)


def frames_from_results(
    results: Mapping[str, Sequence[str]], relevant: Mapping[str, Mapping[str, float] | Iterable[str]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Frames from ``{case: ranked docs}`` and ``{case: {doc: relevance}}`` (or ``{case: docs}``, relevance 1)."""
    return intern_frames(results, relevant, cases=list(dict.fromkeys([*relevant, *results])))


def evaluate(
    ranking: pd.DataFrame | Iterable[Sequence[Any]] | Mapping[str, Any] | str | Path,
    qrels: pd.DataFrame | Iterable[Sequence[Any]] | Mapping[str, Any] | str | Path,
    metrics: Iterable[str | Metric],
    *,
    k: int | None = None,
    cases: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per-case values of ``metrics``: a long ``case, metric, value`` frame.

    ``ranking`` and ``qrels`` are frames (see the module docstring), row tuples,
    pytrec_eval-style dicts or TREC file paths (``_columns.side_of``); ``k`` is the corpus
    cut-off for the corpus spellings; ``cases`` must appear even without rows (in that order,
    first). The metric column carries each metric's label (the spelling asked for).
    """
    import numpy as np
    import pandas as pd

    chosen = list({m.label: m for m in (parse_metric(s, k) for s in metrics)}.values())
    frames = isinstance(ranking, pd.DataFrame), isinstance(qrels, pd.DataFrame)
    if frames == (True, True):
        x = prepare(ranking, qrels, cases)
        case_index, hits = x.cases, find_hits(x)
    elif frames == (False, False):
        case_index, hits = _hits(ranking, qrels, cases)
    else:
        raise UsageError("ranking and qrels must both be DataFrames or both be row tuples (or dicts, or TREC files)")
    values = np.column_stack([metric_values(m, hits) for m in chosen]) if chosen else np.empty((len(case_index), 0))
    n_cases, n_metrics = values.shape
    return pd.DataFrame(
        {
            CASE: pd.Categorical.from_codes(np.repeat(np.arange(n_cases), n_metrics), categories=case_index),
            METRIC: pd.Categorical.from_codes(
                np.tile(np.arange(n_metrics), n_cases), categories=[m.label for m in chosen]
            ),
            VALUE: values.ravel(),
        }
    )


def _hits(ranking: Any, qrels: Any, cases: Sequence[str] | None) -> tuple[pd.Index, Hits]:
    """The hit table from any input form but frames: a scored run dict by its scores alone, else
    doc ids keyed by their hashes, else (an id not a str, two ids sharing a key) exact categories."""
    if is_scored_run(ranking):
        judged = side_of(qrels, "qrels", True)
        scored = scored_run_hits(ranking, judged, cases)
        if scored is not None:
            return scored
    ranked, judged = side_of(ranking, "ranking", True), side_of(qrels, "qrels", True)
    try:
        x = hashed_inputs(ranked, judged, cases)
        if x is not None:
            return x.cases, find_hits(x)
    except KeyCollision:
        pass
    x = prepare(*exact_frames(ranked, judged, cases), None)
    return x.cases, find_hits(x)


def aggregate(frame: pd.DataFrame) -> dict[str, float]:
    """Mean of each metric over cases, skipping NaN (a metric with no defined case is NaN)."""
    require_columns(frame, "scores", [METRIC, VALUE])
    means = frame.groupby(METRIC, sort=False, observed=True)[VALUE].mean()
    return {str(metric): float(value) for metric, value in means.items()}
