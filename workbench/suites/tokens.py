"""The token-savings suite: is the context pack smaller than a naive file dump, and is it right?

Per case the target packs the query (``limit=8``). **Pack tokens** are the tokens of the pack's
``text`` when it has one, else of its primary then related files (each once), each rendered as a
``--- <path>`` header line followed by the file's content. **Naive tokens** are the tokens of the
naive dump of every repository of the case (see ``naive_dump``). ``savings = 1 - pack / naive``.

Savings alone prove nothing: a random pack of the same size saves exactly as much as a perfect
one. So every case also reports ``recallAtK`` (corpus ``k``) of the pack's primary files against
``expectedPrimary``, taken from the case or, when it has none, from the retrieval case with the
same fixtures and query; unlabelled and pure-fallback cases report it as null. A case passes when
the pack is non-empty, smaller than the dump, and (if labelled) recalls every expected file.
A case the target failed saves nothing and recalls nothing (both 0).

Tokens are o200k (``workbench.tokens``), counted per part (header, content) and summed, each
distinct content encoded once per run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import metrics
from ..code.walk import list_files, read_text
from ..columns import CASE, METRIC, PASSED, VALUE
from ..contract import FileRef, Pack, Repo, ask_pack
from ..corpus import case_fixtures
from ..errors import TargetError
from ..tokens import TokenCounter
from .base import Outcome, RunContext, Scored, Suite
from .retrieval import PACK_LIMIT, doc_id

NAIVE_BUDGET = 20_000
# The dump's own definition, deliberately independent of the reference engine's vocabulary so
# engine changes never move the yardstick.
MANIFESTS = (
    "package.json",
    "tsconfig.json",
    "deno.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    "pipfile",
    "go.mod",
    "cargo.toml",
    "gemfile",
    "composer.json",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
)
SOURCE_SUFFIXES = (
    ".py",
    ".ts",
    ".tsx",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".rb",
    ".php",
    ".cs",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".swift",
    ".scala",
    ".vue",
    ".svelte",
    ".sql",
    ".sh",
)
METRICS = ("pack_tokens", "naive_tokens", "savings", "recallAtK")


@dataclass(frozen=True)
class NaiveDump:
    """What a grep-and-read agent loads from one repository: the files read and their tokens."""

    files: tuple[str, ...]
    tokens: int
    truncated: bool


def header(path: str) -> str:
    """The line that introduces a file in a pack or dump."""
    return f"--- {path}\n"


def naive_plan(listing: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split a listing into (always read: manifests then root READMEs, source files) in listing order."""

    def is_manifest(rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1].lower()
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in MANIFESTS)

    manifests = [rel for rel in listing if is_manifest(rel)]
    readmes = [rel for rel in listing if "/" not in rel and rel.lower().startswith("readme")]
    taken = set(manifests) | set(readmes)
    sources = [rel for rel in listing if rel not in taken and rel.lower().endswith(SOURCE_SUFFIXES)]
    return manifests + readmes, sources


def naive_dump(root: Path, counter: TokenCounter, budget: int = NAIVE_BUDGET) -> NaiveDump:
    """The naive dump of ``root``: the naive baseline every pack is measured against.

    1. the file listing (every path ``list_files`` keeps, one per line);
    2. every manifest (``MANIFESTS``, at any depth), then the README files at the root, whole;
    3. source files (``SOURCE_SUFFIXES``) in listing order, whole, until the dump reaches
       ``budget`` tokens; the file that crosses the budget is cut at it.

    Parts 1 and 2 are always read in full, even past the budget.
    """
    listing = list_files(root)
    always, sources = naive_plan(listing)
    fixed = counter.count("".join(f"{rel}\n" for rel in listing))
    fixed += sum(file_tokens(root, rel, counter) for rel in always)
    total, read = fixed, list(always)
    for rel in sources:
        if total >= budget:
            break
        read.append(rel)
        total += file_tokens(root, rel, counter)
    truncated = len(read) - len(always) < len(sources) or total > budget
    return NaiveDump(tuple(read), max(fixed, min(total, budget)), truncated)


def file_tokens(root: Path, rel: str, counter: TokenCounter) -> int:
    """Tokens of one file as a pack or dump renders it (header + content)."""
    return counter.count(header(rel)) + counter.count(read_text(root, rel))


def _inside(root: Path, rel: str) -> Path | None:
    """The file ``rel`` names under ``root``, or None if it is missing or escapes the repository."""
    candidate = (root / rel).resolve()
    return candidate if candidate.is_relative_to(root.resolve()) and candidate.is_file() else None


def pack_tokens(pack: Pack, roots: dict[str, Path], counter: TokenCounter) -> tuple[int, str, list[str]]:
    """(tokens, ``"text"`` or ``"files"``, files the pack named that do not exist)."""
    if pack.text.strip():
        return counter.count(pack.text), "text", []
    refs = list(dict.fromkeys((ref.repo, ref.path) for ref in [*pack.primary, *pack.related]))
    total, missing = 0, []
    for repo, rel in refs:
        root = roots.get(repo)
        found = _inside(root, rel) if root is not None else None
        total += counter.count(header(rel))
        if found is None or root is None:
            missing.append(f"{repo}/{rel}")
            continue
        total += counter.count(read_text(root, rel))
    return total, "files", missing


def expected_primary(case: dict[str, Any], retrieval: list[dict[str, Any]]) -> tuple[list[str] | None, str | None]:
    """The case's labels and where they came from (``case``, ``retrieval:<name>`` or None)."""
    if isinstance(case.get("expectedPrimary"), list):
        return list(case["expectedPrimary"]), "case"
    key = (case_fixtures(case), case["query"].strip())
    for other in retrieval:
        if other.get("repoFixture") or other.get("repoFixtures"):
            if (case_fixtures(other), str(other.get("query", "")).strip()) == key:
                return list(other.get("expectedPrimary", [])), f"retrieval:{other.get('name')}"
    return None, None


