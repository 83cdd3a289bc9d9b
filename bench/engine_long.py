"""The reference engine against textbook BM25 on long, issue-like tasks over real history (issue 39).

    python bench/engine_long.py [--half dev|held|new|all] [--repos DIR] [--cases 30] [--work DIR]
                                [--only REPO] [--body-words LO,HI] [--fresh [N] | --fix-fresh [N] | --unseen]
                                [--no-scope] [--rows FILE] [--json]

**Cases.** Each bundle of ``--repos`` (default ``../shared/repos``) is mined with
``workbench.mining.mine`` (up to ``MINED`` candidate cases, seed 0): commits that change 1-3
non-test source files, each a case at its parent revision expecting those files and, as
``expectedSymbols``, the definitions the diff edits. The query is then replaced by the *whole*
commit message: the cleaned subject and every paragraph of the body (trailer lines such as
``Signed-off-by:`` and issue references dropped), the kind of text an issue tracker hands over.
Only commits whose body has at least ``MIN_BODY_WORDS`` words are kept, the ``--cases`` longest
per repository.

**Halves, by repository, fixed before any tuning** (the same split as ``bench/search_real.py``):
development werkzeug, commander, echo, viper (tuned on); held-out attrs, koa, ky, logrus (looked at
once, at the end). ``--half new`` measures every bundle of ``--repos`` that neither half names: a
repository added since, which no look has used, so its long set is a clean held-out look.

**A fresh held-out set** (``--fix-fresh`` chose it once, into ``bench/engine_long_fresh.json``, before
it was ever measured; ``--fresh`` measures it): per held-out repository, the ``--cases`` longest
messages whose body adds at least ``FRESH_BODY_WORDS`` words among the mined cases no earlier look
used (not the long set above, looked at twice, nor ``bench/engine_real.py``'s subject-only sample
of ``REAL_CASES``, seed 0), compared by commit. ``--unseen`` builds the same shape, by the same
rule, for the development repositories (never written to ``FRESH``): development data to tune on
that looks like the fresh set (bodies of 6+ words, mostly shorter than the long set's).
``--fix-fresh 2`` chose a second fresh set by the same rule among the commits the first one left
(``bench/engine_long_fresh2.json``; attrs and logrus only: koa and ky had none left), leaving out
too the long set as the first looks mined it (``bench/engine_long_looked.json``), and
``--fresh 2`` measures it; a set is chosen once, and ``--fix-fresh`` refuses to choose it again.

**Rankers.** At file level, over each case's tree at its revision:

* ``builtin``: the reference engine's file ranking (``workbench.reference.pack.rank_files``, what
  its pack picks from), top 20, given the mined corpus's goldScope as the control is (the engine
  then ranks only files that can be gold; ``--no-scope``: every file, as before issue 39's third round);
* ``textbook``: rank-bm25's ``BM25Okapi`` (k1 1.5, b 0.75) with one document per source file that
  can be gold (code, not a test, doc, example or generated file: ``in_scope``), its path + text,
  lower-cased ``\\w+`` tokens;
* ``chunks``: the same over definition chunks (``definition_ranges``), a file scored by the sum of
  its best three chunks (the other textbook variant, issue 38's control);
* ``control``: the product's ``bm25`` target (its pack, limit 10), over the files the mined corpus's
  goldScope allows where this checkout has goldScope (issue 38), else over every file; at function
  level its ``search`` (top 20).

Acc@k: every gold file in the top k; MRR: the first gold file. At function level (cases with
``expectedSymbols``): builtin's ``search`` (top 20) and its pack's ``symbols`` against BM25Okapi
over definition chunks (path, qualified name, source lines; same tokens), scored by the ranking
suite's rules (``match_matrix``, ``go_code_metrics``): nDCG@10, and Acc@10 (every gold symbol in
the top 10). The paired tests are ``workbench.analysis.stats``: McNemar on Acc@5 and Wilcoxon on
per-case MRR / nDCG@10 between builtin and the textbook, the control or the chunks, each with the 95%
bootstrap interval of the mean difference (``bootstrap_ci``, seed 0). Results: ``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
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
NAMED = frozenset(HALVES["dev"] + HALVES["held"])  # a repository neither half names is new (``--half new``)
MINED = 600  # candidate cases mined per repository before the long-body filter
MIN_BODY_WORDS = 15
FRESH = REPO / "bench" / "engine_long_fresh.json"  # the fresh held-out cases' commits, fixed before any look
# The held-out long set as the first two looks mined it (2026-12-06 06:24 and 08:08 UTC): mining has moved
# one commit per repository out of it since, and a later fresh set must not take that commit.
LOOKED = REPO / "bench" / "engine_long_looked.json"
FRESH_BODY_WORDS = 6  # a fresh case's body adds at least this many words
REAL_CASES = 50  # bench/engine_real.py's cases per repository (seed 0): subject-only looks, excluded too
TOP_K = 20
BEST_CHUNKS = 3
FILE_METRICS = ("acc@1", "acc@5", "acc@10", "mrr")
SYMBOL_METRICS = ("ndcg@10", "acc@10", "pack ndcg@10", "pack acc@10")
SCOPED = True  # builtin gets the corpus's goldScope, as the control does (``--no-scope``: it ranks every file)
_TOKEN = re.compile(r"\w+")
_TRAILER = re.compile(r"^[A-Z][\w-]*(?:-by)?:\s|^(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?)\s+#\d+", re.I)
_REF = re.compile(r"\(#\d+\)|(?<![\w&])#\d+\b|https?://\S+")


def words(text: str) -> list[str]:
    """The textbook tokens: lower-cased ``\\w+`` runs."""
    return _TOKEN.findall(text.lower())


def in_scope(path: str) -> bool:
    """Whether ``path`` can be gold: source code that is not a test, doc, example, fixture or generated."""
    from workbench.code.kinds import file_kind, is_code

    name = path.rsplit("/", 1)[-1]
    parts = path.split("/")
    return (
        is_code(path)
        and file_kind(path) not in ("test", "fixture", "doc", "example")
        and not re.search(r"(?:^|/)tests?(?:suite|_?utils|data|ing)?/", path, re.I)
        and not re.search(r"[._-](?:test|spec)(?:[._-][^/]*)?\.[^./]+$", name, re.I)
        and not (parts[0] in ("dist", "build", "out", "coverage") and len(parts) > 1)
        and not re.search(r"\.min\.js$|_pb2\.py$|\.pb\.go$|[._]gen(?:erated)?\.\w+$", name)
    )


# ---- the cases ----


def message(subject: str, body: str) -> str:
    """The whole commit message as a task: the cleaned subject, then the body without trailers or references."""
    from workbench.mining.queries import clean_subject

    kept = [line for line in body.splitlines() if not _TRAILER.match(line.strip())]
    text = _REF.sub("", "\n".join(kept)).strip()
    return f"{clean_subject(subject)}\n\n{text}".strip()


def _messages(clone: Path, shas: list[str]) -> dict[str, tuple[str, str]]:
    out = subprocess.run(
        ["git", "-C", str(clone), "log", "--no-walk=unsorted", "--format=%H%x00%s%x00%b%x1e", *shas],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for record in out.split("\x1e"):
        if record.strip():
            sha, subject, body = record.strip("\n").split("\x00", 2)
            found[sha] = (subject, body)
    return found


def build_corpus(bundle: Path, work: Path, cases: int, span: tuple[int, int] = (MIN_BODY_WORDS, 10**9)) -> Path:
    """The long-message corpus of one repository (kept in ``work``; reused when present): the
    ``cases`` longest messages whose body adds ``span[0]`` to ``span[1]`` (excluded) words."""
    out = work / (
        f"{bundle.stem}-long-{cases}.json"
        if span == (MIN_BODY_WORDS, 10**9)
        else f"{bundle.stem}-long-{cases}-{span[0]}-{span[1]}.json"
    )
    if out.exists():
        return out
    from workbench.mining import mine

    with tempfile.TemporaryDirectory(prefix="engine-long-") as tmp:
        clone = Path(tmp) / bundle.stem
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(clone)], check=True)
        mined = mine(clone, max_cases=MINED, seed=0, progress=False, fixture=bundle.stem).cases
        texts = _messages(clone, [c["source"]["commit"] for c in mined])
    long = []
    for case in mined:
        subject, body = texts[case["source"]["commit"]]
        query = message(subject, body)
        extra = len(words(query)) - len(words(subject))
        if span[0] <= extra < span[1]:
            long.append((-extra, case["name"], dict(case, query=query)))
    kept = [case for _, _, case in sorted(long)[:cases]]
    return _write_corpus(out, bundle, f"Long-message cases of {bundle.stem} (bench/engine_long.py).", kept)


def _write_corpus(out: Path, bundle: Path, description: str, cases: list[dict[str, Any]]) -> Path:
    """A retrieval corpus of ``cases`` (by name) over ``bundle``'s fixture, written to ``out``."""
    data = {
        "description": description,
        "k": 5,
        "fixtureRoots": {bundle.stem: str(bundle)},
        "retrieval": sorted(cases, key=lambda c: c["name"]),
    }
    out.write_text(json.dumps(data, indent=1))
    return out


