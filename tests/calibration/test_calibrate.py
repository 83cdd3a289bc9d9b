"""``workbench calibrate`` on a history built here with planted reverts and fixes: exact counts and lifts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from workbench.calibration import Window, calibrate, is_fix, parse_window, render_text
from workbench.cli import main

BASE = 1_700_000_000
HOUR, DAY = 3600, 86400


class PayTarget:
    """Flags a change ``money flow`` when its message holds ``[pay]``; scored with ``scores``."""

    name = "pay"

    def __init__(self, scores: bool = False) -> None:
        self.scores = scores

    def risk_concepts(self, mode: str, text: str) -> Any:
        hit = mode == "query" and "[pay]" in text
        if self.scores:
            return {"money flow": 0.8} if hit else {}
        return {"money flow"} if hit else set()


def make_target() -> PayTarget:
    return PayTarget()


class History:
    """Commits written through ``git fast-import`` (one process per batch, not three per commit)."""

    def __init__(self, repo: Path) -> None:
        self.repo, self.stream, self.resume = repo, [], False
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)

    def commit(self, message: str, when: int, files: dict[str, str | None]) -> None:
        text = f"commit refs/heads/main\nmark :{len(self.stream) + 1}\n"
        text += f"committer Dev <dev@example.com> {BASE + when} +0000\ndata {len(message.encode())}\n{message}\n"
        if self.resume and not self.stream:
            text += "from refs/heads/main^0\n"  # continue the history an earlier batch wrote
        for path, content in files.items():
            if content is None:
                text += f"D {path}\n"
            else:
                text += f"M 100644 inline {path}\ndata {len(content.encode())}\n{content}\n"
        self.stream.append(text)

    def finish(self) -> list[str]:
        """Import the batch; the shas of its commits, in order."""
        marks = self.repo.parent / "marks"
        subprocess.run(
            ["git", "-C", str(self.repo), "fast-import", "--quiet", "--force", f"--export-marks={marks}"],
            input="".join(self.stream).encode(),
            check=True,
        )
        found = dict(line.split() for line in marks.read_text().splitlines())
        shas = [found[f":{i + 1}"] for i in range(len(self.stream))]
        self.stream, self.resume = [], True
        return shas


def _lines(kind: str, i: int, second: str = "") -> str:
    return f"def {kind}{i}_a():\n    return {i}{second}\n# end {kind}{i}\n"


def planted(repo: Path) -> None:
    """41 ``[pay]`` changes and 40 others, then reverts and fixes planted on known ones (two batches:
    a revert names its change's sha)."""
    history = History(repo)
    history.commit("init", 0, {"README": "hello\n"})
    step = 1
    for i in range(1, 42):
        history.commit(f"[pay] add payment step {i}", step * HOUR, {f"pay/p{i}.py": _lines("p", i)})
        step += 1
        if i <= 40:
            history.commit(f"add helper {i}", step * HOUR, {f"lib/l{i}.py": _lines("l", i)})
            step += 1
    shas = history.finish()
    pay = {i: shas[2 * i - 1] for i in range(1, 42)}  # init, then P1 L1 P2 L2 ...
    lib = {i: shas[2 * i] for i in range(1, 41)}

    def add(message: str, files: dict[str, str | None]) -> None:
        nonlocal step
        step += 1
        history.commit(message, step * HOUR, files)

    for i in range(1, 5):  # reverted by message (and by diff)
        add(f"Undo step {i}\n\nThis reverts commit {pay[i]}.", {f"pay/p{i}.py": None})
    for i in range(5, 9):  # reverted by exact inverse diff only
        add(f"drop step {i}", {f"pay/p{i}.py": None})
    for i in range(9, 15):  # fixed: line 2 changed by a fix commit
        add(f"Fix rounding in step {i}", {f"pay/p{i}.py": _lines("p", i, " + 1")})
    for i in (1, 2):
        add(f"Undo helper {i}\n\nThis reverts commit {lib[i][:10]}.", {f"lib/l{i}.py": None})
    for i in (3, 4):
        add(f"fix helper {i}", {f"lib/l{i}.py": _lines("l", i, " * 2")})
    history.commit("Fix late step 41", 40 * DAY, {"pay/p41.py": _lines("p", 41, " - 1")})  # past 30 days
    history.commit("tail notes", 100 * DAY, {"notes.txt": "later\n"})  # censored
    history.finish()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("calibrate") / "shop"
    planted(root)
    return root


def _row(result: Any, flag: str, outcome: str) -> dict[str, Any]:
    table = result.table
    return table[(table["flag"] == flag) & (table["outcome"] == outcome)].iloc[0].to_dict()


def test_planted_outcomes_and_lifts_are_reported_exactly(repo: Path) -> None:
    result = calibrate(repo, PayTarget(), Window(days=30))
    # 1 init + 41 pay + 40 lib + 8 pay reverts + 6 pay fixes + 2 lib reverts + 2 lib fixes + late fix + tail
    assert (result.commits, result.changes, result.censored, result.observed) == (102, 102, 1, 101)
    assert result.outcome_counts == {"reverted": 10, "fixed": 8, "either": 18}
    assert set(result.table["flag"]) == {"concept:money flow", "any concept"}
    either = _row(result, "concept:money flow", "either")
    assert (either["flagged"], either["flagged_outcomes"], either["unflagged"], either["unflagged_outcomes"]) == (
        41,
        14,
        60,
        4,
    )
    assert either["lift"] == pytest.approx((14 / 41) / (4 / 60))
    assert either["lift_low"] < either["lift"] < either["lift_high"]
    reverted, fixed = _row(result, "concept:money flow", "reverted"), _row(result, "concept:money flow", "fixed")
    assert reverted["lift"] == pytest.approx((8 / 41) / (2 / 60))
    assert fixed["lift"] == pytest.approx((6 / 41) / (2 / 60))
    assert not either["withheld"]
    text = render_text(result)
    assert "concept:money flow" in text and f"{(14 / 41) / (4 / 60):.2f}" in text


def test_the_window_bounds_outcomes(repo: Path) -> None:
    """With a 1-commit window no planted revert or fix is close enough; with 50 days the late fix counts."""
    assert calibrate(repo, PayTarget(), Window(days=None, commits=1)).outcome_counts["either"] == 0
    wide = calibrate(repo, PayTarget(), Window(days=50))
    assert wide.outcome_counts == {"reverted": 10, "fixed": 9, "either": 19}


def test_scores_give_brier_and_reliability_bins(repo: Path) -> None:
    result = calibrate(repo, PayTarget(scores=True), Window(days=30))
    brier = result.brier.iloc[0].to_dict()
    assert brier["brier"] == pytest.approx((14 * 0.2**2 + 27 * 0.8**2 + 4 * 1.0) / 101)
    bins = {round(r["low"], 1): r for r in result.reliability.to_dict(orient="records")}
    assert (bins[0.8]["changes"], bins[0.0]["changes"]) == (41, 60)
    assert bins[0.8]["outcome_rate"] == pytest.approx(14 / 41) and bins[0.0]["outcome_rate"] == pytest.approx(4 / 60)


def test_small_histories_withhold_every_figure_and_show_the_count(repo: Path) -> None:
    result = calibrate(repo, PayTarget(), Window(days=None, commits=2), max_commits=40)
    row = _row(result, "concept:money flow", "either")
    assert row["withheld"] and row["lift"] != row["lift"]  # nan
    text = render_text(result)
    assert f"withheld (n={row['flagged']})" in text


def test_the_cli_prints_json_and_names_a_path_that_is_no_repository(repo: Path, tmp_path: Path, capsys: Any) -> None:
    target = "python:tests.calibration.test_calibrate:make_target"
    assert main(["calibrate", str(repo), "--target", target, "--window", "30d", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"] == {"reverted": 10, "fixed": 8, "either": 18} and data["censored"] == 1
    assert main(["calibrate", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(tmp_path / "nowhere") in err
    assert main(["calibrate", str(repo), "--window", "soon"]) == 2


def test_window_and_fix_rules() -> None:
    assert parse_window("90d") == Window(days=90) and parse_window("45") == Window(days=45)
    assert parse_window("200c") == Window(days=None, commits=200)
    with pytest.raises(ValueError):
        parse_window("1.5c")
    assert is_fix("Fix rounding") and is_fix("bugfix: x") and is_fix("handle crash on empty input")
    assert not is_fix("prefix the names") and not is_fix('Revert "fix x"') and not is_fix("add feature")


def test_a_target_answering_garbage_is_counted_not_fatal(repo: Path) -> None:
    class Bad:
        name = "bad"

        def risk_concepts(self, mode: str, text: str) -> Any:
            return 3

    result = calibrate(repo, Bad(), Window(days=30), max_commits=20)
    assert result.observed == 0 and result.target_errors == result.changes - result.censored


def test_a_named_revert_counts_without_the_inverse_diff_and_an_added_line_blames_nothing(tmp_path: Path) -> None:
    history = History(tmp_path / "small")
    history.commit("init", 0, {"a.py": "one\ntwo\n"})
    history.commit("change b", HOUR, {"b.py": "x\ny\n"})
    history.commit("change c", 2 * HOUR, {"c.py": "p\nq\n"})
    init, b, c = history.finish()
    history.commit(f"Partly back out\n\nThis reverts commit {b[:7]}.", 3 * HOUR, {"a.py": "one\ntwo\nthree\n"})
    history.commit("fix c: add a line", 4 * HOUR, {"c.py": "p\nq\nr\n"})  # adds only: no line of c repaired
    history.commit("fix a", 5 * HOUR, {"a.py": "one\n2\nthree\n"})  # changes line 2, which init wrote
    history.finish()
    result = calibrate(tmp_path / "small", PayTarget(), Window(days=None, commits=100))
    assert set(result.found.reverted_by) == {b} and c not in result.found.fixed_by  # c's fix only added a line
    assert set(result.found.fixed_by) == {init}  # a root commit's lines are blamed to it (git blame --root)
