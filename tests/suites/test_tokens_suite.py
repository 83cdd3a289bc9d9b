"""The token-savings suite: the naive dump's definition, pack counting, labels, scoring and aggregation."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from workbench.columns import CASE, METRIC, PASSED, VALUE
from workbench.contract import FileRef, Pack
from workbench.corpus import Corpus
from workbench.errors import TargetError
from workbench.suites.base import Outcome, RunContext
from workbench.suites.tokens import METRICS, TokensSuite, expected_primary, header, naive_dump, naive_plan, pack_tokens
from workbench.tokens import TokenCounter, count_tokens

from ..conftest import write_tree

FILES = {
    "README.md": "# shop\nA tiny shop API.\n",
    "package.json": '{"name": "shop", "dependencies": {"express": "^4"}}\n',
    "docs/guide.md": "How to run the shop.\n",
    "src/app.ts": "import { orders } from './orders';\nexport const app = orders;\n",
    "src/orders.ts": "export function orders() {\n  return [{ id: 1, total: 20 }];\n}\n" * 3,
    "src/payment.ts": "export function refund(id: number) {\n  return { id, refunded: true };\n}\n",
    "web/package.json": '{"name": "web"}\n',
    "web/README.md": "# web\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "shop", FILES)


def _file(root: Path, rel: str) -> int:
    return count_tokens(header(rel)) + count_tokens((root / rel).read_text())


def test_naive_plan_reads_manifests_then_root_readmes_then_sources() -> None:
    listing = sorted(FILES)
    always, sources = naive_plan(listing)
    assert always == ["package.json", "web/package.json", "README.md"]
    assert sources == ["src/app.ts", "src/orders.ts", "src/payment.ts"]


def test_naive_dump_is_listing_plus_always_read_plus_sources(repo: Path) -> None:
    listing = count_tokens("".join(f"{rel}\n" for rel in sorted(FILES)))
    fixed = listing + sum(_file(repo, r) for r in ("package.json", "web/package.json", "README.md"))
    sources = [_file(repo, r) for r in ("src/app.ts", "src/orders.ts", "src/payment.ts")]
    whole = naive_dump(repo, TokenCounter(), budget=10_000)
    assert (whole.tokens, whole.truncated) == (fixed + sum(sources), False)
    assert whole.files[-3:] == ("src/app.ts", "src/orders.ts", "src/payment.ts")
    cut = naive_dump(repo, TokenCounter(), budget=fixed + sources[0] + 1)
    assert cut.tokens == fixed + sources[0] + 1 and cut.truncated
    assert cut.files[-2:] == ("src/app.ts", "src/orders.ts")
    over = naive_dump(repo, TokenCounter(), budget=5)
    assert over.tokens == fixed and over.truncated and "src/app.ts" not in over.files


def test_pack_tokens_counts_text_or_files_once_each(repo: Path) -> None:
    counter, roots = TokenCounter(), {"shop": repo}
    assert pack_tokens(Pack(text="hello world"), roots, counter) == (2, "text", [])
    pack = Pack(
        primary=[FileRef("shop", "src/payment.ts"), FileRef("shop", "src/payment.ts")],
        related=[FileRef("shop", "src/orders.ts")],
    )
    expected = _file(repo, "src/payment.ts") + _file(repo, "src/orders.ts")
    assert pack_tokens(pack, roots, counter) == (expected, "files", [])


def test_pack_tokens_reports_missing_and_escaping_files(repo: Path) -> None:
    (repo.parent / "secret.txt").write_text("outside the repository\n")
    pack = Pack(primary=[FileRef("shop", "src/nope.ts"), FileRef("shop", "../secret.txt"), FileRef("other", "a.ts")])
    tokens, source, missing = pack_tokens(pack, {"shop": repo}, TokenCounter())
    assert missing == ["shop/src/nope.ts", "shop/../secret.txt", "other/a.ts"]
    assert tokens == sum(count_tokens(header(r)) for r in ("src/nope.ts", "../secret.txt", "a.ts"))


def test_expected_primary_from_the_case_or_the_matching_retrieval_case() -> None:
    retrieval = [
        {"name": "r1", "repoFixture": "shop", "query": "refund a payment", "expectedPrimary": ["src/payment.ts"]},
        {
            "name": "r2",
            "repoFixtures": ["shop", "web"],
            "query": "refund a payment",
            "expectedPrimary": ["web/src/x.ts"],
        },
    ]
    own = {"name": "t", "repoFixture": "shop", "query": "q", "expectedPrimary": ["a.ts"]}
    assert expected_primary(own, retrieval) == (["a.ts"], "case")
    borrowed = {"name": "t", "repoFixture": "shop", "query": " refund a payment "}
    assert expected_primary(borrowed, retrieval) == (["src/payment.ts"], "retrieval:r1")
    multi = {"name": "t", "repoFixtures": ["shop", "web"], "query": "refund a payment"}
    assert expected_primary(multi, retrieval) == (["web/src/x.ts"], "retrieval:r2")
    assert expected_primary({"name": "t", "repoFixture": "web", "query": "refund a payment"}, retrieval) == (None, None)


class Packer:
    """A target that answers every query with the same pack."""

    name, version = "fixed", "1"

    def __init__(self, pack: object) -> None:
        self.pack = pack
        self.calls: list[tuple[str, list, int]] = []

    def context_pack(self, query: str, repos: list, limit: int) -> object:
        self.calls.append((query, repos, limit))
        return self.pack


@pytest.fixture
def ctx(repo: Path) -> RunContext:
    data = {
        "k": 5,
        "retrieval": [
            {"name": "r", "repoFixture": "shop", "query": "refund a payment", "expectedPrimary": ["src/payment.ts"]}
        ],
    }
    return RunContext(corpus=Corpus(path=repo.parent / "corpus.json", data=data, sha256="", fixtures={"shop": repo}))


def test_run_case_asks_for_eight_files_and_counts_both_sides(ctx: RunContext, repo: Path) -> None:
    target = Packer(Pack(primary=[FileRef("shop", "src/payment.ts")]))
    suite = TokensSuite(budget=10_000)
    seen = suite.run_case(target, {"name": "t", "repoFixture": "shop", "query": "refund a payment"}, ctx)
    ((query, repos, limit),) = target.calls
    assert (query, limit, repos[0].name, repos[0].path) == ("refund a payment", 8, "shop", repo)
    assert seen["primary"] == ["src/payment.ts"] and seen["pack_source"] == "files"
    assert seen["pack_tokens"] == _file(repo, "src/payment.ts")
    assert seen["naive_tokens"] == naive_dump(repo, TokenCounter(), 10_000).tokens
    assert suite.counter.hits > 0  # the pack's file was already counted for the dump


def test_run_case_rejects_a_non_pack(ctx: RunContext) -> None:
    with pytest.raises(TargetError, match="expected a Pack"):
        TokensSuite().run_case(Packer(["src/payment.ts"]), {"name": "t", "repoFixture": "shop", "query": "q"}, ctx)


def _observed(primary: list[str], pack: int, naive: int) -> dict:
    return {
        "primary": primary,
        "related": [],
        "pack_source": "files",
        "pack_tokens": pack,
        "missing_files": [],
        "naive_tokens": naive,
        "naive_files": 4,
        "naive_truncated": False,
    }


def _outcomes() -> list[Outcome]:
    labelled = {"name": "right", "repoFixture": "shop", "query": "refund a payment"}
    wrong = {"name": "wrong", "repoFixture": "shop", "query": "q2", "expectedPrimary": ["src/payment.ts"]}
    free = {"name": "unlabelled", "repoFixture": "shop", "query": "q3"}
    broken = {"name": "broken", "repoFixture": "shop", "query": "q4", "expectedPrimary": ["src/app.ts"]}
    return [
        Outcome(labelled, _observed(["src/payment.ts"], 100, 400)),
        Outcome(wrong, _observed(["src/orders.ts"], 100, 400)),
        Outcome(free, _observed(["src/app.ts"], 300, 400)),
        Outcome(broken, None, error="TargetError: timed out"),
    ]


def _wide(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.pivot(index=CASE, columns=METRIC, values=VALUE)


def test_score_rows_metrics_and_errored_cases(ctx: RunContext) -> None:
    scored = TokensSuite().score(_outcomes(), ctx)
    wide = _wide(scored.scores)
    assert set(scored.scores[METRIC]) == set(METRICS) and len(scored.scores) == 4 * len(METRICS)
    assert wide.loc["right", ["pack_tokens", "naive_tokens", "savings", "recallAtK"]].tolist() == [100, 400, 0.75, 1.0]
    assert wide.loc["wrong", "savings"] == 0.75 and wide.loc["wrong", "recallAtK"] == 0.0
    assert math.isnan(wide.loc["unlabelled", "recallAtK"])
    assert wide.loc["broken", "savings"] == 0.0 and wide.loc["broken", "recallAtK"] == 0.0
    assert math.isnan(wide.loc["broken", "pack_tokens"])
    rows = {row["case"]: row for row in scored.case_rows}
    assert [rows[n][PASSED] for n in ("right", "wrong", "unlabelled", "broken")] == [True, False, True, False]
    assert rows["right"]["labels_from"] == "retrieval:r" and rows["unlabelled"]["recallAtK"] is None
    assert rows["broken"]["pack_tokens"] is None and rows["broken"]["expected"] == ["src/app.ts"]


def test_an_empty_pack_never_passes(ctx: RunContext) -> None:
    case = {"name": "empty", "repoFixture": "shop", "query": "q"}
    scored = TokensSuite().score([Outcome(case, _observed([], 0, 400) | {"pack_source": "files"})], ctx)
    assert scored.case_rows[0][PASSED] is False and scored.case_rows[0]["savings"] == 1.0


def test_aggregate_separates_savings_from_accuracy(ctx: RunContext) -> None:
    suite = TokensSuite()
    scored = suite.score(_outcomes(), ctx)
    summary = suite.aggregate(scored.scores, pd.DataFrame(scored.case_rows))
    assert summary["meanSavings"] == pytest.approx((0.75 + 0.75 + 0.25 + 0.0) / 4)
    assert summary["medianSavings"] == pytest.approx(0.5)
    assert summary["pooledSavings"] == pytest.approx(1 - 500 / 1200)
    assert summary["meanRecall"] == pytest.approx(1 / 3)
    assert summary["recallWeightedSavings"] == pytest.approx(0.75 / 3)


def test_aggregate_of_nothing_is_null(ctx: RunContext) -> None:
    suite = TokensSuite()
    scored = suite.score([], ctx)
    assert set(suite.aggregate(scored.scores, pd.DataFrame()).values()) == {None}
