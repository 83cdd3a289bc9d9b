"""Symbol search of the reference engine, and the shipped ranking golden sets."""

from __future__ import annotations

import json
import multiprocessing
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from workbench.contract import Repo, capabilities
from workbench.corpus import validate_corpus
from workbench.corpus.goldens import load_golden
from workbench.errors import TargetError
from workbench.reference import bodies, symtable
from workbench.reference import index as index_module
from workbench.reference import search as search_module
from workbench.reference.extract import content_terms, extract_file
from workbench.reference.search import runs, search
from workbench.targets.builtin import BuiltinTarget

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus" / "corpus.json"
FILES = {
    "billing/reminders.py": '''"""Reminders for unpaid invoices."""


def send_reminder(invoice):
    """Email the customer that the invoice is overdue."""
    return deliver(invoice.customer, "overdue")


def deliver(to, subject):
    return (to, subject)


def _parse_header(raw):
    return raw.split(":")


def parse_header(raw):
    return _parse_header(raw)
''',
    "billing/notes.py": '''def header_notes():
    """Mentions parse header parse header parse header in its docs."""
    return []
''',
    "stock/ledger.go": """package stock

// Ledger is the history of stock movements.
type Ledger struct{ entries []int }

// Balance sums the movements of one SKU.
func (l *Ledger) Balance() int { return 0 }

type Account struct{}

// Balance is an account's money, nothing to do with stock.
func (a *Account) Balance() int { return 0 }
""",
    "web/cart.ts": """export class Cart {
  /** Total price of the cart in cents, discounts applied. */
  total(): number { return 0; }

  addItem(sku: string): void {}
}

export const MAX_ITEMS = 50;
""",
    "server/pool.py": (
        'def shutdown(workers):\n    return workers\n\n\ndef shut_window():\n    """Shut the window."""\n'
    ),
    "billing/test_reminders.py": "def test_send_reminder_for_overdue_invoice():\n    assert True\n",
    "web/many.ts": "".join(
        f"export function cartHelper{i}(cart: number): number {{ return cart; }}\n" for i in range(6)
    ),
    "web/checkout.ts": "export function checkoutCart(cart: number): number { return cart; }\n",
    "docs/DEPLOYMENT.md": "# Deployment\n\nKubernetes helm chart rollout steps.\n",
    "config/settings.json": '{"kubernetes": {"replicas": 3}}\n',
}


@pytest.fixture(autouse=True)
def cache_dir(fresh_cache: Path) -> Path:
    return fresh_cache


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Repo("tiny", root)


def pairs(query: str, repo: Repo, top_k: int = 20) -> list[tuple[str, str]]:
    return [(hit.file, hit.symbol) for hit in search(query, repo, top_k)]


@pytest.mark.parametrize(
    "query,first",
    [
        # an exact identifier is pinned above a file whose docs repeat its words
        ("parse_header", ("billing/reminders.py", "parse_header")),
        ("parse_header() returns the wrong parts", ("billing/reminders.py", "parse_header")),
        (
            "parse_header: email reminder to the customer for an overdue invoice",
            ("billing/reminders.py", "parse_header"),
        ),
        ("_parse_header", ("billing/reminders.py", "_parse_header")),  # as written beats the public twin
        # a qualified mention picks the owner's method; a one-word query names a symbol
        ("Ledger.Balance", ("stock/ledger.go", "Ledger.Balance")),
        ("Account.Balance", ("stock/ledger.go", "Account.Balance")),
        ("MAX_ITEMS", ("web/cart.ts", "MAX_ITEMS")),
        # natural language: name words, owner, doc comments and docstrings
        ("email a reminder about an overdue invoice", ("billing/reminders.py", "send_reminder")),
        ("total price of the cart", ("web/cart.ts", "Cart.total")),
        ("sum the stock movements", ("stock/ledger.go", "Ledger.Balance")),
        ("add an item to the cart", ("web/cart.ts", "Cart.addItem")),
        # adjacent words count joined: a phrasal verb meets the name that writes it as one word
        ("shut down the workers", ("server/pool.py", "shutdown")),
        # tests come after the code they test, unless the query is about tests
        ("send reminder for an overdue invoice", ("billing/reminders.py", "send_reminder")),
        (
            "test send reminder for an overdue invoice",
            ("billing/test_reminders.py", "test_send_reminder_for_overdue_invoice"),
        ),
    ],
)
def test_first_hit(repo: Repo, query: str, first: tuple[str, str]) -> None:
    assert pairs(query, repo)[0] == first


