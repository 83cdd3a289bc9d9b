"""Why the ``bm25`` control trailed textbook BM25, measured one change at a time (issue 38).

    python bench/bm25_yardstick.py [--repos DIR] [--work DIR] [--per-repo 30] [--seed 0]
                                   [--half dev|held|all] [--part ablate|control|all] [--json]

**Development data** (``build_devdata``, reusable): every ``*.bundle`` of ``--repos`` is mined with
``workbench.mining.mine`` (the shipped filters and goldScope), and two corpora are written under
``--work``: ``mined.json`` (the mined cases as they are, query = the cleaned subject) and
``long.json`` (the cases whose commit body has at least ``MIN_BODY_WORDS`` words, query = the whole
message, subject and body, trailers and references dropped: it reads like an issue). Cases are split
by repository into a development half and a half looked at once (``HALVES``; written to
``halves.json``); the ablations read the half ``--half`` names.

**Ablations** (``--part ablate``): each case's tree at its revision (materialized as the retrieval
suite does), BM25Okapi (vectorized here, checked against rank-bm25 to 1e-6 on the first case) under
one configuration at a time, changed from the old control (every file ``list_files`` keeps, the
code-aware tokenizer, path + text, the query as given with repeated words, k1 1.5, b 0.75, whole
files): which files are indexed, the tokenizer, the fields, the query's form and term weights, k1,
b, and definition chunks (file score = sum of its best three). Acc@5 (every gold file in the top 5)
and MRR@5 per corpus.

**The control against the textbook** (``--part control``): ``workbench run --target bm25`` on each
corpus beside a from-scratch rank-bm25 ``BM25Okapi`` over the same revisions: files listed by
``git ls-tree`` and read by ``git cat-file``, kept by the corpus's goldScope, code only, one
document per file (path + text), the control's tokenizer; Acc@5 and MRR side by side. Results are
recorded in ``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

HALVES = {
    "dev": ("werkzeug", "commander", "echo", "viper"),
    "held": ("attrs", "koa", "ky", "logrus"),
}
MIN_BODY_WORDS = 12
K = 5
_WORDS = re.compile(r"\w+")


# ---------------------------------------------------------------- development data


def full_message(subject: str, body: str) -> str:
    """The cleaned subject and every paragraph of the body (trailers and references dropped)."""
    from workbench.mining.queries import clean_subject, first_paragraph

    parts = [clean_subject(subject)]
    for block in re.split(r"\n\s*\n", body.strip()):
        text = first_paragraph(block)
        if text:
            parts.append(text)
    return ". ".join(p for p in parts if p)


def _message(git_dir: Path, sha: str) -> tuple[str, str]:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "log", "-1", "--format=%s%x00%b", sha],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    subject, _, body = out.partition("\0")
    return subject.strip(), body


def build_devdata(repos: Path, work: Path, per_repo: int, seed: int) -> dict[str, Path]:
    """Mine every bundle of ``repos`` into ``work/mined.json`` and ``work/long.json`` (reused when
    present) and record the halves; the two corpora's paths by name."""
    from workbench.mining.mine import mine_corpus
    from workbench.options import MineOptions

    mined, long = work / "mined.json", work / "long.json"
    if mined.exists() and long.exists():
        return {"mined": mined, "long": long}
    names = [n for n in HALVES["dev"] + HALVES["held"] if (repos / f"{n}.bundle").exists()]
    all_cases: list[dict[str, Any]] = []
    scope: Any = None
    roots: dict[str, str] = {}
    for name in names:
        part = work / f"mined-{name}.json"
        if not part.exists():
            options = MineOptions(out=part, max_cases=per_repo * 4, seed=seed, progress=False)
            mine_corpus(repos / f"{name}.bundle", options)
        data = json.loads(part.read_text())
        scope = data.get("goldScope")
        roots.update({k: str((part.parent / v).resolve()) for k, v in data["fixtureRoots"].items()})
        all_cases += data["retrieval"]
    long_cases = []
    for case in all_cases:
        from workbench.corpus.sources import open_repo

        git_dir = open_repo(roots[case["repoFixture"]]).git_dir
        subject, body = _message(git_dir, case["source"]["commit"])
        if len(_WORDS.findall(body)) >= MIN_BODY_WORDS:
            long_cases.append({**case, "query": full_message(subject, body)})
    per: dict[str, int] = {}
    picked = []
    for case in long_cases:
        per[case["repoFixture"]] = per.get(case["repoFixture"], 0) + 1
        if per[case["repoFixture"]] <= per_repo:
            picked.append(case)
    base = {"k": K, "fixtureRoots": roots, **({"goldScope": scope} if scope else {})}
    mined.write_text(json.dumps({**base, "retrieval": [c for c in all_cases if _first(c, all_cases, per_repo)]}))
    long.write_text(json.dumps({**base, "retrieval": picked}))
    (work / "halves.json").write_text(json.dumps(HALVES))
    return {"mined": mined, "long": long}


