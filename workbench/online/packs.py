"""The two rankings each case interleaves, from an ordinary retrieval run of both targets.

The targets' ``context_pack`` is run by the run machinery (``workbench.run``: target resolution,
handshake, timeouts, errors captured per case) with the retrieval suite only, into a temporary
run directory. A case's ranking is the pack as the agent sees it: primary files, then related ones.
Relevance is the retrieval labels (``expectedPrimary``), the same the offline metrics score; the
per-case offline value is the metric that ``compare``'s retrieval gate judges (``mrr``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..analysis.gates import PRESETS, GateRule
from ..columns import CASE, METRIC, TARGET, VALUE
from ..errors import TargetError, UsageError
from ..options import RunOptions
from ..paths import DEFAULT_CORPUS
from ..run import run_eval

SUITE = "retrieval"
OFFLINE_RULE: GateRule = PRESETS["retrieval"]  # what ``compare`` judges a retrieval run by


@dataclass(frozen=True)
class CasePacks:
    """One case: both rankings, the relevant items, and each side's offline value (NaN: not scored)."""

    case: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    relevant: frozenset[str]
    offline_a: float
    offline_b: float


@dataclass(frozen=True)
class Packs:
    """Both targets' rankings over a corpus's retrieval cases, in corpus order."""

    corpus: str
    target_a: str
    target_b: str
    cases: tuple[CasePacks, ...]
    offline_metric: str = OFFLINE_RULE.primary
    offline_test: str = OFFLINE_RULE.test


def run_packs(corpus_path: Path | str | None, targets: list[str], seed: int = 0, timeout: float | None = None) -> Packs:
    """Run both targets' ``context_pack`` over the corpus's retrieval cases (one run; a target
    named twice runs once and faces itself)."""
    if len(targets) != 2:
        raise UsageError(f"--target: interleaving takes exactly two targets, got {len(targets)}")
    specs = list(dict.fromkeys(targets))
    corpus = Path(corpus_path or DEFAULT_CORPUS)
    with tempfile.TemporaryDirectory(prefix="workbench-interleave-") as out:
        options = RunOptions(suites=[SUITE], targets=specs, seed=seed, out_dir=Path(out), progress=False)
        options = replace(options, timeout=timeout) if timeout else options
        run = run_eval(corpus, options)
        names = {t["spec"]: t["name"] for t in run.manifest["targets"]}
        for spec, name in names.items():
            why = (run.summary["suites"].get(SUITE, {}).get(name) or {}).get("skipped")
            if why:
                raise TargetError(f"{spec}: the retrieval suite was skipped ({why}): nothing to interleave")
        cases, scores = run.cases, run.scores
    return packs_from_frames(str(corpus), names[targets[0]], names[targets[1]], cases, scores)


def packs_from_frames(corpus: str, a: str, b: str, cases: Any, scores: Any) -> Packs:
    """``Packs`` from a run's case rows and scores (retrieval suite) for targets ``a`` and ``b``."""
    rows = {(str(r[TARGET]), str(r[CASE])): r for r in cases.to_dict("records") if r.get("suite") == SUITE}
    metric = scores[(scores[METRIC] == OFFLINE_RULE.primary) & (scores["suite"] == SUITE)]
    value = {(str(t), str(c)): float(v) for t, c, v in zip(metric[TARGET], metric[CASE], metric[VALUE])}
    names = [c for (t, c) in rows if t == a]
    out = []
    for name in names:
        row_a, row_b = rows[a, name], rows.get((b, name))
        if row_b is None:
            continue
        out.append(
            CasePacks(
                case=name,
                a=_ranking(row_a),
                b=_ranking(row_b),
                relevant=frozenset(row_a.get("expected") or []),
                offline_a=value.get((a, name), float("nan")),
                offline_b=value.get((b, name), float("nan")),
            )
        )
    return Packs(corpus, a, b, tuple(out))


def _ranking(row: dict[str, Any]) -> tuple[str, ...]:
    """A case row's pack as shown to the agent: primary then related, each file once."""
    return tuple(dict.fromkeys([*(row.get("returned") or []), *(row.get("related") or [])]))