def test_a_spelling_as_written_beats_the_private_twin(repo: Repo) -> None:
    found = [symbol for _, symbol in pairs("parse_header", repo)]
    assert found.index("parse_header") < found.index("_parse_header")


def test_hits_carry_line_and_score(repo: Repo) -> None:
    hit = search("Ledger.Balance", repo)[0]
    assert hit.line == 7 and hit.score is not None and hit.score > 0


def test_equal_hits_of_one_file_come_in_file_order_beside_other_files(repo: Repo) -> None:
    found = pairs("cart helper", repo, top_k=10)
    assert {("web/cart.ts", "Cart"), ("web/checkout.ts", "checkoutCart")} <= set(found)
    assert [s for f, s in found if f == "web/many.ts"] == [f"cartHelper{i}" for i in range(6)]  # file order


def test_longer_definitions_rank_first_when_the_words_match_alike(tmp_path: Path) -> None:
    """The size prior: of two definitions matching the query alike, the longer one (where edits
    land) comes first; ``1 + SYMBOL_SIZE * log1p(lines) / log1p(most lines)``."""
    body = "".join(f"    total = total + {i}\n" for i in range(30))
    (tmp_path / "tax.py").write_text(
        f"def tax_short(order):\n    return order\n\n\ndef tax_long(order):\n    total = 0\n{body}    return total\n"
    )
    found = pairs("tax order", Repo("r", tmp_path))
    assert found[:2] == [("tax.py", "tax_long"), ("tax.py", "tax_short")]
    table = symtable.symbol_table(index_module.load_index(tmp_path))
    assert table.size.tolist() == [4, 33]
    expected = 1 + search_module.SYMBOL_SIZE * np.log1p([4, 33]) / np.log1p(33)
    assert np.allclose(search_module.size_prior(table), expected)


def test_a_mention_stays_pinned_above_long_definitions(tmp_path: Path) -> None:
    body = "".join(f"    tax = tax + {i}  # tax of the order\n" for i in range(40))
    (tmp_path / "tax.py").write_text(
        f"def order_tax(order):\n    tax = 0\n{body}    return tax\n\n\ndef apply(order):\n    return order\n"
    )
    assert pairs("apply the tax of the order", Repo("r", tmp_path))[0] == ("tax.py", "order_tax")
    assert pairs("apply() the tax of the order", Repo("r", tmp_path))[0] == ("tax.py", "apply")


def test_files_without_symbols_are_file_level_hits(repo: Repo) -> None:
    found = pairs("kubernetes helm rollout", repo)
    assert found[0] == ("docs/DEPLOYMENT.md", "")
    assert all(symbol == "" for _, symbol in found)


def test_nothing_matching_gives_nothing(repo: Repo) -> None:
    assert pairs("zzzz qqqq", repo) == []


@pytest.mark.parametrize("top_k", [0, 1, 3])
def test_top_k_is_respected(repo: Repo, top_k: int) -> None:
    assert len(pairs("cart", repo, top_k)) == min(top_k, len(pairs("cart", repo, 50)))


def test_deterministic_across_memo_and_disk_cache(repo: Repo) -> None:
    first = search("cart total price", repo)
    assert search("cart total price", repo) == first
    symtable._MEMO.clear()  # next call reads the table from the disk cache
    index_module._MEMO.clear()
    assert search("cart total price", repo) == first


def _no_body_read(*args: object) -> None:
    pytest.fail("a body was computed at search time")


