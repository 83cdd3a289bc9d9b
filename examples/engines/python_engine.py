"""A minimal engine as a Python object: ``--target python:python_engine:make_engine``, with this
folder on ``PYTHONPATH`` (``PYTHONPATH=examples/engines``): workbench imports the module and calls
the factory once per run.

The object has a ``name``, a ``version`` and the capability methods it implements (here only
``context_pack``; suites needing another are skipped). ``context_pack(query, repos, limit)`` gets
the task text, the repositories (``Repo(name, path)``: ``path`` is a read-only directory, for a
mined case a snapshot of the commit, not a git work tree) and how many files to return, and returns
a ``Pack`` whose ``primary`` files are ranked best first as ``FileRef(repo_name, "repo/relative/path")``.
It ranks files by how many of the query's words their path and text contain.
"""

from __future__ import annotations

import os
import re

from workbench.contract import FileRef, Pack, Repo


class WordCountEngine:
    """Files ranked by the query's words (three letters or more) in their path and text."""

    name = "word-count"
    version = "0.1"

    def context_pack(self, query: str, repos: list[Repo], limit: int = 8) -> Pack:
        words = {w for w in re.findall(r"[a-z0-9]+", query.lower()) if len(w) >= 3}
        ranked = []
        for repo in repos:
            for folder, dirs, names in os.walk(repo.path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in names:
                    path = os.path.relpath(os.path.join(folder, name), repo.path).replace(os.sep, "/")
                    with open(os.path.join(folder, name), "rb") as handle:
                        text = (path + " " + handle.read(256 * 1024).decode("utf-8", "replace")).lower()
                    hits = sum(text.count(w) for w in words)
                    if hits:
                        ranked.append((-hits, repo.name, path))
        ranked.sort()
        return Pack(primary=[FileRef(repo_name, path) for _, repo_name, path in ranked[:limit]])


def make_engine() -> WordCountEngine:
    """The factory ``python:python_engine:make_engine`` names."""
    return WordCountEngine()
