"""Benchmark: mining a long history, materializing revisions, the retrieval page for 2,000 cases,
and mining + validating + running the eight shared bundles.

    .venv/bin/python bench/mining.py [--part mine|materialize|page|bundles|speed|library|all] [--repos ../shared/repos]
        [--rounds 3] [--before <a tree with older workbench/>] [--packing fast-import|repacked|both]
        [--record-digests]

``speed`` (issue 24) generates a 60,000-commit history with git fast-import and times
``workbench mine`` against ``git log`` on it and on each bundle, as whole processes, with
mine's peak RSS (its largest process, git's included; git log's own peak is printed beside it), the
same ratio in CPU seconds (user + sys, git's processes included), the 1-minute load average, and two
checks that each corpus is byte-identical to a recorded one: its fields
without ``expectedSymbols`` (``bench/mining_corpora.json``) and the whole corpus
(``bench/mining_corpora_symbols.json``); ``--record-digests`` rewrites both from this run, after a
change meant to change what is mined.
``PYTHONPATH=<an export of older code>`` times that code instead (the children run in a temp dir).

``library`` (issue 40 item 5) times ``workbench mine REPO --max-cases 2000`` against its own ``git log``
on a 62,000-commit history shaped like a large scientific Python library's
(``tests/library_history.py``: 2,500 modules of 2-40 KB, pull requests merged, messages as real ones
are written; made once, about a minute, and kept under ``$WB_BENCH_CACHE`` or the temp dir, keyed by
its parameters and the generator's source), as fast-import wrote it and as a clone holds it
(``--packing``; ``repacked``: a copy whose deltas git searched afresh, as ``git gc`` packs objects
born loose, made once in about 20 s), ``--rounds`` rounds in one sitting, each with mine's peak
RSS, CPU seconds and a check of its corpus against ``bench/mining_corpora_library.json``;
``--before DIR`` runs DIR's ``workbench/`` beside this code's in every round (alternating which goes
first), for ratios paired on a shared machine. It needs no shared bundle.

Each part uses a fresh cache directory (``$WORKBENCH_CACHE_DIR`` in a temp dir), so the first
pass pays every clone and snapshot and the second shows the cache. Results go to stdout as
JSON lines; bench/BENCHMARKS.md records them.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import shutil
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


def scratch(prefix: str) -> Path:
    """A temp folder for one part's files, deleted when this process exits."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def fresh_cache() -> Path:
    path = scratch("wb-bench-cache-")
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
    from workbench.options import MineOptions
    from workbench.report.render import render_report

    fresh_cache()
    work = scratch("wb-bench-page-")
    corpus = work / "corpus.json"
    result, _ = mine_corpus(repos / "werkzeug.bundle", MineOptions(out=corpus, max_cases=cases, progress=False))
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
    work = scratch("wb-bench-bundles-")
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


# Issue 24: `workbench mine` against its own `git log`, as whole processes.
# sha256 of each corpus without expectedSymbols (the fields mined before issue 21), and of each whole
# corpus; both recorded by --record-digests after the last change meant to change what is mined
# (issue 21's CommonJS outline names, which moved some cases' shapes).
RECORDED = ROOT / "bench" / "mining_corpora.json"
RECORDED_SYMBOLS = ROOT / "bench" / "mining_corpora_symbols.json"
_PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - t, used.ru_maxrss, used.ru_utime + used.ru_stime, code)"
)


def against_log(log: tuple[float, float, float], mine: tuple[float, float, float]) -> dict[str, float]:
    """The figures of one ``mine`` against its own ``git log`` (each ``whole_process``'s wall s, peak
    MiB, CPU s): times, the ratios to the bound 3x log + 1 s, peaks and the machine's load."""
    (log_s, log_peak, log_cpu), (mine_s, peak, mine_cpu) = log, mine
    return {
        "git_log_s": round(log_s, 3),
        "mine_s": round(mine_s, 2),
        "ratio_vs_3x_log_plus_1s": round(mine_s / (3 * log_s + 1), 2),
        # the same in CPU seconds (mine's git processes included): what a busy machine moves least
        "git_log_cpu_s": round(log_cpu, 3),
        "mine_cpu_s": round(mine_cpu, 2),
        "cpu_ratio": round(mine_cpu / (3 * log_cpu + 1), 2),
        "peak_rss_mib": round(peak, 1),
        "git_log_peak_rss_mib": round(log_peak, 1),  # mine's peak is its largest process: git log's, at 60k
        "load": round(os.getloadavg()[0], 2),
    }


