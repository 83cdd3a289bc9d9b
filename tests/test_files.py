"""``files.dumps``: the C encoder's one pass writes what the plain-making walk would."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
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
