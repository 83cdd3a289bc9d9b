"""A run against its baseline: the ``baseline`` section of a summary, its verdict, and what a
scoreboard marks.

``run --baseline NAME`` and ``compare NAME RUN`` are one code path: both call ``compare`` with the
gate rule it picks (the first preset both sides have metrics for), and the rule read as a move
(``GateRule.change``) is the verdict: ``REGRESSED`` (exit 1), ``UNCHANGED`` or ``IMPROVED``.
A baseline recorded on another version of the corpus is refused before any case runs
(``check_baseline_corpus``), unless the comparison is asked for on the cases both share.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..columns import METRIC, SUITE
from ..contract import CONTROL_TARGETS
from ..errors import CompareError, WorkbenchError
from ..options import RunOptions
from ..paths import Locations
from ..store.baselines import Baseline, load_baseline
from ..store.runs import Run
from ..store.verdicts import NO_FLOORS, combined_verdict, passed_of
from .comparison import NO_GATE, REGRESSED, compare
from .gates import IMPROVED, INSUFFICIENT_DATA, UNCHANGED
from .gates import REGRESSED as MOVED_WORSE

_TIE = 1e-12
ALPHA = 0.05
ORDER = (MOVED_WORSE, INSUFFICIENT_DATA, NO_GATE, UNCHANGED, IMPROVED)  # worst first


def find_baseline(name_or_path: Path | str, corpus: Path | str | None) -> Baseline:
    """The baseline ``name_or_path`` names: a ``.json`` file, else ``<corpus dir>/baselines/<name>.json``
    (the one place every command, the notebooks and the API look)."""
    return load_baseline(Locations.of(corpus).baseline(name_or_path))


def check_baseline_corpus(name: str, corpus_path: Path | str, sha256: str, on_shared_cases: bool) -> None:
    """Refuse, before any case runs, a missing baseline, or one recorded on another version of the
    corpus, with the two ways on: re-record it, or compare on the cases both share."""
    base = find_baseline(name, corpus_path)
    recorded = base.data.get("corpus") or {}
    digests = {str(recorded[key]) for key in ("sha256", "run_sha256") if recorded.get(key)}
    if not digests or sha256 in digests or on_shared_cases:
        return
    raise CompareError(
        f"baseline {base.name} ({base.path}) was recorded on another version of {corpus_path} "
        f"(sha256 {sorted(digests)[0][:12]}, now {sha256[:12]}); nothing was run. Either re-record it "
        f"(workbench run --corpus {corpus_path}, then workbench baseline record <run-id> --name {base.name} "
        "--force) or add --on-shared-cases to compare on the cases both versions share"
    )


def judged_targets(run: Run, base: Baseline) -> list[str]:
    """The targets held to the baseline: the candidates, not the controls that calibrate them (a
    control is judged when the baseline is of it, or when only controls ran)."""
    engines = list(run.targets)
    chosen = [t for t in engines if t not in CONTROL_TARGETS or t in base.targets]
    return chosen or engines


def baseline_section(
    run: Run,
    baseline: Baseline | Path | str,
    gate: str | None = None,
    seed: int = 0,
    on_shared_cases: bool = False,
) -> dict[str, Any]:
    """The ``baseline`` entry of a run summary: each judged target compared with the baseline by
    ``compare`` (same gate rule, same statistics), its verdict and one line each, and the
    run's baseline verdict (the worst of them).

    Per target it lists the metrics that regressed significantly (Holm-adjusted p below 0.05:
    what the scoreboard marks) and the cases that got worse.
    """
    corpus = (run.manifest.get("corpus") or {}).get("path")
    base = baseline if isinstance(baseline, Baseline) else find_baseline(baseline, corpus)
    targets: dict[str, Any] = {}
    for target in judged_targets(run, base):
        result = compare(base, run.select(target), gate=gate, seed=seed, on_shared_cases=on_shared_cases)
        change = result.change
        rows = significant_regressions(result.to_dict()["comparisons"])
        targets[target] = {
            "verdict": change.verdict if change else NO_GATE,
            "line": change.summary if change else "no gate rule applies to these metrics (compare --gate RULE)",
            "gate": str(result.gate) if result.gate else None,
            "notes": list(result.notes),
            "comparisons": result.to_dict()["comparisons"],
            "regressions": [
                {k: r[k] for k in (SUITE, METRIC, "mean_a", "mean_b", "delta", "p_t", "p_holm")} for r in rows
            ],
            "regressed_cases": [c for c in result.to_dict()["cases"] if c["status"] == REGRESSED],
        }
    verdict = min((per["verdict"] for per in targets.values()), key=ORDER.index, default=NO_GATE)
    return {
        "name": base.name,
        "path": str(base.path),
        "recorded": base.data.get("recorded"),
        "git_commit": base.data.get("git_commit"),
        "target": base.targets[0],
        "verdict": verdict,
        "line": baseline_line(base.name, targets),
        "targets": targets,
    }


def with_baseline(summary: dict[str, Any], run: Run, options: RunOptions) -> dict[str, Any]:
    """The summary with its ``baseline`` section and the run's verdict holding the baseline's: a
    significant regression (or a comparison that cannot decide) fails the run. A comparison that
    cannot be made at all is recorded as the section's ``error``: the run is written regardless."""
    try:
        section = baseline_section(run, options.baseline or "", on_shared_cases=options.on_shared_cases)
    except WorkbenchError as exc:
        return dict(summary, baseline={"name": options.baseline, "error": str(exc)})
    verdict = combined_verdict(summary.get("verdict") or NO_FLOORS, section["verdict"])
    return dict(summary, baseline=section, verdict=verdict, passed=passed_of(verdict))


