"""A run against its baseline: the ``baseline`` section of a summary, and what a scoreboard marks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..columns import METRIC, SUITE
from ..paths import Locations
from ..store.baselines import load_baseline
from ..store.runs import Run
from .comparison import REGRESSED, compare

_TIE = 1e-12


def baseline_section(
    run: Run,
    name_or_path: Path | str,
    baselines_dir: Path | str | None = None,
    gate: str | None = "none",
    seed: int = 0,
) -> dict[str, Any]:
    """The ``baseline`` entry of a run summary: each target of ``run`` compared with the baseline.

    Lists per target the metrics whose paired mean got worse in its direction (``regressions``, with
    p-values: a smaller mean is worse unless lower is better)
    and the cases that got worse. No A/B gate unless ``gate`` names one: a run that merely
    matches its baseline is not a failed improvement.
    """
    corpus = (run.manifest.get("corpus") or {}).get("path")
    directory = baselines_dir or Locations.of(corpus).baselines
    base = load_baseline(name_or_path, directory)
    out: dict[str, Any] = {
        "name": base.name,
        "path": str(base.path),
        "recorded": base.data.get("recorded"),
        "target": base.targets[0],
        "targets": {},
    }
    for target in run.targets:
        result = compare(base, run.select(target), gate=gate, seed=seed).to_dict()
        rows = regressed_metrics(result["comparisons"])
        out["targets"][target] = {
            "verdict": result["verdict"],
            "reason": result["reason"],
            "reasons": result["reasons"],
            "comparisons": result["comparisons"],
            "regressions": [
                {k: r[k] for k in (SUITE, METRIC, "mean_a", "mean_b", "delta", "p_t", "p_holm")} for r in rows
            ],
            "regressed_cases": [c for c in result["cases"] if c["status"] == REGRESSED],
        }
    return out


def regressed_metrics(comparisons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The comparison rows whose mean got worse in the metric's direction (a larger pack is worse)."""
    return [
        r
        for r in comparisons
        if r["delta"] is not None and (r["delta"] if r.get("higher_is_better", True) else -r["delta"]) < -_TIE
    ]


def regression_keys(section: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(suite, target, metric) triples a scoreboard should mark as regressed."""
    return {
        (r[SUITE], target, r[METRIC])
        for target, per in section.get("targets", {}).items()
        for r in per.get("regressions", [])
    }