def _unseen(bundle: Path, work: Path, cases: int) -> list[tuple[int, str]]:
    """(body words, commit) of every mined case of ``bundle`` that no earlier look used, longest first:
    not among the ``cases`` longest (the long set looked at twice) nor bench/engine_real.py's sample."""
    from workbench.mining import mine

    looked = json.loads(build_corpus(bundle, work, cases).read_text())["retrieval"]
    used = {case["source"]["commit"] for case in looked}
    with tempfile.TemporaryDirectory(prefix="engine-long-") as tmp:
        clone = Path(tmp) / bundle.stem
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(clone)], check=True)
        mined = mine(clone, max_cases=MINED, seed=0, progress=False, fixture=bundle.stem).cases
        real = mine(clone, max_cases=REAL_CASES, seed=0, progress=False, fixture=bundle.stem).cases
        texts = _messages(clone, [c["source"]["commit"] for c in mined])
    used |= {case["source"]["commit"] for case in real}
    found = []
    for case in mined:
        subject, body = texts[case["source"]["commit"]]
        if case["source"]["commit"] not in used:
            found.append((len(words(message(subject, body))) - len(words(subject)), case["source"]["commit"]))
    return sorted(found, key=lambda pair: (-pair[0], pair[1]))


def fresh_path(round_: int) -> Path:
    """Where fresh held-out set ``round_`` lists its commits (``FRESH`` is the first)."""
    return FRESH if round_ == 1 else FRESH.with_name(f"{FRESH.stem}{round_}.json")


