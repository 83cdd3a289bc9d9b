"""Priors and fills of the reference pack: size, example demotion, import-graph fill."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.code.kinds import file_kind
from workbench.contract import Repo
from workbench.reference import build_pack
from workbench.reference import pack as pack_module

from ..conftest import write_repo


def _paths(query: str, repo: Repo) -> list[str]:
    return [ref.path for ref in build_pack(query, [repo]).primary]


@pytest.mark.parametrize("size, first", [(pack_module.SIZE, "big.py"), (0.0, "small.py")])
def test_a_long_module_outranks_a_short_one_matching_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: float, first: str
):
    body = "def decode_token(raw):\n    return raw\n"
    filler = "".join(f"value_{i} = compute_{i}()\n" for i in range(300))
    repo = write_repo(tmp_path, {"big.py": body + filler, "small.py": body, "other.py": "x = 1\n"})
    monkeypatch.setattr(pack_module, "SIZE", size)
    assert _paths("decode token", repo)[0] == first


def test_examples_are_their_own_kind_and_rank_below_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert file_kind("examples/basic/main.go") == "example"
    assert file_kind("recipes/grace/server.go") == "example"
    text = "package x\n\nfunc RotateLogs() {}\n"
    example = text + "// rotate the logs: RotateLogs rotates logs\n"
    repo = write_repo(tmp_path, {"examples/rotate/rotate.go": example, "rotate.go": text, "other.go": "package x\n"})
    assert _paths("rotate logs", repo)[0] == "rotate.go"
    monkeypatch.setitem(pack_module.DEMOTION, "example", 1.0)
    assert _paths("rotate logs", repo)[0] == "examples/rotate/rotate.go"


def test_a_short_pack_fills_with_what_its_files_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    files = {
        "app/checkout.py": "from app.ledger import post\n\ndef checkout_cart(cart):\n    return post(cart)\n",
        "app/ledger.py": "def post(entry):\n    return entry\n",
        "app/unrelated.py": "def nothing():\n    return None\n",
    }
    repo = write_repo(tmp_path, files)
    pack = build_pack("checkout cart", [repo])
    reasons = {ref.path: ref.reason for ref in pack.primary}
    assert reasons.get("app/ledger.py") == "imported by app/checkout.py"
    assert "app/unrelated.py" not in reasons
    monkeypatch.setattr(pack_module, "GRAPH_FILL", False)
    assert "app/ledger.py" not in _paths("checkout cart", repo)


def test_a_pack_with_no_code_file_gets_the_core_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    core = "".join(f"def step_{i}(x):\n    return x + {i}\n" for i in range(80))
    repo = write_repo(
        tmp_path,
        {
            "README.md": "Deno support: run it on deno.\n",
            "lib/engine.py": core,
            "lib/tiny.py": "X = 1\n",
            "tests/test_engine.py": "def test_it():\n    pass\n",
        },
    )
    pack = build_pack("support deno", [repo])
    paths = [ref.path for ref in pack.primary]
    assert paths[0] == "README.md" and paths[1] == "lib/engine.py"
    assert "tests/test_engine.py" not in paths
    monkeypatch.setattr(pack_module, "CORE_FILL", 0)
    assert _paths("support deno", repo) == ["README.md"]


def test_a_test_named_like_the_class_is_not_pinned(tmp_path: Path):
    repo = write_repo(
        tmp_path,
        {
            "src/errors/HTTPError.ts": "export class HTTPError extends Error {}\n",
            "test/http-error.ts": "import {HTTPError} from '../src/errors/HTTPError'\n",
            "src/core.ts": "export const core = 1\n",
        },
    )
    pack = build_pack("add a data property to HTTPError", [repo])
    assert pack.primary[0].path == "src/errors/HTTPError.ts"
    assert "test/http-error.ts" not in [ref.path for ref in pack.primary]


def test_a_route_and_its_client_in_another_repository_fill_the_pack(tmp_path: Path):
    web = write_repo(
        tmp_path / "web",
        {
            "src/VoidButton.tsx": "export function VoidButton() {\n  return fetch(`/api/invoices/${id}/void`, "
            "{ method: 'POST' })\n}\n",
            "src/Header.tsx": "export function Header() { return null }\n",
        },
    )
    api = write_repo(
        tmp_path / "api",
        {
            "src/billing.js": "router.post('/api/invoices/:id/void', voidInvoice)\n",
            "src/users.js": "router.get('/api/users', listUsers)\n",
        },
    )
    pack = build_pack("the void button", [Repo("web", web.path), Repo("api", api.path)])
    primary = {(ref.repo, ref.path): ref.reason for ref in pack.primary}
    assert next(iter(primary)) == ("web", "src/VoidButton.tsx")
    assert primary.get(("api", "src/billing.js"), "").startswith("handles POST /api/invoices/:/void")
    assert ("api", "src/users.js") not in primary


def test_a_fallback_without_entry_points_offers_code_not_the_manifest(tmp_path: Path):
    core = "".join(f"export function step{i}(x) {{ return x + {i} }}\n" for i in range(40))
    repo = write_repo(
        tmp_path,
        {
            "package.json": '{"name": "thing", "version": "1.0.0"}\n',
            "src/engine.js": core,
            "src/small.js": "export const one = 1\n",
        },
    )
    pack = build_pack("quantum flux capacitor overheats", [repo])
    assert pack.primary[0].path == "src/engine.js"
    assert pack.primary[0].reason.startswith("fallback")
    assert "package.json" not in [ref.path for ref in pack.primary]


def test_a_pack_of_examples_only_gets_the_library_core_files(tmp_path: Path):
    assert file_kind("website/layouts/_default/single.html") == "doc"
    core = "package log\n\n" + "".join(f"func Step{i}() int {{ return {i} }}\n" for i in range(60))
    repo = write_repo(
        tmp_path,
        {
            "examples/basic/basic.go": "package main\n\n// precompile the regex\nfunc main() {}\n",
            "entry.go": core,
            "tiny.go": "package log\n\nconst One = 1\n",
        },
    )
    paths = _paths("precompile regex", repo)
    assert paths[0] == "examples/basic/basic.go" and "entry.go" in paths


def test_a_module_brings_its_type_stub(tmp_path: Path):
    module = "def in_range(lo, hi):\n    # the clamp policy\n    return lo <= hi\n"
    repo = write_repo(
        tmp_path,
        {
            "src/pkg/validators.py": module,
            "src/pkg/validators.pyi": "def in_range(lo: int, hi: int) -> bool: ...\n",
            "src/pkg/other.py": "def unrelated():\n    return 0\n",
        },
    )
    pack = build_pack("the clamp policy", [repo])
    found = {ref.path: ref.reason for ref in [*pack.primary, *pack.related]}
    assert pack.primary[0].path == "src/pkg/validators.py"
    assert found.get("src/pkg/validators.pyi") == "declares the types of src/pkg/validators.py"