def _first(case: dict[str, Any], cases: list[dict[str, Any]], n: int) -> bool:
    same = [c["name"] for c in cases if c["repoFixture"] == case["repoFixture"]]
    return same.index(case["name"]) < n


# ---------------------------------------------------------------- configurations


@dataclass(frozen=True)
class Config:
    """One way to run BM25 over a case's tree."""

    files: str = "walk"  # walk | code | no-tests | scope | scope+code
    tokenizer: str = "code"  # code | word | word+code | code-stop
    fields: str = "path+text"  # path+text | text | path
    query: str = "as-given"  # as-given | subject | first-paragraph
    terms: str = "repeats"  # repeats | unique | no-stop
    k1: float = 1.5
    b: float = 0.75
    chunks: str = "file"  # file | definitions


OLD = Config()


def tokenizer(name: str) -> Callable[[str], list[str]]:
    from workbench.reference.text import STOP_WORDS, tokens

    def word(text: str) -> list[str]:
        return _WORDS.findall(text.lower())

    if name == "code":
        return tokens
    if name == "word":
        return word
    if name == "word+code":
        return lambda text: word(text) + tokens(text)
    if name == "code-stop":
        return lambda text: [t for t in tokens(text) if t not in STOP_WORDS]
    raise ValueError(name)


def kept_files(paths: list[str], rule: str) -> list[str]:
    from workbench.code.kinds import excluded_by, is_code

    scope = ("tests", "docs", "examples", "generated")
    keep = {
        "walk": lambda p: True,
        "code": is_code,
        "no-tests": lambda p: excluded_by(p, ("tests",)) is None,
        "scope": lambda p: excluded_by(p, scope) is None,
        "scope+code": lambda p: excluded_by(p, (*scope, "non-code")) is None,
    }[rule]
    return [p for p in paths if keep(p)]


_TOKEN_CACHE: dict[tuple[str, str], Any] = {}
_CHUNK_CACHE: dict[tuple[str, str], list[str]] = {}
VOCAB: dict[str, int] = {}  # every token seen, as one global id


def ids(terms: list[str]) -> Any:
    import numpy as np

    return np.fromiter((VOCAB.setdefault(t, len(VOCAB)) for t in terms), dtype=np.int64, count=len(terms))


def doc_ids(text: str, tok: str) -> Any:
    """The global token ids of ``text`` under tokenizer ``tok`` (memoised by content)."""
    key = (hashlib.sha1(text.encode("utf-8", "replace")).hexdigest(), tok)
    found = _TOKEN_CACHE.get(key)
    if found is None:
        found = _TOKEN_CACHE[key] = ids(tokenizer(tok)(text))
    return found


