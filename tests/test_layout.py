"""The package's shape, checked from the source: no import cycles, small modules, public names only.

These hold the layout of issue 9 in place: a cycle hidden in a function-level import, a module
grown past 400 lines, a 13th top-level module, or the CLI or a notebook reaching for a private
name fails here with the offending edge, file or name.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Mapping
from importlib import import_module
from pathlib import Path

import workbench

PACKAGE = Path(workbench.__file__).parent
NOTEBOOKS = PACKAGE.parent / "notebooks"


def _modules(package: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_only(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (not its ``else``): never executed, so not part of the graph."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for n in ast.walk(stmt)
    }


# A string naming a module, or "module:name" (the suite and section registries import by string).
_BY_STRING = re.compile(r"(workbench(?:\.\w+)+)(?::\w+)?")


def _imports(module: str, path: Path, is_package: bool, known: Collection[str]) -> set[str]:
    """Every module of ``known`` that ``module`` imports at run time: at the top or inside a
    function, relative (parents too), absolute, or by a string such as ``"workbench.x.y:Name"``."""
    return _imports_of_tree(module, ast.parse(path.read_text()), is_package, known)


def _imports_of_tree(module: str, tree: ast.AST, is_package: bool, known: Collection[str]) -> set[str]:
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
            names = [f"{source}.{alias.name}" for alias in node.names]
            targets |= {n for n in names if n in known}
            if any(n not in known for n in names):  # a name defined in ``source`` itself
                targets.add(source)
        elif isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if (match := _BY_STRING.fullmatch(node.value)) and match.group(1) in known:
                targets.add(match.group(1))
    return {t for t in targets if t in known and t != module}


def _graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports (a package's own ``__init__`` included)."""
    modules = _modules(package)
    return {m: _imports(m, path, pkg, modules) for m, (path, pkg) in modules.items()}


def _cycle(graph: Mapping[str, Collection[str]]) -> list[str] | None:
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
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                path.append(nxt)
    return None


# The flow, lowest first: a folder imports only folders of a strictly lower layer (base modules may
# import each other; the module-level cycle test keeps them acyclic). The root package and
# ``__main__`` sit on top.
BASE = {
    "errors",
    "files",
    "paths",
    "options",
    "columns",
    "strictjson",
    "contract",
    "wire",
    "tokens",
    "schemas",
    "containment",
    "sandbox",
    "console",
}
LAYERS = [
    BASE,
    {"code"},
    {"corpus", "reference"},
    {"store"},
    {"analysis"},
    {"mining", "targets"},
    {"suites"},
    {"run", "calibration"},
    {"interchange", "report", "online"},
    {"cli"},
    {"workbench", "__main__"},
]
RANK = {folder: rank for rank, layer in enumerate(LAYERS) for folder in layer}


def _folder(module: str) -> str:
    """``workbench.run.runner`` -> ``run``; ``workbench.errors`` -> ``errors``; the root -> ``workbench``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _folder_graph(graph: Mapping[str, Collection[str]]) -> dict[str, dict[str, list[str]]]:
    """Folder -> folder it imports -> the module edges behind it (``a -> b``)."""
    folders: dict[str, dict[str, list[str]]] = {}
    for module, targets in graph.items():
        edges = folders.setdefault(_folder(module), {})
        for target in sorted(targets):
            if _folder(target) != _folder(module):
                edges.setdefault(_folder(target), []).append(f"{module} -> {target}")
    return folders


def _against_the_flow(folders: Mapping[str, Mapping[str, list[str]]]) -> list[str]:
    """Edges from a folder to one not strictly below it (base modules importing base modules
    excepted), and folders the layer table does not place."""
    unplaced = sorted(f"{f}: not in LAYERS" for f in {*folders, *(t for e in folders.values() for t in e)} - set(RANK))
    wrong = [
        f"{source} -> {target}: {edges[0]}"
        for source, targets in sorted(folders.items())
        for target, edges in sorted(targets.items())
        if source in RANK
        and target in RANK
        and RANK[target] >= RANK[source]
        and not (source in BASE and target in BASE)
    ]
    return unplaced + wrong


# Folders only some folders may import, beyond the flow: the engine is a target (the CLI also
# offers it as a tool), and a report reads stored runs, never the code that makes them.
ONLY_IMPORTED_BY = {"reference": {"targets", "cli"}, "run": {"interchange", "online", "cli", "workbench"}}


def _forbidden(folders: Mapping[str, Mapping[str, list[str]]]) -> list[str]:
    """Edges into a folder of ``ONLY_IMPORTED_BY`` from a folder it does not list."""
    return [
        f"{source} -> {target}: {edges[0]}"
        for source, targets in sorted(folders.items())
        for target, edges in sorted(targets.items())
        if target in ONLY_IMPORTED_BY and source not in ONLY_IMPORTED_BY[target]
    ]


def test_only_targets_and_the_cli_import_the_engine_and_reports_never_import_run() -> None:
    folders = _folder_graph(_graph())
    assert _forbidden(folders) == []
    assert "reference" in folders["targets"] and "reference" in folders["cli"]  # the rule has something to hold


def _graph_with_type_imports(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports, ``if TYPE_CHECKING:`` imports included."""
    modules = _modules(package)
    graph = {}
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.test = ast.Constant(True)  # _imports skips what sits under TYPE_CHECKING
        graph[module] = _imports_of_tree(module, tree, is_package, modules)
    return graph


