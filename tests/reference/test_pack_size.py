"""The pack's size follows its scores: filled while they stay flat, cut where they drop."""

from __future__ import annotations

from pathlib import Path

from workbench.reference import build_pack
from workbench.reference.pack import MAX_PRIMARY

from ..conftest import write_repo


def test_a_flat_distribution_fills_the_pack(tmp_path: Path):
    files = {f"src/billing_{i}.py": f"def invoice_total_{i}(invoice):\n    return invoice.total\n" for i in range(4)}
    files["src/other.py"] = "def unrelated():\n    return 1\n"
    pack = build_pack("invoice total", [write_repo(tmp_path, files)])
    assert {ref.path for ref in pack.primary} == {f"src/billing_{i}.py" for i in range(4)}


def test_the_pack_stops_where_scores_drop(tmp_path: Path):
    files = {"src/refunds.py": "class RefundPolicy:\n    def refund_window(self):\n        return 'refund window'\n"}
    files |= {
        f"src/mod_{i}.py": f"def helper_{i}():\n    # the window of the widget {i}\n    return {i}\n" for i in range(6)
    }
    pack = build_pack("refund window policy", [write_repo(tmp_path, files)])
    assert [ref.path for ref in pack.primary][0] == "src/refunds.py"
    assert len(pack.primary) < MAX_PRIMARY


def test_docs_and_config_fill_no_place_after_the_first(tmp_path: Path):
    files = {
        "src/cache.py": "def cache_expiry():\n    return 'cache expiry'\n",
        "README.md": "cache expiry cache expiry\n",
        "settings.yaml": "cache_expiry: 3\n",
        "src/store.py": "def store_cache_expiry():\n    return 'cache'\n",
    }
    pack = build_pack("cache expiry", [write_repo(tmp_path, files)])
    paths = [ref.path for ref in pack.primary]
    assert paths[0] == "src/cache.py" and "src/store.py" in paths
    assert "README.md" not in paths[1:] and "settings.yaml" not in paths[1:]


def test_the_text_shows_the_head_in_full_and_the_fill_as_outlines(tmp_path: Path):
    files = {
        "app/checkout.py": "from app.ledger import post\n\ndef checkout_cart(cart):\n    return post(cart)\n",
        "app/ledger.py": "def post(entry):\n    return entry\n\n\ndef reverse(entry):\n    return -entry\n",
    }
    pack = build_pack("checkout cart", [write_repo(tmp_path, files)])
    assert [ref.path for ref in pack.primary] == ["app/checkout.py", "app/ledger.py"]
    assert "def checkout_cart(cart):" in pack.text  # the match, in full
    assert "return -entry" not in pack.text and "function reverse (line 5)" in pack.text  # the fill, outlined
