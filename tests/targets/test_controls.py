"""The random and bm25 controls."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.contract import GoldScope, Pack, Repo, SearchHit, capabilities
from workbench.errors import TargetError
from workbench.targets.controls import RANDOM_PRIMARY, Bm25Target, RandomTarget


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    files = {
        "src/orders/orderService.ts": "export function cancelOrder(orderId) { return refundPayment(orderId); }\n",
        "src/users/user_repository.py": "def find_user(user_id):\n    return USERS[user_id]\n",
        "src/payments/refunds.go": "package payments\nfunc RefundPayment() {}\n",
        "README.md": "Orders, users and payments.\n",
        "docs/guide.md": "How to cancel an order.\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return Repo("shop", tmp_path)


def test_random_is_deterministic_per_seed_query_and_repos(repo: Repo):
    first = RandomTarget(seed=1).context_pack("cancel an order", [repo], 8)
    assert first == RandomTarget(seed=1).context_pack("cancel an order", [repo], 8)
    draws = {
        tuple(r.path for r in RandomTarget(seed=s).context_pack("cancel an order", [repo], 8).primary) for s in range(6)
    }
    assert len(draws) > 1
    assert len(first.primary) == RANDOM_PRIMARY
    every = [r.path for r in first.primary + first.related]
    assert len(every) == len(set(every)) == 5  # never more files than the repository has


def test_random_draws_the_same_wherever_the_checkout_lives(repo: Repo, tmp_path_factory: pytest.TempPathFactory):
    import shutil

    moved = tmp_path_factory.mktemp("elsewhere") / "clone"
    shutil.copytree(repo.path, moved)
    here = RandomTarget(seed=3).context_pack("cancel an order", [repo], 8)
    assert RandomTarget(seed=3).context_pack("cancel an order", [Repo("shop", moved)], 8) == here


def test_random_respects_the_limit(repo: Repo):
    result = RandomTarget().context_pack("anything", [repo], 2)
    assert len(result.primary) + len(result.related) == 2


def test_bm25_ranks_code_aware_tokens(repo: Repo):
    result = Bm25Target().context_pack("find user", [repo], 8)
    assert isinstance(result, Pack) and result.primary[0].path == "src/users/user_repository.py"
    camel = Bm25Target().context_pack("order service", [repo], 8)
    assert camel.primary[0].path == "src/orders/orderService.ts"
    assert Bm25Target().context_pack("zebra", [repo], 8).primary == []


def test_bm25_limit_and_search(repo: Repo):
    target = Bm25Target()
    assert len(target.context_pack("cancel order", [repo], 1).primary) == 1
    hits = target.search("refund payment", repo, 2)
    assert all(isinstance(h, SearchHit) for h in hits) and len(hits) == 2
    assert hits[0].file in {"src/payments/refunds.go", "src/orders/orderService.ts"}
    assert hits[0].score >= hits[1].score


def test_bm25_notices_edits(repo: Repo):
    target = Bm25Target()
    assert target.context_pack("zebra", [repo], 8).primary == []
    (Path(repo.path) / "src/zebra.py").write_text("zebra = 1\n")
    assert target.context_pack("zebra", [repo], 8).primary[0].path == "src/zebra.py"


def test_controls_name_their_capabilities_and_reject_missing_repos(tmp_path: Path):
    assert capabilities(RandomTarget()) == {"context_pack"}
    assert capabilities(Bm25Target()) == {"context_pack", "search"}
    with pytest.raises(TargetError, match="not found"):
        Bm25Target().context_pack("x", [Repo("gone", tmp_path / "gone")], 8)


SCOPE = GoldScope(("tests", "docs", "examples", "generated", "non-code"))


@pytest.fixture
def scoped(tmp_path: Path) -> Repo:
    files = {
        "src/cart/checkout.py": "def checkout(cart):\n    return total(cart) + shipping(cart)\n",
        "src/cart/total.py": "def total(cart):\n    return sum(item.price for item in cart)\n",
        "src/cart/shipping.py": "def shipping(cart):\n    return 0 if total(cart) > 50 else 5\n",
        "tests/test_checkout.py": "def test_checkout():\n    assert checkout(cart) == total + shipping\n",
        "docs/checkout.md": "Checkout adds the total and the shipping of the cart.\n",
        "examples/checkout_demo.py": "print(checkout(cart), total(cart), shipping(cart))\n",
        "dist/cart.min.js": "function checkout(cart){return total(cart)+shipping(cart)}\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return Repo("cart", tmp_path)


def test_bm25_scores_are_rank_bm25_okapi_over_the_chunks_of_the_files_the_scope_allows(scoped: Repo) -> None:
    from rank_bm25 import BM25Okapi

    from workbench.reference.text import tokens
    from workbench.targets.controls import file_chunks

    allowed = ["src/cart/checkout.py", "src/cart/shipping.py", "src/cart/total.py"]
    owners, docs = [], []
    for path in allowed:
        for chunk in file_chunks(path, (Path(scoped.path) / path).read_text()):
            owners.append(path)
            docs.append(tokens(path.replace("/", " ")) + tokens(chunk))
    query = "checkout adds the shipping to the cart total twice when the cart total is small"
    scores = BM25Okapi(docs).get_scores(tokens(query))
    expected: dict[str, list[float]] = {}
    for owner, score in zip(owners, scores, strict=True):
        if score > 0:
            expected.setdefault(owner, []).append(score)
    ranked = Bm25Target()._ranked(query, scoped, SCOPE)
    assert {path for path, _ in ranked} == set(expected) and len(docs) == 3  # one definition per file
    assert all(abs(score - sum(sorted(expected[path])[-3:])) < 1e-6 for path, score in ranked)
    pack = Bm25Target().context_pack(query, [scoped], 8, gold_scope=SCOPE)
    assert [r.path for r in pack.primary] == [p for p, _ in ranked]


def test_a_file_is_chunked_by_its_outermost_definitions_and_the_rest() -> None:
    from workbench.targets.controls import file_chunks

    text = "import os\n\nclass A:\n    def m(self):\n        pass\n\ndef f():\n    return 1\n\nX = 2\n"
    assert file_chunks("a.py", text) == [
        "class A:\n    def m(self):\n        pass",
        "def f():\n    return 1",
        "import os\n\n\n\nX = 2\n",
    ]
    go = "package p\n\ntype T struct{}\n\nfunc (t T) Run() {}\n\nfunc main() {}\n"
    assert file_chunks("m.go", go)[:3] == ["type T struct{}", "func (t T) Run() {}", "func main() {}"]
    assert file_chunks("notes.txt", "just words") == ["just words"]


def test_controls_without_a_scope_see_every_file(scoped: Repo) -> None:
    every = {r.path for r in Bm25Target().context_pack("checkout cart", [scoped], 20).primary}
    assert {"tests/test_checkout.py", "examples/checkout_demo.py", "docs/checkout.md"} <= every
    drawn = RandomTarget().context_pack("checkout", [scoped], 8, gold_scope=SCOPE)
    assert {r.path for r in drawn.primary + drawn.related} <= {
        "src/cart/checkout.py",
        "src/cart/shipping.py",
        "src/cart/total.py",
    }


def test_guess_ranks_paths_without_reading_a_file(scoped: Repo) -> None:
    from workbench.targets.guess import GuessTarget

    target = GuessTarget()
    assert capabilities(target) == {"context_pack"}
    pack = target.context_pack("shipping is charged on a free order", [scoped], 8, gold_scope=SCOPE)
    assert [r.path for r in pack.primary] == ["src/cart/shipping.py"]  # only its path shares a word
    assert target.context_pack("the total is rounded", [scoped], 8).primary[0].path == "src/cart/total.py"
    for rel in ("src/cart/shipping.py", "src/cart/total.py"):
        (Path(scoped.path) / rel).write_text("zebra\n")  # contents never matter
    assert target.context_pack("zebra", [scoped], 8).primary == []
