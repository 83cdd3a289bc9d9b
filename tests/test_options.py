"""The options values of ``mine``, ``calibrate``, ``report``, ``interleave`` and ``baseline record``
(issue 44, item 4): defaults written once (the library's and the CLI's read them), each check in
the value, a bad value a UsageError naming its flag. ``RunOptions`` has ``tests/run/test_options.py``."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import click
import pytest

from workbench.calibration.gating import DEFAULT_LIMIT
from workbench.errors import UsageError
from workbench.mining.mine import DEFAULT_MAX_CASES, mine, mine_corpus
from workbench.online.sensitivity import RESAMPLES
from workbench.options import (
    MAX_NAME,
    BaselineOptions,
    CalibrateOptions,
    InterleaveOptions,
    MineOptions,
    ReportOptions,
    RunOptions,
    command_argv,
    seconds,
)
from workbench.report.render import DEFAULT_TIMEOUT
from workbench.store.floors import DEFAULT_SLACK


def test_the_library_defaults_are_the_options_defaults() -> None:
    assert DEFAULT_MAX_CASES == MineOptions().max_cases == 200
    assert DEFAULT_LIMIT == CalibrateOptions().gate_changes == 1000
    assert DEFAULT_TIMEOUT == ReportOptions().timeout == 300.0
    assert RESAMPLES == InterleaveOptions().resamples == 500
    assert DEFAULT_SLACK == BaselineOptions(name="x").slack == 0.02


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MineOptions(append=True), r"--append needs --out FILE"),
        (lambda: MineOptions(ranking=True), r"--ranking needs --out FILE"),
        (lambda: MineOptions(max_cases=0), r"--max-cases 0: must be an integer >= 1"),
        (lambda: MineOptions(seed=-1), r"--seed -1: must be an integer >= 0"),
        (lambda: MineOptions(name="no/slash"), r"--name 'no/slash': a fixture name is letters"),
        (
            lambda: MineOptions(name="a" * (MAX_NAME + 1)),
            r"--name 'a+'\.\.\. \(201 characters\): a fixture name is at most",
        ),
        (lambda: CalibrateOptions(gate_changes=-1), r"--gate-changes -1: must be an integer >= 0"),
        (lambda: CalibrateOptions(max_commits=0), r"--max-commits 0: must be an integer >= 1"),
        (lambda: CalibrateOptions(target="cmd:a 'b"), r"--target \"cmd:a 'b\": no closing quotation"),
        (lambda: ReportOptions(timeout=float("nan")), r"--timeout nan: must be a finite number of seconds > 0"),
        (lambda: ReportOptions(timeout=float("inf")), r"--timeout inf: must be a finite"),
        (lambda: ReportOptions(timeout=0), r"--timeout 0: must be a finite number of seconds > 0"),
        (lambda: ReportOptions(jobs=0), r"--jobs 0: must be an integer >= 1"),
        (lambda: InterleaveOptions(resamples=0), r"--resamples 0: must be an integer >= 1"),
        (lambda: InterleaveOptions(seed=-2), r"--seed -2: must be an integer >= 0"),
        (lambda: InterleaveOptions(targets=("builtin", 'cmd:x "y')), r"no closing quotation"),
        (lambda: BaselineOptions(name="../evil"), r"--name '../evil': a baseline name is letters"),
        (lambda: BaselineOptions(name="b" * 300), r"a baseline name is at most 200 characters"),
        (lambda: BaselineOptions(name="x", slack=float("inf")), r"--slack inf: must be a finite number >= 0"),
        (lambda: BaselineOptions(name="x", slack=-0.1), r"--slack -0.1"),
        (lambda: RunOptions(deadline=float("inf")), r"--deadline inf: must be a finite number of seconds >= 0"),
        (lambda: RunOptions(budget_usd=float("nan")), r"--budget-usd nan: must be a finite number of dollars"),
        (lambda: RunOptions(targets=["cmd:python3 'x"]), r"--target \"cmd:python3 'x\": no closing quotation"),
        (lambda: RunOptions(resume=Path("j" * 400)), r"--resume 'j+'\.\.\. \(400 bytes\): too long to name a file"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_its_flag(make, message: str) -> None:  # noqa: ANN001
    with pytest.raises(UsageError, match=message):
        make()


def test_seconds_take_finite_numbers_only() -> None:
    assert seconds(0.5) and seconds(None) and seconds(0, zero=True)
    for bad in (0, -1.0, float("inf"), float("-inf"), float("nan"), 1e400):
        assert not seconds(bad), bad
    assert not seconds(float("nan"), zero=True) and not seconds(float("inf"), zero=True)


def test_a_cmd_line_splits_as_a_shell_splits_it() -> None:
    assert command_argv("python3 -c 'print(1, 2)'") == ["python3", "-c", "print(1, 2)"]
    with pytest.raises(UsageError, match="no escaped character"):
        command_argv("engine \\")


def test_mine_corpus_takes_its_options_value(tmp_path: Path) -> None:
    from tests.git_history import shop_history

    repo = tmp_path / "shop"
    shop_history(repo)
    result, text = mine_corpus(repo, MineOptions(max_cases=None, progress=False, name="shop-x"))
    assert text is not None and result.fixture == "shop-x" and result.cases
    assert len(result.cases) == len(mine(repo, max_cases=None, progress=False).cases)
    first, _ = mine_corpus(repo, MineOptions(max_cases=1, seed=3, progress=False))
    again, _ = mine_corpus(repo, MineOptions(max_cases=1, seed=3, progress=False))
    assert [c["name"] for c in first.cases] == [c["name"] for c in again.cases] and len(first.cases) == 1
    only_py, _ = mine_corpus(repo, MineOptions(extensions=frozenset({".rs"}), max_cases=None, progress=False))
    assert only_py.cases == []  # the shop has no Rust: the extension filter reaches mining


def _defaults(command: click.Command) -> dict[str, object]:
    """Each parameter's default; an unset one (click's sentinel), an empty tuple and False as None."""
    unset = {"Sentinel.UNSET", "()", "False", "None"}
    return {
        p.name: None if repr(p.default) in unset else p.default for p in command.params if p.name and not p.required
    }


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("mine", MineOptions()),
        ("calibrate", CalibrateOptions()),
        ("report", ReportOptions()),
        ("interleave simulate", InterleaveOptions()),
        ("interleave analyze", InterleaveOptions()),
        ("baseline record", BaselineOptions(name="x")),
        ("run", RunOptions()),
    ],
)
def test_every_cli_default_is_its_options_default(path: str, value: object) -> None:
    from workbench.cli import cli

    command: click.Command = cli
    for name in path.split():
        assert isinstance(command, click.Group)
        command = command.commands[name]
    shown = _defaults(command)
    named = [f.name for f in fields(value) if f.name in shown]  # type: ignore[arg-type]
    assert named, shown
    for name in named:
        if name == "targets":
            continue  # repeatable: none given means the options' default
        expected = getattr(value, name)
        assert shown[name] == (None if expected is False or expected == () else expected), name
