"""Symbol-level evidence: how a returned definition matches a gold label, and function-level scores.

One matching rule, used by the ranking suite (``search`` hits against golden labels) and the
retrieval suite (a pack's ``symbols`` against ``expectedSymbols``): a qualified label
(``HTTPConnection.putheader``) needs the hit's full qualified name; a bare label (``putheader``,
the way go-code's goldens name methods) also matches a qualified hit by its last dotted part,
in the same file (``client.py:putheader`` matches ``client.py:HTTPConnection.putheader``).

Per case with ``n`` gold symbols and the engine's ranked symbols (a gold symbol counts once, at
the first rank that matches it; a returned symbol may match several gold ones):

- ``symbolAccAtK``: 1 when every gold symbol is matched within the top k, else 0 (LocAgent's
  function-level Acc@k);
- ``symbolRecallAtK``: gold symbols matched within the top k / ``n``;
- ``symbolMrr``: 1 / rank of the first returned symbol that matches a gold one, within the top
  k, else 0 (the file-level ``mrr`` rule).
"""

from __future__ import annotations

from collections.abc import Sequence

SYMBOL_METRICS = ("symbolAccAtK", "symbolRecallAtK", "symbolMrr")


def symbol_matches(label: str, name: str) -> bool:
    """Whether a returned definition ``name`` matches a gold ``label`` (names only; the caller
    compares files): equal, or ``label`` is bare and equals ``name``'s last dotted part."""
    if not label or not name:
        return False
    return name == label or ("." not in label and name.rpartition(".")[2] == label)


def split_label(label: str) -> tuple[str, str]:
    """``(path, name)`` of a ``path:Name`` label (split at the last colon; names hold none)."""
    path, _, name = label.rpartition(":")
    return path, name


def _norm(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def first_ranks(returned: Sequence[tuple[str, str]], gold: Sequence[str]) -> list[int]:
    """Per gold ``path:Name`` label, the first 1-based rank of ``returned`` (``(path, name)`` pairs,
    best first) that matches it in the same file, or 0 when none does."""
    ranks = []
    for label in gold:
        path, name = split_label(label)
        want = _norm(path)
        found = next(
            (rank for rank, (got, hit) in enumerate(returned, 1) if _norm(got) == want and symbol_matches(name, hit)),
            0,
        )
        ranks.append(found)
    return ranks


def symbol_scores(returned: Sequence[tuple[str, str]], gold: Sequence[str], k: int) -> dict[str, float]:
    """``symbolAccAtK``, ``symbolRecallAtK`` and ``symbolMrr`` of one case (``gold`` non-empty)."""
    ranks = first_ranks(returned, gold)
    within = [0 < rank <= k for rank in ranks]
    hit = [rank for rank in ranks if 0 < rank <= k]
    return {
        "symbolAccAtK": float(all(within)),
        "symbolRecallAtK": sum(within) / len(gold),
        "symbolMrr": 1.0 / min(hit) if hit else 0.0,
    }
