"""Issue 23, part 4: flakiness you can act on: pass counts and spreads per case, unbiased pass^k and
pass@k for k = 1..N, flaky cases listed first, and compare's count of flips flakiness explains."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.analysis.comparison import compare
from workbench.analysis.passk import pass_at_k, pass_hat_k, pass_k_table
from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.options import RunOptions
from workbench.run.runner import run

from ..engines.flaky_engine import fails
from ..scale_corpus import scale_corpus

FLAKY = "python:tests.engines.flaky_engine:flaky"
STEADY = "python:tests.engines.flaky_engine:steady"


def test_pass_hat_k_and_pass_at_k_by_hand() -> None:
    c, n = np.array([0, 1, 2, 3, 2]), np.array([3, 3, 3, 3, 4])
    # 2 of 3: pass^2 = C(2,2)/C(3,2) = 1/3, pass@2 = 1 - C(1,2)/C(3,2) = 1; 2 of 4: pass^2 = 1/6, pass@2 = 5/6
    assert pass_hat_k(c, n, 1) == pytest.approx([0, 1 / 3, 2 / 3, 1, 0.5])
    assert pass_hat_k(c, n, 2) == pytest.approx([0, 0, 1 / 3, 1, 1 / 6])
    assert pass_at_k(c, n, 2) == pytest.approx([0, 2 / 3, 1, 1, 5 / 6])
    assert pass_hat_k(c, n, 3) == pytest.approx([0, 0, 0, 1, 0])
    assert np.isnan(pass_at_k(c, n, 4)[:4]).all() and pass_at_k(c, n, 4)[4] == 1.0


@pytest.fixture
def repeated(tmp_path: Path):
    corpus = scale_corpus(tmp_path, cases=12)
    queries = {c["name"]: c["query"] for c in json.loads(corpus.read_text())["retrieval"]}
    verdicts = {name: [not fails(q, r) for r in range(3)] for name, q in queries.items()}
    flaky = run(load_corpus(corpus), RunOptions(targets=[FLAKY], out_dir=tmp_path / "a", progress=False, repeat=3))
    return flaky, verdicts, corpus


def test_each_case_carries_its_pass_count_and_metric_spread(repeated) -> None:
    result, verdicts, _ = repeated
    cases = result.cases.set_index("case")
    for name, passed in verdicts.items():
        assert cases.loc[name, "repeat_passes"] == sum(passed)
        # the engine answers all or nothing: recall spreads 1.0 exactly when the case is flaky
        assert cases.loc[name, "repeat_spread"]["recallAtK"] == (1.0 if any(passed) and not all(passed) else 0.0)


def test_pass_k_table_matches_the_hand_computed_estimates(repeated) -> None:
    result, verdicts, _ = repeated
    table = pass_k_table(result.cases).set_index("k")
    counts = [sum(v) for v in verdicts.values()]
    for k in (1, 2, 3):
        assert table.loc[k, "pass^k"] == pytest.approx(np.mean([comb(c, k) / comb(3, k) for c in counts]))
        assert table.loc[k, "pass@k"] == pytest.approx(np.mean([1 - comb(3 - c, k) / comb(3, k) for c in counts]))
    section = result.summary["suites"]["retrieval"]["flaky"]["repeats"]
    assert table.loc[3, "pass^k"] == pytest.approx(section["pass^k_rate"])
    assert table.loc[3, "pass@k"] == pytest.approx(section["pass@k_rate"])
    html = wb.views.pass_k(result, "retrieval").to_html()
    assert "pass^1" in html and "pass@3" in html and "flaky cases" in html


def test_the_retrieval_page_lists_flaky_cases_first(repeated) -> None:
    result, verdicts, _ = repeated
    flaky = {name for name, v in verdicts.items() if any(v) and not all(v)}
    assert flaky, "the seeded engine must be flaky on this corpus for the test to mean much"
    frame = wb.views.retrieval_cases(result).data
    assert set(frame["case"].iloc[: len(flaky)]) == flaky
    assert list(frame["passes"].iloc[: len(flaky)]) == [
        f"{sum(verdicts[c])}/3" for c in frame["case"].iloc[: len(flaky)]
    ]
    assert set(wb.views.case_frame(result)["case"].iloc[: len(flaky)]) == flaky


def test_compare_of_two_repeated_runs_counts_the_flips_flakiness_explains(repeated, tmp_path, capsys) -> None:
    flaky, verdicts, corpus = repeated
    steady = run(load_corpus(corpus), RunOptions(targets=[STEADY], out_dir=tmp_path / "b", progress=False, repeat=3))
    # steady passes every repeat: a case flips iff flaky failed a repeat; flakiness explains it iff
    # flaky also passed one, and it is consistent iff flaky failed all three
    by_flakiness = sum(any(v) and not all(v) for v in verdicts.values())
    consistent = sum(not any(v) for v in verdicts.values())
    flips = compare(flaky, steady, gate="none").flakiness
    assert flips is not None
    assert (flips["flipped"], flips["by_flakiness"], flips["consistent"]) == (
        by_flakiness + consistent,
        by_flakiness,
        consistent,
    )
    assert main(["compare", str(flaky.path), str(steady.path), "--gate", "none"]) == 0
    out = capsys.readouterr().out
    assert f"{by_flakiness} of them because of flakiness alone" in out
    assert compare(flaky, flaky, gate="none").flakiness["flipped"] == 0


def test_runs_without_repeats_say_so() -> None:
    import pandas as pd

    from workbench.analysis.passk import flaky_flips

    plain = pd.DataFrame({"suite": ["retrieval"], "case": ["a"], "passed": [True]})
    assert flaky_flips(plain, plain) is None


@pytest.mark.notebooks
def test_the_retrieval_page_renders_pass_k_for_a_repeated_run(repeated, tmp_path: Path) -> None:
    from workbench.report.render import render_report

    result, _, _ = repeated
    report = render_report(result.path, out_dir=tmp_path / "html", notebooks=["retrieval"], jobs=1)
    page = (tmp_path / "html" / result.run_id / "retrieval.html").read_text()
    assert not report.failed and "pass^3" in page and "pass@3" in page and "Flakiness" in page
