"""Entry points of a repository: where a newcomer starts reading when a task names nothing.

Declared entries come first (``package.json`` ``main``/``bin``/``module``, ``pyproject``
scripts, Go ``package main``), then conventional names (``main.py``, ``app.ts``,
``index.js``, ``server.go``, ...) preferring shallow paths, then the root README.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from ..code.kinds import is_code

CONVENTIONAL = (
    "main",
    "app",
    "index",
    "server",
    "cli",
    "__main__",
    "manage",
    "wsgi",
    "asgi",
    "application",
    "bootstrap",
    "start",
    "run",
)
_SCRIPT = re.compile(r"^\s*[\w.-]+\s*=\s*[\"'](?P<module>[\w.]+)(?::\w+)?[\"']", re.MULTILINE)


def _declared_by_package_json(root: Path) -> list[str]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    bins = data.get("bin")
    found = list(bins.values()) if isinstance(bins, dict) else [bins]
    found += [data.get("main"), data.get("module")]
    return [posixpath.normpath(p) for p in found if isinstance(p, str)]


def _declared_by_pyproject(root: Path) -> list[str]:
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    section = text.split("[project.scripts]", 1)
    if len(section) < 2:
        return []
    body = section[1].split("\n[", 1)[0]
    return [m.group("module").replace(".", "/") for m in _SCRIPT.finditer(body)]


def _resolve(declared: str, ids: dict[str, int]) -> int | None:
    for candidate in (
        declared,
        declared + ".py",
        declared + "/__init__.py",
        declared + "/__main__.py",
        declared + ".js",
        declared + ".ts",
        "src/" + declared + ".py",
    ):
        if candidate in ids:
            return ids[candidate]
    return None


def entry_points(root: Path, files: list[str], go_packages: list[str]) -> list[int]:
    """Indices of ``files`` a reader should open first, best first (README last)."""
    ids = {path: i for i, path in enumerate(files)}
    ranked: list[int] = []
    for declared in _declared_by_package_json(root) + _declared_by_pyproject(root):
        hit = _resolve(declared, ids)
        if hit is not None:
            ranked.append(hit)
    ranked += sorted(
        (i for i, pkg in enumerate(go_packages) if pkg == "main"), key=lambda i: (files[i].count("/"), files[i])
    )
    conventional = [
        (CONVENTIONAL.index(stem), files[i].count("/"), i)
        for i, stem in ((i, posixpath.basename(p).split(".")[0]) for i, p in enumerate(files))
        if stem in CONVENTIONAL and is_code(files[i]) and files[i].count("/") <= 2
    ]
    ranked += [i for _, _, i in sorted(conventional, key=lambda t: (t[1], t[0]))]
    ranked += [i for i, p in enumerate(files) if p.lower().startswith("readme")]
    return list(dict.fromkeys(ranked))
