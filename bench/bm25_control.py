"""The ``bm25`` control against a textbook BM25 (rank-bm25's BM25Okapi, k1 1.5, b 0.75) over symbol chunks.

    python bench/bm25_control.py [--repos ../shared/repos] [--bundle werkzeug] [--max-cases 80] [--json]

* **Shipped ranking corpus** (``corpus/corpus.json``, go-code rules of the ranking suite): nDCG@10 of the
  control's ``search`` and of BM25Okapi over the control's own documents and tokens ("same docs"), and the
  largest score difference between the two over every returned hit.
* **A real bundle** (cloned into a temp dir): a ranking golden mined here from its history (query: a
  commit's subject; gold: the Python defs/classes whose lines it changed, kept when the same qualified name
  still exists in the same file at the tip, scored on the tip tree: the change is present, so this compares
  lexical rankers, it is not a held-out localization test). Scored for the control, BM25Okapi over the
  control's documents, and BM25Okapi over independent ``ast`` chunks (one document per def/class: path,
  qualified name, source). Plus the control's cold fit of its symbol model and of its file model, and
  ``search`` / ``context_pack`` p50 over the golden's queries.

Every ranking: score descending, then (file, symbol) ascending, positive scores only, top 20. Results
are recorded in ``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TOP_K = 20
SKIP_SUBJECT = ("merge", "release", "bump", "update changelog", "changelog", "version")


def _okapi_ranked(model, docs: list[tuple[str, str]], terms: list[str]) -> list[tuple[str, str, float]]:
    scores = model.get_scores(terms)
    keep = [i for i in range(len(docs)) if scores[i] > 0]
    keep.sort(key=lambda i: (-scores[i], docs[i][0], docs[i][1]))
    return [(docs[i][0], docs[i][1], float(scores[i])) for i in keep[:TOP_K]]


def _ndcg(hits: list[tuple[str, str]], expected: list[list]) -> float:
    import numpy as np

    from workbench.suites.ranking import go_code_metrics, match_matrix

    relevant, first = match_matrix(hits, expected)
    return float(go_code_metrics(relevant[None, :], first[None, :], np.array([len(expected)]))["ndcg@10"][0])


def _bare(hits: list[tuple[str, str]], expected: list[list]) -> float:
    """nDCG@10 with every name cut to its last dotted part (issue 21's bare-label rule, both sides)."""
    return _ndcg([(f, s.rsplit(".", 1)[-1]) for f, s in hits], [[f, s.rsplit(".", 1)[-1]] for f, s in expected])


def _both(hits: list[tuple[str, str]], expected: list[list]) -> tuple[float, float]:
    return _ndcg(hits, expected), _bare(hits, expected)


def _means(rows: list[tuple[float, float]]) -> dict[str, float | None]:
    if not rows:
        return {"ndcg@10": None, "bare_ndcg@10": None}
    return {
        "ndcg@10": round(statistics.mean(r[0] for r in rows), 4),
        "bare_ndcg@10": round(statistics.mean(r[1] for r in rows), 4),
    }


def control_documents(root: Path) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """The control's symbol documents of ``root`` as (file, symbol) keys and token lists."""
    from workbench.targets import bm25_symbols

    files, symbols, docs = bm25_symbols.documents(root)
    return list(zip(files, symbols)), docs


def ast_chunks(root: Path) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """Independent textbook chunks: one per Python def/class (path, qualified name, its source)."""
    from workbench.reference.text import tokens

    keys, docs = [], []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/." in "/" + rel:
            continue
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        lines = source.splitlines(keepends=True)

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = prefix + child.name
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list]) - 1
                    text = "".join(lines[start : child.end_lineno])
                    keys.append((rel, name))
                    docs.append(tokens(rel.replace("/", " ")) + tokens(name) + tokens(text))
                    visit(child, name + ".")
                elif not isinstance(child, ast.expr):
                    visit(child, prefix)

        visit(tree, "")
    return keys, docs


