"""Whether two sides of a comparison can be judged against each other: the same corpus (its
SHA-256 in the manifest) and the same k. Different corpora are refused unless the caller asks to
compare the case names both sides share (``on_shared_cases``), which is then said with the count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..columns import CASE, SUITE
from ..errors import CompareError

if TYPE_CHECKING:
    import pandas as pd


def corpus_digests(side: Any) -> set[str]:
    """The corpus SHA-256s a side stands for: a run's, or a baseline's (recorded and run-time)."""
    corpus = (getattr(side, "manifest", None) or {}).get("corpus") or {}
    return {str(corpus[key]) for key in ("sha256", "run_sha256") if corpus.get(key)}


def corpus_k(side: Any) -> int | None:
    """The retrieval cut-off the side ran with, when its manifest records it."""
    k = ((getattr(side, "manifest", None) or {}).get("corpus") or {}).get("k")
    return int(k) if k is not None else None


def check_comparable(a: Any, b: Any, on_shared_cases: bool) -> bool:
    """Raise ``CompareError`` when the sides ran with different k, or on different corpora without
    ``on_shared_cases``; return whether the corpora differ (so only shared cases are compared)."""
    ka, kb = corpus_k(a), corpus_k(b)
    if ka is not None and kb is not None and ka != kb:
        raise CompareError(f"{a.run_id} ran with k={ka} and {b.run_id} with k={kb}: their metrics are not comparable")
    da, db = corpus_digests(a), corpus_digests(b)
    differ = bool(da and db and not da & db)
    if differ and not on_shared_cases:
        raise CompareError(
            f"{a.run_id} and {b.run_id} ran different corpora (sha256 {_short(da)} vs {_short(db)}); "
            "pass --on-shared-cases to compare the case names both have"
        )
    return differ


def shared_only(long_a: pd.DataFrame, long_b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Both long frames cut to the (suite, case) names both have, and the note that says how many."""
    import pandas as pd

    keys_a = pd.MultiIndex.from_frame(long_a[[SUITE, CASE]].drop_duplicates())
    keys_b = pd.MultiIndex.from_frame(long_b[[SUITE, CASE]].drop_duplicates())
    shared = keys_a.intersection(keys_b)
    if shared.empty:
        raise CompareError("the two corpora share no case name: nothing to compare")
    keep_a = pd.MultiIndex.from_frame(long_a[[SUITE, CASE]]).isin(shared)
    keep_b = pd.MultiIndex.from_frame(long_b[[SUITE, CASE]]).isin(shared)
    note = (
        f"Different corpora: compared on the {len(shared)} case(s) both share "
        f"(A has {len(keys_a)}, B has {len(keys_b)}; --on-shared-cases)"
    )
    return long_a[keep_a], long_b[keep_b], note


def _short(digests: set[str]) -> str:
    return "/".join(sorted(d[:12] for d in digests))
