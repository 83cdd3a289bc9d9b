"""A seeded history shaped like a large scientific Python library's, written with ``git fast-import``.

``library_history(repo, commits, modules)`` grows a package of ``modules`` Python files (2-40 KB
each, log-uniform: classes with methods, functions with numpy-style docstrings and bodies, so an
``ast`` parse costs what a real one does), their tests and docs, through ``commits`` commits of
the shapes a real history holds: bug fixes and features that edit a function body or two (with
a test beside them, often), pull requests merged with merge commits, docs-, test- and CI-only
changes, releases, bots, refactors over many files, modules added and removed, and messages as
real ones are written (``BUG: linalg: ...``, ``fix(stats): ...``, ``(#1234)``, bodies with
trailers). The same arguments give the same commit ids. Tests use a small one; ``bench/mining.py``
a 60,000-commit one.
"""

from __future__ import annotations

import math
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.git_history import BASE_TIME, init

SUBPACKAGES = (
    "linalg", "sparse", "stats", "signal", "optimize", "integrate", "interpolate", "special", "fft", "io",
    "ndimage", "spatial", "cluster", "core", "utils", "polynomial", "random", "ma", "odr", "misc",
)  # fmt: skip
WORDS = (
    "matrix", "solve", "eigen", "norm", "factor", "grid", "kernel", "sample", "weight", "axis", "shape",
    "dtype", "buffer", "index", "array", "vector", "tensor", "spline", "basis", "root", "bound", "step",
    "tol", "order", "window", "filter", "freq", "spectrum", "mode", "scale", "mean", "variance",
    "quantile", "distance", "tree", "graph", "label", "mask", "fill", "stride", "chunk", "cache", "block",
    "pivot", "rank", "trace", "inverse", "transpose", "reshape", "broadcast", "reduce", "residual",
    "jacobian", "hessian", "gradient", "bracket", "knot", "coeff", "lag", "pad", "edge", "sparse", "dense",
)  # fmt: skip
NOUNS = ("input", "shape", "dtype", "axis", "NaN values", "empty arrays", "complex input", "large arrays",
         "integer overflow", "a zero-size input", "the tolerance", "read-only buffers", "big-endian data")  # fmt: skip
PREFIXES = ("BUG", "ENH", "MAINT", "PERF", "API", "DEP")
FIXES = (
    "fix {noun} handling in `{func}`",
    "{func} returns wrong result for {noun}",
    "avoid a crash in {func} with {noun}",
    "correct the {word} computed by `{cls}.{meth}`",
    "make {func} accept {noun}",
    "speed up {func} for {noun}",
    "raise a clear error when {func} gets {noun}",
    "{sub}: handle {noun} in the {word} step",
    "use a stable {word} update in {func}",
    "{cls} no longer mutates its {word} on {meth}",
    "deprecate the {word} keyword of {func}",
    "add a {word} argument to {func}",
    "support {noun} in {cls}",
    "fix the {word} when {noun} are passed",
    "{sub}: compute the {word} lazily",
)
DOCS = ("DOC: fix the {word} example in the {sub} tutorial", "docs: clarify {func}'s {word} parameter",
        "DOC: add a see-also section to {func}", "Update the {sub} reference guide")  # fmt: skip
TESTS = ("TST: add a regression test for {func}", "TST: mark the {sub} {word} test as slow",
         "test: cover {noun} in {func}", "TST: loosen the tolerance of a {word} test")  # fmt: skip
CHORES = ("CI: bump the wheel builder", "MAINT: update the pre-commit hooks", "BLD: require meson >= 1.2",
          "STY: reformat {sub} with ruff", "MAINT: fix typos in {sub}", "MAINT: clean up imports in {sub}")  # fmt: skip
AUTHORS = tuple(f"{first} {last} <{first.lower()}.{last.lower()}@example.org>"
                for first in ("Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kai",
                              "Lena", "Mo", "Nia", "Omar", "Pia", "Ravi", "Sara", "Tom", "Uma")
                for last in ("Smith", "Garcia", "Ito", "Novak", "Okafor", "Berg", "Rossi", "Kim"))  # fmt: skip