def _in_folder_cycle(graph: Mapping[str, Collection[str]]) -> list[str] | None:
    """A cycle among the modules of one folder (a module's import of its own package left out:
    a package's ``__init__`` re-exports its modules)."""
    inside = {
        m: {t for t in targets if t.rpartition(".")[0] == m.rpartition(".")[0] and not m.startswith(t + ".")}
        for m, targets in graph.items()
    }
    return _cycle(inside)


def test_no_circle_among_the_files_of_a_folder_type_only_imports_included() -> None:
    assert _in_folder_cycle(_graph_with_type_imports()) is None, " -> ".join(
        _in_folder_cycle(_graph_with_type_imports()) or []
    )


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    graph = {m: {t for t in targets if not m.startswith(t + ".")} for m, targets in _graph().items()}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_folder_graph_is_acyclic_and_follows_the_flow() -> None:
    """Counting child -> parent, function-level and by-string imports; only TYPE_CHECKING is left out."""
    folders = _folder_graph(_graph())
    assert _against_the_flow(folders) == []
    assert _cycle({f: set(t) for f, t in folders.items()}) is None
    # the edges this test exists for are seen: by string, and child -> parent inside a function
    graph = _graph()
    assert {"workbench.suites.retrieval", "workbench.corpus.sections"} <= graph["workbench.suites"]
    assert "workbench.suites" in graph["workbench.suites.base"]
    assert "workbench.report.views" in graph["workbench"]


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "workbench" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "workbench"


def test_the_flow_checker_finds_planted_wrong_direction_edges(tmp_path: Path) -> None:
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "",
            "store/__init__.py": "",
            "store/runs.py": "def f():\n    from ..run import runner\n",  # function-level, upwards
            "run/__init__.py": "",
            "run/runner.py": "from ..store import runs\n",  # downwards: fine
            "reference/__init__.py": "WHERE = 'workbench.suites.retrieval:RetrievalSuite'\n",  # by string
            "suites/__init__.py": "",
            "suites/retrieval.py": "from .. import errors\n",  # a base module: fine
            "corpus/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..cli import x\n",
            "corpus/load.py": "from .. import errors\nfrom .. import __version__\n",  # the root package itself
            "cli/__init__.py": "",
            "cli/x.py": "",
            "extra/__init__.py": "",
        },
    )
    assert _against_the_flow(_folder_graph(_graph(package))) == [
        "extra: not in LAYERS",
        "corpus -> workbench: workbench.corpus.load -> workbench",
        "reference -> suites: workbench.reference -> workbench.suites.retrieval",
        "store -> run: workbench.store.runs -> workbench.run.runner",
    ]


def test_the_checkers_find_planted_edges_against_the_new_flow(tmp_path: Path) -> None:
    """code/ imports nothing above the base; corpus/ and reference/ share a layer (neither imports
    the other); only targets/ and cli/ import reference/; report/ never imports run/; and a circle
    inside a folder counts its type-only imports."""
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "",
            "code/__init__.py": "",
            "code/kinds.py": "from .. import errors\ndef f():\n    from ..corpus import load\n",  # up
            "corpus/__init__.py": "",
            "corpus/load.py": "from ..code import kinds\nfrom ..reference import index\n",  # sideways
            "reference/__init__.py": "",
            "reference/index.py": "from ..code import kinds\n",  # down: fine
            "mining/__init__.py": "",
            "mining/mine.py": "from ..reference import index\n",  # below, but not one of its importers
            "targets/__init__.py": "",
            "targets/builtin.py": "from ..reference import index\n",  # allowed
            "run/__init__.py": "",
            "run/repeats.py": "",
            "report/__init__.py": "",
            "report/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
            "report/b.py": "from .a import A\nfrom ..run import repeats\n",
        },
    )
    folders = _folder_graph(_graph(package))
    assert _against_the_flow(folders) == [
        "code -> corpus: workbench.code.kinds -> workbench.corpus.load",
        "corpus -> reference: workbench.corpus.load -> workbench.reference.index",
    ]
    assert _forbidden(folders) == [
        "corpus -> reference: workbench.corpus.load -> workbench.reference.index",
        "mining -> reference: workbench.mining.mine -> workbench.reference.index",
        "report -> run: workbench.report.b -> workbench.run.repeats",
    ]
    assert _in_folder_cycle(_graph(package)) is None  # run-time imports alone: no circle
    assert _in_folder_cycle(_graph_with_type_imports(package)) == [
        "workbench.report.a",
        "workbench.report.b",
        "workbench.report.a",
    ]


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
    for package in ("run", "store", "analysis", "report", "targets", "reference", "suites", "online", "code"):
        module = import_module(f"workbench.{package}")
        for name in module.__all__:
            assert getattr(module, name) is not None, f"workbench.{package}.{name}"
