"""``workbench interleave simulate``: a seeded team-draft interleaving of two engines' packs per
case, simulated clicks, the paired preference, and the sensitivity measured against the offline test.

Per case, impression 0 is the one reported (``shown`` and ``cases``); the case's further
impressions (fresh coins and clicks from the same seeded streams) form the pool the sensitivity
resamples draw from. Everything is a function of the packs, the click model and the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, CLICKED, CLICKS_A, CLICKS_B, DOC, OUTCOME, RANK, RELEVANT, TEAM
from ..errors import UsageError
from ..options import InterleaveOptions
from .clicks import DEFAULT_CLICK_MODEL, ClickModel, click_model
from .credit import credit_rows
from .interleave import TEAM_A, case_rng, interleave_case
from .packs import Packs, run_packs
from .preference import Preference, preference
from .sensitivity import RESAMPLES, SIZES, Sensitivity, measure

if TYPE_CHECKING:
    import pandas as pd

IMPRESSIONS = 200  # simulated impressions per case for the sensitivity pool
CODE_NAMES = {-1: "a", 0: "tie", 1: "b"}


@dataclass(frozen=True)
class InterleaveResult:
    """One simulated interleaving experiment: frames, the preference and the sensitivity."""

    corpus: str
    target_a: str
    target_b: str
    click_model: ClickModel
    seed: int
    length: int
    preference: Preference
    sensitivity: Sensitivity
    cases: pd.DataFrame  # CASE, CLICKS_A, CLICKS_B, OUTCOME: impression 0 of each case
    shown: pd.DataFrame  # CASE, RANK, DOC, TEAM, RELEVANT, CLICKED: impression 0 of each case
    offline: dict[str, Any] = field(default_factory=dict)  # the offline metric and test compared

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object (NaN as null)."""
        import json

        from ..files import dumps

        return json.loads(
            dumps(
                {
                    "corpus": self.corpus,
                    "a": self.target_a,
                    "b": self.target_b,
                    "click_model": self.click_model.to_dict(),
                    "seed": self.seed,
                    "length": self.length,
                    "offline": self.offline,
                    **self.preference.to_dict(),
                    "sensitivity": self.sensitivity.to_dict(),
                    "cases": self.cases.to_dict("records"),
                }
            )
        )


def interleave_packs(
    packs: Packs,
    model: ClickModel,
    *,
    seed: int = 0,
    length: int | None = None,
    impressions: int = IMPRESSIONS,
    resamples: int = RESAMPLES,
    sizes: Sequence[int] | None = None,
) -> InterleaveResult:
    """Interleave, click and credit every case of ``packs`` into lists of ``length`` (default: the
    retrieval suite's pack limit, what each engine was asked for); measure the sensitivity."""
    import numpy as np
    import pandas as pd

    from ..suites.retrieval import PACK_LIMIT

    length = PACK_LIMIT if length is None else length

    if not packs.cases:
        raise UsageError(f"{packs.corpus}: no retrieval case both targets answered: nothing to interleave")
    if length < 1 or impressions < 1 or resamples < 1:
        raise UsageError("interleave: length, impressions and resamples must be >= 1")
    pools, shown_rows, case_rows = [], [], []
    for case in packs.cases:
        lists = interleave_case(seed, case.case, case.a, case.b, length, impressions)
        rel = np.array([[item in case.relevant for item, _ in shown] for shown in lists], dtype=bool)
        is_a = np.array([[team == TEAM_A for _, team in shown] for shown in lists], dtype=bool)
        rel, is_a = rel.reshape(impressions, -1), is_a.reshape(impressions, -1)
        clicked = model.clicks(rel, case_rng(seed, case.case, "clicks"))
        clicks_a, clicks_b, codes = credit_rows(is_a, clicked)
        pools.append(codes)
        case_rows.append((case.case, int(clicks_a[0]), int(clicks_b[0]), CODE_NAMES[int(codes[0])]))
        shown_rows += [
            (case.case, rank, item, team, bool(rel[0, rank - 1]), bool(clicked[0, rank - 1]))
            for rank, (item, team) in enumerate(lists[0], 1)
        ]
    pool = np.stack(pools)
    diffs = np.array([c.offline_b - c.offline_a for c in packs.cases], dtype=float)
    sizes = _sizes(len(packs.cases)) if sizes is None else sizes
    return InterleaveResult(
        corpus=packs.corpus,
        target_a=packs.target_a,
        target_b=packs.target_b,
        click_model=model,
        seed=seed,
        length=length,
        preference=preference(pool[:, 0], seed=seed),
        sensitivity=measure(pool, diffs, test=packs.offline_test, sizes=sizes, resamples=resamples, seed=seed),
        cases=pd.DataFrame(case_rows, columns=[CASE, CLICKS_A, CLICKS_B, OUTCOME]),
        shown=pd.DataFrame(shown_rows, columns=[CASE, RANK, DOC, TEAM, RELEVANT, CLICKED]),
        offline={"metric": packs.offline_metric, "test": packs.offline_test, "scored": int(np.sum(~np.isnan(diffs)))},
    )


def _sizes(cases: int) -> list[int]:
    """The default sizes tried: the standard grid up to the corpus's number of cases, and that."""
    return sorted({*(n for n in SIZES if n <= cases), cases})


def simulate_interleaving(
    corpus_path: Path | str | None = None,
    targets: Sequence[str] = ("builtin", "random"),
    *,
    click_model_name: str = DEFAULT_CLICK_MODEL,
    seed: int = 0,
    length: int | None = None,
    impressions: int = IMPRESSIONS,
    resamples: int = RESAMPLES,
    sizes: Sequence[int] | None = None,
    timeout: float | None = None,
) -> InterleaveResult:
    """Run both targets over the corpus's retrieval cases and simulate the interleaving experiment
    (the one call behind ``workbench interleave simulate``)."""
    model = click_model(click_model_name)
    InterleaveOptions(targets=tuple(targets), click_model=click_model_name, seed=seed, resamples=resamples)  # checks
    packs = run_packs(corpus_path, list(targets), seed=seed, timeout=timeout)
    return interleave_packs(
        packs, model, seed=seed, length=length, impressions=impressions, resamples=resamples, sizes=sizes
    )
