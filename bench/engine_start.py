"""What an engine's own subreaper costs at start: ``EngineProcess`` started and closed, with the
subreaper (``containment.reaped_argv``) and without it, in alternating rounds of one sitting.

    python bench/engine_start.py [--rounds 10] [--starts 10]

Prints the median milliseconds per start of each and their ratio. The engine is ``cat``, so the
figure is the start-up and the close, nothing of an engine's own work.
"""

from __future__ import annotations

import argparse
import statistics
import time

from workbench.targets import pipes


def _starts(count: int) -> float:
    """Milliseconds per start and close of ``count`` engines, one after another."""
    began = time.perf_counter()
    for _ in range(count):
        engine = pipes.EngineProcess(["cat"])
        engine.proc.stdin.close()  # type: ignore[union-attr]
        engine.proc.wait()
        engine.kill()
    return (time.perf_counter() - began) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    with_it, without, ratios = [], [], []
    original = pipes.reaped_argv
    for _ in range(args.rounds):
        pipes.reaped_argv = original
        a = _starts(args.starts)
        pipes.reaped_argv = lambda argv, env, cwd=None: argv  # type: ignore[assignment]
        b = _starts(args.starts)
        with_it.append(a)
        without.append(b)
        ratios.append(a / b)
    pipes.reaped_argv = original
    a, b = statistics.median(with_it), statistics.median(without)
    print(f"subreaper: {a:.1f} ms per start, without: {b:.1f} ms")
    print(f"difference {a - b:.1f} ms; ratio {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
