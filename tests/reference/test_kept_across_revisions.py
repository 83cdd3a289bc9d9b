"""What a run over history keeps in memory from one revision for the next (issue 40) gives the values
the plain computation gives, whatever was kept before: the bm25 control's line term ids and document
counts, the symbols' body counts and the symbol table's name terms and lookup keys."""

from __future__ import annotations

import pickle

import numpy as np

from workbench.reference import bodies, symtable
from workbench.reference.extract import content_terms
from workbench.reference.text import split_identifier, stem, tokens
from workbench.targets import bm25_blobs, okapi

VERSION_1 = (
    '"""Users."""\n\nimport os\n\n\n@cached\ndef load_users(path):\n    """Read them."""\n'
    "    return os.listdir(path)\n\n\nclass UserStore:\n    def find(self, user_id):\n"
    "        return self.users[user_id]\n"
)
VERSION_2 = VERSION_1.replace("Read them.", "Read the users file.") + "\n\ndef save_users(users):\n    pass\n"


def test_line_ids_are_each_lines_tokens_whatever_lines_were_seen_before() -> None:
    for text in (VERSION_1, VERSION_2, VERSION_2 + "\n\n  tab\tsep   words  \n"):
        lines = bm25_blobs._Lines(text)
        assert lines.at.dtype == np.int64 and lines.ids.dtype == np.uint64
        for i, line in enumerate(text.split("\n")):
            want = okapi.term_ids([t for piece in line.split() for t in tokens(piece)])
            assert lines.ids[lines.at[i] : lines.at[i + 1]].tolist() == want.tolist()
        assert len(lines.ids) == lines.at[-1]


SYMBOLS_1 = [("load_users", "function", 6), ("UserStore", "class", 12), ("UserStore.find", "method", 13)]


def _plain_bodies(data: bytes, symbols: list[tuple[str, str, int]]) -> list[tuple[dict[str, int], int]]:
    distinct = list(dict.fromkeys(symbols))
    spans = bodies.spans(data, [line for _, _, line in distinct])
    return [(content_terms(data[a:b]), data.count(b"\n", a, b)) for a, b in spans]


def test_body_counts_kept_for_the_next_version_equal_a_fresh_count() -> None:
    bodies._terms.cache_clear()
    first = VERSION_1.encode()
    found, content = bodies.bodies_and_content(first, SYMBOLS_1)
    assert found == _plain_bodies(first, SYMBOLS_1) and content == content_terms(first)
    assert list(content) == list(content_terms(first))  # the terms' order too
    found[0][0]["mutated"] = 99  # a caller's copy: nothing kept changes
    content["mutated"] = 99
    second = VERSION_2.encode()
    symbols = [*SYMBOLS_1, ("save_users", "function", second.count(b"\n", 0, second.index(b"def save")) + 1)]
    again, content = bodies.bodies_and_content(second, symbols)
    assert bodies._terms.cache_info().hits > 0
    assert again == _plain_bodies(second, symbols) and content == content_terms(second)
    assert pickle.dumps(again) == pickle.dumps(_plain_bodies(second, symbols))  # stored as before, byte for byte


def test_name_terms_kept_while_the_words_stay_equal_the_plain_ones() -> None:
    names = symtable._Names()
    words = symtable.compound_words(["url_open", "copy_tree"])
    first = names.terms(["urlopen", "copytree", "url_open"], words)
    assert first == {m: symtable.name_terms(m, words) for m in first}
    assert names.terms(["copytree"], words)["copytree"] is first["copytree"]  # kept
    other = frozenset(words | {"tree"})
    assert names.terms(["copytree"], other) == {"copytree": symtable.name_terms("copytree", other)}


def _plain_keys(split: list[tuple[str, str, str]]) -> dict[str, list[int]]:
    """``_lookup_keys`` as it read before names' parts were kept across tables."""
    joined = {}
    for name in dict.fromkeys(part for owner, _, member in split for part in (owner, member)):
        parts = split_identifier(name)
        joined[name] = ("".join(parts), "".join(stem(p) for p in parts))
    keys: dict[str, list[int]] = {}
    for sid, (owner, _, member) in enumerate(split):
        found = set(joined[member])
        if owner:
            found |= {a + b for a, b in zip(joined[owner], joined[member], strict=True)}
        for key in found:
            keys.setdefault(key, []).append(sid)
    return keys


def test_lookup_keys_kept_across_tables_equal_the_plain_ones() -> None:
    names = ["UserStore.find_users", "load_users", "UserStore", "Loader.load_users", "parsing"]
    for _ in range(2):  # the second time from what the first kept
        split = [name.rpartition(".") for name in names]
        assert {k: sorted(v) for k, v in symtable._lookup_keys(split).items()} == {
            k: sorted(v) for k, v in _plain_keys(split).items()
        }


def _plain_bag(documents: list[np.ndarray]) -> okapi.Bag:
    """``bm25_blobs._bag`` as it read before documents' counts were kept: one sort for them all."""
    doc = np.repeat(np.arange(len(documents), dtype=np.int64), [len(ids) for ids in documents])
    ids = np.concatenate(documents).astype(np.uint64) if documents else np.zeros(0, dtype=np.uint64)
    order = np.lexsort((ids, doc))
    ids, doc = ids[order], doc[order]
    first = np.ones(len(ids), dtype=bool)
    first[1:] = (ids[1:] != ids[:-1]) | (doc[1:] != doc[:-1])
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, len(ids)))
    counts = counts.astype(np.min_scalar_type(int(counts.max()) if len(counts) else 0))
    ptr = np.searchsorted(doc[starts], np.arange(len(documents) + 1)).astype(np.int64)
    return okapi.Bag(ptr, ids[starts], counts)


def test_bags_from_kept_document_counts_equal_one_sort_of_them_all() -> None:
    rng = np.random.default_rng(7)
    words = okapi.term_ids([f"w{i}" for i in range(40)])
    docs = [rng.choice(words, size=n) for n in (0, 1, 5, 300, 17)]
    for documents in ([], [docs[0]], docs, [*docs[::-1], docs[3], docs[0]], [np.repeat(words[:1], 70_000)]):
        for _ in range(2):  # the second time from what the first kept
            got, want = bm25_blobs._bag(documents), _plain_bag(documents)
            for a, b in ((got.ptr, want.ptr), (got.ids, want.ids), (got.tf, want.tf)):
                assert a.dtype == b.dtype and a.tolist() == b.tolist()
