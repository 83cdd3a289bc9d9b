"""Classify a file by its role in a repository (test, translation catalog, controller, ...).

The rules are a table, read top to bottom, first match wins: a rule names
directory segments, file-name suffixes or a file-name pattern. Kinds drive
demotion (tests, catalogs, docs) and give the ranking a word for the role
(``orders.controller.ts`` is a controller even if no identifier says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contract import GoldScope

CODE_EXTENSIONS = frozenset(
    {
        ".py",
        ".pyi",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".go",
        ".vue",
        ".svelte",
        ".rb",
        ".java",
        ".kt",
        ".rs",
        ".php",
        ".cs",
        ".swift",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".scala",
        ".sh",
        ".sql",
    }
)
PYTHON_EXTENSIONS = (".py", ".pyi")  # read by the Python parser (``ast``), not a tree-sitter grammar
# Templates and markup: first-class files an agent opens to change what a page or an email says.
TEMPLATE_EXTENSIONS = (
    ".hbs",
    ".handlebars",
    ".mustache",
    ".ejs",
    ".njk",
    ".nunjucks",
    ".jinja",
    ".jinja2",
    ".j2",
    ".html",
    ".htm",
    ".twig",
    ".liquid",
    ".pug",
    ".jade",
    ".erb",
    ".tmpl",
    ".tpl",
    ".gohtml",
    ".mjml",
    ".eta",
    ".haml",
    ".slim",
)
CATALOG_EXTENSIONS = (
    ".json",
    ".yaml",
    ".yml",
    ".po",
    ".pot",
    ".xlf",
    ".xliff",
    ".arb",
    ".properties",
    ".ftl",
    ".toml",
    ".strings",
    ".resx",
)
LOCALE_NAME = re.compile(
    r"^(?:[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?|messages|strings|translations?)"
    r"(?:\.[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?)?$"
)


@dataclass(frozen=True)
class Rule:
    """One row of the table: any of its tests matching assigns ``kind``."""

    kind: str
    dirs: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    pattern: re.Pattern[str] | None = None
    code_only: bool = False


def _rule(
    kind: str, dirs: str = "", suffixes: str = "", names: str = "", pattern: str = "", code_only: bool = False
) -> Rule:
    return Rule(
        kind,
        frozenset(dirs.split()),
        tuple(suffixes.split()),
        frozenset(names.split()),
        re.compile(pattern) if pattern else None,
        code_only,
    )


RULES: tuple[Rule, ...] = (
    _rule("fixture", dirs="fixtures __fixtures__ testdata test-data __mocks__ mocks snapshots __snapshots__"),
    _rule(
        "test",
        dirs="test tests __tests__ spec specs e2e testing",
        suffixes=".test.ts .test.tsx .test.js .test.jsx .spec.ts .spec.tsx .spec.js .spec.jsx "
        "_test.go _test.py _spec.rb .test.mjs .spec.mjs",
        names="conftest.py",
        pattern=r"^test_.*\.py$",
    ),
    _rule("example", dirs="examples example recipes recipe cookbook samples sample demo demos _examples"),
    _rule(
        "migration", dirs="migrations migration migrate alembic db/migrate", pattern=r"^\d{3,}[_-].*\.(sql|py|ts|js)$"
    ),
    _rule(
        "doc",
        dirs="docs doc documentation man website",
        suffixes=".md .mdx .rst .adoc .txt",
        names="README LICENSE CHANGELOG AUTHORS NOTICE CONTRIBUTING",
    ),
    _rule("template", suffixes=" ".join(TEMPLATE_EXTENSIONS)),
    _rule(
        "manifest",
        names="package.json go.mod pyproject.toml setup.py setup.cfg requirements.txt "
        "Cargo.toml Gemfile composer.json Pipfile deno.json",
    ),
    _rule(
        "schema",
        dirs="schemas schema models model entities entity dto dtos",
        suffixes=".schema.ts .schema.js .schema.json .model.ts .model.js .entity.ts .dto.ts "
        ".proto .graphql .gql .prisma",
        names="schema.py models.py schema.ts schema.go models.go model.go schema.sql",
    ),
    _rule(
        "route",
        dirs="routes router routers urls",
        suffixes=".routes.ts .routes.js .router.ts .router.js .route.ts .route.js",
        names="urls.py routes.py router.py routes.ts routes.js router.ts router.js routes.go "
        "router.go route.ts route.js",
        code_only=True,
    ),
    _rule(
        "controller",
        dirs="controllers controller handlers handler api/handlers",
        suffixes=".controller.ts .controller.js _controller.py _handler.go _handler.py .handler.ts .handler.js",
        names="views.py handlers.py handler.go handlers.go controller.go",
        code_only=True,
    ),
    _rule(
        "api client",
        dirs="clients client api-client",
        suffixes=".api.ts .api.js .client.ts .client.js _client.py _client.go Client.ts Client.js",
        names="client.ts client.js client.py client.go api.ts api.js",
        code_only=True,
    ),
    _rule(
        "service",
        dirs="services service usecases",
        suffixes=".service.ts .service.js _service.py _service.go Service.ts Service.js",
        names="service.py service.go service.ts services.py",
        code_only=True,
    ),
    _rule(
        "component",
        dirs="components component widgets pages views screens",
        suffixes=".tsx .jsx .vue .svelte",
        code_only=True,
    ),
    _rule("style", suffixes=".css .scss .sass .less .styl"),
    _rule(
        "config",
        dirs="config configs conf settings .github .circleci deploy",
        suffixes=".config.ts .config.js .config.mjs .config.cjs .yaml .yml .toml .ini .cfg .conf "
        ".env .json .xml .properties",
        names="Dockerfile Makefile .editorconfig .gitignore .npmrc .nvmrc tsconfig.json "
        "settings.py config.py config.go config.ts config.js",
        pattern=r"^\.env(\..+)?$",
    ),
    _rule("script", dirs="scripts bin tools"),
)
CATALOG_DIRS = frozenset({"locales", "locale", "i18n", "l10n", "lang", "langs", "translations", "messages", "intl"})
# The task intent (see ``query.INTENTS``) that makes each kind of file wanted, not demoted.
LIFTED_BY = {
    "test": "test",
    "fixture": "test",
    "translation": "translation",
    "doc": "doc",
    "config": "config",
    "manifest": "config",
    "migration": "migration",
    "style": "style",
}


def _dirs_of(parts: list[str]) -> set[str]:
    dirs = set(parts[:-1])
    dirs.update("/".join(parts[i : i + 2]) for i in range(len(parts) - 2))
    return dirs


def _is_catalog(parts: list[str], name: str) -> bool:
    if name.endswith((".po", ".pot", ".xlf", ".xliff", ".arb", ".ftl", ".strings", ".resx")):
        return True
    if not name.endswith(CATALOG_EXTENSIONS):
        return False
    stem = name.rsplit(".", 1)[0]
    return bool(CATALOG_DIRS & set(parts[:-1])) and (
        LOCALE_NAME.match(stem) is not None or any(LOCALE_NAME.match(p) for p in parts[-2:-1])
    )


def _matches(rule: Rule, parts: list[str], name: str, is_code: bool) -> bool:
    if rule.code_only and not is_code:
        return False
    return bool(
        (rule.dirs and rule.dirs & _dirs_of(parts))
        or (rule.suffixes and name.endswith(rule.suffixes))
        or name in rule.names
        or (rule.pattern and rule.pattern.match(name))
    )


@lru_cache(maxsize=65536)
def file_kind(path: str) -> str:
    """The role of ``path`` (repo-relative, ``/``-separated); ``source`` for ordinary code."""
    parts = path.split("/")
    name = parts[-1]
    is_code = extension(name) in CODE_EXTENSIONS
    if _is_catalog(parts, name):
        return "translation"
    for rule in RULES:
        if _matches(rule, parts, name, is_code):
            return rule.kind
    return "source" if is_code else "other"


def extension(name: str) -> str:
    """The file's extension with the dot (``.ts``), or ``""``; ``.d.ts`` counts as ``.ts``."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def is_code(path: str) -> bool:
    """Whether ``path`` is source code the parsers and the import graph care about."""
    return extension(path.rsplit("/", 1)[-1]) in CODE_EXTENSIONS


