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
import sys
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..code.kinds import PYTHON_EXTENSIONS, extension
from ..code.outline import Import

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


def is_config(rel: str) -> bool:
    """Whether ``Resolver`` reads the file ``rel`` (compiler paths, workspace packages, Go modules)."""
    return (
        rel in ("tsconfig.json", "jsconfig.json")
        or (rel.endswith("package.json") and rel != "package.json")
        or rel == "go.mod"
        or rel.endswith("/go.mod")
    )


@dataclass(frozen=True)
class Config:
    """What a repository's configuration files say about resolving imports."""

    aliases: list[tuple[str, list[str]]]  # (prefix, target dirs): tsconfig/jsconfig ``paths``, then ``@/``, ``~/``
    packages: dict[str, str]  # workspace package name -> its directory
    go_modules: list[tuple[str, str]]  # (module path, directory), longest first

    @classmethod
    def read(cls, root: Path, files: list[str]) -> Config:
        present = set(files)
        return cls(_ts_aliases(root, present), _workspace_packages(root, files), _go_modules(root, files))


def _ts_aliases(root: Path, present: set[str]) -> list[tuple[str, list[str]]]:
    aliases: list[tuple[str, list[str]]] = []
    for name in ("tsconfig.json", "jsconfig.json"):
        if name in present:
            options = _read_json(root / name).get("compilerOptions", {})
            base = posixpath.normpath(str(options.get("baseUrl", ".")))
            for pattern, targets in (options.get("paths") or {}).items():
                if isinstance(targets, list):
                    dirs = [posixpath.normpath(posixpath.join(base, str(t).rstrip("*"))) for t in targets]
                    aliases.append((pattern.rstrip("*"), dirs))
            if base != ".":
                aliases.append(("", [base]))
    return aliases + [("@/", ["src"]), ("~/", ["src"])]


def _workspace_packages(root: Path, files: list[str]) -> dict[str, str]:
    packages: dict[str, str] = {}
    for path in files:
        if path.endswith("package.json") and path != "package.json":
            name = _read_json(root / path).get("name")
            if isinstance(name, str):
                packages[name] = posixpath.dirname(path)
    return packages


