"""The risk vocabulary: regression guards from solumbe/otito and the traps real review tools fall into."""

from __future__ import annotations

import json

import pytest

from workbench.errors import TargetError
from workbench.reference.risk.concepts import (
    CONCEPTS,
    MIN_STEM,
    compile_vocabulary,
    default_vocabulary,
    expand_braces,
    load_vocabulary,
    risk_concepts,
)
from workbench.reference.risk.vocabulary import VOCABULARY

MONEY, AUTH, DATA = "money flow", "auth/security", "data model"
REQUEST, CONFIG, DEP = "request surface", "configuration", "dependency"
CONTRACT, LARGE = "frontend/backend contract", "large file diff"

# (mode, text, must contain, must not contain)
GUARDS = [
    ("query", "fix payload parsing", set(), {MONEY}),
    ("query", "refund a payment", {MONEY}, set()),
    ("query", "show the author name on blog posts", set(), {AUTH}),
    ("query", "let users sign in with OAuth2", {AUTH}, set()),
    ("query", "passwordless login via magic link", {AUTH}, set()),
    ("query", "fix the guard clause in the parser", set(), {AUTH}),
    ("query", "add a keyboard shortcut for save", set(), {AUTH}),
    ("query", "fix the tokenizer splitting emoji", set(), {AUTH}),
    ("query", "add an index on the users table", {DATA}, set()),
    ("query", "migrate logging from winston to pino", set(), {DATA}),
    ("query", "backfill the new shipping address for old orders", {DATA}, set()),
    ("query", "build a taxonomy of error codes", set(), {MONEY}),
    ("query", "POST /orders/:id/cancel returns 500", {REQUEST}, set()),
    ("query", "bump lodash in package.json", {DEP}, set()),
    ("query", "upgrade react to v19", {DEP}, set()),
    ("query", "update urllib3 to 1.26.18", {DEP}, set()),
    ("query", "update docs to v2 wording", set(), {DEP}),
    ("query", "upgrade the customer to the annual plan", set(), {DEP}),
    ("query", "rename a field in the OrderDto the web app reads", {CONTRACT}, set()),
    ("query", "split the 3,000-line orders module", {LARGE}, set()),
    ("query", "add 120 lines of validation", set(), {LARGE}),
    ("query", "put the new checkout behind a feature flag", {CONFIG, MONEY}, set()),
    ("path", "src/auth/roles.guard.ts", {AUTH}, {MONEY}),
    ("path", "src/payments/paypal_client.ts", {MONEY}, set()),
    ("path", "src/checkout/PayPalButton.tsx", {MONEY}, set()),
    ("path", "src/blog/author.service.ts", set(), {AUTH}),
    ("path", "src/lexer/tokenizer.ts", set(), {AUTH}),
    ("path", "migrations/0003_add_index.sql", {DATA}, set()),
    ("path", "src/components/DataTable.tsx", set(), {DATA}),
    ("path", "internal/handlers/orders.go", {REQUEST}, set()),
    ("path", "app/urls.py", {REQUEST}, set()),
    ("path", "web/src/api/apiClient.ts", {CONTRACT}, set()),
    ("path", "config/dev.environments.ts", {CONFIG}, set()),
    ("path", "package-lock.json", {DEP, LARGE}, set()),
    ("path", "services/billing/go.mod", {DEP}, set()),
    ("gate", "tests/checkout.spec.ts", set(), {"gate"}),
    ("gate", "src/payment/checkout.service.ts", {"gate"}, set()),
    ("gate", "src/db/migrations/001_init.sql", {"gate"}, set()),
    ("gate", "package-lock.json", set(), {"gate"}),
    ("gate", "services/billing/package.json", set(), {"gate"}),
    ("gate", "tests/fixtures/stripe_event.json", set(), {"gate"}),
    ("gate", "src/auth/__tests__/session.test.ts", set(), {"gate"}),
    ("gate", "docs/billing.md", set(), {"gate"}),
    ("gate", ".env.production", {"gate"}, set()),
    ("gate", ".github/workflows/release.yml", {"gate"}, set()),
    ("gate", "src/components/Header.tsx", set(), {"gate"}),
    ("secret", "config/dev.environments.ts", set(), {"secret"}),
    ("secret", ".env.example", set(), {"secret"}),
    ("secret", ".env", {"secret"}, set()),
    ("secret", ".env.production", {"secret"}, set()),
    ("secret", "deploy/id_rsa", {"secret"}, set()),
    ("secret", "deploy/id_rsa.pub", set(), {"secret"}),
    ("secret", "certs/server.pem", {"secret"}, set()),
    ("secret", "gcp/credentials.json", {"secret"}, set()),
    ("secret", "src/credentials.ts", set(), {"secret"}),
    ("secret", "src/tokenizer.ts", set(), {"secret"}),
    ("secret", "infra/prod.tfvars", {"secret"}, set()),
    ("secret", "infra/prod.tfvars.example", set(), {"secret"}),
]


