"""Simulated agents: cascade click models over a shown list, with binary relevance from the labels.

The cascade (dependent click) model of Chuklin, Markov and de Rijke, "Click Models for Web Search"
(2015): the agent reads the list top-down; it opens the item at rank r with P(click | relevance),
and after a click stops reading with P(stop | relevance); without a click it reads on. Position
bias enters through the cascade: an item is read only if the agent did not stop above it. The three
parameter sets are those of Hofmann, Whiteson and de Rijke (CIKM 2011, "A probabilistic method for
inferring preferences from clicks"; TOIS 2013, binary relevance), the standard ones in the
interleaving literature:

| model | P(click | relevant) | P(click | not relevant) | P(stop | click, relevant) | P(stop | click, not relevant) |
| --- | --- | --- | --- | --- |
| perfect | 1.0 | 0.0 | 0.0 | 0.0 |
| navigational | 0.95 | 0.05 | 0.9 | 0.2 |
| informational | 0.9 | 0.4 | 0.5 | 0.1 |

``perfect`` opens every relevant shown file and never stops; ``navigational`` looks for one file
and usually stops there; ``informational`` reads widely and opens noise too. Every draw comes from
a Generator the caller seeds (``interleave.case_rng(seed, case, "clicks")``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..options import InterleaveOptions

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ClickModel:
    """A cascade click model: click and stop probabilities for relevant and non-relevant items."""

    name: str
    click_relevant: float
    click_other: float
    stop_relevant: float
    stop_other: float

    def clicks(self, relevant: Any, rng: np.random.Generator) -> np.ndarray:
        """Simulated clicks (bool, same shape) for rows of shown items' relevance (bool, one row
        per impression, rank order along the last axis). Two uniforms per item are drawn whatever
        the outcome, so row 0 depends only on the generator's first draws."""
        import numpy as np

        rel = np.atleast_2d(np.asarray(relevant, dtype=bool))
        u_click = rng.random(rel.shape)
        u_stop = rng.random(rel.shape)
        would_click = u_click < np.where(rel, self.click_relevant, self.click_other)
        stops = would_click & (u_stop < np.where(rel, self.stop_relevant, self.stop_other))
        stopped_above: np.ndarray = np.cumsum(stops, axis=-1) - stops  # stops strictly above each rank
        clicked = would_click & (stopped_above == 0)
        return clicked.reshape(np.shape(relevant)) if np.ndim(relevant) < 2 else clicked

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "p_click_relevant": self.click_relevant,
            "p_click_not_relevant": self.click_other,
            "p_stop_relevant": self.stop_relevant,
            "p_stop_not_relevant": self.stop_other,
        }


CLICK_MODELS: dict[str, ClickModel] = {
    m.name: m
    for m in (
        ClickModel("perfect", 1.0, 0.0, 0.0, 0.0),
        ClickModel("navigational", 0.95, 0.05, 0.9, 0.2),
        ClickModel("informational", 0.9, 0.4, 0.5, 0.1),
    )
}
DEFAULT_CLICK_MODEL = InterleaveOptions.click_model  # written once, in workbench/options.py


def click_model(name: str) -> ClickModel:
    """The click model called ``name``; an unknown name is a UsageError listing the known ones."""
    found = CLICK_MODELS.get(name)
    if found is None:
        raise UsageError(f"--click-model {name!r}: expected one of {', '.join(CLICK_MODELS)}")
    return found
