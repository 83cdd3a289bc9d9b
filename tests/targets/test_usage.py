"""Issue 23, part 2: a protocol answer's ``usage``, parsed strictly, kept per case and summed."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from workbench.contract import Usage, metered, record_usage
from workbench.corpus import load_corpus
from workbench.errors import TargetError
from workbench.options import RunOptions
from workbench.run.runner import run
from workbench.wire import parse_usage

from ..conftest import write_corpus

USAGE_ENGINE = Path(__file__).resolve().parent.parent / "engines" / "usage_engine.py"
SPEC = f"cmd:{sys.executable} {USAGE_ENGINE}"
NAME = f"cmd:{Path(sys.executable).name} usage_engine.py"  # the target's name in frames and summaries


def usage_corpus(root: Path, count: int) -> Path:
    """``count`` retrieval cases c0, c1, ...; the usage engine passes each (query ends with the path)."""
    src = root / "fixtures" / "api" / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / "a.ts").write_text("export const a = 1;\n")
    cases = [
        {"name": f"c{i}", "query": f"find {'word ' * i}src/a.ts", "repoFixture": "api", "expectedPrimary": ["src/a.ts"]}
        for i in range(count)
    ]
    return write_corpus(root, {"fixtureRoots": {"api": "fixtures/api"}, "retrieval": cases})


def test_parse_usage_keeps_each_known_part() -> None:
    body = {"usage": {"input_tokens": 12, "output_tokens": 3.0, "cost_usd": 0.25, "model": "m-1"}}
    assert parse_usage(body, "context_pack") == Usage(12, 3, 0.25, "m-1")
    assert parse_usage({"usage": {"cost_usd": 0}}, "search") == Usage(cost_usd=0.0)
    assert parse_usage({}, "context_pack") is None


@pytest.mark.parametrize(
    "usage, field",
    [
        ({"cost_usd": -0.1}, "usage.cost_usd"),
        ({"cost_usd": math.inf}, "usage.cost_usd"),
        ({"cost_usd": math.nan}, "usage.cost_usd"),
        ({"cost_usd": "0.1"}, "usage.cost_usd"),
        ({"input_tokens": 1.5}, "usage.input_tokens"),
        ({"output_tokens": True}, "usage.output_tokens"),
        ({"model": 3}, "usage.model"),
        ([1, 2], "'usage' should be an object"),
    ],
)
def test_bad_usage_is_a_target_error_naming_the_field(usage: object, field: str) -> None:
    with pytest.raises(TargetError, match=f"^context_pack: response field .*{field}"):
        parse_usage({"usage": usage}, "context_pack")


def test_usage_adds_known_parts_and_unknown_stays_unknown() -> None:
    total = Usage(10, None, 0.5, "a").plus(Usage(None, None, 0.25, "b")).plus(Usage(1, None, None, "a"))
    assert total == Usage(11, None, 0.75, "a,b")
    assert total.columns() == {"input_tokens": 11, "cost_usd": 0.75, "model": "a,b"}
    with metered() as read:
        record_usage(Usage(cost_usd=0.5))
        record_usage(Usage(cost_usd=0.25, model="m"))
    assert read() == Usage(None, None, 0.75, "m")
    with metered() as read:
        pass
    assert read() is None
    record_usage(Usage(cost_usd=1.0))  # outside a metered case: dropped, no error


def test_a_run_keeps_usage_per_case_and_sums_it_per_suite_and_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COST_USD", "0.0125")
    corpus = load_corpus(usage_corpus(tmp_path, 3))
    result = run(corpus, RunOptions(targets=[SPEC, "random"], out_dir=tmp_path / "runs", progress=False))
    cases = result.cases.set_index(["target", "case"])
    mine = cases.loc[NAME]
    assert list(mine["cost_usd"]) == [0.0125] * 3
    assert list(mine["input_tokens"]) == [2, 3, 4] and list(mine["output_tokens"]) == [7, 7, 7]
    assert set(mine["model"]) == {"paced-1"}
    assert cases.loc["random", "cost_usd"].isna().all()  # absent: unknown, never 0
    retrieval = result.summary["suites"]["retrieval"]
    assert retrieval[NAME]["usage"] == {
        "input_tokens": 9,
        "output_tokens": 21,
        "cost_usd": 0.0375,
        "models": ["paced-1"],
        "cases_reporting": 3,
        "cases_unknown": 0,
    }
    assert "usage" not in retrieval["random"]
    rows = [json.loads(line) for line in (result.path / "cases.jsonl").read_text().splitlines()]
    costs = {r["case"]: r.get("cost_usd") for r in rows if r["target"] == NAME}
    assert costs == dict.fromkeys(["c0", "c1", "c2"], 0.0125)
    assert all("cost_usd" not in r for r in rows if r["target"] == "random")


def test_bad_usage_fails_the_case_naming_the_field(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BAD_USAGE", json.dumps({"cost_usd": -1}))
    result = run(load_corpus(usage_corpus(tmp_path, 1)), RunOptions(targets=[SPEC], out_dir=tmp_path, progress=False))
    error = result.cases["error"].iloc[0]
    assert "usage.cost_usd" in error and "non-negative" in error


def test_usage_over_repeats_is_summed_per_case(tmp_path: Path) -> None:
    options = RunOptions(targets=[SPEC], out_dir=tmp_path / "runs", progress=False, repeat=3)
    result = run(load_corpus(usage_corpus(tmp_path, 2)), options)
    assert list(result.cases["cost_usd"]) == pytest.approx([0.03, 0.03])
    assert list(result.cases["input_tokens"]) == [6, 9]
    assert result.summary["suites"]["retrieval"][NAME]["usage"]["cost_usd"] == pytest.approx(0.06)


@pytest.mark.parametrize(
    "usage, key",
    [
        ({"cost_usd": 1e308, "input_tokens": 5}, "cost_usd"),
        ({"input_tokens": 2**63 - 1, "cost_usd": 0.5}, "input_tokens"),
        ({"output_tokens": 10**13}, "output_tokens"),
    ],
)
def test_absurd_usage_fails_its_case_and_no_sum_overflows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, usage: dict, key: str
) -> None:
    """Issue 41 item 9: 1e308 USD or 2^63-1 tokens per case failed nothing, summed to infinity (shown
    as unknown, and the scoreboard's axes failed) or clipped to 2^63 (a summary.json workbench then
    refused to read). Now each such case fails with one line naming the field, its usage is dropped,
    and the run's summary stays finite and readable."""
    from workbench.store import load_run

    monkeypatch.setenv("BAD_USAGE", json.dumps(usage))
    result = run(load_corpus(usage_corpus(tmp_path, 3)), RunOptions(targets=[SPEC], out_dir=tmp_path, progress=False))
    errors = result.cases.set_index("case")["error"]
    assert all(f"usage.{key}" in e and "for one case (absurd)" in e and "\n" not in e for e in errors), errors
    assert result.cases[[c for c in ("cost_usd", "input_tokens") if c in result.cases]].isna().all().all()
    assert "usage" not in result.summary["suites"]["retrieval"][NAME]  # dropped, never summed
    assert load_run(result.path).summary == json.loads((result.path / "summary.json").read_text())


def test_usage_sums_are_exact_and_an_overflowing_sum_is_refused_per_case() -> None:
    """Sums within a case that reach infinity are refused too; sums over cases are exact integers."""
    from workbench.run.summary import usage_totals

    half = Usage(cost_usd=1e308)
    assert half.problem() is not None and half.plus(half).problem() is not None
    assert Usage(10**12, 0, 1e6).problem() is None
    import pandas as pd

    cases = pd.DataFrame({"input_tokens": [10**12] * 3 + [None], "cost_usd": [0.1] * 3 + [None]})
    totals = usage_totals(cases)
    assert totals is not None and totals["input_tokens"] == 3 * 10**12 and totals["cost_usd"] == 0.3
    assert totals["cases_reporting"] == 3 and totals["cases_unknown"] == 1
