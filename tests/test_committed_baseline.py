"""The committed baseline cannot go stale unnoticed (issue 42, item 3): a fresh run of the shipped
corpus is compared with ``corpus/baselines/builtin.json`` as ``workbench run --baseline builtin``
does; a significant regression fails this test, naming the one command that re-records."""

from __future__ import annotations

from pathlib import Path

import pytest

import workbench as wb
from workbench.analysis.regressions import baseline_section, stale_baseline
from workbench.cli import main
from workbench.columns import METRIC, SUITE, VALUE
from workbench.run.rerecord import RERECORD_COMMAND

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "corpus" / "baselines" / "builtin.json"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, wb.Run]:
    """``workbench run --baseline builtin`` on the shipped corpus, from the project root: its exit
    code, its stdout and the run."""
    import contextlib
    import io
    import os

    out = tmp_path_factory.mktemp("runs")
    stdout = io.StringIO()
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            code = main(["run", "--baseline", "builtin", "--target", "builtin", "--out", str(out)])
    finally:
        os.chdir(cwd)
    [run_dir] = [p for p in out.iterdir() if not p.name.startswith(".")]
    return code, stdout.getvalue(), wb.load_run(run_dir)


@pytest.mark.slow
def test_a_fresh_run_of_the_shipped_corpus_matches_the_committed_baseline(fresh: tuple[int, str, wb.Run]) -> None:
    code, out, run = fresh
    problem = stale_baseline(run.summary["baseline"], RERECORD_COMMAND)
    assert problem is None, problem
    assert code == 0, out
    assert "Baseline builtin: UNCHANGED" in out, out


@pytest.mark.slow
def test_the_staleness_check_fails_on_a_planted_regression(fresh: tuple[int, str, wb.Run]) -> None:
    """The same check, on the fresh run with every ranking nDCG@10 halved: it names the metric and
    the one command that re-records."""
    run = fresh[2]
    scores = run.scores.copy()
    planted = (scores[SUITE] == "ranking") & (scores[METRIC] == "ndcg@10")
    scores.loc[planted, VALUE] = scores.loc[planted, VALUE] / 2
    doctored = wb.Run(path=run.path, manifest=run.manifest, summary=run.summary, cases=run.cases, scores=scores)
    problem = stale_baseline(baseline_section(doctored, BASELINE), RERECORD_COMMAND)
    assert problem is not None
    assert "no longer describes the code: Baseline builtin: REGRESSED: ndcg@10" in problem
    assert "ranking ndcg@10" in problem and f"re-record it with `{RERECORD_COMMAND}`" in problem
