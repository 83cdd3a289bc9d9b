"""Benchmark runs at scale: many cases over many revisions, local vs Ray, first vs cached run.

    python bench/scale.py [--cases 10000] [--revisions 50] [--files 40] [--json] [--skip-ray]
                          [--engine-ms MS | --engine-cmd-ms MS] [--nodes 4] [--configs a,b] [--repo R]

A synthetic TypeScript repository gets ``--revisions`` commits (each rewrites three modules
under new names), built with git in a temp dir (or ``--repo``: cases over a real history). The
corpus is generated directly, shaped like a mined one: ``--cases`` retrieval cases spread evenly
over the revisions, each pinned to its commit (``revision``: the run materializes each tree
read-only from git) and asking for one exported function of one module, expecting that file.

The engine is the reference engine (``builtin``, about 0.6 ms a case), or paced like engines that
call a service: ``--engine-ms`` (a ``python:`` target, bench/_paced.py) or ``--engine-cmd-ms`` (a
``cmd:`` process sleeping that long per request, bench/paced_engine.py; issue 23 asks for 2,000
cases at 20 ms). Each configuration is its own ``workbench run --json`` process with a fresh
``$WORKBENCH_CACHE_DIR`` shared by the configurations. Timed, in order:

* ``local-cold``: the first run, which also fills the reference engine's disk caches.
* ``local``: the local executor, ``--jobs 1``, warm; peak RSS of the process and its children.
  ``local-unbounded`` (unless ``--skip-unbounded``): every index kept loaded (the old behaviour).
* ``local-jobs4``: ``--jobs 4`` (a ``cmd:`` target then runs four engine processes).
* ``ray``, ``ray-no-warm``: ``--executor ray`` (a local Ray started by the run), with and without
  the warm start; wall time includes Ray's start and stop (``executor.startup_seconds`` beside).
* ``ray-head``, ``ray-head-no-warm``: joining a one-node head started beforehand (untimed; its
  start is ``cluster_start_seconds``).
* ``ray-clusterN``: a simulated cluster of ``--nodes`` Ray nodes on this machine (bench/_cluster.py:
  ``ray start`` processes in their own process groups; only they are stopped, never ``ray stop``),
  one actor per node; the cluster's start is reported beside, not timed.
* ``cache-fill`` then ``cache-rerun``: ``--cache`` twice; the second reuses every passing case
  (a ``cmd:`` engine has no version to key a cache on, so this pair uses the ``python:`` paced
  target at the same pace).

``bounds`` in the output are issue 23's, stated against the engine's own time (bench/_scale_bounds.py):
Ray's overhead over local ``--jobs 1`` at most 10 s + 5% of its engine time; the N-node cluster at
least 3x faster than local ``--jobs 1``; a cached re-run at most 1.5 s + 1% of the fill's engine
time; every configuration the same summary. The machine is shared (2 cores): the 1-minute load
average is printed with each configuration.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cluster import RAY_PORT, ray_cluster, stop_nodes  # noqa: E402 - after bench/ is on the path
from _scale_bounds import bounds  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PACED = "python:bench._paced:paced"  # the reference engine paced like a real one (--engine-ms)
PACED_CMD = f"cmd:{sys.executable} {REPO / 'bench' / 'paced_engine.py'} --ms"  # + the ms: a cmd: engine
VERBS = [
    "compute",
    "render",
    "parse",
    "validate",
    "refund",
    "schedule",
    "encode",
    "merge",
    "fetch",
    "archive",
    "resolve",
    "publish",
    "throttle",
    "index",
    "notify",
    "migrate",
]
NOUNS = [
    "invoice",
    "ledger",
    "session",
    "cart",
    "shipment",
    "coupon",
    "profile",
    "webhook",
    "token",
    "report",
    "catalog",
    "payment",
    "receipt",
    "inventory",
    "account",
    "quota",
    "banner",
    "review",
    "upload",
    "tenant",
]


def _module(rng: random.Random, j: int, revision: int) -> tuple[str, list[str]]:
    """The text of module ``j`` at ``revision`` and the names of its exported functions."""
    names = [f"{rng.choice(VERBS)}{rng.choice(NOUNS).title()}{rng.choice(NOUNS).title()}" for _ in range(4)]
    body = "\n".join(
        f"export function {n}(input: number): number {{\n  return input * {revision + 1} + {k};\n}}\n"
        for k, n in enumerate(names)
    )
    return f"// module {j}, revision {revision}\nimport {{ helper }} from './util';\n{body}", names


Revisions = list[tuple[str, dict[str, list[str]]]]  # per commit: its sha, and per module the functions it exports


def build_history(root: Path, revisions: int, files: int, seed: int = 0) -> tuple[Path, Revisions]:
    """A git repository of ``revisions`` commits; per commit its sha and the exported function
    names of its modules."""
    rng = random.Random(seed)
    repo = root / "repo"
    repo.mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "src").mkdir()
    (repo / "src" / "util.ts").write_text("export function helper(x: number): number { return x; }\n")
    (repo / "package.json").write_text('{"name": "bench-app", "version": "1.0.0"}\n')
    names: dict[str, list[str]] = {}
    snapshots = []
    for revision in range(revisions):
        touched = range(files) if revision == 0 else rng.sample(range(files), 3)
        for j in touched:
            stem = f"{rng.choice(NOUNS)}_{rng.choice(VERBS)}_{j}"
            old = [p for p in names if p.endswith(f"_{j}.ts")]
            for path in old:
                (repo / path).unlink()
                del names[path]
            text, exported = _module(rng, j, revision)
            (repo / "src" / f"{stem}.ts").write_text(text)
            names[f"src/{stem}.ts"] = exported
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", f"revision {revision}"], check=True)
        sha = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
        snapshots.append((sha, dict(names)))
    return repo, snapshots


CODE = (".py", ".ts", ".js", ".go")


def real_history(root: Path, source: str, revisions: int) -> tuple[Path, Revisions]:
    """``revisions`` commits spread over a real repository's first-parent history (cloned from
    ``source``, a bundle or repository), each with its code files (no function names)."""
    repo = root / "repo"
    subprocess.run(["git", "clone", "-q", source, str(repo)], check=True)
    git = ["git", "-C", str(repo)]
    commits = subprocess.run(
        [*git, "rev-list", "--first-parent", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.split()
    step = max(1, len(commits) // revisions)
    picked = []
    for sha in commits[::step][:revisions]:
        listed = subprocess.run(
            [*git, "ls-tree", "-r", "--name-only", sha], check=True, capture_output=True, text=True
        ).stdout.split("\n")
        files: dict[str, list[str]] = {p: [] for p in listed if p.endswith(CODE) and "test" not in p.lower()}
        if files:
            picked.append((sha, files))
    return repo, picked


def _words(identifier: str) -> str:
    out, word = [], ""
    for ch in identifier:
        if ch.isupper() and word:
            out.append(word)
            word = ""
        word += ch.lower()
    return " ".join([*out, word])


def write_corpus(root: Path, repo: Path, snapshots: Revisions, cases: int, seed: int = 0) -> Path:
    """``cases`` retrieval cases spread over the revisions (pinned as mined cases are); the corpus path."""
    rng = random.Random(seed)
    retrieval = []
    for n in range(cases):
        sha, names = snapshots[n % len(snapshots)]
        path = rng.choice(sorted(names))
        module = Path(path).stem.rsplit("_", 1)[0].replace("_", " ")
        words = (
            f"{_words(rng.choice(names[path]))} in {module}"
            if names[path]
            else f"{module} in {Path(path).parent.name or 'the root'}"
        )  # a real repository: its path's words
        retrieval.append(
            {"name": f"c{n:05d}", "query": words, "repoFixture": "app", "revision": sha, "expectedPrimary": [path]}
        )
    corpus = root / "corpus" / "corpus.json"
    corpus.parent.mkdir(parents=True, exist_ok=True)
    corpus.write_text(
        json.dumps(
            {
                "k": 5,
                "fixtureRoots": {"app": str(repo)},
                "thresholds": {"retrieval": {"recallAtK": 0.5}},
                "retrieval": retrieval,
            }
        )
    )
    return corpus


def timed_run(corpus: Path, out: Path, env: dict[str, str], target: str, *extra: str) -> dict[str, Any]:
    """One ``workbench run`` process: wall seconds, peak RSS (MB) and its summary."""
    command = [
        sys.executable,
        "-m",
        "workbench",
        "run",
        "--corpus",
        str(corpus),
        "--target",
        target,
        "--out",
        str(out),
        "--json",
        *extra,
    ]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with open(out.parent / f"{out.name}.stdout", "w") as stdout, open(out.parent / f"{out.name}.stderr", "w") as err:
        process = subprocess.Popen(command, stdout=stdout, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        errors = (out.parent / f"{out.name}.stderr").read_text()[-2000:]
        raise SystemExit(f"{' '.join(command)} exited {code}: {errors}")
    summary = json.loads((out.parent / f"{out.name}.stdout").read_text())
    [suite] = summary["suites"]["retrieval"].values()
    manifest = json.loads((Path(summary["run_dir"]) / "manifest.json").read_text())
    with open(Path(summary["run_dir"]) / "cases.jsonl") as rows:  # the engine's own time: its cases' seconds
        engine = sum(float(json.loads(line).get("seconds") or 0.0) for line in rows if line.strip())
    return {
        "seconds": round(seconds, 2),
        "engine_seconds": round(engine, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "load": round(load, 2),
        "cases": suite["cases"],
        "passed_cases": suite["passed_cases"],
        "metrics": suite["metrics"],
        "executor": manifest.get("executor"),
        "cache": manifest.get("cache"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--revisions", type=int, default=50)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-unbounded", action="store_true")
    parser.add_argument(
        "--engine-ms",
        type=float,
        default=0.0,
        help="pace the engine: every answer takes at least this many ms (bench/_paced.py)",
    )
    parser.add_argument(
        "--engine-cmd-ms",
        type=float,
        default=0.0,
        help="the engine is a cmd: process sleeping this many ms a request (bench/paced_engine.py)",
    )
    parser.add_argument("--repo", help="a real repository or bundle: cases over its history, not a synthetic one")
    parser.add_argument("--configs", help="comma list of the configurations to time (default: all)")
    parser.add_argument("--nodes", type=int, default=4, help="Ray nodes of the simulated cluster (ray-clusterN)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    target = f"{PACED_CMD} {args.engine_cmd_ms:g}" if args.engine_cmd_ms else PACED if args.engine_ms else "builtin"
    # --cache stores only targets whose version is known (not cmd:): the cached pair uses the
    # python: paced target at the same pace, whose answers are the same reference engine's
    cache_target = f"{PACED}" if args.engine_cmd_ms else target
    cache_ms = args.engine_cmd_ms or args.engine_ms
    results: dict[str, Any] = {
        "cases": args.cases,
        "revisions": args.revisions,
        "files": args.files,
        "engine_ms": args.engine_ms,
        "engine_cmd_ms": args.engine_cmd_ms,
        "target": target,
        "cache_target": cache_target,
        "repo": args.repo,
    }
    with tempfile.TemporaryDirectory(prefix="wb-scale-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        repo, snapshots = (
            real_history(root, args.repo, args.revisions)
            if args.repo
            else build_history(root, args.revisions, args.files)
        )
        corpus = write_corpus(root, repo, snapshots, args.cases)
        results["build_seconds"] = round(time.perf_counter() - started, 2)
        env = dict(os.environ, WORKBENCH_CACHE_DIR=str(root / "cache"), WORKBENCH_BENCH_ENGINE_MS=str(cache_ms))
        configs: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
            ("local-cold", env, ()),
            ("local", env, ()),
            ("local-jobs4", env, ("--jobs", "4")),
        ]
        if not args.skip_unbounded:
            configs.append(("local-unbounded", dict(env, WORKBENCH_LOADED_INDEXES="1000"), ()))
        if not args.skip_ray:
            configs += [
                ("ray", env, ("--executor", "ray")),
                ("ray-no-warm", env, ("--executor", "ray", "--no-warm-start")),
                ("ray-head", env, ("--executor", f"ray:127.0.0.1:{RAY_PORT}")),
                ("ray-head-no-warm", env, ("--executor", f"ray:127.0.0.1:{RAY_PORT}", "--no-warm-start")),
                (f"ray-cluster{args.nodes}", env, ("--executor", f"ray:127.0.0.1:{RAY_PORT}")),
            ]
        configs += [("cache-fill", env, ("--cache",)), ("cache-rerun", env, ("--cache",))]
        wanted = set(args.configs.split(",")) if args.configs else None
        for name, config_env, extra in configs:
            if wanted is not None and name not in wanted:
                continue
            # a running cluster: started before and outside the timed run (its start reported beside)
            began = time.perf_counter()
            nodes = (
                ray_cluster(env, 1, num_cpus=2)
                if name.startswith("ray-head")
                else ray_cluster(env, args.nodes)
                if name.startswith("ray-cluster")
                else []
            )
            cluster_start = round(time.perf_counter() - began, 2)
            try:
                run_target = cache_target if name.startswith("cache-") else target
                results[name] = timed_run(corpus, root / f"runs-{name}", config_env, run_target, *extra)
                if nodes:
                    results[name]["cluster_start_seconds"] = cluster_start
            finally:
                stop_nodes(nodes)
            print(f"{name}: {results[name]}", file=sys.stderr, flush=True)
    timed = {n: v for n, v in results.items() if isinstance(v, dict) and "seconds" in v}
    for name in ("ray", "ray-no-warm", "ray-head", "ray-head-no-warm"):
        if name in timed and "local" in timed:
            ray, local = timed[name], timed["local"]["seconds"]
            startup = (ray.get("executor") or {}).get("startup_seconds", 0.0)
            results[f"{name}_over_local"] = round(ray["seconds"] / local, 3)
            results[f"{name}_over_local_without_startup"] = round((ray["seconds"] - startup) / local, 3)
    if "cache-rerun" in timed and "cache-fill" in timed:
        results["rerun_over_fill"] = round(timed["cache-rerun"]["seconds"] / timed["cache-fill"]["seconds"], 3)
    same = {json.dumps(v["metrics"], sort_keys=True) for v in timed.values()}
    results["same_metrics_everywhere"] = len(same) == 1
    results["bounds"] = bounds(timed, f"ray-cluster{args.nodes}")
    print(json.dumps(results, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in results.items()))


if __name__ == "__main__":
    main()
