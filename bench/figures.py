"""Benchmark: CPU time of building the report's nine figures and rendering each to PNG.

The figures are the ones the notebooks draw (see notebooks/*.ipynb), on the synthetic run of
tests/report_runs.py; the comparison is the significance notebook's default (the primary target
against bm25, no baseline). Each measurement is a fresh interpreter that imports workbench.plots
the way a report kernel's warm-up does (collector paused, then ``gc.freeze()``) and loads the run
and the comparison; only building + ``_repr_png_`` of the nine is timed (CPU seconds,
``time.process_time``), the first figures drawn in the process, as in a kernel. ``--against DIR``
interleaves the same measurement with another copy of the repository (e.g. ``git archive HEAD |
tar -x -C /tmp/before``) and prints both medians and their ratio.

    .venv/bin/python bench/figures.py [--repeat 9] [--against DIR] [--save DIR] [--wide] [--long-names]
                                      [--profile]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Several targets with long names, for a crowded legend (``--wide``).
WIDE_TARGETS = ("builtin", "bm25", "random", "semantic-hybrid-reranker-v2", "sparse-splade-experimental")
LONG = "_macro_averaged_over_every_case"  # appended to every metric name with ``--long-names``


def per_case_metric(long_names: bool) -> str:
    """The ranking notebook's default metric (renamed with ``--long-names``)."""
    return "ndcg@10" + (LONG if long_names else "")


def notebook_figures(run: Any, comparison: Any, metric: str = "ndcg@10") -> dict[str, Callable[[], Any]]:
    """Name -> a call building one figure, with the notebooks' default arguments."""
    import workbench as wb

    return {
        "floors": lambda: wb.plots.floors(run),
        "pass_rates": lambda: wb.plots.pass_rates(run),
        "rank_histogram": lambda: wb.plots.rank_histogram(run),
        "savings": lambda: wb.plots.savings_vs_accuracy(run),
        "risk": lambda: wb.plots.risk_confusion(run, None),
        "per_case": lambda: wb.plots.per_case(run, "ranking", metric),
        "latency": lambda: wb.plots.latency(run, "ranking"),
        "forest": lambda: wb.plots.forest(comparison),
        "case_deltas": lambda: wb.plots.case_deltas(comparison),
    }


def load(run_dir: Path, long_names: bool = False) -> tuple[Any, Any]:
    """The run and its default comparison (primary target vs bm25), as the notebooks get them."""
    import workbench as wb

    run = wb.store.load_run(run_dir)
    if long_names:
        lengthen_metric_names(run)
    return run, wb.views.compare_runs(run, wb.views.open_baseline(None), None, "bm25")


def lengthen_metric_names(run: Any) -> None:
    """Append ``LONG`` to every metric name of the run, in its summary and its score frame."""
    from workbench.columns import METRIC

    for per in run.summary.get("suites", {}).values():
        for result in per.values():
            for key in ("metrics", "thresholds"):
                if isinstance(result.get(key), dict):
                    result[key] = {name + LONG: value for name, value in result[key].items()}
    run.scores[METRIC] = run.scores[METRIC].astype(str) + LONG


def measure(run_dir: Path, save: Path | None, profile: bool, long_names: bool = False) -> float:
    """CPU seconds to build and render the nine figures once (in this interpreter)."""
    import time

    from workbench.report.render import WARMUP

    exec(WARMUP)  # what each report kernel runs as it starts
    run, comparison = load(run_dir, long_names)
    builders = notebook_figures(run, comparison, per_case_metric(long_names))
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
    start = time.process_time()
    pngs = {name: build()._repr_png_() for name, build in builders.items()}
    spent = time.process_time() - start
    if profile:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        for name, png in pngs.items():
            (save / f"{name}.png").write_bytes(png)
    return spent


def fresh(
    checkout: Path, run_dir: Path, save: Path | None = None, profile: bool = False, long_names: bool = False
) -> float:
    """One measurement in a fresh interpreter importing workbench from ``checkout``."""
    code = (
        f"import sys; sys.path.insert(0, {str(checkout)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r}); "
        f"import figures; from pathlib import Path; "
        f"print('RESULT', figures.measure(Path({str(run_dir)!r}), "
        f"{None if save is None else 'Path(' + repr(str(save)) + ')'}, {profile}, {long_names}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, check=True)
    if profile:
        print(out.stderr)
    return float(next(line for line in out.stdout.splitlines() if line.startswith("RESULT")).split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--against", type=Path, help="another checkout to measure alternately")
    parser.add_argument("--save", type=Path, help="write the PNGs here (per checkout: DIR/after, DIR/before)")
    parser.add_argument("--wide", action="store_true", help="a run with five targets, two with long names")
    parser.add_argument("--long-names", action="store_true", help="every metric name made long")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one measurement")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.report_runs import build_run

    with tempfile.TemporaryDirectory() as tmp:
        kwargs = {"targets": WIDE_TARGETS} if args.wide else {}
        run_dir = build_run(Path(tmp), **kwargs)
        sides = {"after": ROOT, **({"before": args.against.resolve()} if args.against else {})}
        if args.save or args.profile:
            for name, checkout in sides.items():
                fresh(checkout, run_dir, args.save / name if args.save else None, args.profile, args.long_names)
        times: dict[str, list[float]] = {name: [] for name in sides}
        for i in range(args.repeat):
            for name, checkout in sides.items() if i % 2 == 0 else reversed(sides.items()):
                times[name].append(fresh(checkout, run_dir, long_names=args.long_names))
    result = {name: {"median": round(statistics.median(t), 4), "min": round(min(t), 4)} for name, t in times.items()}
    if "before" in result:
        result["ratio"] = round(result["after"]["median"] / result["before"]["median"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