def corpus_part() -> dict:
    """Control vs BM25Okapi on the control's own documents, over the shipped ranking goldens."""
    from rank_bm25 import BM25Okapi

    from workbench.contract import Repo
    from workbench.corpus import load_corpus
    from workbench.corpus.goldens import ranking_cases
    from workbench.reference.text import tokens
    from workbench.targets.controls import Bm25Target

    corpus = load_corpus(REPO / "corpus" / "corpus.json")
    target, models, rows, worst = Bm25Target(), {}, [], 0.0
    for case in ranking_cases(corpus):
        root = corpus.fixture_dir(case["repoFixture"])
        if root not in models:
            keys, docs = control_documents(root)
            models[root] = (keys, BM25Okapi(docs))
        keys, okapi = models[root]
        hits = target.search(case["query"], Repo(case["repoFixture"], root), TOP_K)
        reference = _okapi_ranked(okapi, keys, tokens(case["query"]))
        full = okapi.get_scores(tokens(case["query"]))
        index_of = {key: i for i, key in enumerate(keys)}
        for hit in hits:
            worst = max(worst, abs(float(hit.score or 0.0) - float(full[index_of[(hit.file, hit.symbol)]])))
        rows.append(
            (
                _ndcg([(h.file, h.symbol) for h in hits], case["expected"]),
                _ndcg([(f, s) for f, s, _ in reference], case["expected"]),
                [(h.file, h.symbol) for h in hits] == [(f, s) for f, s, _ in reference],
            )
        )
    return {
        "cases": len(rows),
        "control_ndcg@10": round(statistics.mean(r[0] for r in rows), 4),
        "okapi_same_docs_ndcg@10": round(statistics.mean(r[1] for r in rows), 4),
        "identical_rankings": sum(r[2] for r in rows),
        "max_abs_score_diff": worst,
    }


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def _enclosing(source: str, lines: set[int]) -> set[str]:
    """Qualified names of the innermost defs/classes enclosing any of ``lines`` (1-based)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                span = set(range(child.lineno, (child.end_lineno or child.lineno) + 1))
                if span & lines:
                    before = len(found)
                    visit(child, name + ".")
                    if len(found) == before:
                        found.add(name)
            elif not isinstance(child, ast.expr):
                visit(child, prefix)

    visit(tree, "")
    return found


def mine_golden(root: Path, max_cases: int) -> list[dict]:
    """Recent commits' subjects as queries, the Python defs they changed (present at the tip) as gold."""
    tip = set(ast_chunks(root)[0])
    log = _git(root, "log", "--no-merges", "--format=%H%x00%s", "-n", "4000", "--", "*.py")
    cases = []
    for line in log.splitlines():
        sha, _, subject = line.partition("\0")
        if subject.lower().startswith(SKIP_SUBJECT) or len(subject.split()) < 3:
            continue
        changed: dict[str, set[int]] = {}
        current = None
        for row in _git(root, "diff", "-U0", "--no-color", f"{sha}^", sha, "--", "*.py").splitlines():
            if row.startswith("+++ "):
                current = row[6:] if row.startswith("+++ b/") else None
            elif row.startswith("@@") and current and "test" not in current.split("/")[0]:
                new = row.split()[2].lstrip("+")
                start, _, count = new.partition(",")
                n = int(count) if count else 1
                changed.setdefault(current, set()).update(range(int(start), int(start) + max(n, 1)))
        gold = []
        for path, lines in sorted(changed.items()):
            if path.startswith("tests/") or "/tests/" in path:
                continue
            try:
                source = _git(root, "show", f"{sha}:{path}")
            except subprocess.CalledProcessError:
                continue
            gold += [[path, name] for name in sorted(_enclosing(source, lines)) if (path, name) in tip]
        if 1 <= len(gold) <= 3:
            cases.append({"id": sha[:10], "query": subject, "expected": gold})
        if len(cases) >= max_cases:
            break
    return cases


def bundle_part(bundle: Path, max_cases: int) -> dict:
    from rank_bm25 import BM25Okapi

    from workbench.contract import Repo
    from workbench.reference.index import load_index
    from workbench.reference.text import tokens
    from workbench.targets.controls import Bm25Target

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["WORKBENCH_CACHE_DIR"] = str(Path(scratch) / "cache")
        root = Path(scratch) / bundle.stem
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(root)], check=True)
        golden = mine_golden(root, max_cases)
        load_index(root)  # the reference index both fits read (cached, not part of the control's cost)
        repo, target = Repo(bundle.stem, root), Bm25Target()
        started = time.perf_counter()
        target.search("warm up", repo, TOP_K)
        symbol_fit = time.perf_counter() - started
        started = time.perf_counter()
        target.context_pack("warm up", [repo], 8)
        file_fit = time.perf_counter() - started
        search_ms, pack_ms, control = [], [], []
        for case in golden:
            for _ in range(3):
                started = time.perf_counter()
                hits = target.search(case["query"], repo, TOP_K)
                search_ms.append(1000 * (time.perf_counter() - started))
                started = time.perf_counter()
                target.context_pack(case["query"], [repo], 8)
                pack_ms.append(1000 * (time.perf_counter() - started))
            control.append(_both([(h.file, h.symbol) for h in hits], case["expected"]))
        keys, docs = control_documents(root)
        same = BM25Okapi(docs)
        ast_keys, ast_docs = ast_chunks(root)
        textbook = BM25Okapi(ast_docs)
        same_docs, chunks = [], []
        for case in golden:
            terms = tokens(case["query"])
            same_docs.append(_both([(f, s) for f, s, _ in _okapi_ranked(same, keys, terms)], case["expected"]))
            chunks.append(_both([(f, s) for f, s, _ in _okapi_ranked(textbook, ast_keys, terms)], case["expected"]))
        return {
            "bundle": bundle.name,
            "files": len(load_index(root).files),
            "control_docs": len(docs),
            "ast_chunks": len(ast_docs),
            "cases": len(golden),
            "control": _means(control),
            "okapi_same_docs": _means(same_docs),
            "okapi_ast_chunks": _means(chunks),
            "symbol_fit_s": round(symbol_fit, 3),
            "file_fit_s": round(file_fit, 3),
            "search_p50_ms": round(statistics.median(search_ms), 2) if search_ms else None,
            "pack_p50_ms": round(statistics.median(pack_ms), 2) if pack_ms else None,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, default=REPO.parent / "shared" / "repos")
    parser.add_argument("--bundle", default="werkzeug", help="a Python bundle in --repos")
    parser.add_argument("--max-cases", type=int, default=80)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["WORKBENCH_CACHE_DIR"] = str(Path(scratch) / "cache")
        result = {"corpus": corpus_part()}
    bundle = args.repos / f"{args.bundle}.bundle"
    result["real"] = bundle_part(bundle, args.max_cases) if bundle.is_file() else f"{bundle}: not found"
    result["load_avg"] = os.getloadavg()[0]
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