def test_the_first_search_reads_the_bodies_the_cold_index_computed(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second pass over the files: the workers that parsed them computed the bodies, and the
    table is the one the files' own bodies give."""
    index = index_module.load_index(repo.path)
    monkeypatch.setattr(symtable, "symbol_bodies", _no_body_read)
    table = symtable.symbol_table(index)
    assert pairs("overdue reminder", repo)[0] == ("billing/reminders.py", "send_reminder")
    monkeypatch.undo()
    for entry in (tmp_path / "cache").glob("*.bodies.pickle"):
        entry.unlink()
    read = symtable.build_table(index)
    assert (read.name, read.keys, read.ranker.vocab) == (table.name, table.keys, table.ranker.vocab)
    for got, want in [(read.size, table.size), (read.ranker.saturated.values, table.ranker.saturated.values)]:
        assert np.array_equal(got, want)


def test_a_copy_without_cached_bodies_reads_them_once(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of a tree shares the original's index but not its per-repository caches: its first
    search reads the bodies from its files and caches them, the next table build reads none."""
    first = pairs("cart total price", repo)
    copy = Repo("copy", Path(shutil.copytree(repo.path, repo.path.parent / "copy")))
    assert pairs("cart total price", copy) == first
    symtable._MEMO.clear()
    monkeypatch.setattr(symtable, "symbol_bodies", _no_body_read)
    symtable.build_table(index_module.load_index(copy.path))


def test_after_an_edit_only_the_edited_file_is_parsed_for_its_bodies(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs("refund", repo)
    (repo.path / "web" / "refunds.ts").write_text("export function issueRefund(): void {}\n")
    (repo.path / "web" / "cart.ts").write_text(FILES["web/cart.ts"] + "export function refundCart(): void {}\n")
    monkeypatch.setattr(symtable, "symbol_bodies", _no_body_read)
    assert {s for _, s in pairs("refund", repo)[:2]} == {"issueRefund", "refundCart"}


# In a fresh interpreter: the background build forks, which the threads a test process may hold
# rightly forbid (forking_pays).
_PREBUILD_CHECK = """
import json, sys
import numpy as np
from workbench.reference import parallel, symtable
from workbench.reference.index import load_index
parallel.POOL_MIN_BYTES, parallel.workers = 0, lambda: 2
index = load_index(sys.argv[1])
started = sys.argv[1] in symtable._PENDING
build = symtable._build
symtable._build = None  # this process must not build the table: the child did
table = symtable.symbol_table(index)
symtable._build = build
own = symtable.build_table(index)
arrays = [(table.size, own.size), (table.ranker.saturated.values, own.ranker.saturated.values)]
same = (table.name, table.keys, table.ranker.vocab) == (own.name, own.keys, own.ranker.vocab) and all(
    np.array_equal(a, b) for a, b in arrays
)
print(json.dumps([started, same, not symtable._PENDING]))
"""


def test_a_large_tree_has_its_table_built_while_the_index_links(repo: Repo) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PREBUILD_CHECK, str(repo.path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [True, True, True]  # a child started; its table is the same; waited for


def test_a_table_child_for_an_older_tree_is_stopped_not_awaited() -> None:
    """The repository changed while a child built the table of its previous tree: that child is
    stopped, and one building the wanted tree is waited for."""
    stale = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,), daemon=True)
    stale.start()
    symtable._PENDING["/repo"] = ("old tree", stale)
    symtable._await("/repo", "new tree")
    assert stale.exitcode is not None and stale.exitcode < 0 and "/repo" not in symtable._PENDING
    wanted = multiprocessing.get_context("fork").Process(target=time.sleep, args=(0.2,), daemon=True)
    wanted.start()
    symtable._PENDING["/repo"] = ("new tree", wanted)
    symtable._await("/repo", "new tree")
    assert wanted.exitcode == 0 and "/repo" not in symtable._PENDING


def test_an_edited_file_is_searched_fresh(repo: Repo) -> None:
    assert pairs("refund", repo) == []
    (repo.path / "web" / "refunds.ts").write_text("export function issueRefund(): void {}\n")
    assert pairs("refund", repo)[0] == ("web/refunds.ts", "issueRefund")


def test_route_query_finds_the_named_handler() -> None:
    found = pairs("GET /skus/{sku}/stock", Repo("go-inventory", ROOT / "fixtures" / "go-inventory"))
    assert found[0] == ("internal/http/handlers.go", "Handler.GetStock")


def test_runs_join_adjacent_words_stop_words_included() -> None:
    assert "shutdown" in runs("shut down the pool") and "login" in runs("log in, please")


@pytest.mark.parametrize(
    "query,top_k,message",
    [
        (None, 5, "query must be a string"),
        ("x", -1, "top_k must be a non-negative integer"),
        ("x", True, "top_k must be a non-negative integer"),
    ],
)
def test_bad_input_is_a_target_error(repo: Repo, query, top_k, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        search(query, repo, top_k)


def test_builtin_target_searches(repo: Repo) -> None:
    target = BuiltinTarget()
    assert "search" in capabilities(target)
    assert target.search("Ledger.Balance", repo, 1)[0].symbol == "Ledger.Balance"


def test_spans_take_the_comment_block_above_and_stop_at_the_next_symbol() -> None:
    data = FILES["stock/ledger.go"].encode()
    (ledger, balance, *_) = bodies.spans(data, [4, 7, 9, 12])
    assert (
        data[ledger[0] : ledger[1]].startswith(b"// Ledger is") and b"Balance sums" not in data[ledger[0] : ledger[1]]
    )
    assert data[balance[0] : balance[1]].startswith(b"// Balance sums")


def test_bodies_and_content_count_the_file_as_content_terms_does_in_value_and_order() -> None:
    rng = random.Random(11)
    pieces = [
        "# note on parse_url\n",
        "@route('/users')\n",
        "def getUserByID(v2):\n",
        "    return HTTPServer(x)\n",
        "\n",
        "class A:\n",
        "x = 1  # 2fa\n",
    ]
    tiled = 0
    for _ in range(200):
        data = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30))).encode()
        n_lines = data.count(b"\n") + 1
        # lines past the end (both clamped to the last line) make overlapping spans: counted whole instead
        lines = rng.sample(range(1, n_lines + 3), k=min(n_lines + 2, rng.randrange(0, 6)))
        symbols = [(f"s{line}", "function", line) for line in lines]
        found, counts = bodies.bodies_and_content(data, symbols)
        assert found == bodies.symbol_bodies(data, symbols)
        assert list(counts.items()) == list(content_terms(data).items()), (data, lines)
        tiled += bool(lines) and max(lines) <= n_lines
    assert tiled > 50


# --- the shipped golden sets ---------------------------------------------------------------


def _sets() -> list[dict]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))["ranking"]


def test_every_golden_file_is_in_the_corpus_and_the_corpus_validates() -> None:
    named = {spec["golden"] for spec in _sets()}
    assert named == {f"ranking/{p.name}" for p in (CORPUS.parent / "ranking").glob("*.jsonl")}
    assert len(named) >= 3
    assert validate_corpus(CORPUS) == []


@pytest.mark.parametrize("spec", _sets(), ids=lambda spec: spec["name"])
def test_golden_labels_name_real_symbols(spec: dict) -> None:
    fixture = ROOT / "fixtures" / spec["repoFixture"]
    queries = load_golden(CORPUS.parent / spec["golden"])
    assert len(queries) >= 15
    assert {q.category for q in queries} == {"identifier", "natural", "multi"}
    assert all(q.language for q in queries)
    assert all(len(q.expected) >= 2 for q in queries if q.category == "multi")
    for q in queries:
        for file, symbol, _ in q.expected:
            path = fixture / file
            assert path.is_file(), f"{spec['name']}/{q.id}: {file} is not in the fixture"
            if symbol:
                names = {name for name, _, _ in extract_file(file, path.read_bytes()).outline.symbols}
                assert symbol in names, f"{spec['name']}/{q.id}: {file} defines no {symbol}"


def test_pack_symbols_rank_the_pack_files_definitions_first(repo: Repo) -> None:
    from workbench.contract import FileRef, SymbolRef
    from workbench.reference.search import pack_symbols

    hits = [(h.file, h.symbol) for h in search("parse header", repo, 50) if h.symbol]
    primary = [FileRef(repo.name, "billing/notes.py")]
    ranked = pack_symbols("parse header", [repo], primary)
    assert ranked[0] == SymbolRef(repo.name, "billing/notes.py", "header_notes")  # in the pack: first
    inside = [h for h in hits if h[0] == "billing/notes.py"]
    assert [(s.path, s.name) for s in ranked] == (inside + [h for h in hits if h not in inside])[:20]
    pack = BuiltinTarget().context_pack("parse header", [repo])
    assert pack.symbols and all(s.name for s in pack.symbols)


def test_a_name_defined_twice_in_one_file_is_one_hit(tmp_path: Path) -> None:
    """A property's getter and setter are two definitions of one name: the hits name it once."""
    (tmp_path / "temp.py").write_text(
        "class Gauge:\n"
        "    @property\n"
        "    def reading(self):\n        return self._reading\n\n"
        "    @reading.setter\n"
        "    def reading(self, value):\n        self._reading = value\n\n"
        "    def reset(self):\n        self._reading = 0\n"
    )
    found = [(hit.file, hit.symbol) for hit in search("gauge reading", tmp_path, 5)]
    assert found.count(("temp.py", "Gauge.reading")) == 1
    assert len(found) == len(set(found))


def test_lookup_keys_are_each_symbols_own_keys() -> None:
    """The table's lookup keys, made once per distinct owner and member, are what ``symbol_keys``
    gives each symbol's member and qualified name; a table that never looked a name up makes them
    on first use."""
    from workbench.reference.text import symbol_keys

    names = ["HTTPServer.do_GET", "parse", "_", "_.x", "Orders.cancelled", "getUserByID_v2", "A.B.c", "Orders.cancel"]
    split = [name.rpartition(".") for name in names]
    expected: dict[str, list[int]] = {}
    for sid, name in enumerate(names):
        owner, _, member = split[sid]
        for key in set(symbol_keys(member)) | (set(symbol_keys(name)) if owner else set()):
            expected.setdefault(key, []).append(sid)
    assert symtable._lookup_keys(split) == expected
    assert expected["httpserverdoget"] == [0] and expected["cancel"] == [4, 7]


def test_a_table_a_pack_cached_without_lookup_keys_is_saved_with_them_at_the_first_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pack reads only the fitted model, so the table it caches has no lookup keys; the first
    search makes them and saves the table again, so a later process's search reads them."""
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "orders.py").write_text("class OrdersService:\n    def cancel(self, order):\n        return order\n")
    index = index_module.load_index(root)
    table = symtable.symbol_table(index)
    assert table.lookup is None
    assert symtable.searchable(index) is table and table.lookup is not None
    cached = symtable.cache.load(index.root, "symbols", symtable.TABLE_VERSION)
    assert isinstance(cached, symtable.SymbolTable) and cached.lookup == table.lookup
    assert cached.lookup["ordersservicecancel"] == [1]


def test_a_table_a_pack_built_is_saved_once_and_still_saved_without_a_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table a pack builds waits for its first search to be saved with its keys (one save, not
    two); one never searched is saved when the process builds its next table (or exits)."""
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    saved: list[str] = []
    real_save = symtable.cache.save
    monkeypatch.setattr(
        symtable.cache,
        "save",
        lambda root, part, *rest: (part == "symbols" and saved.append(root.name), real_save(root, part, *rest)),
    )
    roots = []
    for name in ("one", "two"):
        root = tmp_path / name
        root.mkdir()
        (root / "orders.py").write_text(
            f"class {name.title()}Service:\n    def cancel(self, order):\n        return order\n"
        )
        roots.append(root)
    first = index_module.load_index(roots[0])
    symtable.symbol_table(first)
    assert saved == []
    symtable.searchable(first)
    symtable.searchable(first)
    assert saved == ["one"]
    second = index_module.load_index(roots[1])
    symtable.symbol_table(second)
    assert saved == ["one"] and symtable.cache.load(second.root, "symbols", symtable.TABLE_VERSION) is None
    symtable.symbol_table(index_module.load_index(roots[0]))  # from memory: nothing built, nothing saved
    third = tmp_path / "three"
    third.mkdir()
    (third / "a.py").write_text("def go():\n    return 1\n")
    symtable.symbol_table(index_module.load_index(third))
    assert saved == ["one", "two"]
    cached = symtable.cache.load(second.root, "symbols", symtable.TABLE_VERSION)
    assert isinstance(cached, symtable.SymbolTable) and cached.lookup is None
    symtable.save_pending()
    assert saved == ["one", "two", "three"]