def whole_process(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + sys) of one command and the processes it
    waits for (getrusage of the children), in a fresh probe. It runs in ``cwd`` (a temp dir), so
    ``$PYTHONPATH`` (``env`` is added to the environment) decides which workbench ``-m workbench`` is."""
    probe = [sys.executable, "-c", _PROBE, *command]
    out = subprocess.run(probe, capture_output=True, text=True, check=True, cwd=cwd, env={**os.environ, **(env or {})})
    seconds, peak_kib, cpu, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"bench/mining.py: {command[:3]} exited {code}")
    return float(seconds), int(peak_kib) / 1024, float(cpu)


def _without_symbols(raw: bytes) -> bytes:
    """A corpus as it was before issue 21 added ``expectedSymbols`` (same JSON layout)."""
    data = json.loads(raw)
    for case in data.get("retrieval", []):
        case.pop("expectedSymbols", None)
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def bench_speed(repos: Path, commits: int, record: bool = False) -> None:
    """Generate a ``commits``-long history (git fast-import), then for it and each bundle: the best
    of 3 ``git log -z --no-renames --name-status`` vs one ``workbench mine``, the ratio against
    "3x git log + 1 s", mine's peak RSS, and whether the corpus matches the recorded digests: the
    fields without expectedSymbols (``fields_identical``) and the whole corpus (``corpus_identical``;
    ``record`` writes this run's digests as both records instead)."""
    import hashlib

    from tests.git_history import fast_import_history

    work = scratch("wb-bench-speed-")
    started = time.perf_counter()
    generated = f"gen{commits // 1000}k"
    fast_import_history(work / generated, commits)
    emit(part="speed", generated=generated, commits=commits, fast_import_s=round(time.perf_counter() - started, 2))
    recorded = json.loads(RECORDED.read_text()) if not record else {}
    whole = json.loads(RECORDED_SYMBOLS.read_text()) if RECORDED_SYMBOLS.exists() and not record else {}
    digests, fields_digests = {}, {}
    for name in (generated, *BUNDLES):
        repo = work / name
        if not repo.exists():
            clone = ["git", "-c", "advice.detachedHead=false", "clone", "-q", str(repos / f"{name}.bundle")]
            subprocess.run([*clone, str(repo)], check=True)
        log = ["git", "-C", str(repo), "log", "-z", "--no-renames", "--name-status"]
        logs = [whole_process(log, work) for _ in range(3)]
        log_s, log_peak, log_cpu = (min(s for s, _, _ in logs), max(p for _, p, _ in logs), min(c for *_, c in logs))
        corpus = work / f"{name}.corpus.json"
        mine = [sys.executable, "-m", "workbench", "mine", str(repo), "--out", str(corpus)]
        timing = whole_process(mine, work)
        raw = corpus.read_bytes()
        digests[name] = digest = hashlib.sha256(raw).hexdigest()
        fields_digests[name] = fields = hashlib.sha256(_without_symbols(raw)).hexdigest()
        emit(
            part="speed",
            repo=name,
            **against_log((log_s, log_peak, log_cpu), timing),
            fields_identical=recorded.get(name) == fields if name in recorded else None,
            corpus_identical=whole.get(name) == digest if name in whole else None,
        )
    if record:
        RECORDED_SYMBOLS.write_text(json.dumps(digests, indent=1) + "\n")
        RECORDED.write_text(json.dumps(fields_digests, indent=1) + "\n")


# Issue 40 item 5: a history the size of a large scientific Python library's (tests/library_history.py).
RECORDED_LIBRARY = ROOT / "bench" / "mining_corpora_library.json"
_LOG_ARGS = ("-z", "--no-renames", "--name-status")  # the bound's git log (issue 24)


def library_repo(commits: int, modules: int, seed: int) -> Path:
    """The generated library history for these parameters, made once and kept under the temp dir,
    keyed by the parameters and the generator's source (so a changed generator makes a new one)."""
    import hashlib

    from tests.library_history import library_history

    source = (ROOT / "tests" / "library_history.py").read_bytes() + (ROOT / "tests" / "git_history.py").read_bytes()
    key = hashlib.sha256(source + f"{commits}/{modules}/{seed}".encode()).hexdigest()[:16]
    home = Path(os.environ.get("WB_BENCH_CACHE", Path(tempfile.gettempdir()) / "wb-bench-library"))
    repo = home / f"library-{commits}-{modules}-{seed}-{key}"
    if not repo.exists():
        started = time.perf_counter()
        home.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix="building-", dir=home))
        library_history(building / "repo", commits, modules, seed)
        (building / "repo").rename(repo)
        shutil.rmtree(building)
        emit(part="library", generated=str(repo), fast_import_s=round(time.perf_counter() - started, 1))
    return repo


