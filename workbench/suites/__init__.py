"""The suite registry: suite name -> Suite class, in the order runs list them."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..errors import SuiteError
from .base import Outcome, RunContext, Scored, Suite

# name -> (corpus section it reads, "module:Class"): the one place a suite's section is declared,
# so that choosing the suites a corpus can run imports none of them. ``register_suite`` adds one.
_REGISTRY: dict[str, tuple[str, str]] = {
    "retrieval": ("retrieval", "workbench.suites.retrieval:RetrievalSuite"),
    "risk": ("risk", "workbench.suites.risk:RiskSuite"),
    "tokens": ("tokenSavings", "workbench.suites.tokens:TokensSuite"),
    "harness": ("harnessExecution", "workbench.suites.harness:HarnessSuite"),
    "gate": ("gateEffectiveness", "workbench.suites.gate:GateSuite"),
    "ranking": ("ranking", "workbench.suites.ranking:RankingSuite"),
    "findings": ("findings", "workbench.suites.findings:FindingsSuite"),
}


def register_suite(name: str, section: str, where: str) -> None:
    """Register a suite: its name, the corpus section it reads and ``"module:Class"`` (imported
    when the suite is first used). A name or section already taken is a SuiteError."""
    taken = [n for n, (s, _) in _REGISTRY.items() if n == name or s == section]
    if taken:
        raise SuiteError(f"suite {name!r} (section {section!r}) clashes with registered suite {taken[0]!r}")
    if ":" not in where:
        raise SuiteError(f"suite {name!r}: expected 'module:Class', got {where!r}")
    _REGISTRY[name] = (section, where)


def unregister_suite(name: str) -> None:
    """Remove a registered suite (tests; a plugin being unloaded)."""
    _REGISTRY.pop(name, None)


# name -> "module:function" checking the data files a suite reads without importing the suite (and
# so pandas): what ``workbench validate`` runs. None: the corpus schema and fixture checks cover it.
_CHECKERS: dict[str, str | None] = {
    "retrieval": None,
    "risk": None,
    "tokens": None,
    "harness": "workbench.suites.harness:check",
    "gate": "workbench.suites.gate:check",
    "ranking": "workbench.suites.goldens:check_ranking",
    "findings": "workbench.suites.findings_gold:check",
}


def check_data(name: str, corpus: Any) -> None:
    """Raise CorpusError for a problem in the data files suite ``name`` reads (beyond the schema)."""
    spec = _CHECKERS.get(name, "")
    if spec is None:
        return
    if not spec:
        get_suite(name).check(corpus)
        return
    module_name, _, function = spec.partition(":")
    getattr(import_module(module_name), function)(corpus)


def suite_names() -> list[str]:
    """Every registered suite name."""
    return list(_REGISTRY)


def suite_section(name: str) -> str:
    """The corpus section a registered suite reads."""
    return _REGISTRY[name][0]


def get_suite(name: str) -> Suite:
    """An instance of the named suite, or a SuiteError listing the known names."""
    try:
        module_name, _, class_name = _REGISTRY[name][1].partition(":")
    except KeyError:
        raise SuiteError(f"unknown suite {name!r} (known: {', '.join(_REGISTRY)})") from None
    return getattr(import_module(module_name), class_name)()


__all__ = [
    "Outcome",
    "RunContext",
    "Scored",
    "Suite",
    "check_data",
    "get_suite",
    "register_suite",
    "suite_names",
    "suite_section",
    "unregister_suite",
]
