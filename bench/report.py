"""Benchmark: rendering every report notebook vs papermill's kernel start-up floor.

The floor is papermill executing the same number of empty notebooks (one parameters cell) on the
same number of worker threads, each in a fresh kernel (papermill's default). The render is
``workbench.render_report`` on a synthetic run (real suite scoring, see tests/report_runs.py),
with kernel reuse (the default) and without it. Each measurement runs in a fresh interpreter
that has already imported papermill and workbench.report, so neither side pays those imports;
the render does pay for nbconvert, pandas and matplotlib. Measurements are interleaved and
repeated; the medians are reported.

    .venv/bin/python bench/report.py [--repeat 5] [--jobs N] [--baseline] [--scale 1] [--no-warmup]
    .venv/bin/python bench/report.py --run reports/runs/<id> [--baseline-spec builtin]   # a real run
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def empty_notebooks(directory: Path, count: int) -> list[Path]:
    import nbformat

    cell = nbformat.v4.new_code_cell("run_dir = None")
    cell.metadata["tags"] = ["parameters"]
    book = nbformat.v4.new_notebook(
        cells=[cell], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    paths = [directory / f"empty{i}.ipynb" for i in range(count)]
    for path in paths:
        nbformat.write(book, str(path))
    return paths


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (the kernels)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds including kernels) of one call."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    action()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def measure_floor(work: Path, count: int, jobs: int) -> tuple[float, float]:
    from concurrent.futures import ThreadPoolExecutor

    import papermill

    paths = empty_notebooks(work, count)

    def one(path: Path) -> None:
        papermill.execute_notebook(
            str(path),
            str(path.with_suffix(".out.ipynb")),
            parameters={"run_dir": "x"},
            kernel_name="python3",
            progress_bar=False,
        )

    def all_of_them() -> None:
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, paths))

    return timed(all_of_them)


def measure_render(work: Path, run: str, baseline: str | None, jobs: int, reuse: bool) -> tuple[float, float]:
    from workbench.report.render import render_report

    return timed(lambda: render_report(run, baseline=baseline, out_dir=work / "html", jobs=jobs, reuse_kernels=reuse))


STALL = 1.5  # a floor slower than this times the fastest one waited on a kernel's shutdown
RESULT = "RESULT"  # prefix of the line a measuring interpreter prints its (wall, CPU) on


def one_measurement(kind: str, run: str, baseline: str | None, jobs: int, count: int) -> tuple[float, float]:
    """Run one measurement in a fresh interpreter and return its (wall, CPU) seconds; a failed
    interpreter is retried once (a kernel that dies on start, e.g. a port taken by another
    process between its pick and its bind, is the environment's, not the code's)."""
    for attempt in (1, 2):
        done = _measure_in_subprocess(kind, run, baseline, jobs, count)
        lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
        if lines and done.returncode == 0:
            wall, cpu = lines[-1].split()[1:3]
            return float(wall), float(cpu)
        print(
            f"bench/report.py: {kind} measurement {attempt}/2 failed (exit {done.returncode}):\n{_tail(done.stderr)}",
            file=sys.stderr,
        )
    raise SystemExit(f"bench/report.py: the {kind} measurement failed twice; its stderr is above")


def _measure_in_subprocess(
    kind: str, run: str, baseline: str | None, jobs: int, count: int
) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as tmp:
        call = (
            f"b.measure_floor(Path({tmp!r}), {count}, {jobs})"
            if kind == "floor"
            else f"b.measure_render(Path({tmp!r}), {run!r}, {baseline!r}, {jobs}, {kind == 'render'})"
        )
        code = (
            f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.argv = ['x']; import bench.report as b; "
            f"from pathlib import Path; import papermill, workbench.report; "
            f"wall, cpu = {call}; print({RESULT!r}, wall, cpu, flush=True)"
        )
        return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)


def _tail(text: str, lines: int = 25) -> str:
    """The end of a stderr, without the kernels' one-line TCP warnings."""
    kept = [line for line in text.splitlines() if "running over TCP without encryption" not in line]
    return "\n".join(kept[-lines:]) or "(no stderr)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--scale", type=int, default=1, help="multiply the synthetic run's case counts")
    parser.add_argument("--baseline", action="store_true", help="render with a baseline (RUN#builtin of a second run)")
    parser.add_argument("--run", default=None, help="render this run directory instead of the synthetic one")
    parser.add_argument(
        "--baseline-spec", default=None, help="with --run: the baseline to render it with (e.g. builtin)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--no-warmup",
        dest="warmup",
        action="store_false",
        help="skip the untimed first floor and render (they fill caches on a fresh machine)",
    )
    args = parser.parse_args()
    from tests.report_runs import build_run
    from workbench.report.render import NOTEBOOKS

    with tempfile.TemporaryDirectory() as tmp:
        if args.run:
            run, base = str(Path(args.run).resolve()), args.baseline_spec
            args.baseline = bool(base)
        else:
            run = str(build_run(Path(tmp), scale=args.scale))
            base = f"{build_run(Path(tmp), seed=1, scale=args.scale, run_id='20261129T000000Z-base')}#builtin"
        kinds = ("floor", "render", "fresh")
        times: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
        for kind in kinds[:2] if args.warmup else ():  # untimed: .pyc files, font and IPython caches
            one_measurement(kind, run, base if args.baseline else None, args.jobs, len(NOTEBOOKS))
        for _ in range(args.repeat):
            for kind in kinds:
                times[kind].append(
                    one_measurement(kind, run, base if args.baseline else None, args.jobs, len(NOTEBOOKS))
                )
    report(summarise(times, args), args.json)