def repacked(repo: Path) -> Path:
    """A copy of ``repo`` packed as ``git gc`` packs objects that were written one commit at a time
    (deltas searched afresh, git's default window 10 and depth 50), made once beside it. fast-import
    stores each blob as a delta of its path's previous version, in chains deeper than any gc writes
    (113 here); a clone, or any repository whose objects were born loose, holds the repacked layout."""

    copy = repo.with_name(repo.name + "-repacked")
    if not copy.exists():
        started = time.perf_counter()
        building = Path(tempfile.mkdtemp(prefix="building-", dir=repo.parent))
        subprocess.run(
            ["git", "clone", "-q", "--no-local", "--no-checkout", str(repo), str(building / "repo")], check=True
        )
        repack = ["repack", "-a", "-d", "-f", "-q", "--window=10", "--depth=50"]
        subprocess.run(["git", "-C", str(building / "repo"), *repack], check=True)
        (building / "repo").rename(copy)
        shutil.rmtree(building)
        emit(part="library", repacked=str(copy), repack_s=round(time.perf_counter() - started, 1))
    return copy


PACKINGS = ("fast-import", "repacked")


def _unnamed(case: dict[str, object]) -> dict[str, object]:
    """A mined case without the fields that hold its fixture's name (the folder's)."""
    return {key: value for key, value in case.items() if key not in ("name", "repoFixture")}