# ---- goldScope: the kinds of file a corpus says can never be gold (DESIGN.md, "The corpus") ----

SCOPE_KINDS = ("tests", "docs", "examples", "generated", "non-code")
_TEST_DIR = re.compile(r"(?:^|/)tests?(?:suite|_?utils|data|ing)?/", re.IGNORECASE)
_TEST_NAME = re.compile(r"[._-](?:test|spec)(?:[._-][^/]*)?\.[^./]+$", re.IGNORECASE)  # a.test-d.ts, b_spec.js
# Output of a build or a generator, by where it lies or how it is named (a mirror of a source tree
# that a script regenerates, minified bundles, protobuf and other generators' files).
_GENERATED_DIRS = frozenset({"generated", "__generated__", "_generated", "gen-src", "autogen"})
_GENERATED_ROOTS = frozenset({"dist", "build", "out", "lib-cov", "coverage"})
_GENERATED_NAME = re.compile(
    r"(?:\.min\.(?:js|css)|_pb2(?:_grpc)?\.pyi?|\.pb(?:\.gw)?\.go|[._]gen(?:erated)?\.(?:go|ts|js|py)|"
    r"_string\.go|\.g\.dart)$|^zz_generated|^bindata\.go$|"
    r"^(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|uv\.lock|Cargo\.lock|go\.sum|composer\.lock)$",
    re.IGNORECASE,
)


