"""The metric registry: every measure workbench computes or compares, one entry each.

An entry says a measure's canonical name, the other spellings it answers to, whether higher is
better, its kind, and, for ranking measures, its per-case function over the hit table
(``_kernel``). Adding a measure is one ``register`` call: ``parse_metric`` reads the names and
aliases from here, ``evaluate`` the function, and compare, gates and plots the direction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import _kernel

if TYPE_CHECKING:
    import numpy as np

    PerCase = Callable[[_kernel.Hits, float], np.ndarray]

KINDS = ("rank", "pass", "ratio", "count", "tokens", "seconds")


@dataclass(frozen=True)
class Measure:
    """One measure: its names, its direction and kind, and (ranking measures) how to compute it."""

    name: str
    kind: str
    higher_is_better: bool = True
    aliases: tuple[str, ...] = ()
    corpus_name: str | None = None  # the threshold spelling that takes the corpus k (``precisionAtK``)
    needs_cutoff: bool = False
    per_case: PerCase | None = None
    undefined_without_relevant: bool = True  # NaN for a case with nothing relevant (trec_eval skips it)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"measure {self.name}: kind must be one of {', '.join(KINDS)}")


MEASURES: dict[str, Measure] = {}
_BY_SPELLING: dict[str, Measure] = {}


def register(measure: Measure) -> Measure:
    """Add a measure; every spelling (name, aliases, corpus name) must be new."""
    spellings = {measure.name, *measure.aliases, *([measure.corpus_name] if measure.corpus_name else [])}
    taken = sorted(s for s in spellings if s.lower() in _BY_SPELLING)
    if taken:
        raise ValueError(f"measure {measure.name}: spelling(s) {', '.join(taken)} already registered")
    MEASURES[measure.name] = measure
    _BY_SPELLING.update({s.lower(): measure for s in spellings})
    return measure


def unregister(name: str) -> None:
    """Remove a measure and its spellings (tests; a plugin being unloaded)."""
    measure = MEASURES.pop(name, None)
    for spelling in [s for s, m in _BY_SPELLING.items() if m is measure]:
        del _BY_SPELLING[spelling]


def lookup(spelling: str) -> Measure | None:
    """The measure a spelling names (case-insensitive, cut-off stripped: ``ndcg@10`` -> nDCG), or None."""
    text = spelling.strip().lower()
    found = _BY_SPELLING.get(text)
    if found is None and ("@" in text or "_" in text):
        head, _, tail = text.replace("@", "_").rpartition("_")
        found = _BY_SPELLING.get(head) if tail.isdigit() else None
    return found


def higher_is_better(metric: str) -> bool:
    """Whether a larger value of ``metric`` is an improvement (unknown metrics: yes)."""
    found = lookup(metric)
    return True if found is None else found.higher_is_better


def rank_measures() -> list[Measure]:
    """The measures ``evaluate`` computes from a ranking, in registration order."""
    return [m for m in MEASURES.values() if m.per_case is not None]


# Ranking measures (``evaluate``); trec_eval names are aliases.
register(
    Measure(
        "P",
        "rank",
        aliases=("p", "prec", "precision"),
        needs_cutoff=True,
        per_case=_kernel.precision,
        undefined_without_relevant=False,
    )
)
register(
    Measure(
        "P_ret",
        "rank",
        corpus_name="precisionAtK",
        needs_cutoff=True,
        per_case=_kernel.precision_returned,
        undefined_without_relevant=False,
    )
)
register(Measure("R", "rank", aliases=("r", "recall"), corpus_name="recallAtK", per_case=_kernel.recall))
register(Measure("RR", "rank", aliases=("rr", "recip_rank"), corpus_name="mrr", per_case=_kernel.reciprocal_rank))
register(Measure("nDCG", "rank", aliases=("ndcg", "ndcg_cut"), corpus_name="ndcgAtK", per_case=_kernel.ndcg))
register(
    Measure("Success", "rank", aliases=("success", "hit"), per_case=_kernel.success, undefined_without_relevant=False)
)

# Suite measures: computed by their suites, registered for their direction and kind.
register(Measure("passed", "pass"))
register(Measure("accuracy", "pass"))
register(Measure("caseAccuracy", "pass"))
register(Measure("blockedAsExpected", "pass"))
register(Measure("validPassed", "pass"))
register(Measure("commandPassRate", "pass"))
register(Measure("casePassRate", "pass"))
register(Measure("verdictAgreement", "pass"))
register(Measure("f1", "ratio"))
register(Measure("tp", "count"))
register(Measure("fp", "count", higher_is_better=False))
register(Measure("fn", "count", higher_is_better=False))
register(Measure("pack_tokens", "tokens", higher_is_better=False))
register(Measure("naive_tokens", "tokens", higher_is_better=False))
register(Measure("savings", "tokens"))
register(Measure("meanSavings", "tokens"))
register(Measure("medianSavings", "tokens"))
register(Measure("pooledSavings", "tokens"))
register(Measure("meanRecall", "ratio"))
# Symbol level of the retrieval suite (``workbench.analysis.symbols``), at the corpus k.
register(Measure("symbolAccAtK", "ratio"))
register(Measure("symbolRecallAtK", "ratio"))
register(Measure("symbolMrr", "ratio"))
register(Measure("recallWeightedSavings", "tokens"))
register(Measure("seconds", "seconds", aliases=("latency",), higher_is_better=False))