def bench_library(
    commits: int,
    modules: int,
    cases: int,
    rounds: int,
    record: bool,
    before: Path | None = None,
    packings: tuple[str, ...] = PACKINGS,
) -> None:
    """``workbench mine REPO --max-cases cases`` against ``git log -z --no-renames --name-status`` on the
    generated library history, as fast-import wrote it and as a clone holds it (``repacked``), as whole
    processes, ``rounds`` rounds in one sitting: each round's git log, then mine (with ``before``, a
    tree holding older code's ``workbench/``, that code's mine too, the two in alternating order), each
    mine's ratio mine / (3 x git log + 1 s) in wall and CPU seconds, its peak RSS (its largest process:
    git log's own, at this size; ``git_log_peak_rss_mib`` beside it), and whether its corpus is
    byte-identical to the one recorded for these parameters (``record`` records this code's), and
    whether the two packings mined the same cases."""
    import hashlib

    repo = library_repo(commits, modules, 0)
    repos = {"fast-import": repo, "repacked": repacked(repo) if "repacked" in packings else repo}
    work = scratch("wb-bench-library-")
    recorded = json.loads(RECORDED_LIBRARY.read_text()) if RECORDED_LIBRARY.exists() else {}
    sides = [("after", None), ("before", before)] if before is not None else [("after", None)]
    for packing in packings:  # the first mine must not pay the disk
        for pack in (repos[packing] / ".git" / "objects" / "pack").glob("*.pack"):
            with pack.open("rb") as stream:
                while stream.read(1 << 24):
                    pass
    digests: dict[str, str] = {}
    cases_of: dict[str, bytes] = {}
    for round_ in range(rounds):
        for packing in packings:
            path = repos[packing]
            name = f"{path.name}/{cases}"
            log = whole_process(["git", "-C", str(path), "log", *_LOG_ARGS], work)
            for side, code in sides if round_ % 2 == 0 else sides[::-1]:
                corpus = work / f"corpus-{packing}-{side}-{round_}.json"
                mine = [sys.executable, "-m", "workbench", "mine", str(path), "--out", str(corpus)]
                env = {"PYTHONPATH": str(code)} if code is not None else {}
                timing = whole_process([*mine, "--max-cases", str(cases)], work, env)
                found = hashlib.sha256(corpus.read_bytes()).hexdigest()
                mined = json.loads(corpus.read_text())["retrieval"]
                if side == "after":
                    digests[name] = found
                    cases_of[packing] = json.dumps([_unnamed(case) for case in mined]).encode()
                emit(
                    part="library",
                    repo=path.name,
                    packing=packing,
                    round=round_,
                    code=side,
                    cases=len(mined),
                    **against_log(log, timing),
                    corpus_identical=recorded.get(name) == found if name in recorded else None,
                )
    if len(cases_of) == 2:
        emit(part="library", same_cases_in_both_packings=cases_of["fast-import"] == cases_of["repacked"])
    if record:
        RECORDED_LIBRARY.write_text(json.dumps({**recorded, **digests}, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parts = ["mine", "materialize", "page", "bundles", "speed", "library", "all"]
    parser.add_argument("--part", default="all", choices=parts)
    parser.add_argument("--repos", type=Path, default=ROOT.parent / "shared" / "repos")
    parser.add_argument("--per-repo", type=int, default=25, help="cases mined per bundle for the bundles part")
    parser.add_argument("--commits", type=int, default=60_000, help="length of the generated history (speed part)")
    parser.add_argument(
        "--record-digests", action="store_true", help="speed and library parts: record this run's corpus digests"
    )
    parser.add_argument("--library-commits", type=int, default=62_000, help="library part: commits generated")
    parser.add_argument("--library-modules", type=int, default=2_500, help="library part: source modules at the end")
    parser.add_argument("--library-cases", type=int, default=2_000, help="library part: cases mined")
    parser.add_argument("--rounds", type=int, default=3, help="library part: rounds of git log and mine")
    parser.add_argument("--before", type=Path, help="library part: a tree with older workbench/ code to pair with")
    parser.add_argument(
        "--packing",
        choices=[*PACKINGS, "both"],
        default="both",
        help="library part: the history as fast-import "
        "wrote it, as a clone holds it (repacked, deltas searched afresh as git gc does), or both",
    )
    args = parser.parse_args()
    library = (args.library_commits, args.library_modules, args.library_cases, args.rounds, args.record_digests)
    packings = PACKINGS if args.packing == "both" else (args.packing,)
    if args.part == "library":  # needs no shared bundle
        bench_library(*library, args.before, packings)
        return
    if not all((args.repos / f"{name}.bundle").is_file() for name in BUNDLES):
        print(f"bench/mining.py: skipped, the shared bundles are not in {args.repos}")
        return
    chosen = ["mine", "materialize", "page", "bundles", "speed", "library"] if args.part == "all" else [args.part]
    for part in chosen:
        if part == "library":
            bench_library(*library, args.before)
        elif part == "speed":
            bench_speed(args.repos, args.commits, args.record_digests)
        elif part == "bundles":
            bench_bundles(args.repos, args.per_repo)
        else:
            {"mine": bench_mine, "materialize": bench_materialize, "page": bench_page}[part](args.repos)


if __name__ == "__main__":
    main()
