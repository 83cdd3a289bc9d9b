"""Path terms: route groups, bracket parameters and files whose own name says nothing."""

from __future__ import annotations

from pathlib import Path

from workbench.contract import Repo
from workbench.reference import build_pack
from workbench.reference.fields import path_fields


def test_a_parameter_or_generic_file_is_named_by_its_folder():
    name, folders = path_fields("app/(tabs)/explore/[id].tsx")
    assert "explor" in name and "tab" in folders and "id" in name
    name, _ = path_fields("pkg/debug/__init__.py")
    assert "debug" in name
    name, _ = path_fields("src/routes/checkout/+page.svelte")
    assert "checkout" in name
    name, _ = path_fields("src/checkout/cart.ts")
    assert "checkout" not in name


def test_a_bracket_page_is_found_by_its_folder(tmp_path: Path):
    files = {
        "app/(tabs)/explore/[id].tsx": "export default function Screen() { return null }\n",
        "app/(tabs)/home.tsx": "export default function Home() { return null }\n",
        "app/(tabs)/settings.tsx": "export default function Settings() { return null }\n",
        "lib/explorer_utils.ts": "export const ratio = 1\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    pack = build_pack("the explore detail screen", [Repo("app", str(tmp_path))])
    assert pack.primary[0].path == "app/(tabs)/explore/[id].tsx"
