"""Write mined cases as a corpus file, new or merged into an existing one (``--append``).

A new corpus holds ``k``, a description, the ``goldScope`` it was labelled by (``MINED_SCOPE``: tests,
docs, examples and generated files are never gold), the repository's ``fixtureRoots`` entry
and the retrieval cases. With ``append`` every other key of the existing corpus is kept as it
was; its ``fixtureRoots`` gains the repository, a mined case replaces the case of the
same name in place, and new cases go at the end. The entry's path is relative to the
corpus file when the repository lies inside the corpus's parent directory (so the
corpus moves with its checkout), absolute otherwise. Writes are atomic.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import CorpusError
from ..files import write_text_atomic
from .scope import MINED_SCOPE
from .sources import GitRepo


def read_existing(path: Path) -> dict[str, Any]:
    """The corpus at ``path`` as JSON, or a CorpusError naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{path}: cannot merge into it ({exc})") from None
    if not isinstance(data, dict):
        raise CorpusError(f"{path}: cannot merge into it: not a JSON object")
    return data


def root_entry(repo: GitRepo, out: Path | None) -> str:
    """The ``fixtureRoots`` value for ``repo`` in a corpus written to ``out`` (None: stdout, absolute)."""
    if out is None:
        return str(repo.path)
    corpus_dir = out.resolve().parent
    if repo.path.is_relative_to(corpus_dir.parent):
        return os.path.relpath(repo.path, corpus_dir)
    return str(repo.path)


def _resolves_to(entry: Any, corpus_dir: Path, target: Path) -> bool:
    if not isinstance(entry, str):
        return False
    given = Path(entry)
    candidates = [given] if given.is_absolute() else [corpus_dir / given, corpus_dir.parent / given]
    return any(c.resolve() == target for c in candidates)


def fixture_name(repo: GitRepo, existing: dict[str, Any], out: Path | None) -> str:
    """The repository's fixture name: its own, or ``name-2``... when another fixture has that name."""
    listed = existing.get("fixtureRoots")
    roots: dict[str, Any] = listed if isinstance(listed, dict) else {}
    corpus_dir = out.resolve().parent if out else Path.cwd()
    name, number = repo.name, 1
    while name in roots and not _resolves_to(roots[name], corpus_dir, repo.path):
        number += 1
        name = f"{repo.name}-{number}"
    return name


def merged_corpus(
    existing: dict[str, Any], repo: GitRepo, fixture: str, cases: list[dict[str, Any]], out: Path | None
) -> dict[str, Any]:
    """``existing`` (or a new corpus) with the repository's fixture and the mined cases merged in."""
    data: dict[str, Any] = (
        dict(existing)
        if existing
        else {"description": f"Retrieval cases mined from the git history of {repo.name} by `workbench mine`.", "k": 5}
    )
    if "goldScope" not in data and not data.get("retrieval"):
        data["goldScope"] = MINED_SCOPE.body()  # a corpus with cases of its own keeps its rule (or none)
    listed = data.get("fixtureRoots")
    roots: dict[str, Any] = dict(listed) if isinstance(listed, dict) else {}
    roots[fixture] = root_entry(repo, out)
    data["fixtureRoots"] = roots
    current = data.get("retrieval")
    data["retrieval"] = merge_by_key(list(current) if isinstance(current, list) else [], cases, "name")
    return data


def merge_by_key(current: list[Any], new: list[dict[str, Any]], key: str) -> list[Any]:
    """``current`` with ``new`` merged in: an item with the ``key`` of an existing one replaces it in
    place, the others go at the end."""
    merged = list(current)
    at = {item.get(key): i for i, item in enumerate(merged) if isinstance(item, dict)}
    for item in new:
        if item[key] in at:
            merged[at[item[key]]] = item
        else:
            at[item[key]] = len(merged)
            merged.append(item)
    return merged


def corpus_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_corpus(out: Path, data: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, corpus_text(data))
