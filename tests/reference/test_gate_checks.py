"""The reference local gate: each check on small staged changes in temp git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.contract import Check, GateResult, Repo
from workbench.errors import TargetError
from workbench.reference.gate import convergence as gate_convergence
from workbench.reference.gate.diff import parse_patch, read_diff
from workbench.reference.gate.judge import parse_options, run_gate, verdict
from workbench.reference.gate.secrets import credential_kinds
from workbench.sandbox import git, init_baseline, tree_digest

BASE = {
    "package.json": json.dumps({"name": "x", "version": "1.0.0"}) + "\n",
    "CHANGELOG.md": "# Changelog\n",
    "src/slug.js": "module.exports = (t) => t.toLowerCase();\n",
    "README.md": "# x\n",
}


def _repo(
    tmp_path: Path, change: dict[str, str | None], base: dict[str, str] | None = None, staged: bool = True
) -> Repo:
    root = tmp_path / "repo"
    for rel, text in (BASE if base is None else base).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    init_baseline(root)
    for rel, text in change.items():
        if text is None:
            (root / rel).unlink()
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    if staged:
        git(["add", "-A"], root)
    return Repo("repo", root)


def _gate(
    tmp_path: Path, change: dict[str, str | None], base_files: dict[str, str] | None = None, **options: object
) -> dict[str, Check]:
    result = run_gate(_repo(tmp_path, change, base_files), options)
    assert isinstance(result, GateResult)
    return {check.name: check for check in result.checks}


def test_harmless_change_passes_every_check(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"src/slug.js": "module.exports = (t) => t.trim().toLowerCase();\n"})
    result = run_gate(repo, {})
    assert result.verdict == "PASS"
    by_name = {c.name: c for c in result.checks}
    assert by_name["Changed files"].summary == "1 changed file(s)"
    assert by_name["Changed files"].details == ("M src/slug.js (+1 -1)",)
    assert by_name["Validation execution"].status == by_name["Convergence"].status == "SKIPPED"


def test_nothing_staged_warns(tmp_path: Path) -> None:
    checks = _gate(tmp_path, {})
    assert checks["Changed files"].status == "WARN" and checks["Changed files"].summary.startswith("0 changed")


@pytest.mark.parametrize("path", [".env", "config/.env.production", "deploy/id_rsa", "secrets.json"])
def test_secret_files_fail(tmp_path: Path, path: str) -> None:
    check = _gate(tmp_path, {path: "KEY=value\n"})["Secret safety"]
    assert check.status == "FAIL" and check.summary == "Potential secret or environment file changed"
    assert path in check.details


def test_secret_templates_and_deletions_are_fine(tmp_path: Path) -> None:
    base = {**BASE, ".env.production": "A=1\n"}
    checks = _gate(tmp_path, {".env.example": "KEY=\n", ".env.production": None}, base_files=base)
    assert checks["Secret safety"].status == "PASS"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        ("aws_id = 'AKIA" + "Q" * 16 + "'", "AWS access key id"),
        ('const dbPassword = "s3cr3t-Value!";', "password or key literal"),
        ("DB_PASSWORD='hunter2-prod'", "password or key literal"),
        ('apiKey: "9f8e7d6c5b4a"', "password or key literal"),
    ],
)
def test_credential_values_are_found(line: str, kind: str) -> None:
    assert kind in credential_kinds(line)


@pytest.mark.parametrize(
    "line",
    [
        'password: "${DB_PASSWORD}"',
        'apiKey: "<your-api-key>"',
        'token = "changeme123"',
        'label = "Password"',
        "const passwordField = input;",
        "x = 1",
    ],
)
def test_placeholders_and_labels_are_not_credentials(line: str) -> None:
    assert credential_kinds(line) == []


def test_credential_in_source_fails_without_echoing_the_value(tmp_path: Path) -> None:
    secret = "Tr0ub4dor-and-3"
    check = _gate(tmp_path, {"src/mail.js": f"// mailer\nconst smtpPassword = '{secret}';\n"})["Secret safety"]
    assert check.status == "FAIL" and check.summary == "credential value found in changed content"
    assert check.details == ("src/mail.js:2: password or key literal",)
    assert secret not in " ".join(check.details)


def test_gating_paths_warn_with_their_concepts(tmp_path: Path) -> None:
    checks = _gate(tmp_path, {"db/schema.sql": "CREATE TABLE t (id INT);\n", "docs/guide.md": "x\n"})
    assert checks["Risk review"].status == "WARN"
    assert checks["Risk review"].details == ("db/schema.sql (data model)",)


def _bump(version: str = "1.1.0") -> str:
    return json.dumps({"name": "x", "version": version}) + "\n"


@pytest.mark.parametrize(("governance", "status"), [("team", "FAIL"), ("company", "FAIL"), ("solo", "WARN")])
def test_version_bump_without_changelog(tmp_path: Path, governance: str, status: str) -> None:
    check = _gate(tmp_path, {"package.json": _bump()}, governance=governance)["Release discipline"]
    assert check.status == status and "Version metadata changed without a changelog update" in check.summary
    assert check.details == ("package.json: 1.0.0 -> 1.1.0",)


def test_version_bump_with_changelog_passes(tmp_path: Path) -> None:
    check = _gate(tmp_path, {"package.json": _bump(), "CHANGELOG.md": "# Changelog\n\n## 1.1.0\n"}, governance="team")[
        "Release discipline"
    ]
    assert check.status == "PASS" and "with a changelog update" in check.summary


def test_pyproject_bump_and_unchanged_version(tmp_path: Path) -> None:
    base = {"pyproject.toml": "[project]\nname = 'x'\nversion = '0.1.0'\n"}
    check = _gate(
        tmp_path, {"pyproject.toml": "[project]\nname = 'x'\nversion = '0.2.0'\n"}, base_files=base, governance="team"
    )["Release discipline"]
    assert check.status == "FAIL" and check.details == ("pyproject.toml: 0.1.0 -> 0.2.0",)
    other = _gate(tmp_path / "b", {"package.json": json.dumps({"name": "y", "version": "1.0.0"})}, governance="team")[
        "Release discipline"
    ]
    assert other.status == "PASS" and other.summary == "No version metadata changed"


def test_validation_needs_a_base_committed_policy(tmp_path: Path) -> None:
    policy = {".workbench/validation.json": json.dumps({"commands": ["pytest -q"]})}
    check = _gate(tmp_path, policy, runValidation=True)["Validation execution"]
    assert check.status == "FAIL" and check.summary == "Validation requested but requires a versioned validation policy"
    assert "is not committed at the base" in check.details[0]


def _py_base(test_body: str, commands: list[str]) -> dict[str, str]:
    return {
        "pyproject.toml": "[tool.pytest.ini_options]\n",
        "tests/test_a.py": test_body,
        ".workbench/validation.json": json.dumps({"commands": commands, "timeout": 60}),
    }


def test_validation_runs_the_policy_on_the_staged_tree(tmp_path: Path) -> None:
    base = _py_base("def test_a():\n    assert True\n", ["python -m pytest -q"])
    repo = _repo(tmp_path, {"tests/test_a.py": "def test_a():\n    assert 2 + 2 == 4\n"}, base)
    before = tree_digest(repo.path)
    check = {c.name: c for c in run_gate(repo, {"runValidation": True}).checks}["Validation execution"]
    assert check.status == "PASS" and check.summary == "1 validation command(s) passed"
    assert check.details[0].startswith("python -m pytest -q: exit 0")
    assert tree_digest(repo.path) == before  # ran in an export, not in the repository


def test_validation_failure_and_refusal(tmp_path: Path) -> None:
    base = _py_base("def test_a():\n    assert True\n", ["python -m pytest -q"])
    failing = _gate(
        tmp_path / "f", {"tests/test_a.py": "def test_a():\n    assert False\n"}, base_files=base, runValidation=True
    )["Validation execution"]
    assert failing.status == "FAIL" and failing.summary == "Validation failed"
    assert failing.details == ("python -m pytest -q: exit code 1",)
    refused = _gate(
        tmp_path / "r",
        {"README.md": "y\n"},
        runValidation=True,
        base_files=_py_base("", ["curl http://example.com | sh"]),
    )["Validation execution"]
    assert refused.status == "FAIL" and "refused" in refused.summary


def test_invalid_validation_policy(tmp_path: Path) -> None:
    base = {**BASE, ".workbench/validation.json": json.dumps({"commands": "npm test"})}
    check = _gate(tmp_path, {"README.md": "y\n"}, base_files=base, runValidation=True)["Validation execution"]
    assert check.status == "FAIL" and check.summary == "Validation policy is invalid"


def test_policy_profiles(tmp_path: Path) -> None:
    schema = {"db/schema.sql": "CREATE TABLE t (id INT);\n"}
    high = _gate(tmp_path / "h", schema, policy="high-risk")["Policy profile"]
    assert high.status == "FAIL" and "requires pull-request controls a local run cannot verify" in high.summary
    assert "db/schema.sql" in high.details
    calm = _gate(tmp_path / "c", {"README.md": "y\n"}, policy="high-risk")["Policy profile"]
    assert calm.status == "PASS"
    standard = _gate(tmp_path / "s", schema)["Policy profile"]
    assert standard.status == "PASS"


def test_company_policy_lists_owners_from_the_base_codeowners(tmp_path: Path) -> None:
    base = {**BASE, ".github/CODEOWNERS": "* @org/all\n/src/ @org/src  # comment\n"}
    check = _gate(tmp_path, {"src/slug.js": "x\n", "README.md": "y\n"}, base_files=base, policy="company")[
        "Policy profile"
    ]
    assert check.status == "FAIL" and "requires ownership approval" in check.summary
    assert check.details == ("README.md: @org/all", "src/slug.js: @org/src")


def test_convergence_by_token_overlap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_convergence, "_pack_scope", lambda diff, request: None)
    change = {"src/slug.js": "x\n", "src/billing.js": "y\n"}
    low = _gate(tmp_path / "l", change, request="slug handles accents", minConvergence=0.75)["Convergence"]
    assert low.status == "FAIL" and "0.50 is below the required minimum 0.75" in low.summary
    assert low.details == (
        "method: token overlap with the request",
        "off scope: src/billing.js",
        "on scope: src/slug.js",
    )
    high = _gate(tmp_path / "h", change, request="slug handles accents", minConvergence=0.5)["Convergence"]
    assert high.status == "PASS" and "satisfy the convergence requirement" in high.summary


def test_min_convergence_as_a_percentage() -> None:
    assert parse_options({"minConvergence": 80}).min_convergence == 0.8
    assert parse_options({"minConvergence": 0.8}).min_convergence == 0.8


def test_verdict_order() -> None:
    assert verdict([Check("a", "PASS"), Check("b", "SKIPPED")]) == "PASS"
    assert verdict([Check("a", "WARN"), Check("b", "PASS")]) == "WARN"
    assert verdict([Check("a", "WARN"), Check("b", "FAIL")]) == "FAIL"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"policy": "strict"}, "unknown policy"),
        ({"governance": "anarchy"}, "unknown governance"),
        ({"minConvergence": 150}, "a fraction \\(0-1\\) or a percentage"),
        ({"minConvergence": -1}, "a fraction"),
        ({"runValidation": "yes"}, "should be bool"),
        ({"minConvergence": True}, "should be float"),
    ],
)
def test_bad_options_are_target_errors(options: dict, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_options(options)


def test_bad_repositories_and_bases(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="not a git repository"):
        run_gate(Repo("x", tmp_path), {})
    repo = _repo(tmp_path, {})
    with pytest.raises(TargetError, match="is not a commit"):
        run_gate(repo, {"base": "no-such-branch"})
    with pytest.raises(TargetError, match="revision name"):
        run_gate(repo, {"base": "--output=/tmp/x"})


def test_working_tree_mode_reads_unstaged_changes(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"README.md": "changed\n"}, staged=False)
    assert read_diff(repo.path, "HEAD", staged=True).changes == []
    (change,) = read_diff(repo.path, "HEAD", staged=False).changes
    assert (change.status, change.path, change.added_lines) == ("M", "README.md", [(1, "changed")])


def test_parse_patch_numbers_added_lines() -> None:
    patch = (
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -2,0 +3,2 @@\n+one\n++two\n"
        "diff --git a/gone.txt b/gone.txt\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    )
    parsed = parse_patch(patch)
    assert parsed["a.txt"].added_lines == [(3, "one"), (4, "+two")] and parsed["a.txt"].added == 2
    assert parsed["gone.txt"].deleted == 1 and parsed["gone.txt"].added_lines == []
