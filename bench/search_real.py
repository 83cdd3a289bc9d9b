"""Symbol search on real history: builtin ``search`` against the ``bm25`` control and a textbook BM25.

    python bench/search_real.py [--repos DIR] [--half dev|held|all] [--max-cases 60] [--seed 0]
                                [--work DIR] [--json]

Mines each ``*.bundle`` of ``--repos`` (default ``../shared/repos``) with ``workbench.mining.mine``
(``--max-cases``, ``--seed``) and keeps the cases with ``expectedSymbols`` (the innermost definitions
the commit edits, at its parent revision). Each case runs at its revision, materialized as the
retrieval suite does (``Corpus.repo_dir``), and is asked of three rankers, top 20:

* **builtin**: the reference engine's ``search`` (``workbench.reference.search``);
* **bm25**: the ``bm25`` control's ``search`` (BM25Okapi, numpy over term counts, over the same chunks as textbook);
* **textbook**: rank-bm25's ``BM25Okapi`` (k1 1.5, b 0.75) over one chunk per definition of
  ``workbench.code.enclosing.definition_ranges`` (ast for Python, tree-sitter elsewhere: the
  ranges gold symbols are named by): its path, qualified name and source lines, in
  ``workbench.reference.text.tokens``.

Scores use the ranking suite's rules (``match_matrix``, ``go_code_metrics``; each gold ``path:Name``
is an expected ``(file, symbol)`` item): nDCG@10, Recall@10 and MRR. The pack column is function-level
Acc@5 of ranked symbols (``workbench.analysis.symbols.symbol_scores``, k = 5): builtin's packs
(``context_pack`` of the builtin and bm25 targets, limit 8, their ``symbols``); for textbook its
``search`` top 50 in rank order.
Warm ``search`` latency is the second call of each query on a loaded index (p50, p90).

Halves are by repository: development werkzeug, commander, echo, viper; held-out attrs, koa, ky,
logrus. The mined corpora and the bm25 / textbook hits (which do not change while builtin is
developed) are kept under ``--work`` and reused. Results are recorded in ``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

HALVES = {
    "dev": ("werkzeug", "commander", "echo", "viper"),
    "held": ("attrs", "koa", "ky", "logrus"),
}
ENGINES = ("builtin", "bm25", "textbook")
TOP_K = 20
PACK_DEPTH = 50  # search hits read as a pack's ranked symbols (bm25, textbook)
K = 5


def mined_corpus(bundle: Path, work: Path, max_cases: int, seed: int) -> Path:
    """The corpus mined from ``bundle`` (kept in ``work``; reused when present)."""
    from workbench.mining import MineOptions, mine_corpus

    out = work / f"{bundle.stem}-{max_cases}-{seed}.json"
    if not out.exists():
        mine_corpus(bundle, MineOptions(out=out, max_cases=max_cases, seed=seed, progress=False))
    return out


def textbook_model(root: Path) -> tuple[list[tuple[str, str]], Any]:
    """rank-bm25's BM25Okapi over one chunk per definition (path, qualified name, source lines)."""
    from rank_bm25 import BM25Okapi

    from workbench.code.enclosing import definition_ranges
    from workbench.reference.index import load_index
    from workbench.reference.text import tokens

    index = load_index(root)
    keys, docs = [], []
    for rel in index.files:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            continue
        lines = data.decode("utf-8", "replace").split("\n")
        path = tokens(rel.replace("/", " "))
        for name, first, last in sorted(definition_ranges(rel, data), key=lambda r: (r[1], r[0])):
            keys.append((rel, name))
            docs.append(path + tokens(name) + tokens("\n".join(lines[first - 1 : last])))
    return keys, (BM25Okapi(docs) if docs else None)


def textbook_search(model: tuple[list[tuple[str, str]], Any], query: str, top_k: int) -> list[tuple[str, str]]:
    from workbench.reference.text import tokens

    keys, okapi = model
    if okapi is None:
        return []
    scores = okapi.get_scores(tokens(query))
    order = sorted((i for i in range(len(keys)) if scores[i] > 0), key=lambda i: (-scores[i], keys[i]))
    return [keys[i] for i in order[:top_k]]


def _expected(case: dict[str, Any]) -> list[list[str]]:
    from workbench.analysis.symbols import split_label

    return [list(split_label(label)) for label in case["expectedSymbols"]]


def score(hits: list[tuple[str, str]], pack: list[tuple[str, str]], case: dict[str, Any]) -> dict[str, float]:
    """nDCG@10, Recall@10, MRR of ``hits`` (ranking-suite rules) and Acc@5 of ``pack``."""
    import numpy as np

    from workbench.analysis.symbols import symbol_scores
    from workbench.suites.ranking import go_code_metrics, match_matrix

    expected = _expected(case)
    relevant, first = match_matrix(hits, expected)
    values = go_code_metrics(relevant[None, :], first[None, :], np.array([len(expected)]))
    acc = symbol_scores(pack, case["expectedSymbols"], K)
    return {
        "ndcg@10": float(values["ndcg@10"][0]),
        "recall@10": float(values["recall@10"][0]),
        "mrr": float(values["mrr"][0]),
        "acc@5": acc["symbolAccAtK"],
    }


