"""The reference engine's tools on the command line: harness and gate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from workbench.cli import main

from ..conftest import REPO_ROOT


def test_harness_json(capsys) -> None:
    assert main(["harness", str(REPO_ROOT / "fixtures" / "harness-node"), "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert {"kind": "install", "command": "npm install", "script": None} in groups["setup"]
    assert any(c["command"] == "npm test" for c in groups["validate"])


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "README.md").write_text("hello\n")
    subprocess.run(["git", *env, "-C", str(tmp_path), "add", "."], check=True)
    subprocess.run(["git", *env, "-C", str(tmp_path), "commit", "-qm", "base"], check=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    return tmp_path


def test_gate_blocks_a_staged_secret_file(tmp_path: Path, capsys) -> None:
    repo = _repo(tmp_path, {".env.production": "API_KEY=abc\n"})
    assert main(["gate", str(repo), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "FAIL"
    secret = next(c for c in result["checks"] if c["name"] == "Secret safety")
    assert secret["status"] == "FAIL" and ".env.production" in " ".join(secret["details"])


def test_gate_passes_an_ordinary_change(tmp_path: Path, capsys) -> None:
    repo = _repo(tmp_path, {"src/greeting.js": "export const hi = () => 'hi';\n"})
    assert main(["gate", str(repo)]) == 0
    assert "Verdict: PASS" in capsys.readouterr().out


def test_pack_json_names_files_with_reasons(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["pack", "refund a payment", "--repo", str(REPO_ROOT / "fixtures" / "shop-api"), "--json"]) == 0
    pack = json.loads(capsys.readouterr().out)
    assert pack["primary"] and all(f["reason"] for f in pack["primary"])
    assert all(f["repo"] == "shop-api" for f in pack["primary"] + pack["related"])
    assert "payment" in pack["primary"][0]["path"]


def test_pack_needs_a_repo(capsys) -> None:
    assert main(["pack", "anything"]) == 2
    assert "--repo" in capsys.readouterr().err
