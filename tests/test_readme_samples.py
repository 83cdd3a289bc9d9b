"""README.md cannot drift: every marked sample output is regenerated from the code and compared."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from .conftest import REPO_ROOT


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_samples", REPO_ROOT / "tools" / "readme_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


tool = _tool()
README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """What each sample's command prints now (run once for the module)."""
    return {s.command: tool.run_command(s.command) for s in tool.find_samples(README)}


def test_the_readme_marks_its_sample_outputs() -> None:
    commands = [s.command for s in tool.find_samples(README)]
    assert "workbench run --suite retrieval" in commands
    assert 'workbench pack "refund a payment" --repo fixtures/shop-api' in commands
    assert any("examples/engines/grep_engine.py" in c for c in commands)
    assert README.count("<!-- sample: ") == README.count("<!-- /sample -->") == len(commands)


@pytest.mark.slow
def test_every_readme_sample_matches_what_its_command_prints(outputs: dict[str, str]) -> None:
    drifted = tool.stale(README, outputs.__getitem__)
    assert not drifted, f"README.md samples out of date (run `python tools/readme_samples.py`): {drifted}"


def test_a_changed_scoreboard_is_caught(outputs: dict[str, str]) -> None:
    """The check can fail: the scoreboard an engine change would print no longer matches."""
    command = "workbench run --suite retrieval"
    changed = dict(outputs)
    changed[command] = outputs[command].replace("| yes ", "|  NO ", 1)
    assert changed[command] != outputs[command]
    assert tool.stale(README, changed.__getitem__) == [command]
    fixed = tool.regenerate(README, changed.__getitem__)
    assert tool.stale(fixed, changed.__getitem__) == [] and fixed != README


def test_normalize_ignores_only_what_changes_between_runs() -> None:
    a = "Overall: PASS (exit 0)\nRun: reports/runs/20261201T180404Z-builtin\nsandbox: none\n"
    b = "Overall: PASS (exit 0)  \nRun: reports/runs/20261202T000634Z-builtin\nsandbox: bwrap"
    assert tool.normalize(a) == tool.normalize(b)
    assert tool.normalize(a) != tool.normalize(a.replace("PASS (exit 0)", "FAIL (exit 1)"))
