"""Merge the run directories of ``--shard`` runs (or any runs over one corpus) into one run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, SUITE, TARGET
from ..errors import StoreError
from ..paths import DEFAULT_RUNS_DIR
from ..store.runs import Run, free_run_id, has_repeats, load_run, stamped_run_id, write_run
from ..suites import get_suite
from .controls import with_controls
from .manifest import merged_manifest
from .repeats import repeats_section
from .shards import check_shards
from .summary import overall, suite_summary

if TYPE_CHECKING:
    import pandas as pd


def _check_compatible(runs: list[Run]) -> None:
    import pandas as pd

    digests = {str(run.manifest.get("corpus", {}).get("sha256")) for run in runs}
    if len(digests) > 1:
        raise StoreError(
            "cannot merge runs over different corpora: "
            + ", ".join(f"{r.path} ({str(r.manifest['corpus'].get('sha256'))[:12]})" for r in runs)
        )
    cases = pd.concat([r.cases[[SUITE, TARGET, CASE]] for r in runs], ignore_index=True)
    check_shards(runs, cases.astype(str).itertuples(index=False, name=None))
    duplicated = cases[cases.duplicated()]
    if len(duplicated):
        first = duplicated.iloc[0]
        raise StoreError(f"case {first[SUITE]}/{first[TARGET]}/{first[CASE]} appears in more than one run")


def _suite_summary(
    suite_name: str, target: str, runs: list[Run], cases: pd.DataFrame, scores: pd.DataFrame
) -> dict[str, Any]:
    parts = [
        r.summary["suites"][suite_name][target]
        for r in runs
        if target in r.summary.get("suites", {}).get(suite_name, {})
    ]
    live = [p for p in parts if not p.get("skipped")]
    if not live:
        return dict(parts[0])
    summary = suite_summary(
        get_suite(suite_name), scores.drop(columns=[SUITE, TARGET]), cases, live[0].get("thresholds") or {}
    )
    if has_repeats(cases):
        summary["repeats"] = repeats_section(cases)
    return summary


def merge_runs(paths: list[Path | str], out_dir: Path | str = DEFAULT_RUNS_DIR) -> Run:
    """One run holding every case of ``paths``, with aggregates and verdicts recomputed."""
    import pandas as pd

    runs = [load_run(p) for p in paths]
    if len(runs) < 2:
        raise StoreError("merge needs at least two runs")
    _check_compatible(runs)
    cases = pd.concat([r.cases for r in runs], ignore_index=True)
    scores = pd.concat([r.scores for r in runs], ignore_index=True)
    suites: dict[str, dict[str, Any]] = {}
    for suite_name in dict.fromkeys(s for r in runs for s in r.summary.get("suites", {})):
        targets = dict.fromkeys(t for r in runs for t in r.summary["suites"].get(suite_name, {}))
        suites[suite_name] = {
            t: _suite_summary(
                suite_name,
                t,
                runs,
                cases[(cases[SUITE] == suite_name) & (cases[TARGET] == t)],
                scores[(scores[SUITE] == suite_name) & (scores[TARGET] == t)],
            )
            for t in targets
        }
    started = datetime.now(UTC)
    run_id = free_run_id(out_dir, stamped_run_id(started, "merged"))
    manifest = merged_manifest(runs[0].manifest, [r.run_id for r in runs], started, run_id)
    rows = cases.astype(object).where(cases.notna(), None).to_dict("records")
    summary = {
        "run_dir": None,
        **overall(suites),
        "suites": suites,
        "sandbox": runs[0].summary.get("sandbox"),
    }
    gate = (runs[0].manifest.get("options") or {}).get("gate")  # the shards' --gate, judged on the whole
    summary = with_controls(summary, scores, [get_suite(name) for name in suites], gate)
    return load_run(write_run(out_dir, run_id, manifest, summary, rows, scores))
