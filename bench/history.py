"""Benchmark (issue 40): a run over history at the cost of what changed.

    .venv/bin/python bench/history.py [--part first|memory|all] [--bundle ../shared/repos/attrs.bundle]
        [--cases 200] [--revisions 100,1000] [--files 1500] [--jobs 2]

Every ``workbench run`` here passes ``--jobs`` (default 2: the machine's two cores; ``run``'s own
default is 1), so the built-in targets' cases run in that many forked workers (``run.forked``);
``--jobs 1`` times one process.

``first``: mine ``--cases`` cases from one bundle (outside the timing, with its own cache), then in one
sitting, as whole processes: the first run (an empty cache) of ``workbench run --target builtin
--target bm25 --jobs 2`` over them, beside the anchor, bm25s indexing every case's revision afresh (its files
read from git objects: a bare clone of the bundle, ``git ls-tree`` and one ``git cat-file --batch``;
``bm25s.tokenize`` defaults, ``BM25().index``, the top 5 retrieved; one target). The ratio is
workbench / anchor. Then a second corpus over the same repository (another seed, so other cases and
revisions) run with the cache the first left: warm.

``anchor``: only the anchor over ``--corpus`` (for ``farm-bench --vs``, paired with a run).

``memory``: a generated history (``tests.git_history.fast_import_history``, ``--files`` modules), one
case per revision for each count of ``--revisions``, run with builtin + bm25 on an empty cache; the
peak RSS of the run (its largest process) against the number of revisions.

Results go to stdout as JSON lines, with the 1-minute load average; bench/BENCHMARKS.md records them.
Each ``workbench run``'s output is kept in ``$TMPDIR/bench-history-logs/``; a run that fails (an exit
other than 0 or 1) adds a ``failed`` line with its exit code and the end of its log.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.mining import whole_process  # noqa: E402

WORKBENCH = [sys.executable, "-m", "workbench"]


def emit(**fields: object) -> None:
    print(json.dumps({**fields, "load": round(os.getloadavg()[0], 2)}), flush=True)


def _env(cache: Path) -> dict[str, str]:
    return dict(os.environ, WORKBENCH_CACHE_DIR=str(cache))  # $PYTHONPATH picks the code timed


def _mine(repo: Path, out: Path, cases: int, seed: int, cache: Path) -> None:
    os.environ["WORKBENCH_CACHE_DIR"] = str(cache)
    command = [*WORKBENCH, "mine", str(repo), "--out", str(out), "--max-cases", str(cases), "--seed", str(seed)]
    subprocess.run(command, check=True, capture_output=True, env=_env(cache), cwd=out.parent)


JOBS = 2  # ``--jobs`` of every timed run, unless --jobs says otherwise


def _run(corpus: Path, cache: Path, work: Path, jobs: int) -> tuple[float, float, float]:
    """Wall seconds, peak RSS MiB and CPU seconds of ``workbench run`` (builtin + bm25) over ``corpus``.
    Its output goes to ``LOGS/<corpus>.log``, kept after the temp dir is gone: a run exiting other
    than 0 or 1 (thresholds) is reported with its exit code and the end of that log."""
    os.environ["WORKBENCH_CACHE_DIR"] = str(cache)
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{corpus.stem}.log"
    targets = ["--target", "builtin", "--target", "bm25"]
    command = [*WORKBENCH, "run", "--corpus", str(corpus), *targets, "--jobs", str(jobs)]
    probe = [sys.executable, "-c", _LOGGED, str(log), *command, "--out", str(work / "runs")]
    seconds, peak_kib, cpu, code = subprocess.run(
        probe, capture_output=True, text=True, check=True, cwd=work
    ).stdout.split()
    if code not in ("0", "1"):
        tail = log.read_text(errors="replace").splitlines()[-15:]
        emit(part="failed", corpus=corpus.name, exit=int(code), log=str(log), tail=tail)
    return float(seconds), int(peak_kib) / 1024, float(cpu)


LOGS = Path(tempfile.gettempdir()) / "bench-history-logs"
# ``bench.mining``'s whole-process probe, the command's output written to a log (argv[1]) instead of dropped.
_LOGGED = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "with open(sys.argv[1], 'wb') as log:\n"
    "    code = subprocess.run(sys.argv[2:], stdout=log, stderr=log).returncode\n"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - t, used.ru_maxrss, used.ru_utime + used.ru_stime, code)"
)


_ANCHOR = r"""
import json, shutil, subprocess, sys, tempfile
import bm25s
corpus = json.load(open(sys.argv[1]))
bundle = sys.argv[2]
work = tempfile.mkdtemp()
git = work + "/repo.git"
subprocess.run(["git", "clone", "--bare", "--quiet", bundle, git], check=True)
cat = subprocess.Popen(["git", "--git-dir", git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

def read(sha):
    cat.stdin.write(sha.encode() + b"\n"); cat.stdin.flush()
    size = int(cat.stdout.readline().split()[2])
    data = cat.stdout.read(size); cat.stdout.read(1)
    return data.decode("utf-8", "replace")

hits = 0
for case in corpus["retrieval"]:
    listing = subprocess.run(["git", "--git-dir", git, "ls-tree", "-r", "-z", case["revision"]],
                             capture_output=True, check=True).stdout.split(b"\0")
    paths, texts = [], []
    for row in filter(None, listing):
        meta, path = row.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            paths.append(path.decode()); texts.append(path.decode() + "\n" + read(sha.decode()))
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    query = bm25s.tokenize([case["query"]], show_progress=False)
    found, _ = retriever.retrieve(query, k=min(5, len(paths)), show_progress=False)
    hits += any(paths[i] in case["expectedPrimary"] for i in found[0])
cat.stdin.close(); cat.wait()
shutil.rmtree(work)
print(hits)
"""


def bench_first(bundle: Path, cases: int, jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-history-") as temp:
        work = Path(temp)
        mined = work / "mined"
        mined.mkdir()
        _mine(bundle, mined / "corpus.json", cases, 0, work / "mine-cache")
        _mine(bundle, mined / "second.json", cases, 1, work / "mine-cache")
        revisions = len({c["revision"] for c in json.loads((mined / "corpus.json").read_text())["retrieval"]})
        anchor = whole_process([sys.executable, "-c", _ANCHOR, str(mined / "corpus.json"), str(bundle)], work)
        first = _run(mined / "corpus.json", work / "cache", work, jobs)
        second = _run(mined / "second.json", work / "cache", work, jobs)
        emit(
            part="first",
            bundle=bundle.name,
            cases=cases,
            revisions=revisions,
            jobs=jobs,
            anchor_s=round(anchor[0], 2),
            first_run_s=round(first[0], 2),
            ratio=round(first[0] / anchor[0], 2),
            first_run_cpu_s=round(first[2], 2),
            first_run_peak_mib=round(first[1]),
            second_corpus_warm_s=round(second[0], 2),
            second_corpus_peak_mib=round(second[1]),
        )


def bench_memory(revisions: list[int], files: int, jobs: int) -> None:
    from tests.git_history import fast_import_history

    with tempfile.TemporaryDirectory(prefix="bench-history-") as temp:
        work = Path(temp)
        repo = work / "generated"
        started = time.perf_counter()
        commits = max(revisions) * 3
        fast_import_history(repo, commits, files=files)
        emit(part="memory", generated_files=files, commits=commits, s=round(time.perf_counter() - started, 1))
        for count in revisions:
            corpus = work / f"corpus-{count}.json"
            _mine(repo, corpus, count, 0, work / "mine-cache")
            distinct = len({c["revision"] for c in json.loads(corpus.read_text())["retrieval"]})
            seconds, peak, cpu = _run(corpus, work / f"cache-{count}", work, jobs)
            emit(
                part="memory",
                revisions=distinct,
                cases=count,
                jobs=jobs,
                run_s=round(seconds, 1),
                peak_rss_mib=round(peak),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", default="all", choices=["first", "memory", "all", "anchor"])
    parser.add_argument("--corpus", type=Path, help="with --part anchor: the corpus whose revisions bm25s indexes")
    parser.add_argument("--bundle", type=Path, default=ROOT.parent / "shared" / "repos" / "attrs.bundle")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--revisions", default="100,1000")
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--jobs", type=int, default=JOBS, help="--jobs of every timed workbench run")
    args = parser.parse_args()
    if args.part == "anchor":  # the anchor alone, as farm-bench's yardstick: --vs 'python bench/history.py ...'
        os.execv(sys.executable, [sys.executable, "-c", _ANCHOR, str(args.corpus), str(args.bundle.resolve())])
    if args.part in ("first", "all"):
        bench_first(args.bundle.resolve(), args.cases, args.jobs)
    if args.part in ("memory", "all"):
        bench_memory([int(n) for n in args.revisions.split(",")], args.files, args.jobs)


if __name__ == "__main__":
    main()
