"""Render a pack: JSON with reasons, a terminal listing, and the text an agent is given.

The agent text holds each primary file in full (up to ``MAX_FILE_CHARS``) and each
related file as its outline (the symbols it defines), which is what makes a pack
much smaller than a dump while still naming everything the agent may need.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..code.walk import read_head
from ..contract import FileRef, Pack, Repo
from ..wire import encode_answer

MAX_FILE_CHARS = 24_000
MAX_OUTLINE = 60


def pack_to_json(pack: Pack) -> dict[str, Any]:
    """The pack as the JSON protocol spells it, with every file's reason."""
    return encode_answer("context_pack", pack)


def format_pack(pack: Pack) -> str:
    """A short terminal listing: primary then related files, each with its reason."""
    multi = len({r.repo for r in [*pack.primary, *pack.related]}) > 1
    lines: list[str] = []
    for title, items in (("primary", pack.primary), ("related", pack.related)):
        if items:
            lines.append(f"{title}:")
            width = max(len(_name(r, multi)) for r in items)
            lines += [f"  {_name(r, multi):<{width}}  {r.reason}" for r in items]
    return "\n".join(lines) if lines else "(empty pack)"


def _name(ref: FileRef, multi: bool) -> str:
    return f"{ref.repo}/{ref.path}" if multi else ref.path


def outline_text(symbols: list[tuple[str, str, int]]) -> str:
    """A file's outline as the agent text shows it: one line per symbol, at most ``MAX_OUTLINE``."""
    return "\n".join(f"  {kind} {name} (line {line})" for name, kind, line in symbols[:MAX_OUTLINE])


def render_text(
    primary: list[FileRef],
    related: list[FileRef],
    repos: list[Repo],
    outlines: dict[tuple[str, str], str],
) -> str:
    """The context an agent receives: primary files in full, related files as outlines
    (``outlines`` maps (repo, path) to its ``outline_text``)."""
    roots = {repo.name: Path(repo.path) for repo in repos}
    parts: list[str] = []
    for ref in primary:
        try:
            body = read_head(roots[ref.repo], ref.path, MAX_FILE_CHARS + 1)  # one more: is there more?
        except (OSError, KeyError):
            continue
        clipped = body if len(body) <= MAX_FILE_CHARS else body[:MAX_FILE_CHARS] + "\n[... truncated]\n"
        parts.append(f"=== {ref.repo}/{ref.path} ({ref.reason})\n{clipped}")
    for ref in related:
        parts.append(f"--- {ref.repo}/{ref.path} ({ref.reason})\n{outlines.get((ref.repo, ref.path), '')}")
    return "\n".join(parts)
