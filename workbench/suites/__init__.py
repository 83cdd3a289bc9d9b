"""The suite registry: suite name -> Suite class, in the order runs list them."""

from __future__ import annotations

from importlib import import_module

from ..corpus.sections import Section, register_section, section_of, sections, unregister_section
from ..errors import SuiteError, UnknownSuite
from .base import Outcome, RunContext, Scored, Suite

# name -> "module:Class": the suite classes, imported when first used. The section each reads is in
# the corpus's one table (``workbench.corpus.sections``); ``register_suite`` adds to both.
_REGISTRY: dict[str, str] = {
    "retrieval": "workbench.suites.retrieval:RetrievalSuite",
    "risk": "workbench.suites.risk:RiskSuite",
    "tokens": "workbench.suites.tokens:TokensSuite",
    "harness": "workbench.suites.harness:HarnessSuite",
    "gate": "workbench.suites.gate:GateSuite",
    "ranking": "workbench.suites.ranking:RankingSuite",
    "findings": "workbench.suites.findings:FindingsSuite",
}


def register_suite(name: str, section: str, where: str) -> None:
    """Register a suite: its name, the corpus section it reads and ``"module:Class"`` (imported
    when the suite is first used). A name or section already taken is a SuiteError."""
    if ":" not in where:
        raise SuiteError(f"suite {name!r}: expected 'module:Class', got {where!r}")
    register_section(Section(name, section, lambda corpus: get_suite(name).check(corpus)))
    _REGISTRY[name] = where


def unregister_suite(name: str) -> None:
    """Remove a registered suite (tests; a plugin being unloaded)."""
    _REGISTRY.pop(name, None)
    unregister_section(name)


def suite_names() -> list[str]:
    """Every registered suite name, in the order runs list them."""
    return [s.suite for s in sections() if s.suite in _REGISTRY]


def suite_section(name: str) -> str:
    """The corpus section a registered suite reads."""
    return section_of(name).key


def get_suite(name: str) -> Suite:
    """An instance of the named suite, or a SuiteError listing the known names."""
    try:
        module_name, _, class_name = _REGISTRY[name].partition(":")
    except KeyError:
        raise UnknownSuite(f"unknown suite {name!r} (known: {', '.join(_REGISTRY)})") from None
    return getattr(import_module(module_name), class_name)()


__all__ = [
    "Outcome",
    "RunContext",
    "Scored",
    "Suite",
    "get_suite",
    "register_suite",
    "suite_names",
    "suite_section",
    "unregister_suite",
]
