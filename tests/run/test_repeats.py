"""``--repeat N``: pass^k, pass@k, flaky cases, per-case means, and the journal keyed by repeat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.errors import RunStopped, UsageError
from workbench.options import RunOptions
from workbench.run.resume import read_outcomes
from workbench.run.runner import run, run_eval

from ..engines.flaky_engine import fails
from ..scale_corpus import scale_corpus

FLAKY = "python:tests.engines.flaky_engine:flaky"


def _run(corpus: Path, out: Path, repeat: int, **extra):
    return run(load_corpus(corpus), RunOptions(targets=[FLAKY], out_dir=out, progress=False, repeat=repeat, **extra))


def _expected(corpus: Path, repeat: int) -> tuple[set[str], int, int]:
    cases = json.loads(corpus.read_text())["retrieval"]
    verdicts = {c["name"]: [not fails(c["query"], r) for r in range(repeat)] for c in cases}
    flaky = {name for name, v in verdicts.items() if any(v) and not all(v)}
    return flaky, sum(all(v) for v in verdicts.values()), sum(any(v) for v in verdicts.values())


def test_repeat_three_lists_exactly_the_flaky_cases_and_pass_k(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=12)
    flaky, pass_all, pass_any = _expected(corpus, 3)
    assert flaky and pass_all < pass_any, "the seeded engine must be flaky on this corpus for the test to mean much"
    result = _run(corpus, tmp_path / "runs", 3)
    section = result.summary["suites"]["retrieval"]["flaky"]
    assert set(section["repeats"]["flaky"]) == flaky
    assert section["repeats"]["k"] == 3
    assert section["repeats"]["pass^k"] == pass_all == section["passed_cases"]
    assert section["repeats"]["pass@k"] == pass_any
    cases = result.cases.set_index("case")
    assert set(cases.index[cases["flaky"]]) == flaky
    assert all(len(v) == 3 for v in cases["repeat_passed"])


def test_metrics_are_each_cases_mean_over_its_repeats(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=12)
    result = _run(corpus, tmp_path / "runs", 3)
    recall = result.scores[result.scores["metric"] == "recallAtK"].set_index("case")["value"]
    queries = {c["name"]: c["query"] for c in json.loads(corpus.read_text())["retrieval"]}
    for name, value in recall.items():  # the engine's answer is all or nothing: recall is 0 or 1 per repeat
        assert value == pytest.approx(sum(not fails(queries[name], r) for r in range(3)) / 3)
    summary = result.summary["suites"]["retrieval"]["flaky"]
    assert summary["metrics"]["recallAtK"] == pytest.approx(recall.mean())
    assert "mean" in summary["repeats"]["note"]
    spread = result.cases.set_index("case")["repeat_scores"]
    assert all(len(v["recallAtK"]) == 3 for v in spread)


def test_one_repeat_is_an_ordinary_run(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=6)
    result = _run(corpus, tmp_path / "runs", 1)
    assert "repeats" not in result.summary["suites"]["retrieval"]["flaky"]
    assert "repeats" not in result.cases


def test_the_journal_keys_outcomes_by_repeat_and_a_resume_finishes_the_repeats(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=6)
    whole = _run(corpus, tmp_path / "whole", 3)
    stops = {"n": 0}

    def stop() -> None:
        stops["n"] += 1
        if stops["n"] == 8:
            raise KeyboardInterrupt

    with pytest.raises(RunStopped) as stopped:
        run(
            load_corpus(corpus),
            RunOptions(targets=[FLAKY], out_dir=tmp_path / "runs", progress=False, repeat=3),
            on_case=stop,
        )
    journal = Path(stopped.value.journal)
    records = read_outcomes(journal)
    assert [r["repeat"] for r in records] == [0] * 6 + [1] * 2
    with pytest.raises(UsageError, match="--repeat 2"):
        run_eval(resume=journal, repeat=2, progress=False)
    # A fresh engine is asked only the missing (case, repeat)s: its counters start at 0, so the
    # resumed repeats see other answers than the whole run; the journal's outcomes are kept as they were.
    resumed = run_eval(resume=journal, progress=False)
    assert len(resumed.cases) == 6 and resumed.manifest["resumed"]["reused_cases"] == 8
    assert resumed.manifest["options"]["repeat"] == 3
    assert set(resumed.cases["repeats"]) == {3} and whole.summary["suites"]["retrieval"]["flaky"]["repeats"]["k"] == 3


def test_repeat_on_the_command_line(tmp_path, capsys) -> None:
    corpus = scale_corpus(tmp_path, cases=6)
    code = main(
        ["run", "--corpus", str(corpus), "--target", FLAKY, "--out", str(tmp_path / "runs"), "--repeat", "3", "--json"]
    )
    summary = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and summary["suites"]["retrieval"]["flaky"]["repeats"]["k"] == 3


def test_merged_shards_of_a_repeated_run_keep_its_repeats_section(tmp_path) -> None:
    from workbench.run.merge import merge_runs

    corpus = scale_corpus(tmp_path, cases=12)
    whole = _run(corpus, tmp_path / "whole", 3)
    shards = [_run(corpus, tmp_path / "shards", 3, shard=(i, 2)) for i in range(2)]
    merged = merge_runs([s.path for s in shards], tmp_path / "merged")
    got, want = (r.summary["suites"]["retrieval"]["flaky"]["repeats"] for r in (merged, whole))
    assert {**got, "flaky": sorted(got["flaky"])} == {**want, "flaky": sorted(want["flaky"])}


def test_the_repeats_view_shows_pass_k_and_the_flaky_cases(tmp_path) -> None:
    from workbench.report import views

    corpus = scale_corpus(tmp_path, cases=12)
    flaky, pass_all, _ = _expected(corpus, 3)
    result = _run(corpus, tmp_path / "runs", 3)
    summary = views.repeat_summary(result)
    assert summary[["k", "pass^k", "flaky"]].values.tolist() == [[3, pass_all, len(flaky)]]
    frame = views.flaky_frame(result)
    assert set(frame["case"]) == flaky and {"recallAtK mean", "recallAtK sd"} <= set(frame.columns)
    assert "pass^k" in views.repeats(result)
    plain = _run(corpus, tmp_path / "plain", 1)
    assert "no repeats" in views.repeats(plain).text


def test_comparisons_pair_each_cases_mean_and_say_so(tmp_path) -> None:
    from workbench.analysis import compare

    corpus = scale_corpus(tmp_path, cases=12)
    repeated, single = _run(corpus, tmp_path / "a", 3), _run(corpus, tmp_path / "b", 1)
    comparison = compare(single, repeated)
    assert comparison.notes[0] == "B ran every case 3 times: its values are each case's mean over its repeats"
    flips = "because of flakiness alone (the failing side passed some repeats), 0 consistently (every repeat failed)"
    assert comparison.notes[1].endswith(flips)
    assert comparison.notes[0] in comparison.to_markdown() and comparison.to_dict()["notes"] == list(comparison.notes)
    mean_recall = repeated.scores[repeated.scores["metric"] == "recallAtK"]["value"].mean()
    row = comparison.comparisons.set_index("metric").loc["recallAtK"]
    assert row["mean_b"] == pytest.approx(mean_recall)
