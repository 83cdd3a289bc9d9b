"""The bounds of issue 23 on ``bench/scale.py``'s timings, stated against the engine's own time.

* Ray's overhead (a Ray run's wall time minus local ``--jobs 1``'s) is at most 10 s of fixed start
  plus 5% of the local run's engine time (the sum of its cases' seconds);
* the N-node cluster run (its cluster's start untimed, reported beside) is at least 3x faster than
  local ``--jobs 1``;
* a fully cached re-run takes at most 1.5 s plus 1% of the first (filling) run's engine time.
"""

from __future__ import annotations

from typing import Any

RAY_FIXED, RAY_SHARE = 10.0, 0.05
SPEEDUP = 3.0
CACHE_FIXED, CACHE_SHARE = 1.5, 0.01


def _bound(value: float, limit: float, holds: bool) -> dict[str, Any]:
    return {"value": round(value, 2), "limit": round(limit, 2), "holds": holds}


def bounds(timed: dict[str, dict[str, Any]], cluster: str) -> dict[str, dict[str, Any]]:
    """Each bound whose configurations were timed: its measured value, its limit, whether it holds."""
    out: dict[str, dict[str, Any]] = {}
    local = timed.get("local")
    if local is not None:
        allowed = RAY_FIXED + RAY_SHARE * local["engine_seconds"]
        for name in ("ray", "ray-no-warm", "ray-head", "ray-head-no-warm", cluster):
            if name in timed:
                overhead = timed[name]["seconds"] - local["seconds"]
                out[f"{name}_overhead_seconds"] = _bound(overhead, allowed, overhead <= allowed)
        if cluster in timed:
            speedup = local["seconds"] / timed[cluster]["seconds"]
            out[f"{cluster}_speedup_over_local"] = _bound(speedup, SPEEDUP, speedup >= SPEEDUP)
    if "cache-fill" in timed and "cache-rerun" in timed:
        allowed = CACHE_FIXED + CACHE_SHARE * timed["cache-fill"]["engine_seconds"]
        rerun = timed["cache-rerun"]["seconds"]
        out["cache_rerun_seconds"] = _bound(rerun, allowed, rerun <= allowed)
    summaries = {repr((v["metrics"], v["passed_cases"])) for v in timed.values()}
    out["same_summaries"] = {"value": len(summaries), "limit": 1, "holds": len(summaries) == 1}
    return out
