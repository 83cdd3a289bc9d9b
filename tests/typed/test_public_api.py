"""The public API is typed: mypy passes ``client.py`` and reports every wrong call of
``client_wrong.py``, so a name that turns ``Any`` (a lazy export, an untyped wrapper) fails here.
Also: the names ``import workbench`` gives at run time are the ones type checkers see."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
from importlib import import_module
from pathlib import Path

import workbench

from ..conftest import REPO_ROOT

HERE = Path(__file__).parent
CLIENT, WRONG = HERE / "client.py", HERE / "client_wrong.py"
# mypy's cache outside the tree, kept between runs (a cold check of the package takes ~40 s)
CACHE = Path(tempfile.gettempdir()) / "workbench-typed-client-mypy-cache"
ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def _mypy(*files: Path) -> list[tuple[str, int, str]]:
    """(file name, line, error code) of every error mypy reports for ``files``."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(CACHE), "--follow-imports=silent", *map(str, files)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    errors = [m for line in done.stdout.splitlines() if (m := ERROR.match(line))]
    assert done.returncode == (1 if errors else 0), done.stdout + done.stderr
    return [(Path(m["file"]).name, int(m["line"]), m["code"]) for m in errors]


def _marked(path: Path) -> list[tuple[str, int, str]]:
    """The ``# wrong: CODE`` marks of a client file."""
    return [
        (path.name, number, mark.group(1))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if (mark := re.search(r"# wrong: ([\w-]+)$", line))
    ]


def test_mypy_passes_the_client_and_reports_each_wrong_call() -> None:
    expected = _marked(WRONG)
    assert len(expected) == 7 and {code for *_, code in expected} == {"arg-type", "attr-defined", "return-value"}
    assert sorted(_mypy(CLIENT, WRONG)) == sorted(expected)


def _type_checking_names(path: Path) -> set[str]:
    """Names the ``if TYPE_CHECKING:`` block of a package ``__init__`` imports."""
    tree = ast.parse(path.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    imports = [node for node in block.body if isinstance(node, ast.ImportFrom)]
    return {alias.asname or alias.name for node in imports for alias in node.names}


def test_runtime_names_are_the_typed_names() -> None:
    typed = _type_checking_names(Path(workbench.__file__))
    assert typed == set(workbench.__all__)
    for name in sorted(typed):
        value = getattr(workbench, name)
        home = workbench._HOMES[name]
        assert value is (import_module(home) if home.endswith(f".{name}") else getattr(import_module(home), name))
    assert {"views", "plots"} <= set(dir(workbench))


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        workbench.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("workbench.no_such_name resolved")
