"""The symbol-level rule (issue 21): bare labels match qualified hits by their last dotted part in
the same file, qualified labels need the full name; Acc@k, Recall@k and MRR worked by hand."""

from __future__ import annotations

import pytest

from workbench.analysis.symbols import first_ranks, split_label, symbol_matches, symbol_scores
from workbench.suites.ranking import item_matches


@pytest.mark.parametrize(
    ("label", "name", "matches"),
    [
        ("putheader", "HTTPConnection.putheader", True),  # bare label, qualified hit
        ("putheader", "putheader", True),
        ("HTTPConnection.putheader", "HTTPConnection.putheader", True),
        ("HTTPConnection.putheader", "putheader", False),  # a qualified label needs the qualified name
        ("HTTPConnection.putheader", "HTTPSConnection.putheader", False),
        ("Inner.run", "Outer.Inner.run", False),
        ("run", "Outer.Inner.run", True),
        ("header", "HTTPConnection.putheader", False),  # a whole part, not a suffix
        ("HTTPConnection", "HTTPConnection.putheader", False),  # the class is not its method
        ("", "x", False),
    ],
)
def test_symbol_matches(label: str, name: str, matches: bool) -> None:
    assert symbol_matches(label, name) is matches


def test_ranking_labels_use_the_same_rule() -> None:
    assert item_matches("client.py", "HTTPConnection.putheader", ("client.py", "putheader"))
    assert not item_matches("server.py", "HTTPConnection.putheader", ("client.py", "putheader"))  # same file only
    assert not item_matches("client.py", "putheader", ("client.py", "HTTPConnection.putheader"))


def test_split_label_takes_the_last_colon() -> None:
    assert split_label("src/a.py:Client.connect") == ("src/a.py", "Client.connect")
    assert split_label("odd:dir/a.py:f") == ("odd:dir/a.py", "f")


def test_hand_worked_scores() -> None:
    # gold: two symbols; returned, best first: a miss, the first gold (bare label, qualified hit),
    # a hit in the wrong file, then the second gold at rank 4.
    gold = ["a.py:connect", "b.py:Store.items"]
    returned = [("a.py", "Client.close"), ("a.py", "Client.connect"), ("c.py", "Store.items"), ("b.py", "Store.items")]
    assert first_ranks(returned, gold) == [2, 4]
    assert symbol_scores(returned, gold, k=3) == {"symbolAccAtK": 0.0, "symbolRecallAtK": 0.5, "symbolMrr": 0.5}
    assert symbol_scores(returned, gold, k=4) == {"symbolAccAtK": 1.0, "symbolRecallAtK": 1.0, "symbolMrr": 0.5}
    assert symbol_scores(returned, gold, k=1) == {"symbolAccAtK": 0.0, "symbolRecallAtK": 0.0, "symbolMrr": 0.0}
    assert symbol_scores([], gold, k=5) == {"symbolAccAtK": 0.0, "symbolRecallAtK": 0.0, "symbolMrr": 0.0}
