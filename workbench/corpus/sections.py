"""The one table of corpus sections: which suite reads which top-level key, and how that section's
data files are checked by ``workbench validate``.

The suite registry (``workbench.suites``) reads this table; it never imports a suite, so a corpus
is loaded and validated without pandas. A plugin suite adds its row through
``workbench.suites.register_suite``, which calls ``register_section``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import SuiteError, UnknownSuite

if TYPE_CHECKING:
    from .model import Corpus

Checker = Callable[["Corpus"], None]


@dataclass(frozen=True)
class Section:
    """One corpus section: the suite reading it, its key in corpus.json and its data check."""

    suite: str
    key: str
    # "module:function" (imported when validate runs), a callable, or None (the schema covers it).
    check: str | Checker | None = None
    # Whether the section is a list of cases with ``name`` (checked for duplicates and paths).
    case_list: bool = False

    def run_check(self, corpus: Corpus) -> None:
        """Raise CorpusError for a problem in the data files this section points to."""
        if self.check is None:
            return
        if callable(self.check):
            self.check(corpus)
            return
        module_name, _, function = self.check.partition(":")
        getattr(import_module(module_name), function)(corpus)


_SECTIONS: dict[str, Section] = {
    s.suite: s
    for s in (
        Section("retrieval", "retrieval", case_list=True),
        Section("risk", "risk", case_list=True),
        Section("tokens", "tokenSavings", case_list=True),
        Section("harness", "harnessExecution", "workbench.corpus.cases:check_harness", case_list=True),
        Section("gate", "gateEffectiveness", "workbench.corpus.cases:check_gate", case_list=True),
        Section("ranking", "ranking", "workbench.corpus.goldens:check_ranking"),
        Section("findings", "findings", "workbench.corpus.findings_gold:check"),
    )
}


def sections() -> list[Section]:
    """Every section, in the order runs list their suites."""
    return list(_SECTIONS.values())


def section_of(suite: str) -> Section:
    """The section suite ``suite`` reads, or a SuiteError listing the known suites."""
    try:
        return _SECTIONS[suite]
    except KeyError:
        raise UnknownSuite(f"unknown suite {suite!r} (known: {', '.join(_SECTIONS)})") from None


def case_sections() -> tuple[str, ...]:
    """The keys of the sections that are lists of named cases."""
    return tuple(s.key for s in _SECTIONS.values() if s.case_list)


def register_section(section: Section) -> None:
    """Add a section (a plugin suite's); a suite name or key already taken is a SuiteError."""
    taken = [s.suite for s in _SECTIONS.values() if section.suite == s.suite or section.key == s.key]
    if taken:
        raise SuiteError(
            f"suite {section.suite!r} (section {section.key!r}) clashes with registered suite {taken[0]!r}"
        )
    _SECTIONS[section.suite] = section


def unregister_section(suite: str) -> None:
    """Remove a registered section (tests; a plugin being unloaded)."""
    _SECTIONS.pop(suite, None)
