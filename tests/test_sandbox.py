"""The sandbox: allowlisted forms only, no shell, minimal env, timeouts, untouched sources."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from workbench.errors import SuiteError
from workbench.sandbox import (
    allowed_argv,
    baseline_copy,
    copy_tree,
    git,
    init_baseline,
    normalise,
    run_allowlisted,
    safe_env,
    temp_copy,
    tree_digest,
)

needs_npm = pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("npm install", ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"]),
        ("npm  ci", ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]),
        ("npm test", ["npm", "test"]),
        ("npm run build:prod", ["npm", "run", "build:prod"]),
        ("pnpm install --frozen-lockfile", ["pnpm", "install", "--frozen-lockfile", "--ignore-scripts"]),
        ("yarn", ["yarn", "install", "--ignore-scripts"]),
        ("yarn install --immutable", ["yarn", "install", "--immutable", "--ignore-scripts"]),
        ("bun run test", ["bun", "run", "test"]),
        ("go vet ./...", ["go", "vet", "./..."]),
        ("python -m pytest -q tests", [sys.executable, "-m", "pytest", "-q", "tests"]),
        ("pytest", [sys.executable, "-m", "pytest"]),
        ("npm run pytest", ["npm", "run", "pytest"]),
    ],
)
def test_allowlisted_forms_map_to_argv(command: str, argv: list[str]) -> None:
    assert allowed_argv(command) == argv


@pytest.mark.parametrize(
    "command",
    [
        "npm test; touch pwned",
        "npm run build && touch pwned",
        "npm run $(touch pwned)",
        "npm run `id`",
        "npm test | tee out",
        "npm test > out",
        "npm test\ntouch pwned",
        "npx cowsay",
        "npm exec foo",
        "make test",
        "node -e 1",
        "python -m pip install requests",
        "python script.py",
        "pytest ../outside",
        "pytest /etc",
        "npm run build -- --watch",
        "go run ./...",
        "sh -c 'npm test'",
        "",
    ],
)
def test_everything_else_is_refused(command: str) -> None:
    with pytest.raises(SuiteError, match="refused"):
        allowed_argv(command)


def test_refused_command_never_runs_and_says_why(tmp_path: Path) -> None:
    run = run_allowlisted("npm test; touch pwned", tmp_path, timeout=5)
    assert run.refused and run.exit_code is None and not run.ok
    assert "not an allowlisted" in (run.reason or "")
    assert not (tmp_path / "pwned").exists()


def _pytest_dir(tmp_path: Path, body: str) -> Path:
    (tmp_path / "test_probe.py").write_text(body)
    return tmp_path


def test_runs_without_a_shell_with_ci_set_and_credentials_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-fixtures")
    work = _pytest_dir(
        tmp_path,
        "import os\n\ndef test_env():\n"
        "    assert os.environ['CI'] == '1'\n"
        "    assert 'AWS_SECRET_ACCESS_KEY' not in os.environ\n",
    )
    run = run_allowlisted("python -m pytest -q", work, timeout=60)
    assert run.ok, run.stdout_tail + run.stderr_tail
    assert run.argv[0] == sys.executable and run.seconds > 0
    assert set(safe_env()) >= {"CI", "PATH"}


def test_failing_command_reports_exit_code(tmp_path: Path) -> None:
    run = run_allowlisted("pytest -q", _pytest_dir(tmp_path, "def test_no():\n    assert 1 == 2\n"), timeout=60)
    assert run.exit_code == 1 and run.reason == "exit code 1" and "assert 1 == 2" in run.stdout_tail


def test_timeout_kills_the_command(tmp_path: Path) -> None:
    work = _pytest_dir(tmp_path, "import time\n\ndef test_sleep():\n    time.sleep(30)\n")
    started = time.perf_counter()
    run = run_allowlisted("pytest -q", work, timeout=1.0)
    assert run.exit_code is None and run.reason == "timed out after 1 s"
    assert time.perf_counter() - started < 10


@needs_npm
def test_install_never_runs_lifecycle_scripts(tmp_path: Path) -> None:
    hook = "node -e \"require('fs').writeFileSync('hook-ran', 'x')\""
    (tmp_path / "package.json").write_text(
        json.dumps(
            {
                "name": "probe",
                "version": "1.0.0",
                "private": True,
                "scripts": {"preinstall": hook, "install": hook, "postinstall": hook, "prepare": hook},
            }
        )
    )
    run = run_allowlisted("npm install", tmp_path, timeout=60)
    assert run.ok, run.stderr_tail
    assert not (tmp_path / "hook-ran").exists()


def test_temp_copy_leaves_the_source_untouched(tmp_path: Path) -> None:
    source = tmp_path / "fixture"
    (source / "src").mkdir(parents=True)
    (source / "src" / "a.js").write_text("1")
    (source / "node_modules" / "dep").mkdir(parents=True)
    before = tree_digest(source)
    with temp_copy(source, tmp_path) as work:
        assert work.name == "fixture" and work != source
        assert not (work / "node_modules").exists()
        (work / "src" / "a.js").write_text("2")
        (work / "new.txt").write_text("x")
        copied = work
    assert not copied.exists()
    assert tree_digest(source) == before


def test_tree_digest_sees_content_and_mode(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    first = tree_digest(tmp_path)
    (tmp_path / "a").chmod(0o755)
    second = tree_digest(tmp_path)
    (tmp_path / "a").write_text("2")
    assert len({first, second, tree_digest(tmp_path)}) == 3


def test_baseline_commit_is_deterministic(tmp_path: Path) -> None:
    commits = []
    for name in ("one", "two"):
        repo = tmp_path / name
        repo.mkdir()
        (repo / "README.md").write_text("same\n")
        commits.append(init_baseline(repo))
    assert commits[0] == commits[1] and len(commits[0]) == 40


def test_baseline_copies_equal_fresh_builds_and_follow_base_edits(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "a.txt").write_text("one\n")
    fresh = init_baseline(copy_tree(base, tmp_path / "fresh"))
    assert baseline_copy(base, tmp_path / "c1") == fresh == baseline_copy(base, tmp_path / "c2")
    assert git(["status", "--porcelain"], tmp_path / "c2") == ""
    (tmp_path / "c1" / "a.txt").write_text("changed in a copy\n")
    assert (tmp_path / "c2" / "a.txt").read_text() == "one\n"
    (base / "a.txt").write_text("two\n")
    assert baseline_copy(base, tmp_path / "c3") != fresh
    assert (tmp_path / "c3" / "a.txt").read_text() == "two\n"


def test_normalise_collapses_whitespace() -> None:
    assert normalise("  npm   run\tbuild \n") == "npm run build"


def test_the_private_tmp_keeps_an_interpreter_that_lives_under_tmp(tmp_path, monkeypatch) -> None:
    """A clone (and its .venv) made under /tmp stays visible, read-only, inside the sandbox."""
    from workbench.containment import bwrap as containment

    if not tmp_path.resolve().is_relative_to(Path("/tmp").resolve()):
        pytest.skip("the temporary directory is not under /tmp here")
    venv = tmp_path / "clone" / ".venv"
    (venv / "lib").mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "path", [str(venv / "lib"), "/usr/lib/python3"])
    shown = containment._under_tmp(["true"])
    assert str(venv.resolve()) in shown and str((venv / "lib").resolve()) not in shown  # nested: bound once
    assert all(Path(p).resolve().is_relative_to(Path("/tmp").resolve()) for p in shown)
