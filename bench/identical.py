"""Recorded check: a run of the shipped corpus and its report pages are identical before and after.

    python bench/identical.py [--record] [--out DIR] [--jobs N]

Issue 24 asks that the speed work leave results alone: "mined corpora, run summaries and pages are
identical before and after (a recorded check)". Mined corpora are checked by ``bench/mining.py``
(digests of nine histories); this script checks the rest. It runs every suite of
``corpus/corpus.json`` with builtin, bm25 and random, renders the report, and compares digests of:

* ``summary.json`` (without ``run_dir``), ``scores.parquet`` (rows sorted) and ``cases.jsonl``;
* every HTML page of the report.

What differs between two runs of the same code is taken out first, and nothing else: the run id and
creation time, the corpus path and git commit, package versions and the builtin engine's version (a
digest of its code, which the work under check changes), and every ``seconds`` field (timings).
Pages are rendered from the normalized run, so they carry the same values. ``--record`` writes the
digests to ``bench/identical.json``; without it the script compares and exits 1 on any difference,
naming the part. ``--jobs N`` runs the cases N at once (forked workers for these targets): the
record is of ``--jobs 1``, and the manifest's ``jobs`` and ``executor`` are normalized to it.
The trend page also reads the baselines' git history (each recording, by the commit that stored
it): after a commit that stores a new baseline, re-record in a commit of its own, never in the same
one (the page would then count one recording fewer than a checkout of that commit shows).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RECORD = REPO / "bench" / "identical.json"
RUN_ID = "20000101T000000Z-builtin+bm25+random"
FIXED = {
    "run_id": RUN_ID,
    "created": "2000-01-01T00:00:00Z",
    "git_commit": "0" * 40,
    "workbench_version": "0",
    "python": "0",
    "platform": "0",
}


def _workbench(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "workbench", *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"workbench {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")


def _zero_seconds(value: Any) -> Any:
    """``value`` with every ``seconds`` field set to 0 (timings are all that differ run to run)."""
    if isinstance(value, dict):
        return {k: (0.0 if k == "seconds" else _zero_seconds(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_zero_seconds(v) for v in value]
    return value


def normalize(run: Path, into: Path) -> Path:
    """A copy of ``run`` under ``into/RUN_ID`` with the run-to-run differences fixed."""
    out = into / RUN_ID
    out.mkdir(parents=True)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest.update(FIXED)
    manifest["corpus"]["path"] = "corpus/corpus.json"
    manifest["options"]["jobs"] = 1  # how many cases ran at once: not a result
    manifest["executor"] = {"kind": "local", "jobs": 1}
    manifest["packages"] = {name: "0" for name in manifest.get("packages", {})}
    for target in manifest["targets"]:
        target["version"] = "0"
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    summary = json.loads((run / "summary.json").read_text())
    summary["run_dir"] = str(out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    with (run / "cases.jsonl").open() as rows, (out / "cases.jsonl").open("w") as kept:
        for line in rows:
            kept.write(json.dumps(_zero_seconds(json.loads(line))) + "\n")
    (out / "scores.parquet").write_bytes((run / "scores.parquet").read_bytes())
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _scores_digest(path: Path) -> str:
    import pandas as pd

    frame = pd.read_parquet(path)
    frame = frame.sort_values(list(frame.columns[:4]), kind="stable").reset_index(drop=True)
    return _digest(frame.to_csv(index=False, float_format="%.12g").encode())


def digests(work: Path, jobs: int = 1) -> dict[str, str]:
    """Run (``jobs`` cases at once), normalize, render; the digest of each part."""
    targets = ["--target", "builtin", "--target", "bm25", "--target", "random"]
    _workbench("run", *targets, "--jobs", str(jobs), "--out", str(work / "raw"))
    (run,) = (work / "raw").iterdir()
    fixed = normalize(run, work / "runs")
    _workbench("report", str(fixed), "--out", str(work / "html"))
    summary = json.loads((fixed / "summary.json").read_text())
    summary.pop("run_dir")
    found = {
        "summary.json": _digest(json.dumps(summary, sort_keys=True).encode()),
        "cases.jsonl": _digest((fixed / "cases.jsonl").read_bytes()),
        "scores.parquet": _scores_digest(fixed / "scores.parquet"),
    }
    for page in sorted((work / "html").rglob("*.html")):
        text = page.read_text().replace(str(work), "WORK").replace(str(REPO), "CHECKOUT")  # any clone alike
        found[f"page {page.relative_to(work / 'html')}"] = _digest(text.encode())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"write the digests to {RECORD.name}")
    parser.add_argument("--out", type=Path, help="keep the run and pages here (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once (the record is of 1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.out or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        found = digests(work, args.jobs)
    if args.record:
        RECORD.write_text(json.dumps(found, indent=2) + "\n")
        print(f"recorded {len(found)} digests in {RECORD}")
        return
    recorded = json.loads(RECORD.read_text())
    differ = [part for part in sorted(set(recorded) | set(found)) if recorded.get(part) != found.get(part)]
    for part in sorted(set(recorded) | set(found)):
        print(f"{part}: {'identical' if part not in differ else 'DIFFERS'}")
    print(f"identical: {not differ} ({len(found)} parts)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
