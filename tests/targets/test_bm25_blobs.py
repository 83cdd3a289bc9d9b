"""The bm25 control's per-blob counts are the counts of its documents' tokens, whatever the bytes.

``bm25_blobs.blob_terms`` tokenizes each line once, sums a document's counts from its lines and parses a
file once when its bytes are its text; these tests hold it to the plain definitions: ``Counter(tokens(chunk))``
for each of ``file_chunks`` and ``bm25_symbols.definitions`` of the bytes (CRLF, lone CR, invalid UTF-8,
blank tails and nested definitions included)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.reference.text import tokens
from workbench.targets import bm25_symbols, okapi
from workbench.targets.bm25_blobs import blob_terms, file_chunks

PROPERTY = settings(max_examples=150, derandomize=True, deadline=None)
BLOCKS = [  # each valid at module level, so the Python files parse and have definitions
    ["import os"],
    ["@cached", "def parse_config(path):", "    '''Read the config file.'''", "    return load(path)  # HTTPServer v2"],
    [
        "class UserStore:",
        "    def find_users(self, user_id):",
        "        def inner():",
        "            return self.users[user_id]",
        "        return inner",
    ],
    ["", "   "],
    ["x = parseConfig(users)"],
    ["caf\u00e9 = 'na\u00efve'"],
    ["function loadUsers(ids) {", "  return ids.map(findUser);", "}"],
]


def _as_dicts(bag: okapi.Bag) -> list[dict[int, int]]:
    return [
        dict(zip(bag.ids[a:b].tolist(), bag.tf[a:b].tolist(), strict=True))
        for a, b in zip(bag.ptr[:-1], bag.ptr[1:], strict=True)
    ]


def _counted(terms: list[str]) -> dict[int, int]:
    found: Counter[int] = Counter(okapi.term_ids(terms).tolist())
    return dict(found)


def _expected(rel: str, data: bytes) -> tuple[list[dict[int, int]], list[str], list[dict[int, int]]]:
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    chunks = [_counted(tokens(chunk)) for chunk in file_chunks(rel, text)]
    found = bm25_symbols.definitions(rel, data)
    return chunks, [name for name, _ in found], [_counted(list(counts.elements())) for _, counts in found]


@given(
    blocks=st.lists(st.sampled_from(BLOCKS), max_size=6),
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=30, max_size=30),
    junk=st.booleans(),
    rel=st.sampled_from(["pkg/mod.py", "notes.txt", "web/app.js"]),
)
@PROPERTY
def test_blob_terms_are_the_token_counts_of_each_chunk_and_definition(
    blocks: list[list[str]], ends: list[str], junk: bool, rel: str
) -> None:
    lines = [line for block in blocks for line in block]
    data = "".join(line + end for line, end in zip(lines, ends, strict=False)).encode()
    if junk:
        data += b"\xff\xfe bad_bytes = 1\n"
    found = blob_terms(rel, data)
    chunks, names, definitions = _expected(rel, data)
    assert _as_dicts(found.chunks) == chunks
    assert list(found.names) == names
    assert _as_dicts(found.definitions) == definitions


def test_a_file_of_definitions_only_has_no_outside_chunk_and_an_empty_file_one() -> None:
    data = b"def a():\n    return 1\n\n\ndef b():\n    pass\n"
    assert blob_terms("m.py", data).chunks.size == 2
    assert blob_terms("m.py", b"").chunks.size == 1  # a file without definitions is one chunk
    assert blob_terms("m.py", b"").definitions.size == 0


def test_term_ids_are_stable_and_distinct_for_distinct_terms() -> None:
    ids = okapi.term_ids(["parse", "config", "parse"])
    assert ids.dtype == np.uint64 and ids[0] == ids[2] != ids[1]
    assert int(ids[0]) == int.from_bytes(__import__("hashlib").blake2b(b"parse", digest_size=8).digest(), "little")
