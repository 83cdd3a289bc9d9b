"""The reference engine on real code it has never seen: cases mined from git history.

    python bench/engine_real.py [--repos DIR] [--max-cases 50] [--seed 0] [--keep DIR] [--json]

Mines every ``*.bundle`` in ``--repos`` (default ``../shared/repos`` beside this checkout)
with ``workbench mine BUNDLE --out FILE --max-cases N --seed S --append`` into one corpus,
runs the retrieval suite on it for ``builtin``, ``bm25`` and ``random`` (``workbench run``,
k=5), and prints one table per language (by the extensions of each case's expected files)
and one per query shape (``names-file``, ``names-symbol``, ``words-only``): cases, passes,
recall@5 and MRR per target, and builtin's margin over bm25. Without ``workbench mine``
(issue 10) it says so and measures nothing. Results are recorded in ``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TARGETS = ("builtin", "bm25", "random")
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".jsx": "js",
    ".ts": "ts",
    ".tsx": "ts",
    ".mts": "ts",
    ".go": "go",
}


def _workbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(_package_root()), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, env=env)


def _package_root() -> Path:
    import workbench

    return Path(workbench.__file__).resolve().parent.parent


def has_mine() -> bool:
    """Whether this checkout's CLI has the ``mine`` command (issue 10)."""
    return _workbench("mine", "--help").returncode == 0


def language(paths: list[str]) -> str:
    """The language of a case: the most common one among its expected files."""
    found = [LANGUAGES.get(os.path.splitext(p)[1], "other") for p in paths]
    return max(sorted(set(found)), key=found.count) if found else "other"


def mine(bundles: list[Path], corpus: Path, max_cases: int, seed: int) -> None:
    for bundle in bundles:
        done = _workbench(
            "mine", str(bundle), "--out", str(corpus), "--max-cases", str(max_cases), "--seed", str(seed), "--append"
        )
        if done.returncode != 0:
            raise SystemExit(f"workbench mine {bundle.name} failed: {done.stderr.strip()[-400:]}")


def evaluate(corpus: Path, out: Path) -> tuple[object, float]:
    """The run of the retrieval suite for the three targets, and its wall time."""
    args = ["run", "--corpus", str(corpus), "--suite", "retrieval", "--out", str(out)]
    for target in TARGETS:
        args += ["--target", target]
    start = time.perf_counter()
    done = _workbench(*args)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: thresholds not met, expected for a corpus without any
        raise SystemExit(f"workbench run failed: {done.stderr.strip()[-400:]}")
    from workbench import load_run

    runs = sorted(p for p in out.iterdir() if p.is_dir())
    return load_run(runs[-1]), elapsed


def per_case(run: object, corpus: Path) -> list[dict[str, object]]:
    """One row per (target, case): pass, recall@5, MRR, language, shape."""
    cases = {c["name"]: c for c in json.loads(corpus.read_text())["retrieval"]}
    scores = run.scores  # type: ignore[attr-defined]
    table = scores.pivot_table(index=["target", "case"], columns="metric", values="value", observed=True)
    rows = []
    for record in run.cases.to_dict("records"):  # type: ignore[attr-defined]
        case = cases.get(record["case"])
        if case is None or not case.get("expectedPrimary"):
            continue
        metrics = table.loc[(record["target"], record["case"])]
        rows.append(
            {
                "target": record["target"],
                "case": record["case"],
                "passed": bool(record["passed"]),
                "recall": float(metrics["recallAtK"]),
                "mrr": float(metrics["mrr"]),
                "language": language(case["expectedPrimary"]),
                "shape": case.get("shape", "unlabelled"),
            }
        )
    return rows


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def tables(rows: list[dict[str, object]]) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """``{by: {group: {target: {cases, passed, recall, mrr}}}}`` for by = language, shape."""
    out: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for by in ("language", "shape"):
        groups = sorted({str(r[by]) for r in rows}) + ["all"]
        out[by] = {}
        for group in groups:
            out[by][group] = {}
            for target in TARGETS:
                sel = [r for r in rows if r["target"] == target and (group == "all" or r[by] == group)]
                if sel:
                    n = len(sel)
                    out[by][group][target] = {
                        "cases": n,
                        "passed": sum(1 for r in sel if r["passed"]),
                        "recall": sum(_number(r["recall"]) for r in sel) / n,
                        "mrr": sum(_number(r["mrr"]) for r in sel) / n,
                    }
    return out


def render(result: dict[str, dict[str, dict[str, dict[str, float]]]]) -> str:
    lines = []
    for by, groups in result.items():
        lines.append(
            f"\n| {by} | cases | "
            + " | ".join(f"{t} pass / R@5 / MRR" for t in TARGETS)
            + " | builtin - bm25 (pass pts, MRR) |"
        )
        lines.append("| --- | ---: |" + " --- |" * (len(TARGETS) + 1))
        for group, cells in groups.items():
            n = next(iter(cells.values()))["cases"]
            shown = [
                f"{c['passed']:.0f} / {c['recall']:.3f} / {c['mrr']:.3f}" if (c := cells.get(t)) else "-"
                for t in TARGETS
            ]
            b, m = cells.get("builtin"), cells.get("bm25")
            margin = f"{100 * (b['passed'] - m['passed']) / n:+.1f}, {b['mrr'] - m['mrr']:+.3f}" if b and m else "-"
            lines.append(f"| {group} | {n:.0f} | " + " | ".join(shown) + f" | {margin} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=REPO.parent / "shared" / "repos")
    parser.add_argument("--max-cases", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="write the mined corpus and the run here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not has_mine():
        print("workbench mine is missing (issue 10): nothing to measure on real history yet")
        return
    bundles = sorted(args.repos.glob("*.bundle"))
    if not bundles:
        print(f"{args.repos}: no *.bundle files (real repositories to mine): nothing to measure")
        return
    work = Path(args.keep or tempfile.mkdtemp(prefix="engine-real-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus.json"
    corpus.unlink(missing_ok=True)
    start = time.perf_counter()
    mine(bundles, corpus, args.max_cases, args.seed)
    mined = time.perf_counter() - start
    run, elapsed = evaluate(corpus, work / "runs")
    result = tables(per_case(run, corpus))
    if args.json:
        print(json.dumps({"mine_seconds": mined, "run_seconds": elapsed, "tables": result}, indent=1))
        return
    print(
        f"{len(bundles)} repositories mined in {mined:.1f} s; retrieval x {len(TARGETS)} targets in "
        f"{elapsed:.1f} s ({work})"
    )
    print(render(result))


if __name__ == "__main__":
    main()