BOTS = ("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
        "pre-commit-ci[bot] <66853113+pre-commit-ci[bot]@users.noreply.github.com>")  # fmt: skip


@dataclass
class Unit:
    """A top-level function or class: its lines, and which of them are simple statements (safe to
    replace or follow by another simple statement at the same indent, keeping the file valid)."""

    name: str
    methods: list[str]
    lines: list[str]
    simple: list[int] = field(default_factory=list)

    def refresh(self) -> None:
        self.simple, quoted = [], False
        for index, line in enumerate(self.lines):
            if line.count('"""') % 2:
                quoted = not quoted
            elif not quoted and line.startswith("        ") and line[-1] != ":":
                self.simple.append(index)


class Writer:
    """Generates identifiers, docstrings and statements from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def ident(self, parts: int = 2) -> str:
        return "_".join(self.rng.choice(WORDS) for _ in range(parts))

    def statement(self, indent: str) -> str:
        a, b, c = self.ident(1), self.ident(2), self.ident(1)
        form = self.rng.randrange(6)
        if form == 0:
            return f"{indent}{a} = np.asarray({b}, dtype=float)"
        if form == 1:
            return f"{indent}{a} = {b}[..., {self.rng.randrange(4)}] * {c} + {self.rng.random():.4f}"
        if form == 2:
            return f"{indent}{a} = _{b}({c}, axis={self.rng.randrange(-1, 3)})"
        if form == 3:
            return f"{indent}{b} = {a}.reshape(-1, {self.rng.randrange(1, 9)}).sum(axis=0)"
        if form == 4:
            return f"{indent}{a} = np.where({c} > {self.rng.random():.3f}, {b}, 0.0)"
        return f"{indent}{a}, {c} = _{b}({a}, {c}, tol={10 ** -self.rng.randrange(4, 12):g})"

    def docstring(self, name: str, indent: str) -> list[str]:
        lines = [f'{indent}"""Compute the {self.ident(1)} {self.ident(1)} of the {self.ident(1)} ({name}).', ""]
        lines.append(f"{indent}Parameters")
        lines.append(f"{indent}----------")
        for _ in range(self.rng.randrange(1, 5)):
            lines.append(f"{indent}{self.ident(1)} : array_like")
            lines.append(
                f"{indent}    The {self.ident(1)} of the {self.ident(1)}, broadcast against the {self.ident(1)}."
            )
        lines += ["", f"{indent}Returns", f"{indent}-------", f"{indent}out : ndarray", f'{indent}"""']
        return lines

    def body(self, indent: str) -> list[str]:
        deeper = indent + "    "
        lines: list[str] = []
        for _ in range(self.rng.randrange(3, 14)):
            roll = self.rng.random()
            if roll < 0.15:
                lines += [f"{indent}if {self.ident(1)}.ndim != {self.rng.randrange(1, 4)}:"]
                lines += [f'{deeper}raise ValueError("{self.ident(1)} must be {self.rng.randrange(1, 4)}-D")']
            elif roll < 0.3:
                lines += [f"{indent}for {self.ident(1)} in range({self.ident(1)}.shape[0]):"]
                lines += [self.statement(deeper) for _ in range(self.rng.randrange(1, 4))]
            else:
                lines.append(self.statement(indent))
        return [*lines, f"{indent}return {self.ident(1)}"]

    def function(self, name: str, indent: str = "") -> list[str]:
        args = [
            word for word in dict.fromkeys(self.ident(1) for _ in range(self.rng.randrange(1, 5))) if word != "axis"
        ]
        header = [f"{indent}def {name}({', '.join(['self'] * bool(indent) + args + ['axis=-1'])}):"]
        return header + self.docstring(name, indent + "    ") + self.body(indent + "    ")

    def unit(self) -> Unit:
        """A function (two in three) or a class with 2-8 methods. Bodies indented 8 or more are what
        edits replace (a function's are nested in a wrapping ``with`` so they are, too)."""
        if self.rng.random() < 0.66:
            name = self.ident() if self.rng.random() < 0.8 else "_" + self.ident()
            lines = self.function(name)
            head = [i for i, line in enumerate(lines) if line == '    """'][0] + 1
            body = lines[head:]
            lines = lines[:head] + ["    with np.errstate(all='ignore'):"] + ["    " + line for line in body]
            unit = Unit(name, [], lines)
        else:
            name = "".join(w.capitalize() for w in (self.rng.choice(WORDS), self.rng.choice(WORDS)))
            methods = [self.ident() for _ in range(self.rng.randrange(2, 9))]
            lines = [f"class {name}:", f'    """A {self.ident(1)} {self.ident(1)}."""', ""]
            for method in methods:
                lines += [*self.function(method, "    "), ""]
            unit = Unit(name, methods, lines[:-1])
        unit.refresh()
        return unit


