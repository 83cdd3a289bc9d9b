"""Wall and CPU time of short CLI commands that people run by hand (``workbench --help``, ``validate``).

    python bench/commands.py [--repeat 10] [--corpus corpus/corpus.json] [--against DIR]

Each command runs in a fresh interpreter, as a user runs it; median and best of ``--repeat``, wall
time and the child's CPU time (user + sys, steadier than wall on a shared machine). ``--against DIR``
also times another source tree of the package (``git archive BASE | tar -x -C DIR``), interleaved
run by run with this one, to compare start-up before and after a change.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], tree: Path | None) -> tuple[float, float]:
    """Wall and CPU seconds of one run; ``tree`` puts another copy of the package first on the path."""
    env = dict(os.environ, PYTHONPATH=str(tree)) if tree else None
    cpu, started = _cpu(), time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started, _cpu() - cpu


def _line(name: str, runs: list[tuple[float, float]]) -> str:
    wall, cpu = ([run[i] * 1000 for run in runs] for i in (0, 1))
    return (
        f"{name}: wall median {statistics.median(wall):.0f} ms (best {min(wall):.0f}), "
        f"cpu median {statistics.median(cpu):.0f} ms (best {min(cpu):.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--corpus", default="corpus/corpus.json")
    parser.add_argument("--against", type=Path, help="another source tree of the package to time too")
    args = parser.parse_args()
    # -P: the working directory (this checkout) does not shadow PYTHONPATH's tree
    commands = {
        "python -c pass (interpreter start)": [sys.executable, "-c", "pass"],
        "workbench --help": [sys.executable, "-P", "-m", "workbench", "--help"],
        "workbench validate": [sys.executable, "-P", "-m", "workbench", "validate", "--corpus", args.corpus],
    }
    trees: dict[str, Path | None] = {"this tree": None}
    if args.against:
        trees = {f"{args.against}": args.against.resolve(), **trees}
    for name, argv in commands.items():
        runs: dict[str, list[tuple[float, float]]] = {tree: [] for tree in trees}
        for _ in range(args.repeat):
            for tree, path in trees.items():
                runs[tree].append(timed(argv, path))
        for tree in trees:
            print(_line(f"{name} [{tree}]" if args.against else name, runs[tree]))


if __name__ == "__main__":
    main()
