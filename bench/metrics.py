"""Benchmark workbench.metrics against pytrec_eval and ranx on the same synthetic run.

N queries x depth ranked files (ids like ``src/pkg_123/file_456.py``), 1-6 graded
relevant files per query, about 60% of them placed in the ranking. Each tool is
timed from its own native input, built beforehand and not timed, to its own
native output: the workbench from the interned frames the runner produces to the
long score frame, pytrec_eval from dicts (evaluator construction + evaluate) to
dicts, ranx from its Qrels/Run objects (after a JIT warm-up) to arrays. The
fastest of --repeat runs is reported, the first (cold) run too; interning and
the other builds are reported separately.

End to end (issue 24), each input form against pytrec_eval from the same input,
wall and CPU seconds of one call each, in this order: row tuples (workbench
``evaluate(rows)`` vs building pytrec_eval's dicts from the rows + its evaluate),
pytrec_eval-style dicts (``evaluate(dicts)`` vs its evaluate), TREC files
(``evaluate(paths)`` vs ``pytrec_eval.parse_run``/``parse_qrel`` + its evaluate).

    python bench/metrics.py --n 100000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytrec_eval

from workbench.analysis.metrics import evaluate, intern_frames
from workbench.columns import CASE, METRIC, VALUE

METRICS = {
    "P@5": ("P_5", "precision@5"),
    "R@20": ("recall_20", "recall@20"),
    "RR": ("recip_rank", "mrr"),
    "nDCG@10": ("ndcg_cut_10", "ndcg@10"),
}
PACKAGES, FILES = 1000, 1000


def synthetic(n: int, depth: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    """Runner-style row tuples: rankings (case, doc, rank) and qrels (case, doc, relevance)."""
    rng = np.random.default_rng(seed)
    ranked = rng.integers(0, PACKAGES * FILES, size=(n, depth))
    n_rel = rng.integers(1, 7, size=n)
    q_case = np.repeat(np.arange(n), n_rel)
    q_doc = rng.integers(0, PACKAGES * FILES, size=q_case.size)
    first = np.sort(np.unique(q_case * PACKAGES * FILES + q_doc, return_index=True)[1])
    q_case, q_doc = q_case[first], q_doc[first]  # each file judged once per query
    placed = rng.random(q_case.size) < 0.6
    ranked[q_case[placed], rng.integers(0, depth, size=placed.sum())] = q_doc[placed]
    names = _doc_names(np.concatenate([ranked.ravel(), q_doc]))
    cases = [f"q{i:06d}" for i in range(n)]
    ranking = list(
        zip(np.repeat(cases, depth).tolist(), names[: ranked.size], np.tile(np.arange(1, depth + 1), n).tolist())
    )
    rel = rng.integers(1, 4, size=q_case.size)
    qrels = list(zip([cases[c] for c in q_case], names[ranked.size :], rel.tolist()))
    return ranking, qrels


def _doc_names(codes: np.ndarray) -> list[str]:
    """String ids for integer doc codes, each distinct string built once."""
    uniq, inverse = np.unique(codes, return_inverse=True)
    text = np.array([f"src/pkg_{c // FILES}/file_{c % FILES}.py" for c in uniq.tolist()], dtype=object)
    return text[inverse].tolist()


def with_layout(ranking: list[tuple], layout: str, depth: int, seed: int) -> list[tuple]:
    """``runner``: as collected; ``shuffled``: rows in random order; ``scored``: tied scores, rank ignored."""
    if layout == "shuffled":
        return [ranking[i] for i in np.random.default_rng(seed).permutation(len(ranking))]
    if layout == "scored":
        return [(case, doc, rank, float((depth - rank) // 2)) for case, doc, rank in ranking]
    return ranking


def as_dicts(ranking: list[tuple], qrels: list[tuple]) -> tuple[dict, dict]:
    """The trec-style dicts pytrec_eval and ranx read: score (else -rank), best copy of a doc kept."""
    run: dict[str, dict[str, float]] = {}
    for case, doc, rank, *score in ranking:
        docs = run.setdefault(case, {})
        docs[doc] = max(score[0] if score else -float(rank), docs.get(doc, -np.inf))
    judged: dict[str, dict[str, int]] = {}
    for case, doc, rel in qrels:
        judged.setdefault(case, {})[doc] = int(rel)
    return run, judged


def timed(repeat: int, fn: Callable[[], Any]) -> tuple[list[float], Any]:
    """Wall times of ``repeat`` calls (the first one is cold), and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times, result