def fresh_commits(name: str, round_: int) -> list[str]:
    """The commits fresh set ``round_`` took from repository ``name`` (none when it took none there)."""
    path = fresh_path(round_)
    if not path.exists():
        raise SystemExit(f"{path.name}: no fresh set {round_} yet; `--fix-fresh {round_}` chooses it, once")
    return list(json.loads(path.read_text()).get(name, []))


def fix_fresh(bundles: list[Path], work: Path, cases: int, round_: int = 1) -> Path:
    """Write fresh set ``round_``: per held-out repository, the ``cases`` longest unseen messages whose
    body adds at least ``FRESH_BODY_WORDS`` words, none an earlier fresh set or look (``LOOKED``) took. Run once, before
    the set is ever evaluated: a set already chosen is never chosen again."""
    out = fresh_path(round_)
    if out.exists():
        raise SystemExit(f"{out}: fresh set {round_} was chosen already; it is never chosen again")
    looked = json.loads(LOOKED.read_text())
    earlier = {
        bundle.stem: set(looked.get(bundle.stem, []))
        | {sha for r in range(1, round_) for sha in fresh_commits(bundle.stem, r)}
        for bundle in bundles
    }
    chosen = {bundle.stem: _fresh_commits(bundle, work, cases, earlier[bundle.stem]) for bundle in bundles}
    out.write_text(json.dumps({name: shas for name, shas in chosen.items() if shas}, indent=1) + "\n")
    return out


