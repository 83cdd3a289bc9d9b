"""Reference harness inference: manifests in, grouped commands out, nothing executed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Repo
from workbench.reference.harness import classify, infer_harness

REPO_ROOT = Path(__file__).resolve().parents[2]


def _write(root: Path, files: dict[str, str]) -> Repo:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Repo(root.name, root)


def _commands(groups: dict) -> dict[str, list[str]]:
    return {group: [c.command for c in commands] for group, commands in groups.items()}


def _package(scripts: dict[str, str], **extra: str) -> str:
    return json.dumps({"name": "p", "version": "1.0.0", "scripts": scripts, **extra})


def test_node_scripts_without_lockfile_use_npm(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "package.json": _package(
                {
                    "build": "tsc",
                    "test": "vitest",
                    "lint": "eslint .",
                    "lint:fix": "eslint --fix .",
                    "typecheck": "tsc --noEmit",
                    "test:watch": "vitest",
                    "start": "node .",
                    "dev": "vite",
                    "format": "prettier -w .",
                    "postinstall": "husky",
                }
            )
        },
    )
    groups = infer_harness(repo)
    assert _commands(groups) == {
        "setup": ["npm install"],
        "validate": ["npm run typecheck", "npm run lint", "npm test", "npm run build"],
        "runtime": ["npm start", "npm run dev"],
    }
    kinds = {c.command: (c.kind, c.script) for c in groups["validate"]}
    assert kinds["npm test"] == ("test", "test") and kinds["npm run typecheck"] == ("typecheck", "typecheck")


def test_npm_placeholder_test_script_is_not_a_test(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"package.json": _package({"test": 'echo "Error: no test specified" && exit 1'})})
    assert _commands(infer_harness(repo))["validate"] == []


@pytest.mark.parametrize(
    ("files", "install", "test"),
    [
        ({"pnpm-lock.yaml": ""}, "pnpm install --frozen-lockfile", "pnpm test"),
        ({"yarn.lock": ""}, "yarn install --frozen-lockfile", "yarn test"),
        ({"yarn.lock": "", ".yarnrc.yml": ""}, "yarn install --immutable", "yarn test"),
        ({"bun.lockb": ""}, "bun install --frozen-lockfile", "bun run test"),
        ({"package-lock.json": "{}"}, "npm ci", "npm test"),
    ],
)
def test_lockfile_picks_the_package_manager(tmp_path: Path, files: dict[str, str], install: str, test: str) -> None:
    repo = _write(tmp_path, {"package.json": _package({"test": "x"}), **files})
    groups = _commands(infer_harness(repo))
    assert groups["setup"] == [install] and groups["validate"] == [test]


def test_package_manager_field_wins_over_absent_lockfile(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"package.json": _package({"test": "x"}, packageManager="pnpm@9.1.0")})
    assert _commands(infer_harness(repo))["setup"] == ["pnpm install"]


def test_python_project_config(tmp_path: Path) -> None:
    repo = _write(
        tmp_path, {"pyproject.toml": "[project]\nname='x'\n[tool.pytest.ini_options]\n[tool.mypy]\n[tool.ruff]\n"}
    )
    assert _commands(infer_harness(repo)) == {
        "setup": ["python -m pip install -e ."],
        "validate": ["python -m mypy .", "python -m ruff check .", "python -m pytest"],
        "runtime": [],
    }


def test_python_setup_cfg_tox_and_requirements(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "requirements.txt": "requests\n",
            "setup.cfg": "[tool:pytest]\n[flake8]\n",
            "tox.ini": "[tox]\nenvlist = py311\n",
        },
    )
    assert _commands(infer_harness(repo)) == {
        "setup": ["python -m pip install -r requirements.txt"],
        "validate": ["python -m flake8", "python -m pytest", "tox"],
        "runtime": [],
    }


def test_python_tests_dir_alone_means_pytest(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"tests/unit/test_a.py": "def test(): pass\n"})
    assert _commands(infer_harness(repo))["validate"] == ["python -m pytest"]


def test_go_module(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"go.mod": "module example.com/x\n"})
    assert _commands(infer_harness(repo)) == {
        "setup": ["go mod download"],
        "validate": ["go vet ./...", "go test ./...", "go build ./..."],
        "runtime": [],
    }


def test_makefile_targets(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "Makefile": ".PHONY: test lint\nCC := gcc\ninstall:\n\tpip install .\n"
            "test: install\n\tpytest\nlint:\n\truff .\nrun:\n\t./app\n"
            "%.o: %.c\n\t$(CC) $<\nclean:\n\trm -rf out\n"
        },
    )
    groups = infer_harness(repo)
    assert _commands(groups) == {
        "setup": ["make install"],
        "validate": ["make lint", "make test"],
        "runtime": ["make run"],
    }
    assert groups["validate"][1].script == "test"


def test_unreadable_manifests_infer_nothing(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"package.json": "{not json", "pyproject.toml": "[[broken"})
    assert _commands(infer_harness(repo)) == {"setup": [], "validate": [], "runtime": []}


@pytest.mark.parametrize(
    ("name", "place"),
    [
        ("test", ("validate", "test")),
        ("test:unit", ("validate", "test")),
        ("type-check", ("validate", "typecheck")),
        ("lint:css", ("validate", "lint")),
        ("format:check", ("validate", "lint")),
        ("build", ("validate", "build")),
        ("check", ("validate", "check")),
        ("start", ("runtime", "start")),
        ("lint:fix", None),
        ("test:watch", None),
        ("release", None),
        ("format", None),
    ],
)
def test_classify_names(name: str, place: tuple[str, str] | None) -> None:
    assert classify(name) == place


def test_reference_fixtures_declare_what_the_corpus_expects() -> None:
    corpus = json.loads((REPO_ROOT / "corpus" / "corpus.json").read_text())
    for case in corpus["harnessExecution"]:
        root = REPO_ROOT / corpus["fixtureRoots"][case["repoFixture"]]
        groups = _commands(infer_harness(Repo(case["repoFixture"], root)))
        for expected in case["commands"]:
            assert expected["command"] in groups[expected["group"]], (case["name"], expected)
