"""Cases from git history, revision snapshots, and import/export of standard formats.

``mine_corpus(repo, out)`` is ``workbench mine``; ``materialize(open_repo(path), rev)`` the
read-only tree of a revision; ``import_swebench``, ``import_trec``, ``import_go_code`` and
``export_trec`` the ``workbench import``/``export`` commands. Git is only ever read. Names are
imported on first use, so ``import workbench.mining.<module>`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOME = {
    "MineOptions": "filters",
    "import_go_code": "gocode",
    "MineResult": "mine",
    "mine": "mine",
    "mine_corpus": "mine",
    "materialize": "snapshots",
    "GitRepo": "sources",
    "open_repo": "sources",
    "import_swebench": "swebench",
    "export_trec": "trec",
    "import_trec": "trec",
    "mine_command": "commands",
    "import_command": "commands",
    "export_command": "commands",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOME[name]}", __name__), name)
