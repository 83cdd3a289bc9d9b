"""Issue 41, items 10-12: a bad option value is one line and exit 2, never a traceback or exit 4.

A ``cmd:`` spec with an unbalanced quote (``run``, ``serve``, ``interleave simulate``); a comma
inside a ``cmd:`` command line (one target, not two); a duration that is not a finite number
(``inf``, ``1e400``, ``nan``) in every duration option; a name, run or path too long to name a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.git_history import shop_history
from workbench.cli import main

from ..conftest import engine_spec

UNBALANCED = "cmd:python3 'x"


def _one_line_usage_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "File name too long" not in err, err
    for needle in needles:
        assert needle in lines[0], err


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--target", UNBALANCED],
        ["run", "--target", f"builtin,{UNBALANCED}"],
        ["serve", "--target", UNBALANCED, "--port", "0"],
        ["serve", "--interleave", f"builtin,{UNBALANCED}", "--port", "0"],
        ["interleave", "simulate", "--target", UNBALANCED, "--target", "builtin"],
    ],
)
def test_an_unbalanced_quote_in_a_cmd_target_is_a_usage_error(
    argv: list[str], tiny_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if argv[0] == "run":
        argv = [*argv, "--corpus", str(tiny_corpus), "--out", str(tmp_path / "runs")]
    elif argv[0] == "interleave":
        argv = [*argv, "--corpus", str(tiny_corpus)]
    code = main(argv)
    _one_line_usage_error(code, capsys.readouterr().err, "no closing quotation", "cmd:python3 'x")
    assert not (tmp_path / "runs").exists()


def test_a_comma_inside_a_cmd_command_line_keeps_the_target_whole(
    tiny_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = engine_spec({"list orders": ["src/orders.ts"]}, monkeypatch) + " --modes a,b"
    out = tmp_path / "runs"
    argv = ["run", "--corpus", str(tiny_corpus), "--suite", "retrieval", "--out", str(out), "--json"]
    assert main([*argv, "--target", f"random,{spec}"]) in (0, 1)
    run_dir = Path(json.loads(capsys.readouterr().out)["run_dir"])
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert [t["spec"] for t in manifest["targets"]] == ["random", spec]


DURATIONS = [
    ["run", "--timeout"],
    ["run", "--deadline"],
    ["run", "--budget-seconds"],
    ["run", "--budget-usd"],
    ["report", "--timeout"],
]


@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "-inf"])
@pytest.mark.parametrize("flag", DURATIONS, ids=" ".join)
def test_a_duration_must_be_a_finite_number(
    flag: list[str], value: str, tiny_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--corpus", str(tiny_corpus), "--out", str(tmp_path / "out")]
    extra = ["--target", "random", "--suite", "retrieval"] if flag[0] == "run" else ["--runs-dir", str(tmp_path)]
    code = main([*flag, value, *where, *extra])
    _one_line_usage_error(code, capsys.readouterr().err, flag[1], "finite number")
    assert not (tmp_path / "out").exists()


def test_a_timeout_must_be_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["run", "--timeout", "0"], ["report", "--timeout", "0"], ["report", "--timeout", "-3"]):
        code = main([*argv, "--out", str(tmp_path / "out"), "--corpus", str(tmp_path / "none.json")])
        _one_line_usage_error(code, capsys.readouterr().err, "--timeout", "> 0")


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("hist") / "shop"
    shop_history(repo)
    return repo


LONG = "a" * 300


@pytest.mark.parametrize(
    "argv",
    [
        ["mine", "{shop}", "--name", LONG, "--out", "{tmp}/corpus.json"],
        ["mine", "{shop}", "--out", "{tmp}/" + LONG + ".json"],
        ["calibrate", "c" * 5000, "--target", "random"],
        ["baseline", "record", "RUN", "--name", LONG, "--corpus", "{tmp}/corpus.json", "--runs-dir", "{tmp}"],
        ["baseline", "record", "r" * 5000, "--name", "x", "--corpus", "{tmp}/corpus.json", "--runs-dir", "{tmp}"],
        ["baseline", "show", "b" * 5000, "--corpus", "{tmp}/corpus.json"],
        ["report", "r" * 5000, "--runs-dir", "{tmp}", "--out", "{tmp}/html"],
        ["compare", "r" * 5000, "s" * 5000, "--runs-dir", "{tmp}"],
        ["export", "r" * 5000, "--format", "trec", "--runs-dir", "{tmp}"],
        ["merge", "r" * 5000, "--out", "{tmp}/merged"],
        ["run", "--resume", "j" * 400, "--out", "{tmp}"],
        ["run", "--out", "{tmp}/" + "o" * 400, "--target", "random", "--corpus", "{corpus}"],
        ["report", "--out", "{tmp}/" + "h" * 400, "--runs-dir", "{tmp}"],
    ],
    ids=lambda argv: " ".join(a[:12] for a in argv[:3]),
)
def test_an_over_long_name_is_a_usage_error(
    argv: list[str], shop: Path, tiny_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(tmp_path.rglob("*"))
    filled = [a.format(shop=shop, tmp=tmp_path, corpus=tiny_corpus) for a in argv]
    code = main(filled)
    err = capsys.readouterr().err
    _one_line_usage_error(code, err)
    assert len(err) < 400, err  # the name is cut in the message, not echoed whole
    assert sorted(tmp_path.rglob("*")) == before  # nothing written
