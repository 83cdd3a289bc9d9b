"""The o200k token counter: known counts, chunking of huge texts, memoisation by content."""

from __future__ import annotations

import pytest

from workbench import tokens
from workbench.tokens import TokenCounter, count_tokens, encoding


def test_known_o200k_ids_and_counts() -> None:
    assert encoding().encode_ordinary("hello world") == [24912, 2375]
    assert count_tokens("hello world") == 2
    assert count_tokens("The quick brown fox jumps over the lazy dog.") == 10
    assert count_tokens("") == 0


def test_special_token_markers_are_ordinary_text() -> None:
    assert count_tokens("<|endoftext|>") > 1


def test_encoding_is_loaded_once() -> None:
    assert encoding() is encoding()


def test_huge_texts_are_counted_in_line_aligned_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f"def handler_{i}(request):\n    return respond({i})\n" for i in range(400))
    whole = count_tokens(text)
    monkeypatch.setattr(tokens, "CHUNK_CHARS", 1000)
    assert count_tokens(text) == whole
    chunks = tokens._chunks(text, 1000)
    assert "".join(chunks) == text and all(c.endswith("\n") for c in chunks)
    assert tokens._chunks("x" * 2500, 1000) == ["x" * 1000, "x" * 1000, "x" * 500]


def test_counter_memoises_by_content() -> None:
    counter = TokenCounter()
    assert counter.count("alpha beta") == count_tokens("alpha beta")
    counter.count("alpha beta")
    counter.count("gamma")
    assert (counter.hits, counter.misses, len(counter)) == (1, 2, 2)


def test_unknown_encoding_is_a_clear_error() -> None:
    from workbench.errors import SuiteError

    with pytest.raises(SuiteError, match="unknown token encoding 'nope'"):
        count_tokens("x", "nope")
