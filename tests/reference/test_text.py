"""Tokenization of the reference engine: stems, identifier terms, symbol keys, kinds."""

from __future__ import annotations

import pytest

from workbench.code.kinds import file_kind
from workbench.reference.text import identifier_terms, stem, symbol_keys, terms


@pytest.mark.parametrize(
    "words",
    [
        ("parse", "parser", "parsing", "parsed"),
        ("validate", "validation", "validator", "validating"),
        ("cancel", "cancelled", "cancellation", "canceling"),
        ("install", "installer", "installation", "installing"),
        ("verify", "verification", "verified"),
        ("order", "orders", "ordering"),
    ],
)
def test_inflections_share_one_stem(words):
    assert len({stem(w) for w in words}) == 1, {w: stem(w) for w in words}


def test_distinct_words_keep_distinct_stems():
    assert len({stem(w) for w in ("user", "order", "payment", "refund", "invoice")}) == 5


def test_identifier_terms_split_and_join():
    assert identifier_terms("EventService") == ("event", stem("service"), stem("eventservice"))
    assert identifier_terms("base64") == ("base", "base64")  # digits live only in the joined form
    assert identifier_terms("get_the_user") == ("user", stem("gettheuser"))  # stop words dropped


def test_terms_drop_stop_words_and_fold_plurals():
    assert terms("fix the users service") == ["user", stem("service")]


def test_symbol_keys_meet_any_spelling():
    keys = set(symbol_keys("changePassword"))
    assert set(symbol_keys("change_password")) == keys
    assert "".join(stem(w) for w in ("changing", "password")) in keys


@pytest.mark.parametrize(
    "path,kind",
    [
        ("src/orders/orders.controller.ts", "controller"),
        ("src/orders/orders.service.spec.ts", "test"),
        ("tests/test_tax.py", "test"),
        ("internal/stock/stock_test.go", "test"),
        ("src/locales/de.json", "translation"),
        ("locales/fr/checkout.json", "translation"),
        ("po/es.po", "translation"),
        ("billing/services/users_service.py", "service"),
        ("src/components/Cart.tsx", "component"),
        ("migrations/0001_init.sql", "migration"),
        ("README.md", "doc"),
        ("package.json", "manifest"),
        ("tsconfig.json", "config"),
        ("lib/commands/install.js", "source"),
    ],
)
def test_file_kinds(path, kind):
    assert file_kind(path) == kind


def test_run_together_names_split_into_known_words():
    from workbench.reference.fields import compound_parts, path_fields

    words = frozenset({"arg", "parse", "http", "util", "file", "tar"})
    assert compound_parts("argparse", words) == ["arg", "parse"]
    assert compound_parts("parse", words) == []  # a known word stays whole
    assert compound_parts("zebrafile", words) == []  # every part must be known
    name, folders = path_fields("net/httputil/tarfile.go", words)
    assert {"tar", "file", "tarfil"} <= set(name) and {"http", "util"} <= set(folders)