def run_repo(corpus_path: Path, work: Path, fresh: bool) -> tuple[list[dict[str, Any]], list[float]]:
    """Per-case rows (engine, case, metrics, hits) of one mined corpus, and builtin's warm latencies (ms)."""
    from workbench.contract import Repo
    from workbench.corpus.load import load_corpus
    from workbench.reference.index import load_index
    from workbench.reference.search import search_index
    from workbench.targets.builtin import BuiltinTarget
    from workbench.targets.controls import Bm25Target

    corpus = load_corpus(corpus_path)
    cases = [c for c in corpus.cases("retrieval") if c.get("expectedSymbols")]
    kept_path = work / f"{corpus_path.stem}-controls.json"
    kept = {} if fresh or not kept_path.exists() else json.loads(kept_path.read_text())
    builtin, control = BuiltinTarget(), Bm25Target()
    rows, warm = [], []
    for case in cases:
        root = corpus.repo_dir(case["repoFixture"], case)
        repo = Repo(case["repoFixture"], root)
        index = load_index(root)
        hits = [(h.file, h.symbol) for h in search_index(index, case["query"], TOP_K)]
        started = time.perf_counter()
        search_index(index, case["query"], TOP_K)
        warm.append(1000 * (time.perf_counter() - started))
        pack = builtin.context_pack(case["query"], [repo], 8)
        found = {"builtin": (hits, [(s.path, s.name) for s in pack.symbols or []])}
        if case["name"] not in kept:
            deep = [(h.file, h.symbol) for h in control.search(case["query"], repo, TOP_K)]
            packed = [(s.path, s.name) for s in control.context_pack(case["query"], [repo], 8).symbols or []]
            book = textbook_search(textbook_model(root), case["query"], PACK_DEPTH)
            kept[case["name"]] = {"bm25": deep, "bm25 pack": packed, "textbook": book}
        deep = [tuple(h) for h in kept[case["name"]]["textbook"]]
        found["textbook"] = (deep[:TOP_K], [h for h in deep if h[1]])
        control_hits = kept[case["name"]]
        found["bm25"] = ([tuple(h) for h in control_hits["bm25"]], [tuple(h) for h in control_hits["bm25 pack"]])
        for engine, (ranked, symbols) in found.items():
            rows.append(
                {
                    "engine": engine,
                    "repo": case["repoFixture"],
                    "case": case["name"],
                    "query": case["query"],
                    "gold": case["expectedSymbols"],
                    "hits": [list(h) for h in ranked[:10]],
                    **score(list(ranked), list(symbols), case),
                }
            )
    kept_path.write_text(json.dumps(kept))
    return rows, warm


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """``{group: {engine: {cases, ndcg@10, recall@10, mrr, acc@5}}}`` per repository and half."""
    groups: dict[str, list[str]] = {repo: [repo] for repo in sorted({str(r["repo"]) for r in rows})}
    for half, repos in HALVES.items():
        present = [repo for repo in repos if repo in groups]
        if present:
            groups[f"{half} half"] = present
    out: dict[str, dict[str, dict[str, float]]] = {}
    for group, repos in groups.items():
        out[group] = {}
        for engine in ENGINES:
            sel = [r for r in rows if r["engine"] == engine and r["repo"] in repos]
            if sel:
                out[group][engine] = {"cases": len(sel)} | {
                    m: sum(float(r[m]) for r in sel) / len(sel) for m in ("ndcg@10", "recall@10", "mrr", "acc@5")
                }
    return out


def render(result: dict[str, dict[str, dict[str, float]]]) -> str:
    head = "| repo | cases | " + " | ".join(f"{e} nDCG@10 / MRR / Acc@5" for e in ENGINES) + " | builtin - bm25 |"
    lines = [head, "| --- | ---: |" + " --- |" * (len(ENGINES) + 1)]
    for group, cells in result.items():
        n = next(iter(cells.values()))["cases"]
        shown = [
            f"{c['ndcg@10']:.3f} / {c['mrr']:.3f} / {c['acc@5']:.3f}" if (c := cells.get(e)) else "-" for e in ENGINES
        ]
        b, m = cells["builtin"], cells["bm25"]
        margin = f"{b['ndcg@10'] - m['ndcg@10']:+.3f}, {100 * (b['acc@5'] - m['acc@5']):+.1f} pts"
        lines.append(f"| {group} | {n:.0f} | " + " | ".join(shown) + f" | {margin} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=REPO.parent / "shared" / "repos")
    parser.add_argument("--half", choices=("dev", "held", "all"), default="dev")
    parser.add_argument("--max-cases", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="keep mined corpora and control hits here")
    parser.add_argument("--fresh", action="store_true", help="recompute the bm25 and textbook hits")
    parser.add_argument("--rows", type=Path, default=None, help="write per-case rows (JSON lines) here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = HALVES["dev"] + HALVES["held"] if args.half == "all" else HALVES[args.half]
    bundles = [args.repos / f"{name}.bundle" for name in names if (args.repos / f"{name}.bundle").exists()]
    if not bundles:
        print(f"{args.repos}: none of {', '.join(names)} as *.bundle: nothing to measure")
        return
    work = Path(args.work or tempfile.mkdtemp(prefix="search-real-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WORKBENCH_CACHE_DIR", str(work / "cache"))
    rows: list[dict[str, Any]] = []
    warm: list[float] = []
    started = time.perf_counter()
    for bundle in bundles:
        found, ms = run_repo(mined_corpus(bundle, work, args.max_cases, args.seed), work, args.fresh)
        rows += found
        warm += ms
    elapsed = time.perf_counter() - started
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = summary(rows)
    latency = {"p50": statistics.median(warm), "p90": statistics.quantiles(warm, n=10)[-1] if len(warm) > 1 else 0.0}
    if args.json:
        print(json.dumps({"seconds": elapsed, "warm_search_ms": latency, "tables": result}, indent=1))
        return
    cases = len(rows) // len(ENGINES)
    print(f"{len(bundles)} repositories, {cases} cases with expectedSymbols, {elapsed:.0f} s ({work})")
    print(render(result))
    print(f"\nbuiltin warm search: p50 {latency['p50']:.1f} ms, p90 {latency['p90']:.1f} ms")


if __name__ == "__main__":
    main()
