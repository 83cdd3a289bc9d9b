"""The package's shape, checked from the source: no import cycles, small modules, public names only.

These hold the layout of issue 9 in place: a cycle hidden in a function-level import, a module
grown past 400 lines, a 13th top-level module, or the CLI or a notebook reaching for a private
name fails here with the offending edge, file or name.
"""

from __future__ import annotations

import ast
import json
from importlib import import_module
from pathlib import Path

import workbench

PACKAGE = Path(workbench.__file__).parent
NOTEBOOKS = PACKAGE.parent / "notebooks"


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_only(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:``: never executed, so not part of the import graph."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for n in ast.walk(stmt)
    }


def _imports(module: str, path: Path, is_package: bool) -> set[str]:
    """Every module ``module`` imports at run time, at the top or inside a function."""
    tree = ast.parse(path.read_text())
    skip, targets = _type_only(tree), set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = module.split(".") if is_package else module.split(".")[:-1]
            if node.level:
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets |= {source, *(f"{source}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
    return targets


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        m: {t for t in _imports(m, path, pkg) if t in modules and t != m and not m.startswith(t + ".")}
        for m, (path, pkg) in modules.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path, or None (iterative depth-first search)."""
    state: dict[str, int] = {}
    for root in graph:
        if state.get(root):
            continue
        stack, path = [(root, iter(sorted(graph[root])))], [root]
        state[root] = 1
        while stack:
            node, edges = stack[-1]
            nxt = next(edges, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return None


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_at_most_twelve_top_level_modules_and_none_over_400_lines() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top
    long = {
        str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400
    }
    assert not long, long


def _is_public(source: str, name: str) -> bool:
    """``from source import name`` uses the public API: no private part, a package's own ``__all__``."""
    if any(part.startswith("_") for part in [*source.split("."), name]):
        return False
    module = import_module(source)
    exported = getattr(module, "__all__", None)
    if module.__file__ and module.__file__.endswith("__init__.py"):
        return exported is not None and name in exported
    return source.count(".") <= 1 and (exported is None or name in exported)


def test_the_cli_imports_only_public_names() -> None:
    """Every ``from X import Y`` of the CLI's modules names a public package name (imports within
    the CLI package itself excepted)."""
    wrong = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level == 1:
                continue
            if node.level == 2:
                source = "workbench" + (f".{node.module}" if node.module else "")
            elif (node.module or "").startswith("workbench"):
                source = str(node.module)
            else:
                continue
            wrong += [f"{path.name}: {source}.{a.name}" for a in node.names if not _is_public(source, a.name)]
    assert not wrong, wrong


def test_the_public_checker_rejects_private_and_deep_names() -> None:
    assert _is_public("workbench.run", "run_eval")
    assert not _is_public("workbench.run.runner", "run_eval")  # a module inside a subpackage
    assert not _is_public("workbench.report", "_html")
    assert not _is_public("workbench.run", "no_such_export")


def _namespaces() -> dict[str, set[str]]:
    return {
        "wb": set(workbench.__all__),
        "wb.views": set(workbench.views.__all__),
        "wb.plots": {n for n in dir(workbench.plots) if not n.startswith("_")},
    }


def _non_public_calls(code: str, namespaces: dict[str, set[str]]) -> list[str]:
    """``wb.X``, ``wb.views.X`` and ``wb.plots.X`` in ``code`` whose X is not public there."""
    return [
        f"{owner}.{node.attr}"
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, (ast.Name, ast.Attribute))
        and (owner := ast.unparse(node.value)) in namespaces
        and node.attr not in namespaces[owner]
    ]


def test_notebooks_call_only_public_names() -> None:
    wrong = [
        f"{path.name}: {name}"
        for path in sorted(NOTEBOOKS.glob("*.ipynb"))
        for cell in json.loads(path.read_text())["cells"]
        if cell["cell_type"] == "code"
        for name in _non_public_calls("".join(cell["source"]), _namespaces())
    ]
    assert not wrong, wrong
    assert _non_public_calls("wb.views.open_run(x); wb.views._cache; wb.store.runs", _namespaces()) == [
        "wb.views._cache",
        "wb.store",
    ]


def test_the_public_api_is_curated_and_resolves() -> None:
    assert 20 <= len(workbench.__all__) <= 30
    for name in workbench.__all__:
        assert getattr(workbench, name) is not None, name
    for package in ("run", "store", "analysis", "report", "targets", "reference", "suites"):
        module = import_module(f"workbench.{package}")
        for name in module.__all__:
            assert getattr(module, name) is not None, f"workbench.{package}.{name}"
