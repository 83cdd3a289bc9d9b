"""Benchmark: ``workbench calibrate`` with the builtin target on the shared bundles (issue 22).

    .venv/bin/python bench/calibrate.py [--repos ../shared/repos] [--bundle koa ...] [--window 90d] [--markdown]

Each bundle is cloned into a temp dir, then ``workbench calibrate <clone> --json`` (builtin target:
risk flags and, on the newest 1000 observed changes, the gate) runs as a whole process (start-up
included) and is timed; the done criterion is under 120 s per bundle. One JSON line per bundle on
stdout: seconds, commits read, changes, observed, gated, outcome counts, and per flag the lift of
``either`` with its interval (null when withheld); ``--markdown`` also prints each bundle's
``either`` table as bench/BENCHMARKS.md records it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = ("werkzeug", "attrs", "commander", "koa", "ky", "echo", "logrus", "viper")
LIMIT = 120.0


def bench_bundle(bundle: Path, window: str) -> tuple[dict[str, object], dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="wb-calibrate-") as tmp:
        clone = Path(tmp) / bundle.stem
        subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True, capture_output=True)
        command = [str(ROOT / ".venv" / "bin" / "workbench"), "calibrate", str(clone), "--json", "--window", window]
        started = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    data = json.loads(done.stdout)
    lifts = {
        row["flag"]: {
            "flagged": row["flagged"],
            "lift": None if row["lift"] is None else round(row["lift"], 2),
            "interval": None if row["lift"] is None else [round(row["lift_low"], 2), _round(row["lift_high"])],
        }
        for row in data["flags"]
        if row["outcome"] == "either"
    }
    return {
        "repo": bundle.stem,
        "seconds": round(seconds, 2),
        "underLimit": seconds < LIMIT,
        "commits": data["commits"],
        "changes": data["changes"],
        "observed": data["observed"],
        "gated": data["gated"],
        "outcomes": data["outcomes"],
        "fixCommits": data["fixCommits"],
        "blameCalls": data["blameCalls"],
        "eitherLift": lifts,
    }, data


def markdown(data: dict[str, Any]) -> str:
    """The ``either`` rows of one result as a markdown table (the page's and the terminal's text)."""
    from workbench.calibration import lift_text, rate_text

    lines = ["| flag | flagged | rate flagged [95%] | unflagged | rate unflagged [95%] | lift [95%] |"]
    lines.append("| --- | ---: | --- | ---: | --- | --- |")
    for r in data["flags"]:
        if r["outcome"] == "either":
            flagged = rate_text(r["rate_flagged"], r["rate_flagged_low"], r["rate_flagged_high"], r["flagged"])
            other = rate_text(r["rate_unflagged"], r["rate_unflagged_low"], r["rate_unflagged_high"], r["unflagged"])
            lines.append(f"| {r['flag']} | {r['flagged']} | {flagged} | {r['unflagged']} | {other} | {lift_text(r)} |")
    return "\n".join(lines)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    near = [p / "shared" / "repos" for p in (ROOT.parent, ROOT.parent.parent)]  # a checkout or a worktree
    parser.add_argument("--repos", type=Path, default=next((p for p in near if p.is_dir()), near[0]))
    parser.add_argument("--bundle", action="append", default=None, help="bundle name (repeatable; default: all)")
    parser.add_argument("--window", default="90d")
    parser.add_argument("--markdown", action="store_true", help="also print each bundle's 'either' table")
    args = parser.parse_args()
    slow = 0
    for name in args.bundle or BUNDLES:
        result, data = bench_bundle(args.repos / f"{name}.bundle", args.window)
        slow += not result["underLimit"]
        print(json.dumps(result), flush=True)
        if args.markdown:
            print(markdown(data), flush=True)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