def baseline_line(name: str, targets: dict[str, Any]) -> str:
    """``Baseline builtin: REGRESSED: mrr 0.672 -> 0.018, p=3e-09`` (one line per judged target
    when there are several)."""
    if len(targets) == 1:
        return f"Baseline {name}: {next(iter(targets.values()))['line']}"
    return "\n".join(f"Baseline {name} [{target}]: {per['line']}" for target, per in targets.items())


def stale_baseline(section: dict[str, Any], rerecord: str) -> str | None:
    """Why a committed baseline no longer describes the code, given the ``baseline`` section of a
    fresh run against it: its verdict is ``REGRESSED``, or a metric of any suite regressed
    significantly (Holm); else None. The message names ``rerecord``, the one command that fixes it."""
    moved = [
        f"{r[SUITE]} {r[METRIC]} {r['mean_a']:.3f} -> {r['mean_b']:.3f} (p_holm={r['p_holm']:.3g})"
        for per in section.get("targets", {}).values()
        for r in per.get("regressions", [])
    ]
    if section.get("verdict") != MOVED_WORSE and not moved:
        return None
    return (
        f"the committed baseline {section.get('path')} no longer describes the code: {section.get('line')}"
        + (f"; regressed significantly: {', '.join(moved)}" if moved else "")
        + f". If the change was intended, re-record it with `{rerecord}` and commit the baseline, the "
        "corpus floors and EVALS.md together; if not, fix the regression."
    )


def regressed_metrics(comparisons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The comparison rows whose mean got worse in the metric's direction (a larger pack is worse)."""
    return [
        r
        for r in comparisons
        if r["delta"] is not None and (r["delta"] if r.get("higher_is_better", True) else -r["delta"]) < -_TIE
    ]


def significant_regressions(comparisons: list[dict[str, Any]], alpha: float = ALPHA) -> list[dict[str, Any]]:
    """The rows that got worse with a Holm-adjusted p below ``alpha``: a drop, not noise."""
    return [r for r in regressed_metrics(comparisons) if r.get("p_holm") is not None and r["p_holm"] < alpha]


def regression_keys(section: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(suite, target, metric) triples a scoreboard should mark as regressed (significant only)."""
    return {
        (r[SUITE], target, r[METRIC])
        for target, per in section.get("targets", {}).items()
        for r in per.get("regressions", [])
        if r.get("p_holm") is not None and r["p_holm"] < ALPHA
    }
