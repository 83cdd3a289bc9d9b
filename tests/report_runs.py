"""Synthetic runs for the report tests and benchmark: seeded fake engine answers, real suite scoring.

Each target has a skill (the chance an expected item lands at the top); its answers go through the
suites' own ``score`` and the runner's ``suite_summary``, so the run directory has exactly the
fields and metrics a real ``workbench run`` writes. ``scale`` multiplies the number of cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.columns import ERROR, SUITE, TARGET
from workbench.run.summary import overall, skipped, suite_summary
from workbench.store.runs import write_run
from workbench.suites import Outcome, RunContext, get_suite

SKILL = {"builtin": 0.9, "bm25": 0.55, "random": 0.0}
FILES = {
    "shop-api": [
        "src/payment/checkout.service.ts",
        "src/payment/stripe.webhook.ts",
        "src/users/users.service.ts",
        "src/auth/roles.guard.ts",
        "src/orders/orders.controller.ts",
        "src/index.ts",
    ],
    "web-client": ["src/api/client.ts", "src/pages/EventPage.tsx", "src/components/RsvpButton.tsx"],
    "py-svc": ["app/users_service.py", "app/billing/invoice.py", "app/main.py", "app/db/models.py"],
}
SHAPES = (
    "{stem} logic",
    "GET /api/{stem}",
    "Error: {stem} failed to load",
    "{camel}",
    "{base}",
    "how does the {stem} code work when a user signs up",
)
CONCEPTS = ("money flow", "auth/security", "secret", "gate", "data migration")
THRESHOLDS = {"retrieval": {"precisionAtK": 0.85, "recallAtK": 0.9, "mrr": 0.9}, "risk": {"accuracy": 0.9}}


@dataclass
class FakeCorpus:
    """The corpus attributes the scoring code reads."""

    k: int = 5
    sections: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def cases(self, section: str) -> list[dict[str, Any]]:
        return self.sections.get(section, [])


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".")[0].replace("_", " ")


def retrieval_cases(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    cases = []
    for i in range(n):
        fixture = list(FILES)[i % len(FILES)]
        target = FILES[fixture][i % len(FILES[fixture])]
        stem = _stem(target)
        query = SHAPES[i % len(SHAPES)].format(
            stem=stem,
            camel=stem.title().replace(" ", "")[:1].lower() + stem.title().replace(" ", "")[1:],
            base=target.rsplit("/", 1)[-1],
        )
        case = {"name": f"case-{i:03d}", "query": query, "repoFixture": fixture, "expectedPrimary": [target]}
        if i % 7 == 3:
            case["expectedAnyOf"] = [f for f in FILES[fixture] if f != target][:2]
        if i % 11 == 5:
            case["expectedPrimary"] = []
        if i % 9 == 8:
            case = {
                "name": f"case-{i:03d}",
                "query": f"{stem} client pairing",
                "repoFixtures": ["shop-api", "web-client"],
                "expectedPrimary": [f"shop-api/{FILES['shop-api'][i % 6]}"],
                "expectedAnyOf": ["web-client/src/api/client.ts"],
            }
        cases.append(case)
    return cases


def _pool(case: dict[str, Any]) -> list[str]:
    names = case.get("repoFixtures") or [case["repoFixture"]]
    return [f"{n}/{f}" if len(names) > 1 else f for n in names for f in FILES[n]]


def pack(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
    pool, expected = _pool(case), case.get("expectedPrimary") or []
    others = [f for f in rng.permutation(pool).tolist() if f not in expected]
    placed = [
        (int(rng.integers(0, 2)) if rng.random() < skill else int(rng.integers(2, 8)), doc)
        for doc in expected
        if rng.random() < max(skill, 0.35)
    ]
    primary = others[: int(rng.integers(0, 2)) + int(4 * (1 - skill))]
    for rank, doc in sorted(placed):
        primary.insert(min(rank, len(primary)), doc)
    related = [f for f in (case.get("expectedAnyOf") or []) if rng.random() < skill] or others[4:5]
    reasons = {doc: "name match" for doc in primary[:2]} if skill > 0.5 else {}
    return {"primary": primary, "related": related, "reasons": reasons}


def risk_cases(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    modes = ("query", "path", "gate", "secret")
    cases = []
    for i in range(n):
        expected = sorted(rng.choice(CONCEPTS, size=int(rng.integers(0, 3)), replace=False).tolist())
        rest = [c for c in CONCEPTS if c not in expected]
        text_key = "query" if modes[i % 4] == "query" else "path"
        cases.append(
            {
                "name": f"risk-{i:03d}",
                "mode": modes[i % 4],
                text_key: f"{modes[i % 4]} text {i}",
                "expectedConcepts": expected,
                "notExpectedConcepts": [rest[i % len(rest)]],
            }
        )
    return cases


def concepts(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
    expected, forbidden = case["expectedConcepts"], case["notExpectedConcepts"]
    returned = {c for c in expected if rng.random() < max(skill, 0.3)}
    returned |= {c for c in forbidden if rng.random() > max(skill, 0.5)}
    return {
        "concepts": sorted(returned),
        "missing": sorted(set(expected) - returned),
        "unexpected": sorted(set(forbidden) & returned),
    }


def token_observation(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
    seen = pack(rng, case, skill)
    return {
        "primary": seen["primary"],
        "related": seen["related"],
        "pack_source": "files",
        "pack_tokens": int(rng.integers(400, 3000)),
        "missing_files": [],
        "naive_tokens": 20000,
        "naive_files": 40,
        "naive_truncated": True,
    }


def ranking_cases(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    sets = (("go-api", "go"), ("ts-web", "typescript"), ("py-svc", "python"))
    cases = []
    for i in range(n):
        name, language = sets[i % 3]
        cases.append(
            {
                "name": f"{name}/q{i:03d}",
                "query": f"where is symbol {i} handled",
                "repoFixture": name,
                "set": name,
                "expected": [[f"pkg/file{i % 13}.src", f"Sym{i}"]],
                "language": language,
                "category": ("lookup", "concept", "flow")[i % 3],
            }
        )
    return cases


def hits(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
    found = [[f"pkg/file{j}.src", f"Other{j}"] for j in rng.permutation(20)[:15].tolist()]
    if rng.random() < max(skill, 0.15):
        found.insert(int(rng.integers(0, 3) if rng.random() < skill else rng.integers(3, 15)), case["expected"][0])
    return {"hits": found[:20]}


def findings_cases(n: int) -> list[dict[str, Any]]:
    rules = ("jwt-secret-hardcoded", "missing-authz-check", "sql-injection", "unvalidated-input")
    return [
        {
            "name": f"gold-{i}",
            "tolerance": 3,
            "recorded": {"source": f"runs/gold-{i}.json"},
            "gold": {
                "expected_verdict": "BLOCK",
                "findings": [
                    {"file": f"src/f{j}.ts", "line": 10 * j, "rule_key": rules[(i + j) % 4], "severity": "MAJOR"}
                    for j in range(3)
                ],
            },
        }
        for i in range(n)
    ]


def review(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
    gold = [[f["rule_key"], f["file"]] for f in case["gold"]["findings"]]
    hit = rng.random(len(gold)) < skill
    return {
        "matched": [g for g, h in zip(gold, hit) if h],
        "missed": [g for g, h in zip(gold, hit) if not h],
        "extra": [["unvalidated-input", "src/extra.ts"]] if rng.random() > skill else [],
        "verdict": "BLOCK" if rng.random() < skill else "WARN",
    }


PLANS = {  # suite -> (case maker, answer maker, targets: None = every run target)
    "retrieval": (retrieval_cases, pack, None),
    "risk": (risk_cases, concepts, None),
    "tokens": (
        lambda rng, n: [
            {k: c[k] for k in ("name", "query", "repoFixture", "expectedPrimary")}
            for c in retrieval_cases(rng, n)
            if "repoFixture" in c
        ],
        token_observation,
        None,
    ),
    "ranking": (ranking_cases, hits, None),
    "findings": (lambda rng, n: findings_cases(max(2, n // 6)), review, {"reviewer-a": 0.8, "reviewer-b": 0.5}),
}
SIZES = {"retrieval": 22, "risk": 24, "tokens": 10, "ranking": 30, "findings": 12, "harness": 4}


def _score(
    suite_name: str,
    target: str,
    cases: list[dict[str, Any]],
    answers: list[dict[str, Any]],
    corpus: FakeCorpus,
    errors: dict[int, str],
) -> tuple[dict[str, Any], list[dict[str, Any]], pd.DataFrame]:
    suite = get_suite(suite_name)
    outcomes = [
        Outcome(case, None if i in errors else answer, errors.get(i), 0.01 + 0.002 * (i % 7))
        for i, (case, answer) in enumerate(zip(cases, answers))
    ]
    scored = suite.score(outcomes, RunContext(corpus=corpus))
    rows = [
        {SUITE: suite_name, TARGET: target, **row, ERROR: o.error, "seconds": o.seconds}
        for row, o in zip(scored.case_rows, outcomes)
    ]
    floors = THRESHOLDS.get(suite_name, {})
    summary = suite_summary(suite, scored.scores, pd.DataFrame(rows), floors)
    return summary, rows, scored.scores.assign(**{SUITE: suite_name, TARGET: target})


def build_run(
    out_dir: Path,
    seed: int = 0,
    targets: tuple[str, ...] = ("builtin", "bm25", "random"),
    suites: tuple[str, ...] = tuple(PLANS),
    scale: int = 1,
    run_id: str = "20261130T120000Z-synthetic",
    skill: dict[str, float] | None = None,
    plans: dict[str, Any] | None = None,
    error: str = "TargetError: engine timed out after 60s",
    skips: dict[tuple[str, str], str] | None = None,
    failing: tuple[str, ...] = ("bm25",),
) -> Path:
    """Write a synthetic run directory and return its path. ``plans`` replaces ``PLANS``' case and
    answer makers, ``error`` is each ``failing`` target's error on each suite's last case, ``skips``
    maps (suite, target) to the reason that pair was skipped."""
    plans = plans or PLANS
    rng = np.random.default_rng(seed)
    skills = {**SKILL, **(skill or {})}
    corpus = FakeCorpus(
        sections={"retrieval": retrieval_cases(np.random.default_rng(seed), SIZES["retrieval"] * scale)}
    )
    summaries: dict[str, dict[str, Any]] = {}
    all_rows, frames = [], []
    for suite_name in suites:
        make_cases, answer, agents = plans[suite_name]
        cases = make_cases(np.random.default_rng(seed), SIZES[suite_name] * scale)
        for target, level in (agents or {t: skills.get(t, 0.7) for t in targets}).items():
            if (suite_name, target) in (skips or {}):
                summaries.setdefault(suite_name, {})[target] = skipped((skips or {})[suite_name, target], {})
                continue
            answers = [answer(rng, case, level) for case in cases]
            errors = {len(cases) - 1: error} if target in failing else {}
            summary, rows, scores = _score(suite_name, target, cases, answers, corpus, errors)
            summaries.setdefault(suite_name, {})[target] = summary
            all_rows += rows
            frames.append(scores)
    manifest = {
        "run_id": run_id,
        "created": "2026-11-30T12:00:00Z",
        "corpus": {"path": "corpus/corpus.json", "sha256": "0" * 64, "k": corpus.k},
        "targets": [{"name": t, "spec": t, "version": "test"} for t in targets],
        "seed": seed,
    }
    summary = {"run_dir": None, **overall(summaries), "suites": summaries}
    return write_run(out_dir, run_id, manifest, summary, all_rows, pd.concat(frames, ignore_index=True))


Mark = Callable[[str], str]


def hostile_plans(mark: Mark) -> dict[str, Any]:
    """Case and answer makers whose every text field carries ``mark(field)``: case names, queries
    (a mined commit subject), fixture names, expected and returned files, reasons, risk texts and
    concepts, harness commands' stderr and reasons, golden ids, queries, sets, categories, rules."""
    fixture, wanted, found = mark("fixture name"), f"src/{mark('fixture file')}.ts", f"src/{mark('engine path')}.ts"

    def retrieval(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
        return [
            {
                "name": f"case-{i:03d} {mark('case name')}",
                "query": f"Fix refund {mark('mined query')}",
                "repoFixture": fixture,
                "expectedPrimary": [wanted] if i % 3 else [f"src/ok{i}.ts"],
                "shape": mark("shape"),
            }
            for i in range(n)
        ]

    def answer(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
        top = [*case["expectedPrimary"], found] if rng.random() < skill else [found]
        return {"primary": top, "related": [f"src/{mark('related path')}.ts"], "reasons": {found: mark("reason")}}

    def risk(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
        return [
            {
                "name": f"risk-{i:03d} {mark('risk case name')}",
                "mode": "query",
                "query": f"refund {mark('risk text')}",
                "expectedConcepts": [mark("concept")],
                "notExpectedConcepts": ["secret"],
            }
            for i in range(n)
        ]

    def harness(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
        command = {"kind": "test", "group": "validate", "command": f"npm test {mark('command')}"}
        return [
            {"name": f"h{i} {mark('harness case name')}", "repoFixture": fixture, "commands": [command]}
            for i in range(n)
        ]

    def ran(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
        row = {**case["commands"][0], "passed": rng.random() < skill, "executed": True, "exitCode": 1}
        return {
            "inferred": {"validate": [row["command"]]},
            "commands": [{**row, "stderrTail": mark("fixture test stderr"), "reason": mark("command reason")}],
        }

    def ranking(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
        return [
            {
                "name": f"{mark('golden set')}/q{i:03d} {mark('golden id')}",
                "query": f"where is {mark('golden query')}",
                "repoFixture": fixture,
                "set": mark("golden set"),
                "expected": [[f"pkg/{mark('golden path')}.go", "Sym"]],
                "language": mark("golden language"),
                "category": mark("golden category"),
            }
            for i in range(n)
        ]

    def review(rng: np.random.Generator, case: dict[str, Any], skill: float) -> dict[str, Any]:
        return {
            "matched": [],
            "missed": [[mark("rule"), "src/a.ts"]],
            "extra": [[mark("extra rule"), found]],
            "verdict": "WARN",
        }

    return {
        "retrieval": (retrieval, answer, None),
        "risk": (risk, concepts, None),
        "tokens": (PLANS["tokens"][0], token_observation, None),
        "harness": (harness, ran, None),
        "ranking": (ranking, hits, None),
        "findings": (lambda rng, n: findings_cases(2), review, {"reviewer-a": 0.8, "reviewer-b": 0.5}),
    }


def hostile_run(out_dir: Path, mark: Mark, seed: int = 0, run_id: str = "20261130T120000Z-hostile") -> Path:
    """A synthetic run with ``mark(field)`` in every text field a report page shows, bm25's errors
    and a skipped suite's reason included."""
    return build_run(
        out_dir,
        seed=seed,
        suites=("retrieval", "risk", "tokens", "harness", "ranking", "findings"),
        run_id=run_id,
        plans=hostile_plans(mark),
        error=f"TargetError: {mark('error')}",
        skips={("tokens", "random"): f"no context_pack {mark('skip reason')}"},
        failing=("bm25", "builtin"),
    )