@dataclass
class Module:
    path: str
    units: list[Unit]

    def text(self) -> bytes:
        head = f'"""The {self.path.rsplit("/", 1)[-1][:-3]} module."""\n\nimport numpy as np\n\n\n'
        return (head + "\n\n\n".join("\n".join(u.lines) for u in self.units) + "\n").encode()


def new_module(writer: Writer, path: str) -> Module:
    """A module of log-uniformly 2-40 KB of units."""
    target = math.exp(writer.rng.uniform(math.log(2_000), math.log(40_000)))
    module = Module(path, [])
    size = 0
    while size < target:
        unit = writer.unit()
        module.units.append(unit)
        size += sum(len(line) + 1 for line in unit.lines) + 2
    return module


def edit(writer: Writer, module: Module) -> tuple[str, str, str]:
    """Change 1-4 statements of one unit (replace or insert); (function, class, method) it names."""
    units = [u for u in module.units if u.simple]
    unit = writer.rng.choice(units) if units else module.units[0]
    for _ in range(writer.rng.randrange(1, 5)):
        if not unit.simple:
            break
        at = writer.rng.choice(unit.simple)
        indent = unit.lines[at][: len(unit.lines[at]) - len(unit.lines[at].lstrip())]
        if writer.rng.random() < 0.7:
            unit.lines[at] = writer.statement(indent)
        else:
            unit.lines.insert(at + 1, writer.statement(indent))
            unit.refresh()
    method = writer.rng.choice(unit.methods) if unit.methods else unit.name
    return (unit.name if not unit.methods else method), unit.name, method