def chunks_of(rel: str, text: str) -> list[str]:
    """The control's definition chunks of a file (``controls.file_chunks``), memoised by content."""
    from workbench.targets.controls import file_chunks

    key = (rel, hashlib.sha1(text.encode("utf-8", "replace")).hexdigest())
    if key not in _CHUNK_CACHE:
        _CHUNK_CACHE[key] = file_chunks(rel, text)
    return _CHUNK_CACHE[key]


def documents(root: Path, files: list[str], config: Config) -> tuple[list[str], list[Any]]:
    """(owning file, token ids) per document of ``files`` under ``config``'s fields and chunks."""
    import numpy as np

    from workbench.code.walk import read_text

    owners, docs = [], []
    tok = tokenizer(config.tokenizer)
    empty = np.zeros(0, dtype=np.int64)
    for rel in files:
        text = read_text(root, rel)
        path = ids(tok(rel.replace("/", " "))) if config.fields != "text" else empty
        if config.chunks == "definitions" and config.fields != "path":
            for chunk in chunks_of(rel, text):
                owners.append(rel)
                docs.append(np.concatenate([path, doc_ids(chunk, config.tokenizer)]))
            continue
        owners.append(rel)
        docs.append(np.concatenate([path, doc_ids(text, config.tokenizer) if config.fields != "path" else empty]))
    return owners, docs


# ---------------------------------------------------------------- BM25Okapi, vectorized


def okapi_scores(docs: list[Any], query: Any, k1: float, b: float) -> Any:
    """rank-bm25 ``BM25Okapi(docs).get_scores(query)`` (epsilon 0.25) over token-id arrays, with numpy
    and scipy (checked against rank-bm25 itself on the first case)."""
    import numpy as np
    from scipy.sparse import csc_matrix

    n = len(docs)
    flat = np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64)
    if not flat.size:
        return np.zeros(n)
    vocab, cols = np.unique(flat, return_inverse=True)
    rows = np.repeat(np.arange(n), [len(d) for d in docs])
    tf = csc_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, len(vocab)))
    tf.sum_duplicates()
    df = np.diff(tf.indptr).astype(float)
    idf = np.log(n - df + 0.5) - np.log(df + 0.5)
    idf = np.where(idf < 0, 0.25 * idf.mean(), idf)
    dl = np.array([len(d) for d in docs], dtype=float)
    norm = k1 * (1 - b + b * dl / dl.mean())
    scores = np.zeros(n)
    terms, times = np.unique(query, return_counts=True)
    at = np.searchsorted(vocab, terms)
    for col, count, term in zip(at, times, terms, strict=True):
        if col < len(vocab) and vocab[col] == term:
            f = tf[:, col].toarray().ravel()
            scores += count * idf[col] * f * (k1 + 1) / (f + norm)
    return scores


def ranked_files(owners: list[str], scores: Any, chunks: str) -> list[str]:
    """Files by score (definitions: the sum of a file's best three chunks), ties by path, score > 0."""
    best: dict[str, list[float]] = {}
    for owner, s in zip(owners, scores):
        if s > 0:
            best.setdefault(owner, []).append(float(s))
    total = {f: sum(sorted(v, reverse=True)[:3]) if chunks == "definitions" else v[0] for f, v in best.items()}
    return sorted(total, key=lambda f: (-total[f], f))


def case_query(case: dict[str, Any], form: str, git_dirs: dict[str, Path]) -> str:
    from workbench.mining.queries import build_query

    if form == "as-given":
        return case["query"]
    subject, body = _message(git_dirs[case["repoFixture"]], case["source"]["commit"])
    return build_query(subject, body, with_body=form == "first-paragraph")


def query_terms(text: str, config: Config) -> Any:
    from workbench.reference.text import STOP_WORDS

    terms = tokenizer(config.tokenizer)(text)
    if config.terms == "unique":
        terms = list(dict.fromkeys(terms))
    if config.terms == "no-stop":
        terms = [t for t in terms if t not in STOP_WORDS]
    return ids(terms)