def _fresh_commits(bundle: Path, work: Path, cases: int, taken: set[str] | None = None) -> list[str]:
    """The ``cases`` longest unseen commits of ``bundle`` whose body adds at least ``FRESH_BODY_WORDS``
    words, leaving out those ``taken`` (by earlier fresh sets)."""
    found, left_out = _unseen(bundle, work, cases), taken or set()
    return [sha for extra, sha in found if extra >= FRESH_BODY_WORDS and sha not in left_out][:cases]


def fresh_corpus(bundle: Path, work: Path, round_: int = 1) -> Path | None:
    """Fresh held-out set ``round_``'s corpus of one repository: the commits it lists, whole messages as
    queries (None: it took none from this repository)."""
    wanted = set(fresh_commits(bundle.stem, round_))
    if not wanted:
        return None
    out = work / (f"{bundle.stem}-fresh.json" if round_ == 1 else f"{bundle.stem}-fresh{round_}.json")
    if out.exists():
        return out
    flag = "--fresh" if round_ == 1 else f"--fresh {round_}"
    return _commits_corpus(bundle, out, wanted, f"Fresh held-out cases of {bundle.stem} (bench/engine_long.py {flag}).")


def unseen_corpus(bundle: Path, work: Path, cases: int) -> Path:
    """A development repository's set shaped like the fresh held-out one (``--unseen``): its
    ``cases`` longest unseen messages whose body adds at least ``FRESH_BODY_WORDS`` words, by
    the same rule as ``fix_fresh``, chosen afresh (never written to ``FRESH``)."""
    if bundle.stem not in HALVES["dev"]:
        raise SystemExit(f"{bundle.stem}: --unseen is for the development half only")
    out = work / f"{bundle.stem}-unseen-{cases}.json"
    if out.exists():
        return out
    description = f"Unseen development cases of {bundle.stem} (bench/engine_long.py --unseen)."
    return _commits_corpus(bundle, out, set(_fresh_commits(bundle, work, cases)), description)


def _commits_corpus(bundle: Path, out: Path, wanted: set[str], description: str) -> Path:
    """The corpus of the mined cases of ``bundle`` whose commits are ``wanted``, whole messages as queries."""
    from workbench.mining import mine

    with tempfile.TemporaryDirectory(prefix="engine-long-") as tmp:
        clone = Path(tmp) / bundle.stem
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(clone)], check=True)
        mined = [c for c in mine(clone, max_cases=MINED, seed=0, progress=False, fixture=bundle.stem).cases]
        kept = [c for c in mined if c["source"]["commit"] in wanted]
        texts = _messages(clone, [c["source"]["commit"] for c in kept])
    if len(kept) != len(wanted):
        raise SystemExit(f"{bundle.stem}: {len(wanted) - len(kept)} chosen commits no longer mined")
    retrieval = [dict(c, query=message(*texts[c["source"]["commit"]])) for c in kept]
    return _write_corpus(out, bundle, description, retrieval)


# ---- the textbook rankers ----


def _tree(root: Path) -> list[tuple[str, bytes]]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if in_scope(rel):
                try:
                    found.append((rel, Path(folder, name).read_bytes()))
                except OSError:
                    continue
    return found


