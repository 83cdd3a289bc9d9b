"""Resolve raw imports to files of the same repository, giving the import graph.

Python: absolute (``a.b.c`` against every package root in the repo) and relative
(``from ..x import y``). TypeScript/JavaScript: relative specifiers with the usual
extension and ``index`` probing (``./x.js`` may name ``x.ts``), ``tsconfig``/``jsconfig``
``paths`` and ``baseUrl``, ``@/`` and ``~/`` for ``src/``, and workspace packages by
their ``package.json`` name. Go: package imports under each ``go.mod`` module path.
Imports of anything outside the repository resolve to nothing.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from pathlib import Path

from ..code.kinds import extension
from ..code.outline import Import, Outline

TS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
JS_LIKE = frozenset(TS_EXTS) | {".json"}
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.DOTALL)
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)


def _read_json(path: Path) -> dict:
    """A JSON (or JSON-with-comments) file as a dict; ``{}`` when unreadable."""
    try:
        text = _JSONC.sub(lambda m: m.group(1) or "", path.read_text(encoding="utf-8", errors="replace"))
        data = json.loads(re.sub(r",\s*([}\]])", r"\1", text))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class Resolver:
    """Resolves one repository's imports; build once per index."""

    def __init__(self, root: Path, files: list[str]) -> None:
        self.root = root
        self.files = files
        self.ids = {path: i for i, path in enumerate(files)}
        self.modules: dict[str, list[int]] = defaultdict(list)
        self.go_dirs: dict[str, list[int]] = defaultdict(list)
        for i, path in enumerate(files):
            self._register(i, path)
        self.aliases = self._ts_aliases(files)
        self.packages = self._workspace_packages(files)
        self.go_modules = self._go_modules(files)

    def _register(self, i: int, path: str) -> None:
        ext = extension(path)
        if ext in (".py", ".pyi"):
            parts = path[: -len(ext)].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for start in range(len(parts)):
                self.modules[".".join(parts[start:])].append(i)
        elif ext == ".go" and not path.endswith("_test.go"):
            self.go_dirs[posixpath.dirname(path)].append(i)

    def _ts_aliases(self, files: list[str]) -> list[tuple[str, list[str]]]:
        """(prefix, target dirs) pairs from tsconfig/jsconfig ``paths``, then ``@/`` and ``~/``."""
        aliases: list[tuple[str, list[str]]] = []
        for name in ("tsconfig.json", "jsconfig.json"):
            if name in self.ids:
                options = _read_json(self.root / name).get("compilerOptions", {})
                base = posixpath.normpath(str(options.get("baseUrl", ".")))
                for pattern, targets in (options.get("paths") or {}).items():
                    if isinstance(targets, list):
                        dirs = [posixpath.normpath(posixpath.join(base, str(t).rstrip("*"))) for t in targets]
                        aliases.append((pattern.rstrip("*"), dirs))
                if base != ".":
                    aliases.append(("", [base]))
        aliases += [("@/", ["src"]), ("~/", ["src"])]
        return aliases

    def _workspace_packages(self, files: list[str]) -> dict[str, str]:
        packages: dict[str, str] = {}
        for path in files:
            if path.endswith("package.json") and path != "package.json":
                name = _read_json(self.root / path).get("name")
                if isinstance(name, str):
                    packages[name] = posixpath.dirname(path)
        return packages

    def _go_modules(self, files: list[str]) -> list[tuple[str, str]]:
        found = []
        for path in files:
            if path == "go.mod" or path.endswith("/go.mod"):
                try:
                    m = _GO_MODULE.search((self.root / path).read_text(encoding="utf-8", errors="replace"))
                except OSError:
                    continue
                if m:
                    found.append((m.group(1), posixpath.dirname(path)))
        return sorted(found, key=lambda pair: -len(pair[0]))

    def resolve(self, importer: str, outline: Outline) -> set[int]:
        """Indices of the repo files ``importer``'s imports name."""
        ext = extension(importer)
        found: set[int] = set()
        for imp in outline.imports:
            if ext in (".py", ".pyi"):
                found.update(self._python(importer, imp))
            elif ext == ".go":
                found.update(self._go(imp.spec))
            elif ext in JS_LIKE:
                hit = self._script(importer, imp.spec)
                if hit is not None:
                    found.add(hit)
        found.discard(self.ids.get(importer, -1))
        return found

    def _python(self, importer: str, imp: Import) -> list[int]:
        if imp.level:
            base = posixpath.dirname(importer).split("/") if "/" in importer else []
            base = base[: len(base) - (imp.level - 1)] if imp.level > 1 else base
            prefix = ".".join(p for p in base if p)
            module = ".".join(p for p in (prefix, imp.spec) if p)
        else:
            module = imp.spec
        hits = [self._module(f"{module}.{name}" if module else name, importer) for name in imp.names]
        resolved = [h for h in hits if h is not None]
        if len(resolved) < len(hits) or not imp.names:
            whole = self._module(module, importer)
            if whole is not None:
                resolved.append(whole)
        return resolved

    def _module(self, dotted: str, importer: str) -> int | None:
        candidates = self.modules.get(dotted)
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]

        def closeness(i: int) -> tuple[int, int]:
            path = self.files[i]
            shared = len(posixpath.commonprefix([path, importer]).split("/"))
            return (-shared, path.count("/"))

        return min(candidates, key=closeness)

    def _go(self, spec: str) -> list[int]:
        for module, directory in self.go_modules:
            if spec == module or spec.startswith(module + "/"):
                rel = posixpath.normpath(posixpath.join(directory, spec[len(module) + 1 :]))
                return self.go_dirs.get("" if rel == "." else rel, [])
        return []

    def _script(self, importer: str, spec: str) -> int | None:
        if spec.startswith("."):
            return self._probe(posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec)))
        for prefix, targets in self.aliases:
            if spec.startswith(prefix) and (prefix or not spec.startswith("@")):
                for target in targets:
                    hit = self._probe(posixpath.normpath(posixpath.join(target, spec[len(prefix) :])))
                    if hit is not None:
                        return hit
        for name, directory in self.packages.items():
            if spec == name or spec.startswith(name + "/"):
                rest = spec[len(name) + 1 :] or "index"
                return self._probe(posixpath.join(directory, rest)) or self._probe(
                    posixpath.join(directory, "src", rest)
                )
        return None

    def _probe(self, base: str) -> int | None:
        """The file a module specifier names: itself, a TS twin of a ``.js`` name, ``+ext``, ``/index+ext``."""
        if base in self.ids and extension(base) in JS_LIKE:
            return self.ids[base]
        stem = base
        for js in (".js", ".jsx", ".mjs", ".cjs"):
            if base.endswith(js):
                stem = base[: -len(js)]
                break
        for candidate in [stem + ext for ext in TS_EXTS] + [f"{stem}/index{ext}" for ext in TS_EXTS]:
            if candidate in self.ids:
                return self.ids[candidate]
        return None
