"""Hypothesis strategies for hostile files: a valid document with a few fields replaced, removed or
wrapped, then serialised and sometimes corrupted (deep nesting, huge integers, NaN, a lone surrogate,
a bad byte, truncation). Shared by the loader property tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def rewrite(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` as a new file. A file with data in it truncated and written again is
    flushed to disk when closed (ext4's ``auto_da_alloc`` guard for rewrites): about 2 ms each here,
    far more while other jobs write, over the thousands of examples a property test writes."""
    path.unlink(missing_ok=True)
    if isinstance(data, str):
        path.write_text(data)
    else:
        path.write_bytes(data)


# deterministic, no deadline (the machine is shared), enough examples for the floor
LOADER_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NASTY_STRINGS = [
    "/etc/passwd",
    "../../x",
    "\ud800",
    "refund \udfff",
    "",
    "three",
    "1e30",
    "a" * 300,
    "\x00",
    "C:\\x",
    "NaN",
]
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(NASTY_STRINGS)
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
CORRUPTIONS = ("none",) * 8 + ("deep", "bigint", "nan", "surrogate", "badbyte", "truncate", "bom")


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:4]):
            found += _paths(child, (*prefix, index))
    return found


def _set(doc: Any, path: tuple, action: str, new: Any) -> Any:
    if not path:
        return new if action != "wrap" else [doc]
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "wrap":
        parent[last] = [parent[last]]
    else:
        parent[last] = new
    return doc


@st.composite
def mutated_value(draw: st.DrawFn, doc: Any, max_edits: int = 3) -> Any:
    """``doc`` with one to ``max_edits`` fields replaced by arbitrary values, deleted or wrapped in a list."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, max_edits))):
        path = draw(st.sampled_from(_paths(doc)))
        doc = _set(
            doc,
            path,
            draw(st.sampled_from(["replace", "replace", "delete", "wrap"])) if path else "replace",
            draw(VALUES),
        )
    return doc


def corrupt(text: str, how: str) -> bytes:
    """The serialised text made hostile one way (see CORRUPTIONS)."""
    if how == "deep":
        text = (
            text.replace("[", "[" * 1500 + "[", 1).replace("]", "]" * 1500 + "]", 1)
            if "[" in text
            else "[" * 3000 + text + "]" * 3000
        )
    elif how == "bigint":
        text = text.replace("1", "1" * 4400, 1) if "1" in text else "1" * 4400
    elif how == "nan":
        text = text.replace("0", "NaN", 1) if "0" in text else "NaN"
    elif how == "surrogate":
        text = text.replace('"', '"\\ud800', 1)
    data = text.encode("utf-8")
    if how == "badbyte":
        data = data[: len(data) // 2] + b"\xff\xfe" + data[len(data) // 2 :]
    elif how == "truncate":
        data = data[: len(data) * 2 // 3]
    elif how == "bom":
        data = b"\xef\xbb\xbf" + data
    return data


@st.composite
def hostile_json(draw: st.DrawFn, doc: Any) -> bytes:
    """A mutated, serialised and maybe corrupted version of ``doc``."""
    value = draw(mutated_value(doc))
    return corrupt(json.dumps(value, allow_nan=True), draw(st.sampled_from(CORRUPTIONS)))


@st.composite
def hostile_jsonl(draw: st.DrawFn, rows: list[Any]) -> bytes:
    """JSON lines from ``rows``, one of them mutated and maybe corrupted."""
    index = draw(st.integers(0, len(rows) - 1))
    lines = [json.dumps(row).encode() for row in rows]
    lines[index] = draw(hostile_json(rows[index]))
    return b"\n".join(lines) + b"\n"