@pytest.mark.parametrize("mode,text,present,absent", GUARDS, ids=[f"{m}:{t}" for m, t, _, _ in GUARDS])
def test_guard(mode: str, text: str, present: set[str], absent: set[str]) -> None:
    got = risk_concepts(mode, text)
    assert present <= got, f"missing {present - got}"
    assert not (absent & got), f"unexpected {absent & got}"


def test_predicates_answer_only_their_own_label() -> None:
    assert risk_concepts("gate", "src/billing/invoice.ts") == {"gate"}
    assert risk_concepts("secret", ".env.local") == {"secret"}
    assert risk_concepts("secret", "README.md") == set()


def test_every_label_is_reachable_and_known() -> None:
    vocab = default_vocabulary()
    assert tuple(label for label, _ in vocab.concepts) == CONCEPTS


def test_paths_are_normalised() -> None:
    assert risk_concepts("secret", "./deploy\\id_rsa") == {"secret"}
    assert risk_concepts("path", "/SRC/Auth/Roles.Guard.TS") >= {AUTH}


def test_blank_text_has_no_concepts() -> None:
    assert risk_concepts("query", "   ") == set()


def test_unknown_mode_is_a_clear_error() -> None:
    with pytest.raises(TargetError, match="unknown mode 'paths'.*query, path, gate, secret"):
        risk_concepts("paths", "src/a.ts")


def test_non_string_text_is_a_clear_error() -> None:
    with pytest.raises(TargetError, match="must be a string"):
        risk_concepts("query", None)  # type: ignore[arg-type]


def test_answers_are_fresh_sets() -> None:
    first = risk_concepts("query", "refund a payment")
    first.add("mutated")
    assert "mutated" not in risk_concepts("query", "refund a payment")


def test_expand_braces() -> None:
    assert expand_braces("id_{rsa,dsa}{,_*}") == ["id_rsa", "id_rsa_*", "id_dsa", "id_dsa_*"]
    assert expand_braces("plain.txt") == ["plain.txt"]


def _table(**concept: object) -> dict:
    return {"concepts": {"money flow": concept}}


@pytest.mark.parametrize(
    "table,message",
    [
        (_table(terms=["pay*"]), r"concepts\['money flow'\].terms\[0\]: stem 'pay\*' must be one word"),
        (_table(files=["@nope"]), r"concepts\['money flow'\].files\[0\]: unknown group '@nope'"),
        (_table(word=["x"]), r"unknown key 'word'"),
        (_table(patterns=["("]), r"patterns\[0\]: invalid regular expression"),
        (_table(terms="payment"), r"terms: expected a list of non-empty strings"),
        (_table(terms=["--"]), r"terms\[0\]: '--' has no word in it"),
        ({"concepts": {}}, r"concepts: expected a non-empty object"),
        ({"concepts": {"a": {}}, "gate": {"concepts": ["b"]}}, r"gate.concepts: unknown concept 'b'"),
    ],
)
def test_bad_tables_fail_naming_the_field(table: dict, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        compile_vocabulary(table, "t.json")


def test_builtin_stems_are_long_enough() -> None:
    stems = [t for rule in VOCABULARY["concepts"].values() for t in rule.get("terms", []) if t.endswith("*")]
    assert stems and all(len(t) - 1 >= MIN_STEM for t in stems)


def test_custom_vocabulary_from_json(tmp_path) -> None:
    path = tmp_path / "vocab.json"
    path.write_text(
        json.dumps(
            {
                "stopWords": ["the"],
                "concepts": {"telemetry": {"terms": ["OpenTelemetry", "trace span"], "dirs": ["otel"]}},
                "gate": {"concepts": ["telemetry"], "exempt": {"dirs": ["tests"]}},
                "secret": {"files": ["*.secret"]},
            }
        )
    )
    vocab = load_vocabulary(path)
    assert vocab.classify("query", "add an opentelemetry exporter") == {"telemetry"}
    assert vocab.classify("query", "record the trace spans") == {"telemetry"}
    assert vocab.classify("query", "record the trace of spans") == set()
    assert vocab.classify("path", "lib/otel/setup.py") == {"telemetry"}
    assert vocab.classify("gate", "lib/otel/setup.py") == {"gate"}
    assert vocab.classify("gate", "tests/otel/setup.py") == set()
    assert vocab.classify("secret", "a/b.secret") == {"secret"}


def test_joined_and_split_spellings_match_a_phrase() -> None:
    vocab = compile_vocabulary({"concepts": {"k": {"terms": ["api key"]}}})
    assert {vocab.classify("path", p) == {"k"} for p in ("apiKey.ts", "api_keys.py", "apikey.go")} == {True}
    assert vocab.classify("path", "api/keyboard.ts") == set()


def test_unreadable_vocabulary_file(tmp_path) -> None:
    with pytest.raises(TargetError, match="cannot read"):
        load_vocabulary(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(TargetError, match=r"bad.json:1:2: invalid JSON"):
        load_vocabulary(bad)
