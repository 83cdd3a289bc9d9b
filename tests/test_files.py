"""``files.dumps``: the C encoder's one pass writes what the plain-making walk would; the exclusive
create (``files.create_text_atomic``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.files import _json_safe, dumps

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.integers(min_value=-1000, max_value=1000).map(np.int64),
    st.floats(allow_nan=True, width=32).map(np.float32),
    st.floats(allow_nan=True).map(np.float64),
    st.text(max_size=4).map(Path),
    st.sets(st.integers(min_value=0, max_value=9), max_size=3),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _walked(value: object, **kwargs: object) -> str:
    return json.dumps(_json_safe(value), ensure_ascii=False, allow_nan=False, **kwargs)  # type: ignore[arg-type]


@settings(max_examples=300, derandomize=True)
@given(VALUES)
def test_dumps_writes_what_the_walk_would(value: object) -> None:
    assert dumps(value) == _walked(value)
    assert dumps(value, sort_keys=True) == _walked(value, sort_keys=True)


def test_non_finite_numbers_are_null_and_the_text_is_strict_json() -> None:
    text = dumps({"a": [math.nan, np.float64("inf"), 1.5], "b": {np.int64(2): "x"}})
    assert json.loads(text) == {"a": [None, None, 1.5], "b": {"2": "x"}}


@pytest.mark.parametrize("links", [True, False])
def test_create_text_atomic_creates_once_with_or_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: bool
) -> None:
    """Issue 41 item 5's exclusive create: a second create of one name is refused in one line and
    leaves the first text; a file system without hard links falls back to ``O_EXCL``."""
    import errno
    import os

    from workbench.errors import StoreError
    from workbench.files import create_text_atomic

    if not links:

        def no_link(*args: object) -> None:
            raise OSError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_link)
    path = tmp_path / "b.json"
    create_text_atomic(path, "first\n", "b exists")
    with pytest.raises(StoreError, match="^b exists$"):
        create_text_atomic(path, "second\n", "b exists")
    assert path.read_text() == "first\n" and [p.name for p in tmp_path.iterdir()] == ["b.json"]
