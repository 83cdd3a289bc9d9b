"""Context packs of the reference engine: each query shape, demotion, pairing, fallback, rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Repo
from workbench.reference import build_pack, format_pack, pack_to_json
from workbench.reference import index as index_module
from workbench.reference.pack import MAX_PRIMARY

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "reference-cache"))


def pack(query: str, *names: str, limit: int = 8):
    return build_pack(query, [Repo(name, FIXTURES / name) for name in names], limit)


def primary(query: str, *names: str) -> list[str]:
    return [ref.path for ref in pack(query, *names).primary]


@pytest.mark.parametrize(
    "query,fixture,first",
    [
        # a named file, by base name or by path
        ("why does users.service.ts hash with bcrypt", "shop-api", "src/users/users.service.ts"),
        ("look at internal/stock/ledger.go", "go-inventory", "internal/stock/ledger.go"),
        # a named symbol, whatever its spelling
        ("PaymentsService.refund passes the wrong reason", "shop-api", "src/payments/payments.service.ts"),
        ("user_repository saves stale users", "py-billing", "billing/repositories/user_repository.py"),
        # an error message: the code that raises it
        ('"Insufficient stock for SKU" when the shelf is full', "shop-api", "src/inventory/inventory.service.ts"),
        ('error: unknown destination warehouse "xyz"', "go-inventory", "internal/warehouse/transfer.go"),
        # demotion: code first, unless the task is about tests or translations
        ("stock reservation logic oversells", "go-inventory", "internal/stock/stock.go"),
        ("stock reservation test oversells", "go-inventory", "internal/stock/stock_test.go"),
        ("French translation of the remove button", "i18n-storefront", "src/locales/fr.json"),
    ],
)
def test_first_primary_file(query: str, fixture: str, first: str):
    assert primary(query, fixture)[0] == first


def test_route_shaped_query_finds_the_handler_not_just_the_routing_table():
    result = pack("GET /skus/{sku}/stock returns zero for new SKUs", "go-inventory")
    assert result.primary[0].path == "internal/http/handlers.go"
    assert "GetStock" in result.primary[0].reason


def test_catalog_message_leads_to_the_component_using_its_key():
    result = pack('customers see "This card has expired" on a valid card', "i18n-storefront")
    assert result.primary[0].path == "src/components/PaymentForm.tsx"
    assert "payment.errors.expired" in result.primary[0].reason


def test_catalogs_stay_out_and_tests_only_come_as_related_tests():
    result = pack("the remove button in the cart summary", "i18n-storefront")
    assert all("locales" not in ref.path for ref in [*result.primary, *result.related])
    assert all(".test." not in ref.path for ref in result.primary)
    tests = [ref for ref in result.related if ".test." in ref.path]
    assert tests and all(ref.reason == "tests src/components/CartSummary.tsx" for ref in tests)


def test_multi_repo_pack_pairs_clients_with_handlers():
    result = pack("the refund button on the order details page", "shop-api", "shop-web")
    found = {(ref.repo, ref.path): ref.reason for ref in [*result.primary, *result.related]}
    assert ("shop-api", "src/orders/orders.controller.ts") in found
    assert "orders/:/refund" in found[("shop-api", "src/orders/orders.controller.ts")]


def test_related_files_come_from_the_import_graph_with_reasons():
    result = pack("OrdersService.create applies the coupon discount", "shop-api")
    assert result.primary[0].path == "src/orders/orders.service.ts"
    related = {ref.path: ref.reason for ref in result.related}
    assert related.get("src/app.module.ts", "").startswith("imports src/orders/orders.service.ts")
    assert all(ref.reason for ref in [*result.primary, *result.related])


@pytest.mark.parametrize("query", ["quantum flux capacitor overheats", "", "???"])
def test_fallback_gives_entry_points_when_nothing_matches(query: str):
    result = pack(query, "fallback-py")
    assert [ref.path for ref in result.primary][:1] == ["weather/main.py"]
    assert result.primary[0].reason.startswith("fallback")


def test_primary_covers_the_concerns_of_the_task_and_stays_bounded():
    result = pack("the loyalty points expiry date", "platform-monorepo")
    assert result.primary[0].path == "packages/loyalty/src/points-expiry.ts"
    assert "packages/loyalty/src/loyalty.service.ts" in [ref.path for ref in result.primary]
    assert len(result.primary) <= MAX_PRIMARY
    assert len(result.primary) + len(result.related) <= 8


def test_limit_bounds_the_whole_pack():
    result = pack("orders service cancel refund", "shop-api", limit=2)
    assert len(result.primary) + len(result.related) <= 2


def test_same_query_same_pack():
    first, second = pack("gift card balance", "platform-monorepo"), pack("gift card balance", "platform-monorepo")
    assert first == second


def test_pack_json_and_terminal_rendering():
    result = pack("notes are sorted wrongly", "express-notes")
    data = pack_to_json(result)
    assert json.loads(json.dumps(data)) == data
    assert set(data) == {"primary", "related", "text"}
    assert all(set(ref) == {"repo", "path", "reason"} for ref in data["primary"] + data["related"])
    listing = format_pack(result)
    assert listing.startswith("primary:") and result.primary[0].path in listing
    assert result.text.startswith(f"=== express-notes/{result.primary[0].path}")


def test_no_corpus_case_or_fixture_leaks_into_the_engine():
    corpus = json.loads((FIXTURES.parent / "corpus" / "corpus.json").read_text())
    engine = "\n".join(p.read_text() for p in Path(index_module.__file__).parent.glob("*.py"))
    needles = set(corpus.get("fixtureRoots", {}))
    for case in corpus.get("retrieval", []):
        needles |= {case["name"], case["query"], *case["expectedPrimary"], *case.get("expectedAnyOf", [])}
    leaked = sorted(n for n in needles if n and n in engine)
    assert leaked == []


@pytest.mark.parametrize("mention", ["EventService", "event_service", "eventService"])
def test_a_name_in_one_convention_finds_a_file_named_in_another(tmp_path: Path, mention: str):
    for rel in ("src/event-service.ts", "src/events.ts", "src/service.ts"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("export const handlers = [];\n")
    result = build_pack(f"{mention} drops messages", [Repo("app", tmp_path)])
    assert result.primary[0].path == "src/event-service.ts"
    assert result.primary[0].reason == f"named in the task ({mention})"


def test_among_equal_matches_the_widely_imported_file_ranks_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from workbench.reference import pack as pack_module

    body = "def exponential_backoff(attempt, jitter):\n    return 2 ** attempt + jitter\n"
    for rel, text in {
        "alpha/__init__.py": "",
        "alpha/util.py": body,
        "shared/__init__.py": "",
        "shared/util.py": body,
        "app/__init__.py": "",
        **{f"app/user{i}.py": "from shared import util\n" for i in range(3)},
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    query = "exponential backoff with jitter"
    ranked = lambda: [r.path for r in build_pack(query, [Repo("r", tmp_path)]).primary]  # noqa: E731
    assert ranked()[0] == "shared/util.py"  # imported by three files; alpha/util.py by none
    monkeypatch.setattr(pack_module, "CENTRALITY", 0.0)
    assert ranked()[0] == "alpha/util.py"  # a tie without the prior: the path order decides
