"""Re-record the committed baseline (``corpus/baselines/builtin.json``), the corpus floors and
EVALS.md's baseline table from a fresh run of the shipped corpus: ``make baseline``.

Review the diff of the three files, then commit them together."""

from __future__ import annotations

import sys

from workbench.run.rerecord import rerecord


def main() -> int:
    path = rerecord()
    print(f"re-recorded {path}, the floors in corpus/corpus.json and EVALS.md's table: review and commit them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
