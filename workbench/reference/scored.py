"""One repository's scores for a query: what the pack, the related-file step and the signals share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from .index import RepoIndex


@dataclass
class Scored:
    """One repository's scores for a query."""

    index: RepoIndex
    final: np.ndarray
    coverage: np.ndarray
    matched: list[str] = field(default_factory=list)  # the query word behind each ranked term
    hits: np.ndarray | None = None  # documents x ranked terms, True where a file has the term
    pinned: set[int] = field(default_factory=set)
    reasons: dict[int, str] = field(default_factory=dict)

    def reason(self, doc: int) -> str:
        """Why ``doc`` is in the pack: its evidence, else the query words it matches."""
        import numpy as np

        if doc in self.reasons:
            return self.reasons[doc]
        if self.hits is None or not self.hits[doc].any():
            return "ranked"
        words = dict.fromkeys(self.matched[j].lower() for j in np.flatnonzero(self.hits[doc]))
        return "matches " + ", ".join(words)
