"""Issue 39 item 4: would a semantic leg help? An ablation on the development half, nothing shipped.

    pip install wordllama==0.4.0.post1   # its wheel ships a static token table and the tokenizer
    python bench/semantic_leg.py [--repos DIR] [--work DIR] [--cases 30] [--json]

**The leg.** WordLlama's 256-dimensional table (``l2_supercat_256``: one vector per token of the
Llama 2 tokenizer, 16 MB, inside the wheel, so nothing is downloaded) read straight from the package's
folder with ``tokenizers`` and ``safetensors`` (``WordLlama.load`` looks for its tokenizer in a folder
the wheel does not have and then tries the network). A text's vector is the mean of its tokens'
vectors, L2-normalised; ``sif`` weighs each token by ``a / (a + p(token))`` (a = 1e-3, p counted over
every text embedded here: smooth inverse frequency). A file's text is its path and its first 20,000
characters; a definition's is its name and its own lines (the symbol table's span).

**The cases.** The development half of ``bench/engine_long.py`` (werkzeug, commander, echo, viper): its
long set, its medium set (bodies of 4-14 words) and its unseen set, built by that script's own functions.
The held-out half is never read here.

**The fusion.** The leg re-ranks builtin's top 50 files (``pack._score``, the goldScope given) and
its top 50 ``search`` hits by the cosine between the task's vector and each candidate's: reciprocal-rank
fusion (k 60, the leg weighted ``w``), or builtin's score scaled to its best plus ``w`` times the
cosine z-scored over the candidates (``z``) or min-max scaled (``minmax``). Printed: file Acc@5 and
MRR, function nDCG@10 (the ranking suite's rules, ``engine_long.symbol_scores``). Results:
``bench/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engine_long  # noqa: E402

CANDIDATES = 50
FILE_CHARS = 20_000
SIF_A = 1e-3
FUSIONS = [("rrf", w) for w in (0.25, 0.5, 1.0)] + [
    (mode, w) for mode in ("z", "minmax") for w in (0.02, 0.05, 0.1, 0.2, 0.4)
]


class Table:
    """WordLlama's token table and tokenizer, read from the installed wheel."""

    def __init__(self) -> None:
        spec = importlib.util.find_spec("wordllama")
        if spec is None or spec.origin is None:
            raise SystemExit("wordllama is not installed: pip install wordllama==0.4.0.post1")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        home = Path(spec.origin).parent
        self.tokenizer = Tokenizer.from_file(str(home / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self.tokenizer.enable_truncation(4096)
        self.vectors = load_file(str(home / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
        self.vectors = self.vectors.astype(np.float32)
        self.ids: dict[str, list[int]] = {}

    def tokenize(self, texts: list[str]) -> None:
        """Token ids of ``texts`` not seen yet (special tokens dropped), kept by content."""
        new = list(dict.fromkeys(t for t in texts if _key(t) not in self.ids))
        for text, enc in zip(new, self.tokenizer.encode_batch(new), strict=True):
            self.ids[_key(text)] = [i for i in enc.ids if i > 2] or [0]

    def embed(self, texts: list[str], weights: np.ndarray | None) -> np.ndarray:
        """Mean-pooled, L2-normalised vectors of ``texts`` (tokenized before), tokens weighted by ``weights``."""
        out = np.zeros((len(texts), self.vectors.shape[1]), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = self.ids[_key(text)]
            v = self.vectors[ids] if weights is None else self.vectors[ids] * weights[ids, None]
            mean = v.mean(axis=0)
            out[row] = mean / (np.linalg.norm(mean) or 1.0)
        return out

    def sif_weights(self) -> np.ndarray:
        """Each token's ``SIF_A / (SIF_A + p)``, p its share of the tokens of every text tokenized."""
        counts = np.bincount(np.fromiter(itertools.chain.from_iterable(self.ids.values()), dtype=np.int64))
        p = np.zeros(len(self.vectors))
        p[: len(counts)] = counts / max(counts.sum(), 1)
        return (SIF_A / (SIF_A + p)).astype(np.float32)


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()


def _read(root: Path, path: str) -> str:
    try:
        return (root / path).read_text(errors="replace")
    except OSError:
        return ""


def candidates(corpus_path: Path) -> list[dict[str, Any]]:
    """Per case: gold, builtin's top files and search hits with their scores, and each one's text."""
    from workbench.corpus.load import load_corpus
    from workbench.corpus.scope import MINED_SCOPE
    from workbench.reference.index import load_index
    from workbench.reference.pack import _score, ranked
    from workbench.reference.query import analyse
    from workbench.reference.search import search_index
    from workbench.reference.symtable import symbol_table

    corpus = load_corpus(corpus_path)
    out = []
    for case in corpus.cases("retrieval"):
        root = corpus.repo_dir(case["repoFixture"], case)
        index, query = load_index(root), case["query"]
        scored = _score(index, analyse(query), MINED_SCOPE)
        files = [(float(s), index.files[d]) for s, _, d in itertools.islice(ranked([scored]), CANDIDATES)]
        table = symbol_table(index)
        span = {
            (index.files[f], name, int(line)): int(size)
            for f, name, line, size in zip(table.file, table.name, table.line, table.size, strict=True)
        }
        lines: dict[str, list[str]] = {}
        hits = []
        for hit in search_index(index, query, CANDIDATES):
            own = lines.setdefault(hit.file, _read(root, hit.file).splitlines())
            start = max((hit.line or 1) - 1, 0)
            body = own[start : start + max(span.get((hit.file, hit.symbol, hit.line or 0), 1), 1)]
            hits.append((hit.score or 0.0, hit.file, hit.symbol, hit.symbol + "\n" + "\n".join(body)))
        out.append(
            {
                "query": query,
                "gold": case["expectedPrimary"],
                "symbols": case.get("expectedSymbols") or [],
                "files": [(s, f, f + "\n" + _read(root, f)[:FILE_CHARS]) for s, f in files],
                "hits": hits,
            }
        )
    return out


def fused(scores: list[float], cosines: np.ndarray, mode: str, weight: float) -> list[int]:
    """Candidate order after fusing builtin's ``scores`` with the leg's ``cosines``."""
    s = np.asarray(scores, dtype=float)
    c = cosines.astype(float)
    if not len(s):
        return []
    if mode == "builtin":
        return list(range(len(s)))
    if mode == "leg":
        return list(np.argsort(-c, kind="stable"))
    if mode == "rrf":
        rank_s, rank_c = np.argsort(np.argsort(-s, kind="stable")), np.argsort(np.argsort(-c, kind="stable"))
        f = 1.0 / (60 + rank_s) + weight / (60 + rank_c)
    elif mode == "z":
        f = s / (s.max() or 1.0) + weight * (c - c.mean()) / (c.std() or 1.0)
    else:
        f = (s - s.min()) / ((s.max() - s.min()) or 1.0) + weight * (c - c.min()) / ((c.max() - c.min()) or 1.0)
    return list(np.argsort(-f, kind="stable"))


def cosines(cases: list[dict[str, Any]], table: Table, weights: np.ndarray | None) -> list[tuple[np.ndarray, ...]]:
    """Per case, the cosine between the task's vector and each candidate file's, then each hit's."""
    out = []
    for case in cases:
        q = table.embed([case["query"]], weights)[0]
        files = table.embed([f[2] for f in case["files"]], weights) @ q
        out.append((files, table.embed([h[3] for h in case["hits"]], weights) @ q))
    return out


def measure(cases: list[dict[str, Any]], legs: list[tuple[np.ndarray, ...]], mode: str, w: float) -> dict[str, float]:
    """File Acc@5 and MRR, function nDCG@10 of builtin's candidates in the fused order."""
    acc5 = mrr = ndcg = 0.0
    with_symbols = 0
    for case, (file_cos, hit_cos) in zip(cases, legs, strict=True):
        files, hits = case["files"], case["hits"]
        order = fused([f[0] for f in files], file_cos, mode, w)
        got = engine_long.file_scores([files[i][1] for i in order][:20], case["gold"])
        acc5, mrr = acc5 + got["acc@5"], mrr + got["mrr"]
        if case["symbols"]:
            ranked_hits = [(hits[i][1], hits[i][2]) for i in fused([h[0] for h in hits], hit_cos, mode, w)][:20]
            ndcg += engine_long.symbol_scores(ranked_hits, ranked_hits, {"expectedSymbols": case["symbols"]})["ndcg@10"]
            with_symbols += 1
    n = max(len(cases), 1)
    return {"acc@5": acc5 / n, "mrr": mrr / n, "ndcg@10": ndcg / max(with_symbols, 1), "cases": len(cases)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=engine_long.REPO.parent / "shared" / "repos")
    parser.add_argument("--work", type=Path, default=None, help="keep corpora here (engine_long's --work)")
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    table = Table()
    work = Path(args.work or tempfile.mkdtemp(prefix="semantic-leg-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WORKBENCH_CACHE_DIR", str(work / "cache"))
    bundles = [args.repos / f"{n}.bundle" for n in engine_long.HALVES["dev"] if (args.repos / f"{n}.bundle").exists()]
    if not bundles:
        raise SystemExit(f"{args.repos}: no development bundle (*.bundle) to measure")
    sets: dict[str, list[dict[str, Any]]] = {"long": [], "medium": [], "unseen": []}
    for bundle in bundles:
        sets["long"] += candidates(engine_long.build_corpus(bundle, work, args.cases))
        sets["medium"] += candidates(engine_long.build_corpus(bundle, work, args.cases, (4, 15)))
        sets["unseen"] += candidates(engine_long.unseen_corpus(bundle, work, args.cases))
    every = [case for cases in sets.values() for case in cases]
    table.tokenize([c["query"] for c in every] + [f[2] for c in every for f in c["files"]])
    table.tokenize([h[3] for c in every for h in c["hits"]])
    rows = []
    for pooling, weights in (("mean", None), ("sif", table.sif_weights())):
        legs = {name: cosines(cases, table, weights) for name, cases in sets.items()}
        legs["all"] = [leg for name in sets for leg in legs[name]]
        for mode, w in [("builtin", 0.0), ("leg", 0.0), *FUSIONS]:
            if mode == "builtin" and pooling == "sif":
                continue
            got = {name: measure(cases, legs[name], mode, w) for name, cases in {**sets, "all": every}.items()}
            rows.append({"pooling": pooling, "fusion": mode, "weight": w, "sets": got})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"development half, {len(every)} cases ({work})")
    print("| pooling | fusion | w | all: Acc@5 / MRR / nDCG@10 | long | medium | unseen |")
    print("| --- | --- | ---: | --- | --- | --- | --- |")
    for row in rows:
        cells = [
            f"{100 * s['acc@5']:.1f} / {s['mrr']:.3f} / {s['ndcg@10']:.3f}"
            for s in (row["sets"][k] for k in ("all", "long", "medium", "unseen"))
        ]
        print(f"| {row['pooling']} | {row['fusion']} | {row['weight']:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
