"""The gate verdict at each change, judged in a scratch repository; ``--since``; the CLI's errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from workbench.calibration import Window, calibrate
from workbench.cli import main
from workbench.contract import Check, GateResult, Repo

from .test_calibrate import BASE, HOUR, PayTarget, planted


class PayGate(PayTarget):
    """Blocks a change whose staged diff (read from the repository it is handed) touches ``pay/``."""

    name = "paygate"

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.broken, self.bases = broken, set()

    def gate(self, repo: Repo, options: dict[str, Any] | None = None) -> GateResult:
        if self.broken:
            raise RuntimeError("gate crashed")
        base = (options or {})["base"]
        self.bases.add(base)
        names = subprocess.run(
            ["git", "-C", str(repo.path), "diff", "--cached", "--name-only", base],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        blocked = any(n.startswith("pay/") for n in names)
        status = "FAIL" if blocked else "PASS"
        return GateResult(status, [Check("Money", status, f"{len(names)} file(s)", ())])


def make_gate() -> PayGate:
    return PayGate()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gate") / "shop"
    planted(root)
    return root


def _row(result: Any, flag: str, outcome: str = "either") -> dict[str, Any]:
    table = result.table
    return table[(table["flag"] == flag) & (table["outcome"] == outcome)].iloc[0].to_dict()


def _state(repo: Path) -> dict[str, bytes]:
    git = repo / ".git"
    return {str(p.relative_to(git)): p.read_bytes() for p in sorted(git.rglob("*")) if p.is_file()}


def test_gate_flags_are_the_verdict_on_each_commits_own_diff(repo: Path) -> None:
    before = _state(repo)
    target = PayGate()
    result = calibrate(repo, target, Window(days=30))
    assert _state(repo) == before  # the user's repository is never written
    # the 100 observed non-root changes are gated; those touching pay/: 41 [pay] changes, 8 pay
    # reverts, 6 pay fixes and the late fix = 56 (14 with an outcome); the other 44: 40 lib
    # changes and the 4 lib reverts and fixes (4 with an outcome). Lift (14/56)/(4/44) = 2.75.
    assert result.gated == 100 and result.gate_verdicts == {"FAIL": 56, "PASS": 44}
    for flag in ("gate:FAIL", "gate:WARN or FAIL", "gate check:Money"):
        row = _row(result, flag)
        assert (row["flagged"], row["flagged_outcomes"], row["unflagged"], row["unflagged_outcomes"]) == (56, 14, 44, 4)
        assert row["lift"] == pytest.approx(2.75) and not row["withheld"]
    assert _row(result, "gate:FAIL", "reverted")["lift"] == pytest.approx((8 / 56) / (2 / 44))
    # the risk flags keep their own denominator (all 101 observed changes)
    assert _row(result, "concept:money flow")["unflagged"] == 60
    assert len(target.bases) == 100  # one gate call per change, against its own parent


def test_gate_changes_bounds_the_gated_changes_newest_first(repo: Path) -> None:
    result = calibrate(repo, PayGate(), Window(days=30), gate_changes=10)
    # newest observed first: the late pay fix, 2 lib fixes, 2 lib reverts, 5 pay fixes
    row = _row(result, "gate:FAIL")
    assert result.gated == 10 and (row["flagged"], row["unflagged"]) == (6, 4)
    assert row["withheld"] and row["lift"] != row["lift"]
    none = calibrate(repo, PayGate(), Window(days=30), gate_changes=0)
    assert none.gated == 0 and "gate:FAIL" not in set(none.table["flag"])


def test_a_crashing_gate_is_counted_and_the_risk_flags_stay(repo: Path) -> None:
    result = calibrate(repo, PayGate(broken=True), Window(days=30))
    assert result.gated == 0 and result.gate_errors == 100
    assert _row(result, "concept:money flow")["flagged"] == 41
    assert any("100 gate call(s) failed" in note for note in result.notes)


def test_since_keeps_only_later_changes_and_their_outcomes_still_count(repo: Path) -> None:
    # the first revert is at hour 83: 8 + 6 + 2 + 2 pay/lib reverts and fixes, the late fix, the tail
    result = calibrate(repo, PayTarget(), Window(days=30), since=BASE + 83 * HOUR)
    assert (result.changes, result.observed, result.censored) == (20, 19, 1)
    assert result.outcome_counts == {"reverted": 0, "fixed": 0, "either": 0}


def test_cli_json_and_one_line_errors(repo: Path, tmp_path: Path, capsys: Any) -> None:
    gate = "python:tests.calibration.test_gate:make_gate"
    assert main(["calibrate", str(repo), "--target", gate, "--window", "30d", "--json", "--since", "2023-01-01"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gated"] == 100 and data["gateVerdicts"] == {"FAIL": 56, "PASS": 44}
    lifts = {r["flag"]: r["lift"] for r in data["flags"] if r["outcome"] == "either"}
    assert lifts["gate:FAIL"] == pytest.approx(2.75)
    plain = tmp_path / "plain"
    plain.mkdir()
    for argv, code, words in [
        (["calibrate", str(plain)], 2, "not a git repository"),
        (["calibrate", str(repo), "--target", "nosuch"], 2, "unknown target 'nosuch'"),
        (["calibrate", str(repo), "--target", "random"], 2, "no risk_concepts capability"),
        (["calibrate", str(repo), "--since", "yesterday"], 2, "--since"),
        (["calibrate", str(repo), "--window", "0d"], 2, "--window"),
    ]:
        assert main(argv) == code, argv
        err = capsys.readouterr().err.strip()
        assert words in err, (argv, err)
        assert "Traceback" not in err and len([line for line in err.splitlines() if line.startswith("Error")]) <= 1


class Chatty(PayTarget):
    def risk_concepts(self, mode: str, text: str) -> Any:
        print("a library's print")
        return super().risk_concepts(mode, text)


def make_chatty() -> Chatty:
    return Chatty()


def test_json_stdout_holds_only_the_json(repo: Path, capfd: Any) -> None:
    target = "python:tests.calibration.test_gate:make_chatty"
    assert main(["calibrate", str(repo), "--target", target, "--window", "30d", "--json", "--max-commits", "20"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["commits"] == 20 and "a library's print" in err