def summarise(times: dict[str, list[tuple[float, float]]], args: argparse.Namespace) -> dict[str, object]:
    from workbench.report.render import NOTEBOOKS

    result: dict[str, object] = {
        "notebooks": len(NOTEBOOKS),
        "jobs": args.jobs,
        "baseline": args.baseline,
        "scale": args.scale,
    }
    for kind, pairs in times.items():
        walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
        result[kind] = {
            "wall_median_s": round(statistics.median(walls), 2),
            "wall_min_s": round(min(walls), 2),
            "cpu_median_s": round(statistics.median(cpus), 2),
            "walls_s": [round(w, 2) for w in walls],
        }
    floor = result["floor"]
    # A floor measurement in which papermill waited out a kernel's graceful shutdown (+2.5 s or
    # more, see BENCHMARKS.md) is the floor's noise, not kernel start-up: ratios use the others.
    walls = [w for w, _ in times["floor"]]
    clean = [w for w in walls if w <= STALL * min(walls)]
    floor["stalled"] = len(walls) - len(clean)
    floor["wall_median_clean_s"] = round(statistics.median(clean), 2)
    for kind in ("render", "fresh"):
        mine = result[kind]
        mine["ratio_median"] = round(mine["wall_median_s"] / floor["wall_median_clean_s"], 2)
        mine["ratio_min"] = round(mine["wall_min_s"] / floor["wall_min_s"], 2)
    return result


def report(result: dict[str, object], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['notebooks']} notebooks, {result['jobs']} workers, baseline={result['baseline']}, "
        f"scale={result['scale']}"
    )
    labels = {
        "floor": "floor  (papermill, empty notebooks, fresh kernels)",
        "render": "render (workbench report, kernels reused)        ",
        "fresh": "render (workbench report, a kernel per notebook) ",
    }
    for kind, text in labels.items():
        row = result[kind]
        ratio = (
            f"  (median without the {row['stalled']} shutdown stall(s): {row['wall_median_clean_s']:.2f} s)"
            if kind == "floor"
            else f"  = {row['ratio_median']}x floor (median), {row['ratio_min']}x (best)"
        )
        print(
            f"  {text} wall median {row['wall_median_s']:.2f} s, best {row['wall_min_s']:.2f} s, "
            f"CPU {row['cpu_median_s']:.2f} s{ratio}"
        )


if __name__ == "__main__":
    main()
