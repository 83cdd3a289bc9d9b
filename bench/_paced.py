"""The reference engine paced like a real one: each context pack takes at least
``$WORKBENCH_BENCH_ENGINE_MS`` milliseconds (a real engine answers in tens to hundreds of
milliseconds; the synthetic snapshots of ``bench/scale.py`` take the reference engine ~1 ms).
Used as ``python:bench._paced:paced`` by ``bench/scale.py --engine-ms N``."""

from __future__ import annotations

import os
import time
from typing import Any

from workbench.targets.builtin import BuiltinTarget


class PacedTarget(BuiltinTarget):
    name, cacheable = "paced", True

    def __init__(self) -> None:
        self.seconds = float(os.environ.get("WORKBENCH_BENCH_ENGINE_MS", "0")) / 1000
        self.version = f"{BuiltinTarget.version}+paced{self.seconds * 1000:g}ms"

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Any:
        started = time.perf_counter()
        pack = super().context_pack(query, repos, limit)
        time.sleep(max(0.0, self.seconds - (time.perf_counter() - started)))
        return pack


def paced() -> PacedTarget:
    return PacedTarget()