def measure(ranking: list[str], gold: list[str]) -> tuple[float, float]:
    """Acc@5 (every gold file in the top 5) and reciprocal rank within 5."""
    top = ranking[:K]
    ranks = [top.index(g) + 1 for g in gold if g in top]
    return float(all(g in top for g in gold)), (1.0 / min(ranks) if ranks else 0.0)


ABLATIONS: list[tuple[str, Config]] = [
    ("old control", OLD),
    ("files: code only", replace(OLD, files="code")),
    ("files: no tests", replace(OLD, files="no-tests")),
    ("files: goldScope (no tests, docs, examples, generated)", replace(OLD, files="scope")),
    ("files: goldScope + code only", replace(OLD, files="scope+code")),
    ("tokenizer: plain word regex", replace(OLD, tokenizer="word")),
    ("tokenizer: words + code-aware parts", replace(OLD, tokenizer="word+code")),
    ("tokenizer: code-aware, stop words dropped", replace(OLD, tokenizer="code-stop")),
    ("fields: text only", replace(OLD, fields="text")),
    ("fields: path only", replace(OLD, fields="path")),
    ("query: subject only", replace(OLD, query="subject")),
    ("query: subject + first paragraph", replace(OLD, query="first-paragraph")),
    ("query terms: each word once", replace(OLD, terms="unique")),
    ("query terms: stop words dropped", replace(OLD, terms="no-stop")),
    ("k1 0.9", replace(OLD, k1=0.9)),
    ("k1 1.2", replace(OLD, k1=1.2)),
    ("k1 2.0", replace(OLD, k1=2.0)),
    ("b 0.3", replace(OLD, b=0.3)),
    ("b 0.5", replace(OLD, b=0.5)),
    ("b 0.9", replace(OLD, b=0.9)),
    ("b 1.0", replace(OLD, b=1.0)),
    ("chunks: definitions, best three summed", replace(OLD, chunks="definitions")),
]
NEW = replace(OLD, files="scope", chunks="definitions")
COMBINED: list[tuple[str, Config]] = [
    ("new control: goldScope files, definition chunks (best three)", NEW),
    ("new control, whole files", replace(NEW, chunks="file")),
    ("new control, code files only", replace(NEW, files="scope+code")),
    ("new control, every file list_files keeps", replace(NEW, files="walk")),
    ("new control, plain word regex", replace(NEW, tokenizer="word")),
    ("new control, words and code-aware parts", replace(NEW, tokenizer="word+code")),
    ("new control, each query word once", replace(NEW, terms="unique")),
    ("new control, k1 1.2", replace(NEW, k1=1.2)),
    ("new control, b 0.5", replace(NEW, b=0.5)),
]


def ablate(corpus_path: Path, repos: tuple[str, ...], configs: list[tuple[str, Config]]) -> dict[str, Any]:
    """Acc@5 and MRR@5 of each configuration over the corpus's cases in ``repos``."""
    from workbench.code.walk import list_files
    from workbench.corpus import load_corpus
    from workbench.corpus.sources import open_repo

    corpus = load_corpus(corpus_path)
    cases = [c for c in corpus.cases("retrieval") if c["repoFixture"] in repos]
    git_dirs = {n: open_repo(corpus.fixture_dir(n)).git_dir for n in {c["repoFixture"] for c in cases}}
    sums = {label: [0.0, 0.0] for label, _ in configs}
    checked = False
    for case in cases:
        root = corpus.repo_dir(case["repoFixture"], case)
        listed = list_files(root)
        for label, config in configs:
            owners, docs = documents(root, kept_files(listed, config.files), config)
            terms = query_terms(case_query(case, config.query, git_dirs), config)
            scores = okapi_scores(docs, terms, config.k1, config.b)
            if not checked and docs:
                _check_against_rank_bm25(docs, terms, scores)
                checked = True
            acc, rr = measure(ranked_files(owners, scores, config.chunks), case["expectedPrimary"])
            sums[label][0] += acc
            sums[label][1] += rr
    n = max(len(cases), 1)
    return {"cases": len(cases), "rows": {label: (100 * a / n, 100 * r / n) for label, (a, r) in sums.items()}}