def textbook(root: Path, query: str) -> dict[str, list[Any]]:
    """File rankings (whole files; chunks, best three summed) and the definition-chunk symbol ranking."""
    from rank_bm25 import BM25Okapi

    from workbench.code.enclosing import definition_ranges

    files = _tree(root)
    terms = words(query)
    out: dict[str, list[Any]] = {"textbook": [], "chunks": [], "symbols": []}
    if not files:
        return out
    docs = [words(rel) + words(data.decode("utf-8", "replace")) for rel, data in files]
    scores = BM25Okapi(docs).get_scores(terms)
    order = sorted((i for i in range(len(files)) if scores[i] > 0), key=lambda i: (-scores[i], files[i][0]))
    out["textbook"] = [files[i][0] for i in order[:TOP_K]]
    keys, chunks = [], []
    for rel, data in files:
        lines = data.decode("utf-8", "replace").split("\n")
        for name, first, last in sorted(definition_ranges(rel, data), key=lambda r: (r[1], r[0])):
            keys.append((rel, name))
            chunks.append(words(rel) + words(name) + words("\n".join(lines[first - 1 : last])))
    if not chunks:
        return out
    scores = BM25Okapi(chunks).get_scores(terms)
    order = sorted((i for i in range(len(keys)) if scores[i] > 0), key=lambda i: (-scores[i], keys[i]))
    out["symbols"] = [list(keys[i]) for i in order[:50]]
    best: dict[str, list[float]] = {}
    for i in order:
        best.setdefault(keys[i][0], []).append(float(scores[i]))
    totals = {f: sum(sorted(s, reverse=True)[:BEST_CHUNKS]) for f, s in best.items()}
    out["chunks"] = sorted(totals, key=lambda f: (-totals[f], f))[:TOP_K]
    return out


# ---- scoring ----


def file_scores(ranked: list[str], gold: list[str]) -> dict[str, float]:
    ranks = [ranked.index(g) + 1 if g in ranked else None for g in gold]
    found = [r for r in ranks if r is not None]
    worst = max(found) if len(found) == len(gold) else None
    out = {f"acc@{k}": float(worst is not None and worst <= k) for k in (1, 5, 10)}
    return out | {"mrr": 1.0 / min(found) if found else 0.0}


def symbol_scores(hits: list[tuple[str, str]], pack: list[tuple[str, str]], case: dict[str, Any]) -> dict[str, float]:
    import numpy as np

    from workbench.analysis.symbols import split_label
    from workbench.suites.ranking import go_code_metrics, match_matrix

    expected = [list(split_label(label)) for label in case["expectedSymbols"]]

    def ndcg(ranked: list[tuple[str, str]]) -> float:
        relevant, first = match_matrix(ranked, expected)
        return float(go_code_metrics(relevant[None, :], first[None, :], np.array([len(expected)]))["ndcg@10"][0])

    def acc(ranked: list[tuple[str, str]]) -> float:
        relevant, _ = match_matrix(ranked[:10], expected)
        return float(int(relevant.sum()) >= len(expected))

    return {"ndcg@10": ndcg(hits), "acc@10": acc(hits), "pack ndcg@10": ndcg(pack), "pack acc@10": acc(pack)}


def builtin(root: Path, name: str, query: str) -> dict[str, list[Any]]:
    """The engine's file ranking, its search hits and its pack's symbols; the file ranking and the
    pack over the files the mined corpus's goldScope allows, as the control's (unless ``SCOPED`` is off)."""
    from workbench.contract import Repo
    from workbench.corpus.scope import MINED_SCOPE
    from workbench.reference.index import load_index
    from workbench.reference.pack import rank_files
    from workbench.reference.search import search_index
    from workbench.targets.builtin import BuiltinTarget

    repo = Repo(name, root)
    scope = MINED_SCOPE if SCOPED else None
    files = [path for _, path in rank_files(query, [repo], TOP_K, scope)]
    hits = [[h.file, h.symbol] for h in search_index(load_index(root), query, TOP_K)]
    pack = BuiltinTarget().context_pack(query, [repo], 8, scope)
    return {"files": files, "symbols": hits, "pack": [[s.path, s.name] for s in pack.symbols or []]}


