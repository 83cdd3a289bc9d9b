"""Count tokens as a model sees them: o200k through ``bpe-openai``, fully offline.

The encoding ships inside the package and loads once per process on first use
(about 0.7 s), never at ``import workbench`` time. ``TokenCounter`` memoises
counts by content digest, so a file that many packs and dumps share is encoded
once per run.
"""

from __future__ import annotations

import hashlib
import warnings
from functools import cache
from typing import Any

from .errors import SuiteError

ENCODING = "o200k_base"
# bpe-openai refuses one call above 200k tokens; a 200k-character slice stays far below that.
CHUNK_CHARS = 200_000


@cache
def encoding(name: str = ENCODING) -> Any:
    """The named ``bpe_openai`` encoding, loaded once."""
    with warnings.catch_warnings():  # bpe-openai 0.1.4 reads its tables with a deprecated API
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            raise SuiteError("token counting needs the bpe-openai package (pip install bpe-openai)") from None
        try:
            return bpe_openai.get_encoding(name)
        except Exception as exc:  # the library's own error types vary by version
            raise SuiteError(f"unknown token encoding {name!r} ({exc})") from None


def _chunks(text: str, size: int) -> list[str]:
    """Slices of about ``size`` characters, cut just after a newline where there is one."""
    parts, start = [], 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            newline = text.rfind("\n", start, end)
            end = newline + 1 if newline > start else end
        parts.append(text[start:end])
        start = end
    return parts


def count_tokens(text: str, name: str = ENCODING) -> int:
    """How many tokens ``text`` is (special-token markers count as ordinary text)."""
    enc = encoding(name)
    if len(text) <= CHUNK_CHARS:
        return len(enc.encode_ordinary(text))
    return sum(len(enc.encode_ordinary(part)) for part in _chunks(text, CHUNK_CHARS))


def digest(text: str) -> str:
    """A short content digest (the cache key of a count)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class TokenCounter:
    """Token counts memoised by content digest; ``hits``/``misses`` say how well it cached."""

    def __init__(self, name: str = ENCODING) -> None:
        self.name = name
        self._counts: dict[str, int] = {}
        self.hits = 0
        self.misses = 0

    def count(self, text: str) -> int:
        """Tokens of ``text``, encoded only the first time this content is seen."""
        key = digest(text)
        cached = self._counts.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        value = self._counts[key] = count_tokens(text, self.name)
        return value

    def __len__(self) -> int:
        return len(self._counts)
