"""Benchmark the reference engine's symbol search: table build, query latency, real-code quality.

    python bench/search.py [--repeat 3] [--json]

* **Table**: the symbol table of a mirror of this interpreter's standard library (the one
  ``bench/reference.py`` indexes), each figure in a fresh process with the index cached:
  built cold (no table cache), rebuilt with the per-file body cache warm (what an edit
  costs), and loaded from the disk cache (what a new process pays for an unchanged tree).
* **Query**: median and p90 latency of ``search_index`` over the tasks below, on a loaded
  index and table.
* **Quality**: for each task, the symbols a senior engineer would open (labels written
  before the engine was run on them, not used by it); hit@1, hit@3 and MRR@20 over
  (file, symbol) hits, and, to compare with the file-only ``bm25`` control, hit@1 of the
  first hit's file.
* **Corpus**: the ranking suite on ``corpus/corpus.json`` for builtin and bm25.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(Path(__file__).resolve().parent)]

TASKS = [
    ("parse command line arguments", ["argparse.py#ArgumentParser.parse_args", "argparse.py#ArgumentParser"]),
    ("add an option to an argument parser", ["argparse.py#_ActionsContainer.add_argument"]),
    ("create a temporary directory", ["tempfile.py#mkdtemp", "tempfile.py#TemporaryDirectory"]),
    ("send an email message over SMTP", ["smtplib.py#SMTP.send_message", "smtplib.py#SMTP.sendmail"]),
    ("unified diff of two lists of lines", ["difflib.py#unified_diff"]),
    ("decode base64 data", ["base64.py#b64decode"]),
    ("unescape HTML character references", ["html/__init__.py#unescape"]),
    ("copy a directory tree recursively", ["shutil.py#copytree"]),
    ("format an exception and its traceback as text", ["traceback.py#format_exception"]),
    ("named tuple factory", ["collections/__init__.py#namedtuple"]),
    ("least recently used cache decorator", ["functools.py#lru_cache"]),
    ("pretty print a nested data structure", ["pprint.py#pprint"]),
    ("open a gzip compressed file", ["gzip.py#open", "gzip.py#GzipFile"]),
    ("extract all members of a zip archive", ["zipfile.py#ZipFile.extractall"]),
    ("split a URL into its components", ["urllib/parse.py#urlsplit", "urllib/parse.py#urlparse"]),
    ("parse a query string into a dictionary", ["urllib/parse.py#parse_qs"]),
    ("run the event loop until a future completes", ["asyncio/base_events.py#BaseEventLoop.run_until_complete"]),
    ("shut down a thread pool executor", ["concurrent/futures/thread.py#ThreadPoolExecutor.shutdown"]),
    (
        "rotate log files when they reach a maximum size",
        ["logging/handlers.py#RotatingFileHandler", "logging/handlers.py#RotatingFileHandler.shouldRollover"],
    ),
    ("dataclass field with a default factory", ["dataclasses.py#field"]),
    ("JSON decode error with line and column", ["json/decoder.py#JSONDecodeError"]),
    ("walk a directory tree top down", ["os.py#walk"]),
    ("quote a string for use in a shell command", ["shlex.py#quote"]),
    ("wrap text to a given line width", ["textwrap.py#wrap"]),
    ("deep copy an object", ["copy.py#deepcopy"]),
    ("read CSV rows as dictionaries keyed by the header", ["csv.py#DictReader"]),
    ("match a file name against a shell wildcard pattern", ["fnmatch.py#fnmatch"]),
    ("median of a list of numbers", ["statistics.py#median"]),
    ("random integer in a range", ["random.py#Random.randint"]),
    ("push an item onto a heap", ["heapq.py#heappush"]),
    ("insert into a sorted list keeping it sorted", ["bisect.py#insort_right"]),
    ("serialize an object to a JSON string", ["json/__init__.py#dumps"]),
    ("run a command and capture its output", ["subprocess.py#run", "subprocess.py#check_output"]),
    ("generate a random hex token", ["secrets.py#token_hex"]),
    ("random UUID", ["uuid.py#uuid4"]),
    ("is a year a leap year", ["calendar.py#isleap"]),
    ("find files matching a glob pattern", ["glob.py#glob"]),
    ("parse an email address into name and address", ["email/utils.py#parseaddr"]),
    ("parse a date string with a format", ["datetime.py#datetime.strptime"]),
    ("wait until an event is set", ["threading.py#Event.wait"]),
    ("signature of a callable", ["inspect.py#signature"]),
    ("ignore specified exceptions in a with block", ["contextlib.py#suppress"]),
    ("decorator to mark abstract methods", ["abc.py#abstractmethod"]),
    ("extract a tar archive", ["tarfile.py#TarFile.extractall"]),
    ("connect a TCP socket to an address", ["socket.py#create_connection"]),
    ("SSL context with default certificate verification", ["ssl.py#create_default_context"]),
    ("urlsplit", ["urllib/parse.py#urlsplit"]),
    ("ArgumentParser.add_argument", ["argparse.py#_ActionsContainer.add_argument"]),
    ("json.dumps", ["json/__init__.py#dumps"]),
    ("Path.read_text", ["pathlib.py#Path.read_text"]),
    ("NamedTemporaryFile", ["tempfile.py#NamedTemporaryFile"]),
    ("WeakValueDictionary", ["weakref.py#WeakValueDictionary"]),
    ("itemgetter", ["operator.py#itemgetter"]),
    ("contextmanager", ["contextlib.py#contextmanager"]),
    ("ip_address", ["ipaddress.py#ip_address"]),
    ("HTTPConnection.request", ["http/client.py#HTTPConnection.request"]),
    ("datetime.fromisoformat", ["datetime.py#datetime.fromisoformat"]),
    ("file_digest", ["hashlib.py#file_digest"]),
    ("Queue.get", ["queue.py#Queue.get"]),
    ("formatdate", ["email/utils.py#formatdate"]),
]


def _child(root: str, mode: str) -> None:
    """One measured table build in this fresh process (the index itself comes from the cache)."""
    from workbench.reference import cache, symtable
    from workbench.reference.index import load_index

    index = load_index(Path(root))
    skip = {"cold": {"bodies", "symbols"}, "bodies": {"symbols"}, "disk": set()}[mode]
    load = cache.load
    cache.load = lambda at, part, version: None if part in skip else load(at, part, version)
    started = time.perf_counter()
    table = symtable.symbol_table(index)
    print(json.dumps({"seconds": time.perf_counter() - started, "files": len(index.files), "symbols": len(table.name)}))


def table_timings(root: Path, repeat: int) -> dict:
    """Fresh processes: a cold build, a build with the per-file body cache warm (what an edit
    costs), and a load of the unchanged tree's table from the disk cache; best of ``repeat``."""

    def measure(mode: str) -> dict:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(root), mode],
            check=True,
            capture_output=True,
            text=True,
            env=os.environ.copy(),
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    result: dict = {}
    for mode in ("cold", "bodies", "disk"):
        runs = [measure(mode) for _ in range(repeat)]
        result[f"{mode}_s"] = min(r["seconds"] for r in runs)
        result.update(files=runs[0]["files"], symbols=runs[0]["symbols"])
    return result


