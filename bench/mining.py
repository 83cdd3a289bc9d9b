"""Benchmark: mining a long history, materializing revisions, the retrieval page for 2,000 cases,
and mining + validating + running the eight shared bundles.

    .venv/bin/python bench/mining.py [--part mine|materialize|page|bundles|all] [--repos ../shared/repos]

Each part uses a fresh cache directory (``$WORKBENCH_CACHE_DIR`` in a temp dir), so the first
pass pays every clone and snapshot and the second shows the cache. Results go to stdout as
JSON lines; bench/BENCHMARKS.md records them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BUNDLES = ("werkzeug", "attrs", "commander", "koa", "ky", "echo", "logrus", "viper")


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def fresh_cache() -> Path:
    path = Path(tempfile.mkdtemp(prefix="wb-bench-cache-"))
    os.environ["WORKBENCH_CACHE_DIR"] = str(path)
    return path


def bench_mine(repos: Path) -> None:
    from workbench.mining.mine import mine

    fresh_cache()
    bundle = repos / "werkzeug.bundle"
    for label in ("cold (bundle cloned into the cache)", "warm (clone reused)"):
        started = time.perf_counter()
        result = mine(bundle, progress=False)
        emit(
            part="mine",
            repo="werkzeug",
            run=label,
            seconds=round(time.perf_counter() - started, 2),
            commits=result.commits,
            candidates=result.candidates,
            cases=len(result.cases),
        )


def bench_materialize(repos: Path, count: int = 100) -> None:
    from workbench.corpus.snapshots import materialize, snapshots_root
    from workbench.corpus.sources import open_repo
    from workbench.mining.mine import mine

    cache = fresh_cache()
    bundle = repos / "werkzeug.bundle"
    revisions = [c["revision"] for c in mine(bundle, max_cases=count, progress=False).cases]
    repo = open_repo(bundle)
    for label in ("first pass", "second pass"):
        started = time.perf_counter()
        dirs = {materialize(repo, revision) for revision in revisions}
        emit(
            part="materialize",
            repo="werkzeug",
            run=label,
            revisions=len(revisions),
            snapshots=len(dirs),
            seconds=round(time.perf_counter() - started, 3),
        )
    size = subprocess.run(["du", "-sm", str(snapshots_root())], capture_output=True, text=True).stdout.split()[0]
    emit(part="materialize", disk_mb=int(size), cache=str(cache))


def bench_page(repos: Path, cases: int = 2000) -> None:
    """The retrieval page of a 2,000-case run: real mined werkzeug cases, seeded answers for 3 targets."""
    from workbench.corpus.gitio import git_text
    from workbench.corpus.sources import open_repo
    from workbench.interchange.formats import recorded_run
    from workbench.mining.mine import mine_corpus
    from workbench.report.render import render_report

    fresh_cache()
    work = Path(tempfile.mkdtemp(prefix="wb-bench-page-"))
    corpus = work / "corpus.json"
    result, _ = mine_corpus(repos / "werkzeug.bundle", corpus, max_cases=cases, progress=False)
    files = git_text(open_repo(repos / "werkzeug.bundle").git_dir, "ls-tree", "-r", "--name-only", "HEAD").split()
    rng = random.Random(0)
    rankings = {}
    for target, skill in (("builtin", 0.6), ("bm25", 0.4), ("random", 0.0)):
        ranked = {}
        for case in result.cases:
            answer = rng.sample(files, 5)
            if rng.random() < skill:
                answer[rng.randrange(3)] = case["expectedPrimary"][0]
            ranked[case["name"]] = answer
        rankings[target] = ranked
    run = recorded_run(
        corpus,
        "retrieval",
        rankings,
        lambda docs: {
            "primary": list(dict.fromkeys(docs)),
            "related": [],
            "reasons": {d: "bm25 match on path and symbols" for d in docs},
        },
        {"format": "bench"},
        out_dir=work / "runs",
    )
    started = time.perf_counter()
    report = render_report(run, out_dir=work / "html", notebooks=["retrieval"])
    page = report.index.parent / "retrieval.html"
    emit(
        part="page",
        cases=len(result.cases),
        targets=3,
        seconds=round(time.perf_counter() - started, 1),
        retrieval_html_mb=round(page.stat().st_size / 1e6, 2),
        page=str(page),
    )


def bench_bundles(repos: Path, per_repo: int) -> None:
    """Mine every bundle into one corpus (--append), validate it, run builtin, bm25 and random on it."""
    fresh_cache()
    work = Path(tempfile.mkdtemp(prefix="wb-bench-bundles-"))
    corpus = work / "corpus.json"
    exe = str(Path(sys.executable).parent / "workbench")
    for name in BUNDLES:
        started = time.perf_counter()
        done = subprocess.run(
            [
                exe,
                "mine",
                str(repos / f"{name}.bundle"),
                "--out",
                str(corpus),
                "--append",
                "--max-cases",
                str(per_repo),
            ],
            capture_output=True,
            text=True,
        )
        emit(
            part="bundles",
            repo=name,
            seconds=round(time.perf_counter() - started, 2),
            mined=done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode,
        )
    data = json.loads(corpus.read_text())
    started = time.perf_counter()
    valid = subprocess.run([exe, "validate", "--corpus", str(corpus)], capture_output=True, text=True)
    emit(
        part="bundles",
        cases=len(data["retrieval"]),
        validate=valid.returncode,
        validate_seconds=round(time.perf_counter() - started, 1),
        message=(valid.stdout + valid.stderr)[-300:],
    )
    started = time.perf_counter()
    ran = subprocess.run(
        [
            exe,
            "run",
            "--corpus",
            str(corpus),
            "--target",
            "builtin",
            "--target",
            "bm25",
            "--target",
            "random",
            "--out",
            str(work / "runs"),
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    summary = json.loads(ran.stdout) if ran.stdout.strip().startswith("{") else {}
    retrieval = summary.get("suites", {}).get("retrieval", {})
    emit(
        part="bundles",
        run_exit=ran.returncode,
        run_seconds=round(time.perf_counter() - started, 1),
        run_dir=summary.get("run_dir"),
        error=ran.stderr[-300:] if ran.returncode not in (0, 1) else "",
        metrics={
            t: {
                **s.get("metrics", {}),
                "passed_cases": s.get("passed_cases"),
                "cases": s.get("cases"),
                "errors": s.get("errors"),
            }
            for t, s in retrieval.items()
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", default="all", choices=["mine", "materialize", "page", "bundles", "all"])
    parser.add_argument("--repos", type=Path, default=ROOT.parent / "shared" / "repos")
    parser.add_argument("--per-repo", type=int, default=25, help="cases mined per bundle for the bundles part")
    args = parser.parse_args()
    if not all((args.repos / f"{name}.bundle").is_file() for name in BUNDLES):
        print(f"bench/mining.py: skipped, the shared bundles are not in {args.repos}")
        return
    parts = ["mine", "materialize", "page", "bundles"] if args.part == "all" else [args.part]
    for part in parts:
        if part == "bundles":
            bench_bundles(args.repos, args.per_repo)
        else:
            {"mine": bench_mine, "materialize": bench_materialize, "page": bench_page}[part](args.repos)


if __name__ == "__main__":
    main()