def _go_modules(root: Path, files: list[str]) -> list[tuple[str, str]]:
    found = []
    for path in files:
        if path == "go.mod" or path.endswith("/go.mod"):
            try:
                m = _GO_MODULE.search((root / path).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            if m:
                found.append((m.group(1), posixpath.dirname(path)))
    return sorted(found, key=lambda pair: -len(pair[0]))


@lru_cache(maxsize=1 << 16)
def registrations(path: str) -> tuple[str, ...]:
    """The lookup keys a file answers: ``m`` + each dotted module name it is (Python), ``g`` + its
    folder (Go, not a test); with ``i`` + the path itself, what adding or removing it changes."""
    ext = extension(path)
    if ext in PYTHON_EXTENSIONS:
        parts = path[: -len(ext)].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return tuple(sys.intern("m" + ".".join(parts[start:])) for start in range(len(parts)))
    if ext == ".go" and not path.endswith("_test.go"):
        return (sys.intern("g" + posixpath.dirname(path)),)
    return ()


class Resolver:
    """Resolves one repository's imports; build once per index. While ``seen`` is a list, every
    key looked up (``registrations``' spelling) is noted there: what a resolution depends on."""

    def __init__(self, root: Path, files: list[str], config: Config | None = None) -> None:
        self.root = root
        self.files = files
        self.ids = {path: i for i, path in enumerate(files)}
        self.modules: dict[str, list[int]] = defaultdict(list)
        self.go_dirs: dict[str, list[int]] = defaultdict(list)
        for i, path in enumerate(files):
            for key in registrations(path):
                (self.modules if key[0] == "m" else self.go_dirs)[key[1:]].append(i)
        config = config or Config.read(root, files)
        self.aliases = config.aliases
        self.packages = config.packages
        self.go_modules = config.go_modules
        self.seen: list[str] | None = None

    def _note(self, key: str) -> None:
        if self.seen is not None:
            self.seen.append(key)

    def resolve(self, importer: str, imports: Sequence[Import]) -> set[int]:
        """Indices of the repo files ``importer``'s imports name."""
        ext = extension(importer)
        found: set[int] = set()
        for imp in imports:
            if ext in PYTHON_EXTENSIONS:
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
        self._note("m" + dotted)
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
                self._note("g" + ("" if rel == "." else rel))
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
        self._note("i" + base)
        if base in self.ids and extension(base) in JS_LIKE:
            return self.ids[base]
        stem = base
        for js in (".js", ".jsx", ".mjs", ".cjs"):
            if base.endswith(js):
                stem = base[: -len(js)]
                break
        for candidate in [stem + ext for ext in TS_EXTS] + [f"{stem}/index{ext}" for ext in TS_EXTS]:
            self._note("i" + candidate)
            if candidate in self.ids:
                return self.ids[candidate]
        return None


@dataclass(frozen=True)
class _Context:
    """A repository state resolutions were made in: its files and configuration files' contents."""

    number: int
    files: frozenset[str]
    config: tuple[tuple[str, str], ...]  # (path, content digest) of each file ``is_config`` names


class Resolutions:
    """Each file's resolved imports, kept across revisions: a resolution (of a path and its blob)
    stays valid in the next revision while no key it looked up changed, i.e. no file answering
    one of them was added or removed and no configuration file changed. Consecutive revisions
    then resolve only their new blobs. Holds about three revisions' resolutions (at most ``limit``;
    the least recently used go), the last ``CONTEXTS`` states and their configurations."""

    CONTEXTS = 4

    def __init__(self, limit: int = 1 << 15) -> None:
        self.limit = limit
        self._held: OrderedDict[tuple[str, str], tuple[int, tuple[str, ...], tuple[str, ...]]] = OrderedDict()
        self._contexts: list[_Context] = []
        self._configs: dict[tuple[tuple[str, str], ...], Config] = {}
        self._numbered = 0

    def resolve(
        self, root: Path, files: list[str], blobs: list[str], imports: list[Sequence[Import]], digests: list[str]
    ) -> list[tuple[str, ...]]:
        """Per file of ``files`` (its blob's key ``blobs[i]``, its ``imports[i]``), the paths they name."""
        config = tuple((rel, d) for rel, d in zip(files, digests, strict=True) if is_config(rel))
        context, changed = self._context(frozenset(files), config)
        out: list[tuple[str, ...] | None] = []
        todo = []
        for i, key in enumerate(zip(files, blobs, strict=True)):
            held = self._held.get(key)
            since = changed.get(held[0]) if held is not None else None
            if held is not None and since is not None and since.isdisjoint(held[1]):
                self._held[key] = (context, held[1], held[2])
                self._held.move_to_end(key)
                out.append(held[2])
            else:
                out.append(None)
                todo.append(i)
        if todo:
            self._resolve_into(out, todo, Resolver(root, files, self._config(root, files, config)), blobs, imports)
        while len(self._held) > min(self.limit, max(4096, 3 * len(files))):  # about three revisions' worth
            self._held.popitem(last=False)
        return [paths or () for paths in out]

    def _resolve_into(
        self,
        out: list[tuple[str, ...] | None],
        todo: list[int],
        resolver: Resolver,
        blobs: list[str],
        imports: list[Sequence[Import]],
    ) -> None:
        context = self._contexts[0].number
        files = resolver.files
        for i in todo:
            resolver.seen = []
            found = resolver.resolve(files[i], imports[i])
            paths = tuple(files[j] for j in sorted(found))
            self._held[files[i], blobs[i]] = (context, tuple(map(sys.intern, dict.fromkeys(resolver.seen))), paths)
            out[i] = paths
        resolver.seen = None

    def _context(self, files: frozenset[str], config: tuple) -> tuple[int, dict[int, set[str]]]:
        """This state's number, and per earlier state of the same configuration (close enough) the
        keys changed since (none for itself); this state becomes the most recent."""
        same = next((c for c in self._contexts if c.config == config and c.files == files), None)
        if same is None:
            self._numbered += 1
            same = _Context(self._numbered, files, config)
        self._contexts = [same] + [c for c in self._contexts if c is not same][: self.CONTEXTS - 1]
        deltas = {c.number: c.files ^ files for c in self._contexts if c.config == config}
        return same.number, {
            number: {key for rel in delta for key in ("i" + rel, *registrations(rel))}
            for number, delta in deltas.items()
            if len(delta) <= len(files) // 4  # a state that far is not worth checking against
        }

    def _config(self, root: Path, files: list[str], config: tuple) -> Config:
        found = self._configs.get(config)
        if found is None:
            if len(self._configs) >= self.CONTEXTS:
                self._configs.clear()
            found = self._configs[config] = Config.read(root, files)
        return found
