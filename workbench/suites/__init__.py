"""The suite registry: suite name -> Suite class, in the order runs list them."""
from __future__ import annotations

from importlib import import_module

from ..errors import SuiteError
from .base import Outcome, RunContext, Scored, Suite

_REGISTRY: dict[str, str] = {
    "retrieval": "workbench.suites.retrieval:RetrievalSuite",
    "risk": "workbench.suites.risk:RiskSuite",
    "tokens": "workbench.suites.tokens:TokensSuite",
}


def suite_names() -> list[str]:
    """Every registered suite name."""
    return list(_REGISTRY)


def get_suite(name: str) -> Suite:
    """An instance of the named suite, or a SuiteError listing the known names."""
    try:
        module_name, _, class_name = _REGISTRY[name].partition(":")
    except KeyError:
        raise SuiteError(f"unknown suite {name!r} (known: {', '.join(_REGISTRY)})") from None
    return getattr(import_module(module_name), class_name)()


__all__ = ["Outcome", "RunContext", "Scored", "Suite", "get_suite", "suite_names"]
