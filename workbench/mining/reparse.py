"""Tree-sitter parses of a gold file that reuse the tree of its previous revision.

Sampled commits keep touching the same files (viper's ``viper.go`` in most of them), and a fresh
tree-sitter parse of every revision was most of what mining a Go, JavaScript or TypeScript history
cost. Given the last tree parsed for the same path, ``tree.edit`` is told which lines changed and
tree-sitter re-parses only those, reusing the rest: the tree is the one a fresh parse gives
(``tests/mining/test_reparse.py`` compares them). The changed lines come from a line diff that
needs to be correct, not minimal: the common prefix and suffix, then lines that occur once on each
side as anchors (the longest run of them in the same order), equal lines grown around each.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from itertools import accumulate
from typing import Any

from ..code.tssymbols import toolkit

Point = tuple[int, int]
Edit = tuple[int, int, int, Point, Point, Point]  # tree.edit's arguments, in its order
Block = tuple[int, int, int, int]  # old lines [i1, i2) became new lines [j1, j2)


class Reparser:
    """Tree-sitter parses that start from the last tree of the same path. The trees of the ``keep``
    paths parsed last are remembered, as long as their sources hold at most ``keep_bytes`` (a tree
    takes about 23 times its source: 1.4 MiB for viper's 64 KB ``viper.go``)."""

    def __init__(self, keep: int = 32, keep_bytes: int = 2 << 20) -> None:
        self._last: OrderedDict[tuple[str, str], tuple[Any, bytes]] = OrderedDict()
        self._keep, self._keep_bytes, self._bytes = keep, keep_bytes, 0

    def parse(self, path: str, grammar: str, data: bytes) -> Any:
        """The tree of ``data`` (the file ``path`` at some revision) in ``grammar``."""
        parser = toolkit(grammar)[0]
        previous = self._last.pop((path, grammar), None)
        if previous is None:
            tree = parser.parse(data)
        else:
            old_tree, old = previous
            self._bytes -= len(old)
            edited = old_tree.copy()  # the old tree may still be cached for its own blob
            for edit in line_edits(old, data):
                edited.edit(*edit)
            tree = parser.parse(data, edited)
        self._last[(path, grammar)] = (tree, data)
        self._bytes += len(data)
        while len(self._last) > self._keep or (self._bytes > self._keep_bytes and len(self._last) > 1):
            self._bytes -= len(self._last.popitem(last=False)[1][1])
        return tree


def line_edits(old: bytes, new: bytes) -> list[Edit]:
    """``tree.edit`` arguments turning ``old`` into ``new``, last change first, so that each is in
    the coordinates of ``old`` (the changes after it have moved nothing before it)."""
    a, b = old.split(b"\n"), new.split(b"\n")
    a_starts = list(accumulate((len(line) + 1 for line in a), initial=0))
    b_starts = list(accumulate((len(line) + 1 for line in b), initial=0))
    edits = []
    for i1, i2, j1, j2 in reversed(line_blocks(a, b)):
        start, old_end = min(a_starts[i1], len(old)), min(a_starts[i2], len(old))
        new_length = min(b_starts[j2], len(new)) - min(b_starts[j1], len(new))
        start_point = _point(a, i1)
        new_end = _point(b, j2)
        new_end_point = (i1 + new_end[0] - j1, new_end[1]) if new_end[0] > j1 else (i1, start_point[1] + new_end[1])
        edits.append((start, old_end, start + new_length, start_point, _point(a, i2), new_end_point))
    return edits


def _point(lines: list[bytes], index: int) -> Point:
    """Where line ``index`` starts (``len(lines)``: the end of the last line, which has no newline)."""
    return (index, 0) if index < len(lines) else (len(lines) - 1, len(lines[-1]))


def line_blocks(a: list[bytes], b: list[bytes]) -> list[Block]:
    """Blocks of lines of ``a`` replaced by lines of ``b``, in order; the lines between them are equal.
    The last piece of each side (after the last newline) only ever matches the other's last piece."""
    n, m = len(a), len(b)
    low = 0
    while low < n - 1 and low < m - 1 and a[low] == b[low]:
        low += 1
    high = 0
    while high < n - low and high < m - low and a[n - 1 - high] == b[m - 1 - high]:
        high += 1
    end_a, end_b = n - high, m - high
    blocks: list[Block] = []
    i, j = low, low
    for anchor_a, anchor_b in [*_anchors(a, b, low, end_a, end_b), (end_a, end_b)]:
        while i < anchor_a and j < anchor_b and a[i] == b[j] and i < n - 1 and j < m - 1:
            i, j = i + 1, j + 1
        x, y = anchor_a, anchor_b
        while x > i and y > j and a[x - 1] == b[y - 1] and x < n and y < m:
            x, y = x - 1, y - 1
        if x > i or y > j:
            blocks.append((i, x, j, y))
        i, j = anchor_a + 1, anchor_b + 1
    return blocks


def _anchors(a: list[bytes], b: list[bytes], low: int, end_a: int, end_b: int) -> list[tuple[int, int]]:
    """Pairs of equal lines, each occurring once in ``a[low:end_a]`` and once in ``b[low:end_b]``
    (never a side's last piece), the longest run of them increasing on both sides."""
    once_a: dict[bytes, int] = {}
    for i in range(low, min(end_a, len(a) - 1)):
        once_a[a[i]] = -1 if a[i] in once_a else i
    once_b: dict[bytes, int] = {}
    for j in range(low, min(end_b, len(b) - 1)):
        once_b[b[j]] = -1 if b[j] in once_b else j
    pairs = sorted((i, once_b[line]) for line, i in once_a.items() if i >= 0 and once_b.get(line, -1) >= 0)
    return _increasing(pairs)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by the first) whose second items increase."""
    tails: list[int] = []  # the smallest second item ending an increasing run of each length
    ends: list[int] = []  # the pair index behind each tail
    before = [-1] * len(pairs)
    for k, (_, second) in enumerate(pairs):
        at = bisect_left(tails, second)
        if at == len(tails):
            tails.append(second)
            ends.append(k)
        else:
            tails[at], ends[at] = second, k
        before[k] = ends[at - 1] if at else -1
    run, k = [], ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]