def _check_against_rank_bm25(docs: list[Any], terms: Any, scores: Any) -> None:
    from rank_bm25 import BM25Okapi

    words = list(VOCAB)
    worst = float(
        abs(BM25Okapi([[words[i] for i in d] for d in docs]).get_scores([words[i] for i in terms]) - scores).max()
    )
    if worst > 1e-6:
        raise SystemExit(f"vectorized BM25Okapi differs from rank-bm25 by {worst}")


# ---------------------------------------------------------------- the control against rank-bm25


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, check=True).stdout


def _blobs(git_dir: Path, revision: str, exclude: list[str]) -> list[tuple[str, bytes]]:
    """(path, bytes) of every file at ``revision`` goldScope allows: listed by ``git ls-tree``, read by
    ``git cat-file --batch``; binary files (a NUL in the first 8 KiB), those over 512 KiB and those under
    a dot-directory or a vendored or build directory are left out, as a checkout's walk leaves them."""
    from workbench.code.kinds import excluded_by

    fmt = "--format=%(objecttype) %(objectname) %(objectsize) %(path)"
    listing = _git(git_dir, "ls-tree", "-r", "-z", fmt, revision).decode("utf-8", "replace")
    skip = {"node_modules", "vendor", "third_party", "dist", "build", "out", "target", "coverage"}
    files = []
    for row in listing.split("\0"):
        if not row.startswith("blob "):
            continue
        _, sha, size, path = row.split(" ", 3)
        parts = path.split("/")
        if int(size) > 512 * 1024 or any(p.startswith(".") or p in skip for p in parts[:-1]):
            continue
        if parts[-1].endswith((".min.js", ".min.css", ".map", ".lock")) or excluded_by(path, exclude) is not None:
            continue
        files.append((path, sha))
    batch = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input="".join(f"{sha}\n" for _, sha in files).encode(),
        capture_output=True,
        check=True,
    ).stdout
    out, at = [], 0
    for path, _ in files:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        data = batch[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
        if b"\0" not in data[:8192]:
            out.append((path, data))
    return out


def scratch_chunks(path: str, data: bytes) -> list[str]:
    """Definition chunks written again here: outermost ``definition_ranges`` spans, then the other lines."""
    from workbench.code.enclosing import definition_ranges

    lines = data.decode("utf-8", "replace").split("\n")
    taken: list[tuple[int, int]] = []
    for _, first, last in sorted(definition_ranges(path, data), key=lambda r: (r[1], -r[2])):
        if not taken or first > taken[-1][1]:
            taken.append((first, last))
    inside = {n for first, last in taken for n in range(first, last + 1)}
    rest = "\n".join(line for n, line in enumerate(lines, 1) if n not in inside)
    chunks = ["\n".join(lines[first - 1 : last]) for first, last in taken]
    return chunks + [rest] if rest.strip() or not chunks else chunks


def scratch_ranking(git_dir: Path, revision: str, query: str, exclude: list[str]) -> list[str]:
    """rank-bm25 BM25Okapi over the definition chunks of the files goldScope allows at ``revision``
    (each chunk: path + text, the control's tokenizer); a file scores the sum of its best three."""
    from rank_bm25 import BM25Okapi

    from workbench.reference.text import tokens

    owners, docs = [], []
    for path, data in _blobs(git_dir, revision, exclude):
        for chunk in scratch_chunks(path, data):
            owners.append(path)
            docs.append(tokens(path.replace("/", " ")) + tokens(chunk))
    if not docs:
        return []
    scores = BM25Okapi(docs).get_scores(tokens(query))
    best: dict[str, list[float]] = {}
    for owner, score in zip(owners, scores, strict=True):
        if score > 0:
            best.setdefault(owner, []).append(float(score))
    total = {f: sum(sorted(v, reverse=True)[:3]) for f, v in best.items()}
    return sorted(total, key=lambda f: (-total[f], f))


def control_part(corpus_path: Path, out: Path) -> dict[str, Any]:
    """``workbench run --target bm25`` on the corpus beside the from-scratch rank-bm25 ranking."""
    from workbench.corpus import load_corpus
    from workbench.corpus.sources import open_repo

    run_dir = out / f"run-{corpus_path.stem}"
    if not run_dir.exists():
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "run", "--corpus", str(corpus_path), "--suite", "retrieval"]
            + ["--target", "bm25", "--target", "guess", "--out", str(run_dir)],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
        )
        print(f"  workbench run {corpus_path.name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
        if done.returncode not in (0, 1):
            raise SystemExit(f"workbench run failed: {done.stderr[-600:]}")
    runs = sorted(run_dir.glob("*/cases.jsonl")) or sorted(run_dir.glob("cases.jsonl"))
    rows = [json.loads(line) for p in runs for line in p.read_text().splitlines()]
    corpus = load_corpus(corpus_path)
    exclude = list((corpus.data.get("goldScope") or {}).get("exclude", []))
    git_dirs = {n: open_repo(p).git_dir for n, p in corpus.fixtures.items()}
    by_case = {c["name"]: c for c in corpus.cases("retrieval")}
    totals: dict[str, list[float]] = {"bm25": [0, 0], "guess": [0, 0], "rank-bm25": [0, 0]}
    for row in rows:
        if row.get("suite") == "retrieval" and row["target"] in totals and row.get("expected"):
            acc, rr = measure(row.get("returned") or [], row["expected"])
            totals[row["target"]][0] += acc
            totals[row["target"]][1] += rr
    for case in by_case.values():
        ranking = scratch_ranking(git_dirs[case["repoFixture"]], case["revision"], case["query"], exclude)
        acc, rr = measure(ranking, case["expectedPrimary"])
        totals["rank-bm25"][0] += acc
        totals["rank-bm25"][1] += rr
    n = max(len(by_case), 1)
    return {"cases": len(by_case), "rows": {t: (100 * a / n, 100 * r / n) for t, (a, r) in totals.items()}}


# ---------------------------------------------------------------- output


def table(title: str, result: dict[str, Any]) -> str:
    lines = [f"{title} ({result['cases']} cases)", "| configuration | Acc@5 % | MRR@5 % |", "| --- | ---: | ---: |"]
    lines += [f"| {label} | {acc:.1f} | {mrr:.1f} |" for label, (acc, mrr) in result["rows"].items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=REPO.parent / "shared" / "repos")
    parser.add_argument("--work", type=Path, default=None, help="keep the development data and runs here")
    parser.add_argument("--per-repo", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--half", choices=("dev", "held", "all"), default="dev")
    parser.add_argument("--part", choices=("ablate", "control", "all"), default="all")
    parser.add_argument("--corpus", choices=("mined", "long", "both"), default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bm25-yardstick-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WORKBENCH_CACHE_DIR", str(work / "cache"))
    corpora = build_devdata(args.repos, work, args.per_repo, args.seed)
    names = ("mined", "long") if args.corpus == "both" else (args.corpus,)
    repos = HALVES["dev"] + HALVES["held"] if args.half == "all" else HALVES[args.half]
    out: dict[str, Any] = {"work": str(work), "half": args.half, "load_avg": os.getloadavg()[0]}
    for name in names:
        if args.part in ("ablate", "all"):
            out[f"{name}: ablations, {args.half} half"] = ablate(corpora[name], repos, ABLATIONS + COMBINED)
        if args.part in ("control", "all"):
            out[f"{name}: control against rank-bm25, all repositories"] = control_part(corpora[name], work)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"work {work}, load {out['load_avg']:.1f}")
    for title, result in out.items():
        if isinstance(result, dict):
            print("\n" + table(title, result))


if __name__ == "__main__":
    main()
