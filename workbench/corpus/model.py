"""The loaded corpus: its data, where its fixtures are, which of them may run commands.

``load.load_corpus`` builds one; the suites, the controls and the run read it. It lives apart from
the loader so the section table and the case checks can name the type without importing the
loader that imports them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contract import GoldScope
from ..errors import CorpusError

DEFAULT_K = 5


def executable_place(path: Path, root: Path) -> bool:
    """Whether ``path`` (absolute, as spelled) is inside ``root`` and reached without any symlink:
    the resolved path is the spelling, so a fixture that is a link (or lies under one) never runs."""
    spelled = Path(os.path.normpath(path))
    return spelled.resolve() == spelled and spelled.is_relative_to(root.resolve())


@dataclass
class Corpus:
    """A loaded, schema-valid corpus with its fixtures resolved."""

    path: Path
    data: dict[str, Any]
    sha256: str
    fixtures: dict[str, Path] = field(default_factory=dict)
    executable: frozenset[str] = frozenset()

    @property
    def k(self) -> int:
        return int(self.data.get("k", DEFAULT_K))

    @property
    def thresholds(self) -> dict[str, dict[str, float]]:
        """Floors per suite, without ``comment`` keys."""
        floors: dict[str, dict[str, float]] = {}
        for suite, metrics in self.data.get("thresholds", {}).items():
            if isinstance(metrics, dict):
                floors[suite] = {
                    m: float(v) for m, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                }
        return floors

    @property
    def gold_scope(self) -> GoldScope | None:
        """The rule the cases were labelled by (``goldScope``), None when the corpus has none."""
        from .scope import gold_scope

        return gold_scope(self.data)

    def cases(self, section: str) -> list[dict[str, Any]]:
        """The cases of one section (empty when the corpus has none)."""
        value = self.data.get(section, [])
        return value if isinstance(value, list) else []

    def fixture_dir(self, name: str) -> Path:
        """The absolute directory of a fixture, or a CorpusError naming it."""
        try:
            return self.fixtures[name]
        except KeyError:
            raise CorpusError(f"{self.path}: unknown fixture {name!r} (not in fixtureRoots)") from None

    def repo_dir(self, name: str, case: dict[str, Any] | None = None) -> Path:
        """The directory ``case`` runs against in fixture ``name``: the fixture itself, or (a case with a
        ``revision``, or a fixture with no work tree) that revision's tree materialized read-only from git."""
        from .fixtures import case_repo_dir

        return case_repo_dir(self.fixture_dir(name), case)

    def is_executable(self, name: str) -> bool:
        """Whether commands may run in a temp copy of this fixture (see DESIGN: rules that keep users safe)."""
        return name in self.executable

    def execution_problem(self, name: str) -> str | None:
        """Why commands may not run in a temp copy of fixture ``name`` now, or None. Checked again as
        the case runs, on the resolved path: a relative fixtureRoots entry, reached without a symlink,
        inside the corpus's parent (a link swapped in after loading is caught here)."""
        path = self.fixtures.get(name)
        if name not in self.executable or path is None:
            return "only relative fixtureRoots inside the corpus's parent, reached without a symlink, run"
        if not executable_place(path, self.path.parent.parent):
            return f"its path {path} now leads through a symlink to {path.resolve()}"
        return None
