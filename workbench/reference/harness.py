"""Infer a repository's harness: how to set it up, validate it, and run it.

``infer_harness(repo)`` reads only manifests at the repository root: ``package.json`` scripts
(the package manager chosen by ``packageManager`` or the lockfile), Python project config
(pyproject, setup.cfg, tox.ini, pytest.ini, requirements files), ``go.mod`` and Makefile
targets. It answers ``{"setup": [...], "validate": [...], "runtime": [...]}`` with one
``Command(kind, command, script)`` per step, never running anything.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from ..contract import Command, Repo

GROUPS = ("setup", "validate", "runtime")
# script or make-target name -> (group, kind); first matching pattern wins
_NAME_KINDS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern), group, kind)
    for pattern, group, kind in (
        (r".+:(?:fix|write|watch)|fmt|format|prettier", "", ""),  # rewrites files or never ends
        (r"(?:type-?check|check-?types|tsc|types)(?::.*)?|check:types", "validate", "typecheck"),
        (r"(?:lint|eslint|stylelint|format:check|fmt:check|prettier:check)(?::.*)?", "validate", "lint"),
        (r"(?:test|tests|spec)(?::.*)?", "validate", "test"),
        (r"check|verify|ci", "validate", "check"),
        (r"(?:build|compile)(?::.*)?", "validate", "build"),
        (r"(?:install|setup|deps|bootstrap)", "setup", "install"),
        (r"(?:start|serve|run)", "runtime", "start"),
        (r"(?:dev|watch|preview)(?::.*)?", "runtime", "dev"),
    )
)
_KIND_ORDER = ("install", "typecheck", "lint", "test", "check", "build", "start", "dev")
_LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)
_FROZEN = {
    "npm": "npm ci",
    "pnpm": "pnpm install --frozen-lockfile",
    "yarn": "yarn install --frozen-lockfile",
    "bun": "bun install --frozen-lockfile",
}
_NPM_PLACEHOLDER = "no test specified"
_SHORTHANDS = ("test", "start")
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?![:=])", re.MULTILINE)


def classify(name: str) -> tuple[str, str] | None:
    """The (group, kind) of a script or make target name, or None when it is not a harness step."""
    for pattern, group, kind in _NAME_KINDS:
        if pattern.fullmatch(name.lower()):
            return (group, kind) if group else None
    return None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _read_ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        pass
    return parser


def package_manager(root: Path, manifest: dict[str, Any]) -> tuple[str, bool]:
    """The Node package manager (``packageManager`` field, else lockfile, else npm) and whether locked."""
    declared = manifest.get("packageManager")
    locked = {tool for name, tool in _LOCKFILES if (root / name).is_file()}
    if isinstance(declared, str) and declared.split("@")[0] in _FROZEN:
        tool = declared.split("@")[0]
        return tool, tool in locked
    for name, tool in _LOCKFILES:
        if (root / name).is_file():
            return tool, True
    return "npm", False


def _node(root: Path) -> list[tuple[str, Command]]:
    manifest = _read_json(root / "package.json")
    if not manifest:
        return []
    tool, locked = package_manager(root, manifest)
    install = _FROZEN[tool] if locked else f"{tool} install"
    if tool == "yarn" and locked and (root / ".yarnrc.yml").is_file():
        install = "yarn install --immutable"
    found = [("setup", Command("install", install))]
    scripts = manifest.get("scripts")
    for name, body in scripts.items() if isinstance(scripts, dict) else []:
        place = classify(name)
        if place is None or (name == "test" and _NPM_PLACEHOLDER in str(body)):
            continue
        # ``test`` and ``start`` have shorthands, except in bun (``bun test`` is its own runner)
        short = name in _SHORTHANDS and tool != "bun"
        command = f"{tool} {name}" if short else f"{tool} run {name}"
        found.append((place[0], Command(place[1], command, name)))
    return found


def _pytest_configured(
    root: Path, tool: dict[str, Any], setup_cfg: configparser.ConfigParser, tox: configparser.ConfigParser
) -> bool:
    if "pytest" in tool or (root / "pytest.ini").is_file():
        return True
    if setup_cfg.has_section("tool:pytest") or tox.has_section("pytest") or (root / "conftest.py").is_file():
        return True
    tests = root / "tests"
    return tests.is_dir() and any(tests.rglob("test_*.py"))


def _python_setup(root: Path, pyproject: dict[str, Any], tool: dict[str, Any]) -> list[tuple[str, Command]]:
    if (root / "uv.lock").is_file():
        return [("setup", Command("install", "uv sync"))]
    if (root / "poetry.lock").is_file() or "poetry" in tool:
        return [("setup", Command("install", "poetry install"))]
    if "project" in pyproject or "build-system" in pyproject or (root / "setup.py").is_file():
        return [("setup", Command("install", "python -m pip install -e ."))]
    if (root / "requirements.txt").is_file():
        return [("setup", Command("install", "python -m pip install -r requirements.txt"))]
    return []


def _python(root: Path) -> list[tuple[str, Command]]:
    pyproject = _read_toml(root / "pyproject.toml")
    setup_cfg, tox = _read_ini(root / "setup.cfg"), _read_ini(root / "tox.ini")
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    found = _python_setup(root, pyproject, tool)
    if "mypy" in tool or (root / "mypy.ini").is_file() or setup_cfg.has_section("mypy"):
        found.append(("validate", Command("typecheck", "python -m mypy .")))
    if "ruff" in tool or (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        found.append(("validate", Command("lint", "python -m ruff check .")))
    elif (root / ".flake8").is_file() or setup_cfg.has_section("flake8") or tox.has_section("flake8"):
        found.append(("validate", Command("lint", "python -m flake8")))
    if _pytest_configured(root, tool, setup_cfg, tox):
        found.append(("validate", Command("test", "python -m pytest")))
    if tox.has_section("tox") or tox.has_section("testenv"):
        found.append(("validate", Command("test", "tox")))
    return found


def _go(root: Path) -> list[tuple[str, Command]]:
    if not (root / "go.mod").is_file():
        return []
    return [
        ("setup", Command("install", "go mod download")),
        ("validate", Command("build", "go build ./...")),
        ("validate", Command("lint", "go vet ./...")),
        ("validate", Command("test", "go test ./...")),
    ]


def _make(root: Path) -> list[tuple[str, Command]]:
    makefile = next((root / n for n in ("GNUmakefile", "makefile", "Makefile") if (root / n).is_file()), None)
    if makefile is None:
        return []
    try:
        text = makefile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for target in dict.fromkeys(_MAKE_TARGET.findall(text)):
        place = classify(target)
        if place is not None:
            found.append((place[0], Command(place[1], f"make {target}", target)))
    return found


def infer_harness(repo: Repo) -> dict[str, list[Command]]:
    """The setup, validate and runtime commands a repository's own manifests declare."""
    root = Path(repo.path)
    groups: dict[str, list[Command]] = {group: [] for group in GROUPS}
    seen: set[str] = set()
    for group, command in [*_node(root), *_python(root), *_go(root), *_make(root)]:
        if command.command not in seen:
            seen.add(command.command)
            groups[group].append(command)
    for commands in groups.values():
        commands.sort(key=lambda c: _KIND_ORDER.index(c.kind) if c.kind in _KIND_ORDER else len(_KIND_ORDER))
    return groups
