"""The CLI's shape (issue 44, item 5): every command added to the group in one place
(``cli/main.py``), none by import side effect; the command modules never import the package or
``main.py`` (no cycle); no function of the CLI over 40 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import click

import workbench.cli
from workbench.cli import cli

CLI = Path(workbench.cli.__file__).parent
MAX_LINES = 40


def _trees() -> dict[str, ast.Module]:
    return {path.name: ast.parse(path.read_text()) for path in sorted(CLI.glob("*.py"))}


def long_functions(trees: dict[str, ast.Module], limit: int = MAX_LINES) -> list[str]:
    """``file:function (lines)`` for each function longer than ``limit``, from ``def`` to its last line."""
    return [
        f"{name}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for name, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.end_lineno or node.lineno) - node.lineno + 1 > limit
    ]


def registrations(trees: dict[str, ast.Module]) -> list[str]:
    """Where a command is added to the ``cli`` group: ``cli.add_command(...)`` calls and
    ``@cli.command``/``@cli.group`` decorators, as ``file:line``."""
    found = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "cli"
                and node.attr in ("add_command", "command", "group")
            ):
                found.append(f"{name}:{node.lineno}")
    return found


def package_imports(trees: dict[str, ast.Module]) -> list[str]:
    """Command modules importing the ``workbench.cli`` package itself or ``main.py``: the cycle
    that registration by import side effect needs."""
    wrong = []
    for name, tree in trees.items():
        if name in ("__init__.py", "main.py"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in (None, "main"):
                wrong.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module in ("workbench.cli", "workbench.cli.main"):
                wrong.append(f"{name}:{node.lineno}")
    return wrong


def test_no_function_of_the_cli_is_over_40_lines() -> None:
    assert not long_functions(_trees())


def test_commands_are_added_in_main_only() -> None:
    trees = _trees()
    assert registrations(trees) and all(where.startswith("main.py:") for where in registrations(trees))
    assert not package_imports(trees)


def test_every_command_defined_is_added() -> None:
    """Each click command or group a command module defines at its top level is on the group."""
    import importlib

    added = set(cli.commands.values())
    for path in sorted(CLI.glob("*.py")):
        if path.name in ("__init__.py", "main.py", "shared.py"):
            continue
        module = importlib.import_module(f"workbench.cli.{path.stem}")
        for value in vars(module).values():
            if isinstance(value, click.Command) and value.name and " " not in (value.name or ""):
                parent = next((g for g in added if isinstance(g, click.Group) and value in g.commands.values()), None)
                assert value in added or parent is not None, f"{path.name}: {value.name} is never added"


def test_the_checkers_find_what_they_look_for() -> None:
    planted = ast.parse(
        "import click\nfrom . import cli\n\n@cli.command('x')\ndef x() -> None:\n"
        + "".join(f"    print({i})\n" for i in range(45))
    )
    trees = {"planted.py": planted}
    assert long_functions(trees) == ["planted.py:x (46 lines)"]
    assert registrations(trees) == ["planted.py:4"]
    assert package_imports(trees) == ["planted.py:2"]
