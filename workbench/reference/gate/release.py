"""Release discipline: a version bump in a manifest must come with a changelog update.

Versions are read from ``package.json``, ``pyproject.toml`` (``[project]`` or Poetry),
``Cargo.toml``, ``setup.cfg`` ``[metadata]`` and ``VERSION`` files, at the base and in the
change. Changelogs are ``CHANGELOG``/``CHANGES``/``HISTORY``/``NEWS``/``RELEASE_NOTES`` files
at any depth, or a ``.changeset/`` entry. Under team or company governance a bump without one
fails; a solo maintainer gets a warning.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from collections.abc import Callable
from typing import Any

from ...contract import Check
from .diff import Diff

RELEASE = "Release discipline"
WITHOUT = "Version metadata changed without a changelog update"
GOVERNANCE = ("solo", "team", "company")
_CHANGELOG = re.compile(r"(?i)(?:changelog|changes|history|news|release[-_]?notes)(?:\.[a-z]+)?")


def _json_version(text: str) -> Any:
    data = json.loads(text)
    return data.get("version") if isinstance(data, dict) else None


def _toml_version(text: str) -> Any:
    data = tomllib.loads(text)
    for table in (data.get("project"), data.get("tool", {}).get("poetry"), data.get("package")):
        if isinstance(table, dict) and "version" in table:
            return table["version"]
    return None


def _cfg_version(text: str) -> Any:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return parser.get("metadata", "version", fallback=None)


READERS: dict[str, Callable[[str], Any]] = {
    "package.json": _json_version,
    "pyproject.toml": _toml_version,
    "Cargo.toml": _toml_version,
    "setup.cfg": _cfg_version,
    "VERSION": str.strip,
    "version.txt": str.strip,
}


def read_version(name: str, text: str | None) -> str | None:
    """The version a manifest declares, or None (no file, no field, or unparsable)."""
    reader = READERS.get(name)
    if reader is None or text is None:
        return None
    try:
        version = reader(text)
    except (ValueError, tomllib.TOMLDecodeError, configparser.Error, AttributeError):
        return None
    return str(version) if version not in (None, "") else None


def version_bumps(diff: Diff) -> list[str]:
    """``path: old -> new`` for every manifest whose version differs between base and change."""
    bumps = []
    for path in diff.paths:
        name = posixpath.basename(path)
        if name not in READERS:
            continue
        old, new = read_version(name, diff.base_text(path)), read_version(name, diff.new_text(path))
        if old != new:
            bumps.append(f"{path}: {old or 'none'} -> {new or 'none'}")
    return bumps


def is_changelog(path: str) -> bool:
    return bool(_CHANGELOG.fullmatch(posixpath.basename(path))) or path.startswith(".changeset/")


def release_discipline(diff: Diff, governance: str) -> Check:
    """FAIL (team, company) or WARN (solo) when a version changes without a changelog change."""
    bumps = version_bumps(diff)
    if not bumps:
        return Check(RELEASE, "PASS", "No version metadata changed")
    logs = [p for p in diff.paths if is_changelog(p)]
    if logs:
        return Check(RELEASE, "PASS", "Version metadata changed with a changelog update", tuple(bumps + logs))
    status = "WARN" if governance == "solo" else "FAIL"
    return Check(RELEASE, status, f"{WITHOUT} ({governance} governance)", tuple(bumps))
