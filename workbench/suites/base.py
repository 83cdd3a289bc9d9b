"""The Suite contract: which cases a suite reads, what it asks a target, how it scores.

A suite runs in two phases so scoring can be vectorized: ``run_case`` asks the
target about one case and returns what it observed (JSON-able fields); after
every case of a target has run, ``score`` turns all observations into case rows
and a tidy ``case, metric, value`` frame in one pass, and ``aggregate`` reduces
that frame to the suite's summary metrics (keys spelled as corpus thresholds).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..columns import METRIC, VALUE
from ..contract import REQUEST_TIMEOUT

if TYPE_CHECKING:  # pandas is imported where scores are computed, so validating a corpus never loads it
    import pandas as pd

    from ..corpus import Corpus


@dataclass
class RunContext:
    """What a suite may use while running: the corpus, limits and a scratch directory."""

    corpus: Corpus
    timeout: float = REQUEST_TIMEOUT
    seed: int = 0
    scratch: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    """One case run against one target: the observation, or the error that replaced it."""

    case: dict[str, Any]
    observation: dict[str, Any] | None
    error: str | None = None
    seconds: float = 0.0
    # How the run got this outcome (``repeat``, ``cached``, ``retries``): copied into its case row.
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.case.get("name"))


@dataclass
class Scored:
    """A suite's scoring of one target: one row per case, and the long score frame."""

    case_rows: list[dict[str, Any]]
    scores: pd.DataFrame  # columns: case, metric, value


def mean_metrics(scores: pd.DataFrame, names: tuple[str, ...] | list[str]) -> dict[str, float | None]:
    """Mean of each named metric over cases; None where no case defines it (NaN values skipped)."""
    import pandas as pd

    means = scores.groupby(METRIC)[VALUE].mean()
    return {name: (None if pd.isna(means.get(name)) else float(means[name])) for name in names}


class Suite(ABC):
    """Base class of every suite; subclasses are registered in ``workbench.suites``."""

    name: ClassVar[str]
    capability: ClassVar[str | None]
    description: ClassVar[str] = ""
    # The metric a candidate must beat the controls on (``--gate controls``); None: not compared.
    headline: ClassVar[str | None] = None

    @property
    def section(self) -> str:
        """The corpus section this suite reads, as registered (declared once, in the registry)."""
        from . import suite_section

        return suite_section(self.name)

    def cases(self, corpus: Corpus) -> list[dict[str, Any]]:
        """The corpus cases this suite reads."""
        return corpus.cases(self.section)

    def plan(self, corpus: Corpus, targets: list[Any]) -> list[tuple[str, Any, list[dict[str, Any]]]]:
        """(target name, target, cases) to run. Suites that score recorded data override this."""
        cases = self.cases(corpus)
        return [(target.name, target, cases) for target in targets]

    def unavailable(self, case: dict[str, Any], corpus: Corpus) -> str | None:
        """Why ``case`` cannot run on this machine (a missing toolchain), or None: it is skipped."""
        return None

    def check(self, corpus: Corpus) -> None:
        """Raise CorpusError for problems in the data this suite reads beyond the corpus schema."""
        self.plan(corpus, [])

    @abstractmethod
    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        """Ask ``target`` about one case; return the observed fields. Raise to fail the case."""

    @abstractmethod
    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        """Score every outcome of one target at once."""

    @abstractmethod
    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        """Reduce one target's scores to summary metrics, keyed by threshold spelling."""

    def metric_notes(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, str]:
        """Why some aggregated metrics are null (metric -> reason): not measured, never 0."""
        return {}
