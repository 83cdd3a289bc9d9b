"""Wall time of short CLI commands that people run by hand (``workbench validate``).

    python bench/commands.py [--repeat 5] [--corpus corpus/corpus.json]

Each command runs in a fresh interpreter, as a user runs it; best and median of ``--repeat``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wall(argv: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", default="corpus/corpus.json")
    args = parser.parse_args()
    commands = {
        "python -c pass (interpreter start)": [sys.executable, "-c", "pass"],
        "workbench --help": [sys.executable, "-m", "workbench", "--help"],
        "workbench validate": [sys.executable, "-m", "workbench", "validate", "--corpus", args.corpus],
    }
    for name, argv in commands.items():
        times = wall(argv, args.repeat)
        print(f"{name}: best {min(times):.2f} s, median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