def _check_pack(pack: Any) -> Pack:
    if not isinstance(pack, Pack) or not all(isinstance(r, FileRef) for r in [*pack.primary, *pack.related]):
        raise TargetError(f"context_pack returned {type(pack).__name__}, expected a Pack of FileRefs")
    return pack


class TokensSuite(Suite):
    name = "tokens"
    capability = "context_pack"
    description = "pack tokens vs a naive dump (o200k), savings, and the pack's recall@k on the same query"

    def __init__(self, budget: int = NAIVE_BUDGET) -> None:
        self.budget = budget
        self.counter = TokenCounter()
        self._dumps: dict[str, NaiveDump] = {}

    def naive(self, root: Path) -> NaiveDump:
        """The naive dump of one fixture, computed once per run."""
        key = str(root)
        if key not in self._dumps:
            self._dumps[key] = naive_dump(root, self.counter, self.budget)
        return self._dumps[key]

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        names = case_fixtures(case)
        roots = {name: ctx.corpus.repo_dir(name, case) for name in names}
        pack = _check_pack(
            ask_pack(target, case["query"], [Repo(n, p) for n, p in roots.items()], PACK_LIMIT, ctx.corpus.gold_scope)
        )
        tokens, source, missing = pack_tokens(pack, roots, self.counter)
        dumps = [self.naive(root) for root in roots.values()]
        multi = len(names) > 1
        return {
            "primary": list(dict.fromkeys(doc_id(r, multi) for r in pack.primary)),
            "related": list(dict.fromkeys(doc_id(r, multi) for r in pack.related)),
            "pack_source": source,
            "pack_tokens": tokens,
            "missing_files": missing,
            "naive_tokens": sum(d.tokens for d in dumps),
            "naive_files": sum(len(d.files) for d in dumps),
            "naive_truncated": any(d.truncated for d in dumps),
        }

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        retrieval = ctx.corpus.cases("retrieval")
        labels = [expected_primary(o.case, retrieval) for o in outcomes]
        names = [o.name for o in outcomes]
        ranking = [
            (o.name, doc, rank)
            for o in outcomes
            if o.observation
            for rank, doc in enumerate(o.observation["primary"], 1)
        ]
        qrels = [(o.name, doc, 1) for o, (expected, _) in zip(outcomes, labels) for doc in expected or []]
        recall = metrics.evaluate(ranking, qrels, ["recallAtK"], k=ctx.corpus.k, cases=names)
        wide = pd.DataFrame(
            {
                CASE: names,
                "pack_tokens": [_seen(o, "pack_tokens") for o in outcomes],
                "naive_tokens": [_seen(o, "naive_tokens") for o in outcomes],
            }
        )
        wide["savings"] = np.where(wide["naive_tokens"] > 0, 1 - wide["pack_tokens"] / wide["naive_tokens"], np.nan)
        wide.loc[[o.error is not None for o in outcomes], "savings"] = 0.0
        wide["recallAtK"] = recall.set_index(CASE)[VALUE].reindex(names).to_numpy()
        rows = [self._case_row(o, rec, label) for o, rec, label in zip(outcomes, wide.to_dict("records"), labels)]
        scores = wide.melt(id_vars=CASE, value_vars=list(METRICS), var_name=METRIC, value_name=VALUE)
        return Scored(rows, scores)

    @staticmethod
    def _case_row(
        outcome: Outcome, values: dict[str, Any], label: tuple[list[str] | None, str | None]
    ) -> dict[str, Any]:
        seen = outcome.observation or {}
        expected, source = label
        non_empty = bool(seen.get("primary") or seen.get("related") or seen.get("pack_source") == "text")
        recall = values["recallAtK"]
        passed = outcome.error is None and non_empty and values["savings"] > 0 and (pd.isna(recall) or recall == 1.0)
        return {
            "case": outcome.name,
            PASSED: bool(passed),
            "query": outcome.case.get("query"),
            "fixtures": case_fixtures(outcome.case),
            **{m: _json_number(values[m]) for m in METRICS},
            "expected": expected,
            "labels_from": source,
            "primary": seen.get("primary", []),
            "related": seen.get("related", []),
            "pack_source": seen.get("pack_source"),
            "missing_files": seen.get("missing_files", []),
            "naive_files": seen.get("naive_files"),
            "naive_truncated": seen.get("naive_truncated"),
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        wide = scores.pivot_table(index=CASE, columns=METRIC, values=VALUE, aggfunc="first", dropna=False)
        wide = wide.reindex(columns=list(METRICS))
        counted = wide.dropna(subset=["pack_tokens", "naive_tokens"])
        labelled = wide.dropna(subset=["recallAtK"])
        pooled = (
            1 - counted["pack_tokens"].sum() / counted["naive_tokens"].sum()
            if counted["naive_tokens"].sum() > 0
            else np.nan
        )
        return {
            "meanSavings": _json_number(wide["savings"].mean()),
            "medianSavings": _json_number(wide["savings"].median()),
            "pooledSavings": _json_number(pooled),
            "meanRecall": _json_number(labelled["recallAtK"].mean()),
            "recallWeightedSavings": _json_number((labelled["savings"] * labelled["recallAtK"]).mean()),
        }


def _seen(outcome: Outcome, key: str) -> float:
    value = (outcome.observation or {}).get(key)
    return float(value) if isinstance(value, (int, float)) else np.nan


def _json_number(value: Any) -> float | None:
    """A plain float, or None for NaN (JSON has no NaN)."""
    return None if value is None or pd.isna(value) else float(value)