def is_test_path(path: str) -> bool:
    """A test or fixture by ``file_kind``, or one it misses: under a ``testsuite/``-like directory,
    or named like ``index.test-d.ts`` (type tests)."""
    name = path.rsplit("/", 1)[-1]
    return (
        file_kind(path) in ("test", "fixture")
        or _TEST_DIR.search(path) is not None
        or _TEST_NAME.search(name) is not None
    )


def is_generated_path(path: str) -> bool:
    """Whether ``path`` is, by its place or name, a generator's or a build's output."""
    parts = path.split("/")
    return (
        parts[0] in _GENERATED_ROOTS
        and len(parts) > 1
        or bool(_GENERATED_DIRS.intersection(parts[:-1]))
        or _GENERATED_NAME.search(parts[-1]) is not None
    )


@lru_cache(maxsize=65536)
def scope_kinds(path: str) -> frozenset[str]:
    """The ``SCOPE_KINDS`` ``path`` belongs to (a README is both ``docs`` and ``non-code``)."""
    kind = file_kind(path)
    found = set()
    if is_test_path(path):
        found.add("tests")
    if kind == "doc":
        found.add("docs")
    if kind == "example":
        found.add("examples")
    if is_generated_path(path):
        found.add("generated")
    if not is_code(path):
        found.add("non-code")
    return frozenset(found)


def excluded_by(path: str, exclude: frozenset[str] | tuple[str, ...] | list[str]) -> str | None:
    """The first kind of ``exclude`` (a goldScope's list) that ``path`` is, or None when it may be gold."""
    kinds = scope_kinds(path)
    return next((kind for kind in exclude if kind in kinds), None)


def allowed_by(gold_scope: GoldScope | None, path: str) -> bool:
    """Whether a corpus's ``goldScope`` lets ``path`` be gold (every file when there is none or it
    excludes nothing): the one rule the controls, the builtin target and its pack all apply."""
    return gold_scope is None or not gold_scope.exclude or excluded_by(path, gold_scope.exclude) is None
