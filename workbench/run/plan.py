"""What a run will run: the suites asked for (or every suite with cases), the target objects, and
the cases this machine can run (a case needing a missing toolchain is set aside with the reason)."""

from __future__ import annotations

from typing import Any

from ..corpus import Corpus
from ..errors import CorpusError, SuiteError, UsageError
from ..options import RunOptions
from ..suites import Suite, get_suite, suite_names, suite_section
from ..targets import close_target, resolve_target

Plan = list[tuple[Suite, str, Any, list[dict[str, Any]]]]


def without_unavailable(plan: Plan, corpus: Corpus) -> tuple[Plan, dict[str, dict[str, str]]]:
    """The plan without the cases this machine cannot run, and those, per suite, with the reason
    (a missing toolchain)."""
    kept: Plan = []
    unavailable: dict[str, dict[str, str]] = {}
    for suite, name, target, cases in plan:
        reasons = {str(c.get("name")): why for c in cases if (why := suite.unavailable(c, corpus))}
        if reasons:
            unavailable[suite.name] = reasons
        kept.append((suite, name, target, [c for c in cases if str(c.get("name")) not in reasons]))
    return kept, unavailable


def select_suites(corpus: Corpus, options: RunOptions) -> list[Suite]:
    """The suites asked for, else every suite the corpus has cases for."""
    names = options.suites or [n for n in suite_names() if corpus.data.get(suite_section(n))]
    if not names:
        raise CorpusError(f"{corpus.path}: no suite has cases in this corpus")
    return [get_suite(n) for n in names]


def resolve_targets(options: RunOptions) -> list[Any]:
    """The target objects of ``options.targets``; two with one name would mix their rows."""
    targets = [resolve_target(spec, options.seed, options.timeout, options.jobs) for spec in options.targets]
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        for target in targets:
            close_target(target)
        raise UsageError(f"two targets share a name ({', '.join(names)}): give each engine its own")
    return targets


def check_has_cases(plan: Plan, unavailable: dict[str, dict[str, str]], corpus: Corpus) -> None:
    """A suite asked for with no case at all is an error, not a vacuous verdict (a case this
    machine cannot run, or an empty shard, is a stated skip instead)."""
    empty = sorted({s.name for s, _, _, cases in plan if not cases and s.name not in unavailable})
    if empty:
        raise SuiteError(f"{corpus.path}: suite {', '.join(empty)} has 0 cases in this corpus: nothing to judge")