class History:
    """The generator's state: modules, tests, the fast-import stream and its marks."""

    def __init__(self, repo: Path, modules: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.writer = Writer(self.rng)
        self.planned = modules
        self.modules: list[Module] = []
        self.mark = 0
        self.main = 0  # mark of main's tip
        self.time = BASE_TIME
        self.version = [1, 0, 0]
        self.last_files: dict[str, bytes | None] = {}
        init(repo)
        command = ["git", "-C", str(repo), "fast-import", "--quiet", "--done"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE)
        assert self.process.stdin is not None  # Popen with stdin=PIPE always has one
        self.out = self.process.stdin

    def module_path(self) -> str:
        sub = self.rng.choice(SUBPACKAGES)
        deeper = (
            f"/{self.rng.choice(('_impl', 'tests_support', 'backends', '_lib'))}" if self.rng.random() < 0.2 else ""
        )
        return f"sci/{sub}{deeper}/_{self.writer.ident()}.py"

    def commit(self, message: str, files: dict[str, bytes | None], parent: int, author: str, merge: int = 0) -> int:
        self.mark += 1
        self.last_files = files
        self.time += self.rng.randrange(60, 7200)
        text = message.encode()
        out = self.out
        out.write(b"commit refs/heads/main\nmark :%d\n" % self.mark)
        out.write(
            b"author %s %d +0000\ncommitter %s %d +0000\n" % (author.encode(), self.time, author.encode(), self.time)
        )
        out.write(b"data %d\n%s\n" % (len(text), text))
        if parent:
            out.write(b"from :%d\n" % parent)
        if merge:
            out.write(b"merge :%d\n" % merge)
        for path, data in files.items():
            if data is None:
                out.write(b"D %s\n" % path.encode())
            else:
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        out.write(b"\n")
        return self.mark

    def close(self) -> None:
        self.out.write(b"reset refs/heads/main\nfrom :%d\n\ndone\n" % self.main)
        self.out.close()
        if self.process.wait() != 0:
            raise RuntimeError("git fast-import failed")


def _fill(template: str, history: History, module: Module, names: tuple[str, str, str]) -> str:
    func, cls, meth = names
    sub = module.path.split("/")[1]
    rng = history.rng
    return template.format(func=func, cls=cls, meth=meth, sub=sub, noun=rng.choice(NOUNS), word=rng.choice(WORDS))


def _message(history: History, template: str, module: Module, names: tuple[str, str, str]) -> str:
    """A subject in one of the styles real histories mix, sometimes with a reference and a body."""
    rng = history.rng
    subject = _fill(template, history, module, names)
    style = rng.random()
    if style < 0.45:
        subject = f"{rng.choice(PREFIXES)}: {subject}"
    elif style < 0.6:
        subject = f"fix({module.path.split('/')[1]}): {subject}"
    else:
        subject = subject[0].upper() + subject[1:]
    if rng.random() < 0.35:
        subject += f" (#{rng.randrange(1000, 20000)})"
    if rng.random() < 0.4:
        body = f"The {rng.choice(WORDS)} was computed from the {rng.choice(WORDS)} before the {rng.choice(WORDS)}"
        body += f" was checked, so {rng.choice(NOUNS)} gave a wrong answer.\n\nCloses gh-{rng.randrange(1000, 20000)}"
        if rng.random() < 0.3:
            body += f"\n\nCo-authored-by: {rng.choice(AUTHORS)}"
        return f"{subject}\n\n{body}"
    return subject


def _test_path(module: Module) -> str:
    parts = module.path.split("/")
    return f"sci/{parts[1]}/tests/test{parts[-1]}"


def _test_text(history: History, module: Module, names: tuple[str, str, str]) -> bytes:
    rng = history.rng
    lines = [f"def test_{names[0].lstrip('_')}_{rng.randrange(10**6)}():"]
    lines += [history.writer.statement("    ") for _ in range(rng.randrange(2, 8))]
    return ("import numpy as np\n\n\n" + "\n".join(lines) + "\n").encode()


def _work(history: History, parent: int) -> int:
    """One commit of everyday work on ``parent``: a fix or feature (most), docs, tests, chores,
    a release, a bot, a refactor over many files, a module added or removed."""
    rng = history.rng
    writer = history.writer
    author = rng.choice(AUTHORS)
    kind = rng.choices(("fix", "docs", "test", "chore", "release", "bot", "refactor", "add", "remove"),
                       (64, 8, 8, 6, 1, 3, 4, 4, 2))[0]  # fmt: skip
    if kind == "add" or len(history.modules) < 8 or (kind == "remove" and len(history.modules) < history.planned // 2):
        module = new_module(writer, history.module_path())
        history.modules.append(module)
        names = (module.units[0].name, module.units[0].name, module.units[0].name)
        return history.commit(_message(history, "add a {word} module to {sub}", module, names),
                              {module.path: module.text()}, parent, author)  # fmt: skip
    if kind == "remove":
        module = history.modules.pop(rng.randrange(len(history.modules)))
        names = (module.units[0].name,) * 3
        return history.commit(_message(history, "remove the deprecated {func}", module, names),
                              {module.path: None}, parent, author)  # fmt: skip
    module = rng.choice(history.modules)
    if kind in ("docs", "test", "chore", "release", "bot"):
        return _side_work(history, kind, module, parent, author)
    touched = (
        [module] if kind == "fix" else rng.sample(history.modules, min(len(history.modules), rng.randrange(4, 12)))
    )
    if kind == "fix" and rng.random() < 0.35:
        touched.append(rng.choice(history.modules))
    files: dict[str, bytes | None] = {}
    names = ("", "", "")
    for index, each in enumerate(touched):
        found = edit(writer, each)
        names = found if index == 0 else names
        files[each.path] = each.text()
    if kind == "fix" and rng.random() < 0.5:
        files[_test_path(module)] = _test_text(history, module, names)
    template = rng.choice(FIXES) if kind == "fix" else "MAINT: refactor the {word} helpers across {sub}"
    return history.commit(_message(history, template, module, names), files, parent, author)


def _side_work(history: History, kind: str, module: Module, parent: int, author: str) -> int:
    """A commit that touches no source: docs, tests, CI and chores, a release, a bot."""
    rng = history.rng
    names = (module.units[0].name, module.units[0].name, module.units[0].name)
    sub = module.path.split("/")[1]
    files: dict[str, bytes | None]
    if kind == "docs":
        message = _fill(rng.choice(DOCS), history, module, names)
        files = {
            f"doc/source/reference/{sub}.rst": f"{sub}\n====\n\n.. autofunction:: {names[0]}\n{rng.random()}\n".encode()
        }
    elif kind == "test":
        message = _fill(rng.choice(TESTS), history, module, names)
        files = {_test_path(module): _test_text(history, module, names)}
    elif kind == "chore":
        message = _fill(rng.choice(CHORES), history, module, names)
        files = {".github/workflows/wheels.yml": f"name: wheels\n# {rng.random()}\n".encode()}
        if message.startswith(("STY", "MAINT: fix typos")):
            edit(history.writer, module)
            files[module.path] = module.text()
    elif kind == "release":
        history.version[1] += 1
        version = ".".join(map(str, history.version))
        message = f"REL: set version to {version}" if rng.random() < 0.5 else f"Release {version}"
        files = {"sci/version.py": f'version = "{version}"\n'.encode(), f"doc/release/{version}-notes.rst": b"notes\n"}
    else:
        message = "[pre-commit.ci] pre-commit autoupdate" if rng.random() < 0.5 else "Bump actions/checkout from 3 to 4"
        files = {".pre-commit-config.yaml": f"repos: []\n# {rng.random()}\n".encode()}
        author = rng.choice(BOTS)
    return history.commit(message, files, parent, author)


def library_history(repo: Path, commits: int, modules: int = 2_500, seed: int = 0) -> Path:
    """Write the history (``commits`` commits, about a quarter of them merges of pull requests,
    ``modules`` source modules at the end, 60% of them in the first commit) into a new repository
    at ``repo``; returns ``repo``."""
    history = History(repo, modules, seed)
    writer = history.writer
    for _ in range(int(modules * 0.6)):
        history.modules.append(new_module(writer, history.module_path()))
    files: dict[str, bytes | None] = {m.path: m.text() for m in history.modules}
    files["README.md"] = b"# sci\n"
    history.main = history.commit("Initial import", files, 0, AUTHORS[0])
    made = 1
    while made < commits:
        if history.rng.random() < 0.6 and commits - made >= 3:
            tip, changed = history.main, {}
            for _ in range(min(history.rng.randrange(1, 4), commits - made - 1)):
                tip = _work(history, tip)
                changed.update(history.last_files)
                made += 1
            number = history.rng.randrange(1000, 20000)
            branch = f"{history.rng.choice(AUTHORS).split()[0].lower()}/{writer.ident()}"
            message = f"Merge pull request #{number} from {branch}\n\n{writer.ident()} {writer.ident()}"
            # the merge starts from its first parent's tree: the branch's changes are given again
            history.main = history.commit(message, changed, history.main, AUTHORS[1], merge=tip)
        else:
            history.main = _work(history, history.main)
        made += 1
    history.close()
    return repo
