"""RunOptions: one typed value from the CLI to the runner; defaults once, bad values rejected as
usage errors before any target starts, the manifest form read back as it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main
from workbench.contract import REQUEST_TIMEOUT
from workbench.errors import UsageError
from workbench.options import RunOptions, deciding_fields, flag_of


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"executor": "spark"}, r"--executor 'spark': expected local, ray or ray:ADDRESS"),
        ({"executor": "local:host"}, r"--executor 'local:host'"),
        ({"shard": (2, 2)}, r"--shard 2/2: expected I/N with 0 <= I < N"),
        ({"shard": (-1, 3)}, r"--shard -1/3"),
        ({"repeat": 0}, r"--repeat 0: must be an integer >= 1"),
        ({"jobs": 0}, r"--jobs 0: must be an integer >= 1"),
        ({"timeout": 0}, r"--timeout 0: must be a finite number of seconds > 0"),
        ({"deadline": -1.0}, r"--deadline -1.0: must be a finite number of seconds >= 0"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_its_flag(fields: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        RunOptions(**fields)  # type: ignore[arg-type]


def test_defaults_are_written_once_and_the_cli_shows_them() -> None:
    options = RunOptions()
    assert options.timeout == REQUEST_TIMEOUT and options.targets == ["builtin"] and options.repeat == 1
    assert options.out_dir == Path("reports/runs") and options.executor == "local"
    from workbench.cli.evaluate import run_command

    shown = {p.name: p.default for p in run_command.params}
    for name in ("timeout", "jobs", "seed", "executor", "warm_start", "repeat", "out_dir"):
        assert shown[name] == getattr(options, name), name


def test_the_manifest_form_reads_back_as_written() -> None:
    options = RunOptions(
        suites=["retrieval"], targets=["bm25", "random"], strict=True, timeout=7.5, jobs=3, seed=9, shard=(1, 4)
    )
    recorded = options.to_manifest()
    assert recorded == {
        "suites": ["retrieval"],
        "strict": True,
        "timeout": 7.5,
        "jobs": 3,
        "shard": [1, 4],
        "executor": "local",
        "repeat": 1,
        "cache": False,
        "gate": None,
    }
    manifest = {"seed": 9, "options": recorded, "targets": [{"name": "bm25", "spec": "bm25"}, {"spec": "random"}]}
    back = RunOptions.from_manifest(manifest, out_dir=Path("elsewhere"))
    assert back == RunOptions(**{**options.__dict__, "out_dir": Path("elsewhere")})
    # A manifest that lacks a field (an older run, an imported one with no timeout) gives the default.
    assert RunOptions.from_manifest({"options": {"timeout": None}, "targets": []}).timeout == REQUEST_TIMEOUT


def test_resuming_takes_the_deciding_fields_and_refuses_a_contradiction(tmp_path: Path) -> None:
    manifest = {"run_id": "r1", "seed": 3, "options": {"repeat": 2, "timeout": 5}, "targets": [{"spec": "bm25"}]}
    journal = tmp_path / ".r1.journal"
    now = RunOptions(jobs=4, seed=0)  # seed left at its default: not given
    resumed = now.resumed(manifest, given={"jobs"}, journal=journal)
    assert (resumed.seed, resumed.repeat, resumed.timeout, resumed.targets) == (3, 2, 5, ["bm25"])
    assert resumed.jobs == 4 and resumed.resume == journal and resumed.out_dir == tmp_path
    with pytest.raises(UsageError, match=r"cannot resume r1: --seed 0 \(the run has 3\); --repeat 1 \(the run has 2\)"):
        now.resumed(manifest, given={"seed", "repeat"}, journal=journal)
    assert set(deciding_fields()) == {"suites", "targets", "strict", "timeout", "seed", "shard", "repeat", "gate"}
    assert (flag_of("suites"), flag_of("warm_start"), flag_of("timeout")) == ("--suite", "--warm-start", "--timeout")


def test_bad_cli_options_exit_2_before_any_target_starts(
    tiny_corpus: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr("workbench.run.plan.resolve_target", lambda spec, *a: started.append(spec))
    base = ["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "runs")]
    for extra, message in ((["--shard", "3/2"], "--shard '3/2'"), (["--shard", "x"], "expected I/N")):
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err
    assert started == [] and not (tmp_path / "runs").exists()