def _rank_of(hits: list[tuple[str, str]], labels: list[str]) -> int:
    wanted = {tuple(label.split("#", 1)) for label in labels}
    return next((i for i, hit in enumerate(hits, 1) if hit in wanted), 0)


def quality(root: Path, repeat: int) -> dict:
    """Latency and hit@1 / hit@3 / MRR@20 of search over TASKS; file hit@1 vs bm25."""
    from workbench.contract import Repo
    from workbench.reference.index import load_index
    from workbench.reference.search import search_index
    from workbench.targets.controls import Bm25Target

    index, bm25 = load_index(root), Bm25Target()
    latencies, ranks, file_hit, bm25_hit, misses = [], [], 0, 0, []
    for query, labels in TASKS:
        for _ in range(repeat):
            started = time.perf_counter()
            hits = search_index(index, query, 20)
            latencies.append(time.perf_counter() - started)
        pairs = [(h.file, h.symbol) for h in hits]
        rank = _rank_of(pairs, labels)
        ranks.append(rank)
        files = {label.split("#", 1)[0] for label in labels}
        file_hit += bool(pairs) and pairs[0][0] in files
        control = bm25.search(query, Repo("stdlib", root), 20)
        bm25_hit += bool(control) and control[0].file in files
        if rank != 1:
            misses.append(
                {"query": query, "expected": labels[0], "rank": rank, "top": [f"{f}#{s}" for f, s in pairs[:3]]}
            )
    latencies.sort()
    return {
        "tasks": len(TASKS),
        "hit@1": sum(r == 1 for r in ranks),
        "hit@3": sum(0 < r <= 3 for r in ranks),
        "mrr": round(statistics.mean(1 / r if r else 0.0 for r in ranks), 3),
        "file_hit@1": file_hit,
        "bm25_file_hit@1": bm25_hit,
        "misses": misses,
        "median_ms": 1000 * statistics.median(latencies),
        "p90_ms": 1000 * latencies[int(0.9 * (len(latencies) - 1))],
    }


def corpus_scores() -> dict:
    """Ranking-suite aggregates of builtin and bm25 on the shipped corpus."""
    from workbench.run.runner import run_eval

    with tempfile.TemporaryDirectory() as out:
        run = run_eval(
            REPO / "corpus" / "corpus.json",
            suites=["ranking"],
            targets=["builtin", "bm25"],
            out_dir=out,
            progress=False,
        )
    return {
        name: {k: round(v, 3) for k, v in s["metrics"].items()} for name, s in run.summary["suites"]["ranking"].items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timings are the best of this many")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    from reference import stdlib_mirror

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["WORKBENCH_CACHE_DIR"] = str(Path(scratch) / "cache")
        mirror = stdlib_mirror(Path(scratch) / "stdlib")
        from workbench.reference.index import load_index

        load_index(mirror)  # the index cache the measured processes start from
        result = {
            "table": table_timings(mirror, args.repeat),
            "stdlib": quality(mirror, args.repeat),
            "corpus": corpus_scores(),
            "load_avg": os.getloadavg()[0],
        }
    if args.json:
        print(json.dumps(result))
        return
    t, q = result["table"], result["stdlib"]
    print(
        f"stdlib: {t['files']} files, {t['symbols']} symbols | table cold {t['cold_s']:.2f} s, "
        f"body cache warm {t['bodies_s']:.2f} s, disk load {t['disk_s']:.3f} s "
        f"| load avg {result['load_avg']:.2f}"
    )
    print(
        f"query median {q['median_ms']:.1f} ms, p90 {q['p90_ms']:.1f} ms | hit@1 {q['hit@1']}/{q['tasks']}, "
        f"hit@3 {q['hit@3']}/{q['tasks']}, MRR@20 {q['mrr']} | file hit@1 {q['file_hit@1']} "
        f"(bm25 {q['bm25_file_hit@1']})"
    )
    for miss in q["misses"]:
        print(f"  rank {miss['rank'] or '-'}: {miss['query']!r} -> {miss['top']} (expected {miss['expected']})")
    for name, row in result["corpus"].items():
        print(f"corpus ranking {name}: {row}")


if __name__ == "__main__":
    main()
