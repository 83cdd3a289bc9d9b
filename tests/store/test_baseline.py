"""Baselines: the diffable file, floors, the corpus and EVALS.md edits, and the re-record loop."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.analysis.comparison import compare, resolve_side
from workbench.analysis.regressions import baseline_section, regression_keys
from workbench.errors import StoreError, UsageError
from workbench.paths import Locations
from workbench.run.runner import run_eval
from workbench.store.baselines import Baseline, dumps_baseline, list_baselines, load_baseline, record_baseline
from workbench.store.floors import END, START, pass_rate_floor, replace_thresholds, slack_floor

from ..analysis.test_compare import make_run
from ..concurrency import race
from ..conftest import engine_spec

CORPUS = """{
  "description": "test corpus",
  "k": 5,
  "thresholds": {
    "comment": "Floors are baseline minus slack.",
    "retrieval": {"precisionAtK": 0.5, "mrr": 0.5}
  },
  "retrieval": [
    {"name": "a",   "query": "q"}
  ]
}
"""


def _run(corpus: Path, risk_passed: int = 22, target: str = "builtin"):
    """22 retrieval cases (mrr and p@k) and 22 risk cases of which ``risk_passed`` pass."""
    rng = np.random.default_rng(0)
    mrr, prec = rng.choice([1.0, 0.5, 1 / 3], 22), rng.choice([1.0, 0.8, 0.6], 22)
    values = {
        "retrieval": {f"r{i:02d}": {"precisionAtK": prec[i], "mrr": mrr[i]} for i in range(22)},
        "risk": {f"k{i:02d}": {"accuracy": float(i < risk_passed)} for i in range(22)},
    }
    run = make_run("R1", values, target=target)
    run.manifest["corpus"] = {"path": str(corpus), "sha256": hashlib.sha256(corpus.read_bytes()).hexdigest()}
    run.manifest["git_commit"] = "abc123"
    run.summary = {
        "suites": {
            "retrieval": {
                target: {
                    "cases": 22,
                    "scored": 22,
                    "passed_cases": 22,
                    "errors": 0,
                    "skipped": None,
                    "metrics": {"precisionAtK": prec.mean(), "mrr": mrr.mean()},
                }
            },
            "risk": {
                target: {
                    "cases": 22,
                    "scored": 22,
                    "passed_cases": risk_passed,
                    "errors": 0,
                    "skipped": None,
                    "metrics": {"accuracy": risk_passed / 22},
                }
            },
        }
    }
    return run


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus" / "corpus.json"
    path.parent.mkdir()
    path.write_text(CORPUS)
    (tmp_path / "EVALS.md").write_text(f"# Evals\n\n## Current baseline\n\n{START}\nold table\n{END}\n\nAfter.\n")
    return path


def test_pass_rate_floor_is_tripped_by_one_more_failure() -> None:
    assert pass_rate_floor(1.0, 22) == 0.96  # the seed: 21/22 = 0.955 < 0.96
    assert pass_rate_floor(1.0, 16) == 0.94  # 15/16 = 0.9375 < 0.94
    assert pass_rate_floor(21 / 22, 22) == 0.91
    assert pass_rate_floor(0.0, 5) == 0.0
    assert pass_rate_floor(0.5, 3) is None  # not a fraction of 3 cases
    for n in range(1, 80):
        for k in range(1, n + 1):
            floor = Fraction(pass_rate_floor(k / n, n)).limit_denominator(10**9)
            assert Fraction(k - 1, n) < floor <= Fraction(k, n), (k, n)


def test_slack_floor_rounds_down_to_a_readable_number() -> None:
    assert slack_floor(0.873, 0.02) == 0.85
    assert slack_floor(0.87, 0.02) == 0.85
    assert slack_floor(1.0, 0.1) == 0.9
    assert slack_floor(0.8765, 0.005) == 0.871
    assert slack_floor(0.01, 0.02) == 0.0


def test_record_writes_a_diffable_file_and_refuses_to_overwrite(corpus: Path) -> None:
    path = record_baseline(_run(corpus), "builtin", corpus)
    assert path == corpus.parent / "baselines" / "builtin.json"
    text = path.read_text()
    data = json.loads(text)
    lines = text.splitlines()
    assert len(lines) == 2 + len(data) - 1 + len(data["cases"]) + 2  # braces, keys, cases, "[" and "]"
    one_per_line = [json.loads(line.strip().rstrip(",")) for line in lines if line.startswith("    {")]
    keys = [(c["suite"], c["case"]) for c in one_per_line]
    assert len(keys) == 44 and keys == sorted(keys)
    assert text == dumps_baseline(data)
    assert data["corpus"]["sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()
    assert data["target"]["name"] == "builtin" and data["git_commit"] == "abc123"
    assert data["metrics"]["risk"] == {"accuracy": 1.0}
    with pytest.raises(StoreError, match="already exists; pass --force"):
        record_baseline(_run(corpus), "builtin", corpus)
    assert record_baseline(_run(corpus, risk_passed=20), "builtin", corpus, force=True) == path
    assert json.loads(path.read_text())["metrics"]["risk"]["accuracy"] == pytest.approx(20 / 22)


def test_load_baseline_round_trips_and_compares_as_a_run(corpus: Path) -> None:
    run = _run(corpus)
    record_baseline(run, "builtin", corpus)
    base = load_baseline("builtin", corpus.parent / "baselines")
    assert isinstance(base, Baseline) and base.targets == ["builtin"] and base.run_id == "baseline:builtin"
    key = ["suite", "case", "metric"]
    pd.testing.assert_frame_equal(
        base.scores.sort_values(key).reset_index(drop=True),
        run.scores.sort_values(key).reset_index(drop=True),
        check_dtype=False,
    )
    result = compare(base, run)
    assert set(result.cases["status"]) == {"unchanged"} and (result.comparisons["delta"] == 0).all()
    assert resolve_side("builtin", Locations.of(corpus)).name == "builtin"
    assert list(list_baselines(corpus.parent / "baselines")["name"]) == ["builtin"]


def test_load_baseline_names_the_bad_field(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text(
        json.dumps(
            {
                "format": 1,
                "name": "b",
                "target": {"name": "t"},
                "metrics": {},
                "cases": [{"suite": "s", "case": "c", "scores": {"mrr": "high"}}],
            }
        )
    )
    with pytest.raises(StoreError, match=r"b.json: cases\[0\].scores.mrr: expected number or null"):
        load_baseline(bad)
    with pytest.raises(StoreError, match="no such baseline"):
        load_baseline("nope", tmp_path)


def test_write_thresholds_edits_only_the_thresholds_text(corpus: Path) -> None:
    before = corpus.read_text()
    record_baseline(_run(corpus), "builtin", corpus, write_thresholds=True, slack=0.02)
    after = corpus.read_text()
    start, end = before.index('"thresholds"'), before.index('  "retrieval": [')
    assert after[:start] == before[:start] and after.endswith(before[end:])
    thresholds = json.loads(after)["thresholds"]
    assert list(thresholds) == ["comment", "retrieval", "risk"]
    assert thresholds["risk"] == {"accuracy": 0.96}
    assert list(thresholds["retrieval"]) == ["precisionAtK", "mrr"]  # the corpus keeps its metric set
    summary = _run(corpus).summary["suites"]["retrieval"]["builtin"]["metrics"]
    for metric, floor in thresholds["retrieval"].items():
        assert summary[metric] - 0.03 < floor <= summary[metric] - 0.02
    evals = (corpus.parent.parent / "EVALS.md").read_text()
    assert evals.startswith("# Evals\n\n## Current baseline\n\n" + START) and evals.endswith(END + "\n\nAfter.\n")
    assert "| risk | accuracy | 1.0 | 0.96 | yes |" in evals and "old table" not in evals


def test_thresholds_are_added_when_missing_and_compact_files_stay_compact(tmp_path: Path) -> None:
    spaced = '{\n    "k": 5,\n    "retrieval": []\n}\n'
    out = replace_thresholds(spaced, {"risk": {"accuracy": 0.96}}, "c.json")
    assert (
        out
        == '{\n    "thresholds": {\n        "risk": {"accuracy": 0.96}\n    },\n    "k": 5,\n    "retrieval": []\n}\n'
    )
    compact = '{"k": 5, "thresholds": {"risk": {"accuracy": 0.5}}, "x": [1]}'
    assert (
        replace_thresholds(compact, {"risk": {"accuracy": 0.96}}, "c.json")
        == '{"k": 5, "thresholds": {"risk": {"accuracy": 0.96}}, "x": [1]}'
    )
    with pytest.raises(StoreError, match="not a JSON object"):
        replace_thresholds("[1]", {}, "c.json")


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_an_expanded_file_stays_expanded(indent) -> None:
    data = {"k": 5, "thresholds": {"comment": "c", "retrieval": {"mrr": 0.9, "recallAtK": 0.9}}, "risk": [{"a": 1}]}
    new = {"comment": "c", "retrieval": {"mrr": 0.8, "recallAtK": 0.9}, "risk": {"accuracy": 0.96}}
    out = replace_thresholds(json.dumps(data, indent=indent) + "\n", new, "c.json")
    assert out == json.dumps({**data, "thresholds": new}, indent=indent) + "\n"


def test_evals_markers_are_appended_when_missing(corpus: Path) -> None:
    evals = corpus.parent.parent / "EVALS.md"
    evals.write_text("# Evals\n\nNo markers here.\n")
    record_baseline(_run(corpus), "builtin", corpus, write_thresholds=True)
    text = evals.read_text()
    assert text.startswith("# Evals\n\nNo markers here.\n\n## Current baseline\n\n" + START)
    assert text.endswith(END + "\n")


def test_record_refuses_a_stale_corpus_and_an_ambiguous_run(corpus: Path) -> None:
    run = _run(corpus)
    corpus.write_text(CORPUS.replace('"k": 5', '"k": 6'))
    with pytest.raises(StoreError, match="differs from the corpus run R1 used"):
        record_baseline(run, "builtin", corpus)
    with pytest.raises(UsageError, match="name"):
        record_baseline(run, "../evil", corpus)


def test_baseline_section_lists_regressions_for_the_scoreboard(corpus: Path) -> None:
    record_baseline(_run(corpus), "builtin", corpus)
    worse = _run(corpus, risk_passed=8)
    section = baseline_section(worse, "builtin")
    per = section["targets"]["builtin"]
    assert section["name"] == "builtin" and per["verdict"] == section["verdict"] == "NO_GATE"
    assert section["line"].startswith("Baseline builtin: no gate rule applies")
    assert [(r["suite"], r["metric"]) for r in per["regressions"]] == [("risk", "accuracy"), ("risk", "passed")]
    assert {c["case"] for c in per["regressed_cases"]} == {f"k{i:02d}" for i in range(8, 22)}
    assert regression_keys(section) == {("risk", "builtin", "accuracy"), ("risk", "builtin", "passed")}
    json.dumps(section, allow_nan=False)


def test_the_regressed_mark_fires_only_on_a_significant_regression(corpus: Path) -> None:
    """Four of 22 risk cases failing more is a drop in the mean, not a significant one (Holm)."""
    record_baseline(_run(corpus), "builtin", corpus)
    section = baseline_section(_run(corpus, risk_passed=18), "builtin")
    assert {c["case"] for c in section["targets"]["builtin"]["regressed_cases"]} == {"k18", "k19", "k20", "k21"}
    assert section["targets"]["builtin"]["regressions"] == [] and regression_keys(section) == set()


ANSWERS = {
    "list orders": ["src/orders.ts"],
    "find users": ["src/users.ts", "src/index.ts"],
    "zzz": ["src/index.ts"],
    "orders client": ["api/src/orders.ts", "web/src/client.ts"],
}
WORSE = {
    "list orders": ["src/users.ts", "src/index.ts", "src/orders.ts"],
    "find users": ["src/index.ts"],
    "zzz": ["src/index.ts"],
    "orders client": ["web/src/client.ts", "api/src/users.ts"],
}


def test_re_record_then_same_engine_passes_and_a_worse_engine_trips(
    tiny_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run_with(answers: dict) -> object:
        return run_eval(
            tiny_corpus,
            targets=[engine_spec(answers, monkeypatch)],
            out_dir=tmp_path / "runs",
            progress=False,
            timeout=10,
        )

    good = run_with(ANSWERS)
    record_baseline(good, "engine", tiny_corpus, write_thresholds=True, slack=0.02)
    assert run_with(ANSWERS).summary["passed"] is True
    assert run_with(WORSE).summary["passed"] is False


def test_cli_baseline_record_list_show(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from workbench.cli import main
    from workbench.store.runs import write_run

    run = _run(corpus)
    write_run(tmp_path / "runs", "R1", dict(run.manifest), run.summary, run.cases.to_dict("records"), run.scores)
    args = ["--corpus", str(corpus)]
    record = ["baseline", "record", "R1#builtin", "--name", "builtin", "--runs-dir", str(tmp_path / "runs"), *args]
    assert main([*record, "--write-thresholds"]) == 0
    assert "floors rewritten" in capsys.readouterr().out
    assert json.loads(corpus.read_text())["thresholds"]["risk"] == {"accuracy": 0.96}
    assert main(record) == 3 and "--force" in capsys.readouterr().err
    assert main(["baseline", "list", *args]) == 0 and "builtin" in capsys.readouterr().out
    assert main(["baseline", "show", "builtin", *args]) == 0
    assert "| risk | accuracy | 1.0 | 0.96 | yes |" in capsys.readouterr().out
    assert main(["baseline", "show", "nope", *args]) == 3


def test_concurrent_records_of_one_name_one_wins_and_the_other_refuses(corpus: Path) -> None:
    """Issue 41 item 4 (5): "refuse without --force" is atomic: 20 races of two records of one name,
    each time exactly one wins, its baseline is the one on disk, and the other is refused in one line."""
    runs = [_run(corpus), _run(corpus, risk_passed=20)]
    for i in range(20):
        name = f"race{i}"
        results = race(*(lambda run=run, name=name: record_baseline(run, name, corpus) for run in runs))
        won = [n for n, r in enumerate(results) if isinstance(r, Path)]
        lost = [r for r in results if not isinstance(r, Path)]
        assert len(won) == 1 and len(lost) == 1, results
        assert isinstance(lost[0], StoreError) and "\n" not in str(lost[0])
        assert f"baseline {name!r} already exists; pass --force" in str(lost[0])
        accuracy = json.loads((corpus.parent / "baselines" / f"{name}.json").read_text())["metrics"]["risk"]["accuracy"]
        assert accuracy == pytest.approx([1.0, 20 / 22][won[0]])
    assert [p.name for p in (corpus.parent / "baselines").iterdir() if p.name.startswith(".")] == []
