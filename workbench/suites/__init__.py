"""The suite registry: suite name -> Suite class, in the order runs list them."""
from __future__ import annotations

from importlib import import_module

from ..errors import SuiteError
from .base import Outcome, RunContext, Scored, Suite

# name -> (corpus section it reads, "module:Class"); sections are listed here so that
# choosing the suites a corpus can run imports none of them.
_REGISTRY: dict[str, tuple[str, str]] = {
    "retrieval": ("retrieval", "workbench.suites.retrieval:RetrievalSuite"),
    "risk": ("risk", "workbench.suites.risk:RiskSuite"),
    "tokens": ("tokenSavings", "workbench.suites.tokens:TokensSuite"),
    "harness": ("harnessExecution", "workbench.suites.harness:HarnessSuite"),
    "gate": ("gateEffectiveness", "workbench.suites.gate:GateSuite"),
    "ranking": ("ranking", "workbench.suites.ranking:RankingSuite"),
    "findings": ("findings", "workbench.suites.findings:FindingsSuite"),
}


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


__all__ = ["Outcome", "RunContext", "Scored", "Suite", "get_suite", "suite_names", "suite_section"]