def control(root: Path, name: str, query: str) -> list[Any]:
    """The product's ``bm25`` control's files (its pack, limit 10) over the files a mined corpus's
    goldScope allows, where this checkout has goldScope (issue 38), else over every file.
    Then its ``search`` hits (top 20) as (file, symbol) pairs, after a ``None``."""
    from workbench.contract import Repo
    from workbench.targets.controls import Bm25Target

    try:
        from workbench.corpus.scope import MINED_SCOPE  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        pack = Bm25Target().context_pack(query, [Repo(name, root)], 10)
    else:
        pack = Bm25Target().context_pack(query, [Repo(name, root)], 10, gold_scope=MINED_SCOPE)
    hits = Bm25Target().search(query, Repo(name, root), TOP_K)
    return [ref.path for ref in [*pack.primary, *pack.related]] + [None] + [[h.file, h.symbol] for h in hits]


def run_repo(corpus_path: Path, work: Path) -> list[dict[str, Any]]:
    """Per-case rows (engine, level, metrics) of one repository's corpus."""
    from workbench.corpus.load import load_corpus

    corpus = load_corpus(corpus_path)
    kept_path = work / f"{corpus_path.stem}-textbook.json"
    kept = json.loads(kept_path.read_text()) if kept_path.exists() else {}
    rows = []
    for case in corpus.cases("retrieval"):
        root = corpus.repo_dir(case["repoFixture"], case)
        if case["name"] not in kept:
            kept[case["name"]] = textbook(root, case["query"])
        book = kept[case["name"]]
        if None not in book.get("control", []):
            book["control"] = control(root, case["repoFixture"], case["query"])
        split = book["control"].index(None)
        book_control, control_hits = book["control"][:split], [tuple(h) for h in book["control"][split + 1 :]]
        mine = builtin(root, case["repoFixture"], case["query"])
        base = {"repo": case["repoFixture"], "case": case["name"], "words": len(words(case["query"]))}
        gold = case["expectedPrimary"]
        rows.append(base | {"engine": "builtin", "level": "file", **file_scores(mine["files"], gold)})
        for engine in ("textbook", "chunks"):
            rows.append(base | {"engine": engine, "level": "file", **file_scores(book[engine], gold)})
        rows.append(base | {"engine": "control", "level": "file", **file_scores(book_control, gold)})
        if case.get("expectedSymbols"):
            ranked = [tuple(h) for h in mine["symbols"]]
            pack = [tuple(h) for h in mine["pack"]]
            rows.append(base | {"engine": "builtin", "level": "symbol", **symbol_scores(ranked, pack, case)})
            deep = [tuple(h) for h in book["symbols"]]
            rows.append(base | {"engine": "textbook", "level": "symbol", **symbol_scores(deep[:TOP_K], deep, case)})
            found = symbol_scores(control_hits, control_hits, case)
            rows.append(base | {"engine": "control", "level": "symbol", **found})
    kept_path.write_text(json.dumps(kept))
    return rows


# ---- tables ----


