"""The random and bm25 controls."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.contract import Pack, Repo, SearchHit, capabilities
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
    assert len(target.context_pack("order", [repo], 1).primary) == 1
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
