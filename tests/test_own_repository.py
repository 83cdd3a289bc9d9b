"""workbench used as another project uses it: README's "Use it in your repository", line by line,
and the `run:` steps of docs/eval-workflow.yml, in a temporary git repository that is not workbench,
with only the wheel built from this checkout installed into a fresh virtual environment (offline:
tests/own_repository.py says how)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.git_history import commit
from tests.own_repository import (
    NOTEBOOK_NAMES,
    RETRIEVAL_PAGES,
    ROOT,
    build_dist,
    dependencies_folder,
    fresh_venv,
    run_script,
    user_repository,
    venv_env,
    wheel_names,
)
from tests.workflow_steps import JobResult, run_workflow
from workbench.targets import NAMED

pytestmark = pytest.mark.slow

README_BLOCK = re.compile(r"<!-- own-repository -->\n```sh\n(.*?)```\n<!-- /own-repository -->", re.S)
GIT_URL = "https://github.com/OWNER/workbench.git@main"
WHEEL_NAME = "context_workbench-0.1.0-py3-none-any.whl"
WORKFLOW = ROOT / "docs" / "eval-workflow.yml"


def _without_guess(text: str) -> str:
    """The `guess` control is being added (issue 38): until it is a named target, runs go without it."""
    return text if "guess" in NAMED else text.replace(" --target guess", "")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dependencies_folder(tmp_path_factory.mktemp("deps"))


def test_the_wheel_and_the_sdist_carry_the_notebooks_and_the_schema(dist: tuple[Path, Path]) -> None:
    sdist, wheel = dist
    names = wheel_names(wheel)
    assert wheel.name == WHEEL_NAME and sdist.name == "context_workbench-0.1.0.tar.gz"
    for notebook in (*NOTEBOOK_NAMES, "calibration", "interleaving"):
        assert f"workbench/notebooks/{notebook}.ipynb" in names
    assert "workbench/schemas/corpus.schema.json" in names and "workbench/py.typed" in names
    assert not any(name.startswith(("tests/", "notebooks/")) for name in names)


def _readme_lines() -> list[str]:
    found = README_BLOCK.search((ROOT / "README.md").read_text())
    assert found, "README: the 'Use it in your repository' block between its markers"
    return [line for line in found.group(1).splitlines() if line.strip()]


def test_the_readme_section_runs_from_the_wheel_in_another_repository(
    dist: tuple[Path, Path], deps: Path, tmp_path: Path
) -> None:
    lines = _readme_lines()
    installs = [line for line in lines if line.startswith("pip install")]
    assert len(installs) == 2 and GIT_URL in installs[0] and WHEEL_NAME in installs[1]
    repo = user_repository(tmp_path / "service")
    bin_dir = fresh_venv(tmp_path / "venv", deps)
    env = venv_env(bin_dir, tmp_path / "cache")
    (repo.parent / WHEEL_NAME).write_bytes(dist[1].read_bytes())
    script = "\n".join(_without_guess(line) for line in lines if not line.startswith("pip install"))
    install = installs[1].replace(WHEEL_NAME, str(repo.parent / WHEEL_NAME))
    done = run_script(f"{install}\n{script}", repo, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    where = subprocess.run(
        ["python", "-c", "import workbench; print(workbench.__file__)"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout + where.stderr
    corpus = json.loads((repo / "evals" / "corpus.json").read_text())
    assert len(corpus["retrieval"]) >= 10 and corpus["fixtureRoots"] == {"service": ".."}
    assert (repo / "evals" / "baselines" / "main.json").is_file()
    runs = sorted(p for p in (repo / "reports" / "runs").iterdir() if not p.name.startswith("."))
    assert len(runs) == 2
    pages = repo / "reports" / "html" / runs[0].name
    for name in RETRIEVAL_PAGES:
        assert (pages / f"{name}.html").stat().st_size > 1000, name
    assert "Gate" in done.stdout and "UNCHANGED" in done.stdout  # the same engine against its baseline
    assert "git status" not in done.stderr and not (repo / "notebooks").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--", "src", "tools"], cwd=repo, capture_output=True)
    assert status.stdout == b""  # the repository's own files were only read


def test_the_readme_git_install_line_installs_a_working_workbench(deps: Path, tmp_path: Path) -> None:
    """The git line, against a clone of this checkout's HEAD (the URL made local: no network)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to install from git")
    install = _readme_lines()[0].replace(GIT_URL, f"file://{ROOT}")
    bin_dir = fresh_venv(tmp_path / "venv", deps)
    env = venv_env(bin_dir, tmp_path / "cache")
    done = run_script(f"{install.split('#')[0]}\nworkbench --version\nworkbench mine --help >/dev/null", tmp_path, env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "workbench, version 0.1.0" in done.stdout
    assert next((tmp_path / "venv").glob("lib/python*/site-packages/workbench/notebooks/scoreboard.ipynb"))


def _workflow(repo: Path, tmp_path: Path, wheel: Path, deps: Path) -> tuple[JobResult, str]:
    """The workflow's steps in ``repo``, installing the wheel (WORKBENCH is the one value a user sets
    to install from a wheel instead of git); returns the steps and the job summary."""
    bin_dir = fresh_venv(tmp_path / f"venv-{repo.name}", deps)
    env = venv_env(bin_dir, tmp_path / "cache")
    summary = tmp_path / f"summary-{repo.name}.md"
    env["GITHUB_STEP_SUMMARY"] = str(summary)
    steps = run_workflow(WORKFLOW, repo, env, overrides={"WORKBENCH": str(wheel)}, rewrite=_without_guess)
    return steps, summary.read_text() if summary.exists() else ""


def _check_job(steps: JobResult, summary: str, repo: Path) -> str:
    """What every run of the workflow leaves: a scoreboard in the summary, the report's pages in the
    uploaded folder, and a job whose verdict is the run's exit code."""
    assert steps.outcomes["Install workbench"] == 0, steps.logs["Install workbench"][-2000:]
    assert steps.outcomes["Corpus"] == 0, steps.logs["Corpus"][-2000:]
    assert steps.outcomes["Eval run"] == 0, steps.logs["Eval run"][-2000:]
    code = steps.outputs["run"]["exit_code"]
    assert code in {"0", "1"}, steps.logs["Eval run"][-2000:]
    assert "| Group | Target | Metric | Value | Threshold | Pass |" in summary
    assert "| retrieval | cmd:python my_engine.py | mrr |" in summary and "| retrieval | bm25 | mrr |" in summary
    if "guess" in NAMED:
        assert "| retrieval | guess | mrr |" in summary
    assert f"(exit {code})" in summary
    assert steps.outcomes["HTML report"] == 0, steps.logs["HTML report"][-2000:]
    [upload] = steps.uploads
    assert upload["name"] == "eval-report"
    pages = next((repo / upload["path"]).glob("*/index.html")).parent
    for name in RETRIEVAL_PAGES:
        assert (pages / f"{name}.html").stat().st_size > 1000, name
    assert steps.outcomes["Verdict"] == (0 if code == "0" else 1)
    return code


def test_the_workflow_mines_runs_summarises_and_keeps_the_report(
    dist: tuple[Path, Path], deps: Path, tmp_path: Path
) -> None:
    repo = user_repository(tmp_path / "service")
    steps, summary = _workflow(repo, tmp_path, dist[1], deps)
    _check_job(steps, summary, repo)
    assert "No baseline 'main' recorded yet" in summary
    assert json.loads((repo / "evals" / "corpus.json").read_text())["retrieval"]  # mined: none was committed
    assert steps.outcomes["Baseline verdict"] == 0

    # A baseline recorded and committed with the corpus: the next job reuses both and compares.
    corpus = (repo / "evals" / "corpus.json").read_bytes()
    run = sorted((repo / "reports" / "runs").glob("2*"))[-1]
    record = f'workbench baseline record "{run}#cmd:python my_engine.py" --name main --corpus evals/corpus.json'
    env = venv_env(tmp_path / "venv-service" / "bin", tmp_path / "cache")
    assert run_script(record, repo, env).returncode == 0
    commit(repo, "record the eval baseline", {}, 99)
    (tmp_path / "again").mkdir()
    steps, summary = _workflow(repo, tmp_path / "again", dist[1], deps)
    _check_job(steps, summary, repo)
    assert (repo / "evals" / "corpus.json").read_bytes() == corpus  # reused, not mined again
    assert "### workbench compare: UNCHANGED" in summary and "Gate [" in summary