def _groups(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    new = tuple(sorted({row["repo"] for row in rows} - NAMED))  # ``--half new``: repositories added since
    for half, repos in [*HALVES.items(), ("new", new)]:
        present = [r for r in repos if any(row["repo"] == r for row in rows)]
        groups.update({repo: [repo] for repo in present})
        if present:
            groups[f"{half} half"] = present
    return groups


def _paired(
    rows: list[dict[str, Any]], level: str, metric: str, other: str, their_metric: str | None = None
) -> dict[str, float]:
    """builtin against ``other`` on one metric (``their_metric`` for ``other`` if given), paired by case:
    mean difference with its 95% bootstrap interval (seed 0), wins/ties/losses, p."""
    import numpy as np

    from workbench.analysis import stats

    mine = {r["case"]: r[metric] for r in rows if r["level"] == level and r["engine"] == "builtin"}
    theirs = {r["case"]: r[their_metric or metric] for r in rows if r["level"] == level and r["engine"] == other}
    cases = sorted(set(mine) & set(theirs))
    a = np.array([mine[c] for c in cases], dtype=float)
    b = np.array([theirs[c] for c in cases], dtype=float)
    compared = stats.paired_comparison(b, a)  # its differences are a - b
    p = stats.mcnemar(a > 0, b > 0).p if metric.startswith("acc") else compared.p_wilcoxon
    return {
        "diff": compared.delta if cases else 0.0,
        "low": compared.ci_low,
        "high": compared.ci_high,
        "wins": compared.wins,
        "ties": compared.ties,
        "losses": compared.losses,
        "p": p,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``{group: {level: {engine: {cases, metrics...}}, "paired": ...}}`` per repository and half."""
    out: dict[str, Any] = {}
    for group, repos in _groups(rows).items():
        sel = [r for r in rows if r["repo"] in repos]
        cell: dict[str, Any] = {}
        for level, metrics in (("file", FILE_METRICS), ("symbol", SYMBOL_METRICS)):
            cell[level] = {}
            for engine in ("builtin", "textbook", "chunks", "control"):
                mine = [r for r in sel if r["level"] == level and r["engine"] == engine]
                if mine:
                    cell[level][engine] = {"cases": len(mine)} | {
                        m: sum(float(r[m]) for r in mine) / len(mine) for m in metrics
                    }
        if group.endswith("half"):
            cell["paired"] = {
                "file acc@5 vs textbook": _paired(sel, "file", "acc@5", "textbook"),
                "file acc@5 vs chunks": _paired(sel, "file", "acc@5", "chunks"),
                "file acc@5 vs control": _paired(sel, "file", "acc@5", "control"),
                "file mrr vs textbook": _paired(sel, "file", "mrr", "textbook"),
                "file mrr vs control": _paired(sel, "file", "mrr", "control"),
                "symbol ndcg@10 vs textbook": _paired(sel, "symbol", "ndcg@10", "textbook"),
                "symbol ndcg@10 vs control": _paired(sel, "symbol", "ndcg@10", "control"),
                "pack symbols ndcg@10 vs textbook": _paired(sel, "symbol", "pack ndcg@10", "textbook", "ndcg@10"),
            }
        out[group] = cell
    return out


def _cells(c: dict[str, float]) -> str:
    return " / ".join(f"{100 * c[m]:.1f}" if m != "mrr" else f"{c[m]:.3f}" for m in FILE_METRICS)


def render(result: dict[str, Any]) -> str:
    lines = [
        "File level (Acc@1 / Acc@5 / Acc@10 / MRR):",
        "| repo | cases | builtin | textbook (files) | chunks (best 3) | bm25 control | builtin - textbook Acc@5 |",
        "| --- | ---: | --- | --- | --- | --- | ---: |",
    ]
    for group, cell in result.items():
        c = cell["file"]
        shown = [_cells(c[e]) for e in ("builtin", "textbook", "chunks", "control")]
        margin = 100 * (c["builtin"]["acc@5"] - c["textbook"]["acc@5"])
        lines.append(f"| {group} | {c['builtin']['cases']} | " + " | ".join(shown) + f" | {margin:+.1f} |")
    lines += [
        "",
        "Function level (nDCG@10 / Acc@10; builtin's search, and its pack's symbols in the pack's order):",
        "| repo | cases | builtin search | builtin pack | textbook chunks | bm25 control | search - textbook |",
        "| --- | ---: | --- | --- | --- | --- | ---: |",
    ]
    for group, cell in result.items():
        c = cell["symbol"]
        if "builtin" not in c:
            continue
        b, t = c["builtin"], c["textbook"]
        lines.append(
            f"| {group} | {b['cases']} | {b['ndcg@10']:.3f} / {100 * b['acc@10']:.1f} | "
            f"{b['pack ndcg@10']:.3f} / {100 * b['pack acc@10']:.1f} | "
            f"{t['ndcg@10']:.3f} / {100 * t['acc@10']:.1f} | {c['control']['ndcg@10']:.3f} / "
            f"{100 * c['control']['acc@10']:.1f} | {b['ndcg@10'] - t['ndcg@10']:+.3f} |"
        )
    lines.append("")
    for group, cell in result.items():
        for name, p in cell.get("paired", {}).items():
            lines.append(
                f"{group}, builtin - {name}: {p['diff']:+.3f} [95% {p['low']:+.3f}, {p['high']:+.3f}] "
                f"(wins {p['wins']}, ties {p['ties']}, "
                f"losses {p['losses']}), p = {p['p']:.3g}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=REPO.parent / "shared" / "repos")
    parser.add_argument(
        "--half", choices=("dev", "held", "new", "all"), default="dev", help="new: bundles neither half names"
    )
    parser.add_argument("--cases", type=int, default=30, help="long-message cases per repository")
    parser.add_argument("--work", type=Path, default=None, help="keep corpora and textbook rankings here")
    parser.add_argument("--only", default=None, help="one repository of the half")
    parser.add_argument(
        "--body-words", default=f"{MIN_BODY_WORDS},{10**9}", help="LO,HI: keep bodies adding LO to HI (excluded) words"
    )
    parser.add_argument(
        "--fix-fresh", nargs="?", type=int, const=1, metavar="N", help="choose fresh held-out set N (1) once"
    )
    parser.add_argument("--fresh", nargs="?", type=int, const=1, metavar="N", help="measure fresh held-out set N (1)")
    parser.add_argument(
        "--unseen",
        action="store_true",
        help="development half only: cases shaped like the fresh set, chosen by its rule",
    )
    parser.add_argument(
        "--no-scope", action="store_true", help="builtin ranks every file (no goldScope; the control keeps it)"
    )
    parser.add_argument("--rows", type=Path, default=None, help="write per-case rows (JSON lines) here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    global SCOPED
    SCOPED = not args.no_scope
    names: tuple[str, ...] = HALVES["dev"] + HALVES["held"] if args.half == "all" else HALVES.get(args.half, ())
    if args.half == "new":
        names = tuple(sorted(p.stem for p in args.repos.glob("*.bundle") if p.stem not in NAMED))
        if not names:
            print(f"{args.repos}: no bundle besides the two halves' {len(NAMED)}: nothing new to measure")
            return
    names = HALVES["held"] if args.fresh or args.fix_fresh else names
    names = tuple(n for n in names if args.only in (None, n))
    bundles = [args.repos / f"{n}.bundle" for n in names if (args.repos / f"{n}.bundle").exists()]
    if not bundles:
        print(f"{args.repos}: none of {', '.join(names)} as *.bundle: nothing to measure")
        return
    work = Path(args.work or tempfile.mkdtemp(prefix="engine-long-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WORKBENCH_CACHE_DIR", str(work / "cache"))
    if args.fix_fresh:
        print(f"wrote {fix_fresh(bundles, work, args.cases, args.fix_fresh)}")
        return
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for bundle in bundles:
        low, high = (int(x) for x in args.body_words.split(","))
        if args.fresh:
            found = fresh_corpus(bundle, work, args.fresh)
            if found is None:
                continue
            corpus = found
        elif args.unseen:
            corpus = unseen_corpus(bundle, work, args.cases)
        else:
            corpus = build_corpus(bundle, work, args.cases, (low, high))
        rows += run_repo(corpus, work)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = summary(rows)
    if args.json:
        print(json.dumps({"seconds": time.perf_counter() - started, "tables": result}, indent=1))
        return
    measured = len({row["repo"] for row in rows})
    print(f"{measured} repositories, {time.perf_counter() - started:.0f} s ({work})")
    print(render(result))


if __name__ == "__main__":
    main()