def cpu_and_wall(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """CPU seconds (user + sys of this process) and wall seconds of one call, and its result."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def write_trec(run: dict, judged: dict, folder: str) -> tuple[str, str]:
    """The dicts as a TREC run file (rank = position in the dict, score as given) and a qrels file."""
    run_path, qrels_path = os.path.join(folder, "run.trec"), os.path.join(folder, "qrels.trec")
    with open(run_path, "w", encoding="utf-8") as out:
        for case, docs in run.items():
            ranked = enumerate(docs.items(), 1)
            out.writelines(f"{case} Q0 {doc} {rank} {score!r} bench\n" for rank, (doc, score) in ranked)
    with open(qrels_path, "w", encoding="utf-8") as out:
        for case, docs in judged.items():
            out.writelines(f"{case} 0 {doc} {rel}\n" for doc, rel in docs.items())
    return run_path, qrels_path


def pytrec_from_trec(run_path: str, qrels_path: str) -> dict:
    with open(run_path, encoding="utf-8") as run_file, open(qrels_path, encoding="utf-8") as qrels_file:
        run, judged = pytrec_eval.parse_run(run_file), pytrec_eval.parse_qrel(qrels_file)
    return run_pytrec(run, judged)


def end_to_end(rows: tuple[list, list], run: dict, judged: dict) -> dict[str, Any]:
    """Each input form, workbench vs pytrec_eval from the same input: seconds, ratios, largest difference."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = write_trec(run, judged, folder)
        forms: dict[str, tuple[Callable[[], dict], Callable[[], pd.DataFrame]]] = {
            "rows": (lambda: run_pytrec(*as_dicts(*rows)), lambda: evaluate(*rows, list(METRICS))),
            "dicts": (lambda: run_pytrec(run, judged), lambda: evaluate(run, judged, list(METRICS))),
            "trec": (lambda: pytrec_from_trec(*paths), lambda: evaluate(*paths, list(METRICS))),
        }
        for form, (theirs, ours) in forms.items():
            t_cpu, t_wall, t_scores = cpu_and_wall(theirs)
            o_cpu, o_wall, o_frame = cpu_and_wall(ours)
            out[form] = {
                "pytrec_eval_s": round(t_wall, 3),
                "workbench_s": round(o_wall, 3),
                "ratio": round(o_wall / t_wall, 3),
                "pytrec_eval_cpu_s": round(t_cpu, 3),
                "workbench_cpu_s": round(o_cpu, 3),
                "cpu_ratio": round(o_cpu / t_cpu, 3),
                "max_abs_diff": max_diff(wide(o_frame), pytrec_frame(t_scores)),
            }
    return out


def run_pytrec(run: dict, judged: dict) -> dict:
    return pytrec_eval.RelevanceEvaluator(judged, {trec for trec, _ in METRICS.values()}).evaluate(run)


def pytrec_frame(scores: dict) -> pd.DataFrame:
    return pd.DataFrame({ours: {q: v[trec] for q, v in scores.items()} for ours, (trec, _) in METRICS.items()})


def ranx_tool(run: dict, judged: dict) -> tuple[float, Callable[[], dict], Callable[[dict], pd.DataFrame]]:
    """Compile ranx's kernels on a small run, build its objects (timed apart); return evaluate and to-frame."""
    import ranx

    warnings.filterwarnings("ignore", message="unsafe cast from uint64 to int64")  # inside ranx
    names = [name for _, name in METRICS.values()]
    small = list(judged)[:200]
    ranx.evaluate(
        ranx.Qrels({q: judged[q] for q in small}),
        ranx.Run({q: run[q] for q in small}),
        names,
        save_results_in_run=False,
    )
    start = time.perf_counter()
    r_qrels, r_run = ranx.Qrels(judged), ranx.Run(run)
    built = time.perf_counter() - start

    def evaluate_ranx() -> pd.DataFrame:
        return ranx.evaluate(r_qrels, r_run, names, return_mean=False, save_results_in_run=False)

    def as_frame(scores: dict) -> pd.DataFrame:
        return pd.DataFrame({ours: scores[name] for ours, (_, name) in METRICS.items()}, index=r_run.get_query_ids())

    return built, evaluate_ranx, as_frame


def run_workbench(ranking: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    return evaluate(ranking, qrels, list(METRICS))


def wide(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.pivot(index=CASE, columns=METRIC, values=VALUE)


def max_diff(ours: pd.DataFrame, theirs: pd.DataFrame) -> float:
    """Largest absolute difference over every (case, metric) both frames hold."""
    ours = ours.set_axis(ours.index.astype(str)).loc[theirs.index, list(METRICS)]
    if ours.isna().any().any():
        return float("inf")
    return float(np.abs(ours.to_numpy(float) - theirs[list(METRICS)].to_numpy(float)).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="queries (default: a quick smoke run)")
    parser.add_argument("--depth", type=int, default=100, help="ranked files per query")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool; the fastest is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--layout",
        choices=["runner", "shuffled", "scored"],
        default="runner",
        help="ranking rows as the runner collects them, shuffled, or with tied scores",
    )
    parser.add_argument("--no-ranx", action="store_true", help="skip ranx (its JIT warm-up takes a minute)")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    ranking_rows, qrel_rows = synthetic(args.n, args.depth, args.seed)
    rows = with_layout(ranking_rows, args.layout, args.depth, args.seed), qrel_rows
    intern_s, (ranking, qrels) = timed(1, lambda: intern_frames(*rows))
    dicts_s, (run, judged) = timed(1, lambda: as_dicts(*rows))
    ours_s, ours = timed(args.repeat, lambda: run_workbench(ranking, qrels))
    pytrec_s, theirs = timed(args.repeat, lambda: run_pytrec(run, judged))
    out = {
        "n": args.n,
        "depth": args.depth,
        "layout": args.layout,
        "rows": len(ranking),
        "metrics": list(METRICS),
        "workbench_s": round(min(ours_s), 4),
        "pytrec_eval_s": round(min(pytrec_s), 4),
        "ranx_s": None,
        "max_abs_diff": max_diff(wide(ours), pytrec_frame(theirs)),
        "workbench_first_s": round(ours_s[0], 4),
        "pytrec_eval_first_s": round(pytrec_s[0], 4),
        "intern_s": round(intern_s[0], 4),
        "dicts_s": round(dicts_s[0], 4),
    }
    # Issue 24's anchors: every input form end to end against pytrec_eval from the same input (target <= 0.3).
    out.update(end_to_end=end_to_end(rows, run, judged), target_ratio=0.3)
    out.update(load_average=[round(load_before, 2), round(os.getloadavg()[0], 2)])
    if not args.no_ranx:
        ranx_build_s, evaluate_ranx, ranx_frame = ranx_tool(run, judged)
        ranx_s, ranx_scores = timed(args.repeat, evaluate_ranx)
        out.update(
            ranx_s=round(min(ranx_s), 4),
            ranx_first_s=round(ranx_s[0], 4),
            ranx_build_s=round(ranx_build_s, 4),
            ranx_max_abs_diff=max_diff(wide(ours), ranx_frame(ranx_scores)),
        )
    print(json.dumps(out) if args.json else text(out))


def text(out: dict[str, Any]) -> str:
    """The results as lines: one per scalar, one per input form of the end-to-end comparison."""
    lines = [f"{k:>22}: {v}" for k, v in out.items() if k != "end_to_end"]
    for form, r in out["end_to_end"].items():
        verdict = "met" if r["ratio"] <= out["target_ratio"] else "NOT met"
        lines.append(
            f"{'end to end, ' + form:>22}: workbench {r['workbench_s']} s, pytrec_eval {r['pytrec_eval_s']} s,"
            f" ratio {r['ratio']} (CPU {r['cpu_ratio']}), target <= {out['target_ratio']}: {verdict}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
