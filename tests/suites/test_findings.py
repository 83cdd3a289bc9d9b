"""The findings suite on the shipped gold records, against hand-counted matches."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.errors import CorpusError
from workbench.run.runner import RunOptions, run
from workbench.suites.findings import computed_verdict, load_findings, match

from ..conftest import REPO_ROOT, write_corpus

FINDINGS = REPO_ROOT / "corpus" / "findings"


def _corpus(tmp_path: Path) -> Path:
    shutil.copytree(FINDINGS, tmp_path / "corpus" / "findings")
    spec = json.loads((REPO_ROOT / "corpus" / "corpus.json").read_text())["findings"]
    return write_corpus(tmp_path, {"findings": spec})


def test_matching_rules() -> None:
    gold = [
        {"file": "a.py", "line": 10, "rule_key": "r1", "dual_flaggable": "r2"},
        {"file": "a.py", "line": 0, "rule_key": "r3"},
    ]
    found = [
        {"file": "a.py", "line": 12, "rule_key": "r2"},
        {"file": "a.py", "line": 99, "rule_key": "r3"},
        {"file": "a.py", "line": 11, "rule_key": "r1"},
        {"file": "b.py", "line": 10, "rule_key": "r1"},
    ]
    assert sorted(match(gold, found, 3)) == [(0, 2), (1, 1)]  # closest line wins; line 0 is file-scoped
    assert match(gold, found[:1], 1) == []  # outside the tolerance


def test_pass4_verdict() -> None:
    assert computed_verdict([{"severity": "MINOR"}, {"severity": "BLOCKER"}]) == "BLOCK"
    assert computed_verdict([{"severity": "MAJOR"}]) == "WARN"
    assert computed_verdict([]) == "ALLOW"


def test_shipped_records_score_as_hand_counted(tmp_path: Path) -> None:
    result = run(load_corpus(_corpus(tmp_path)), RunOptions(targets=[], out_dir=tmp_path / "runs", progress=False))
    suites = result.summary["suites"]["findings"]
    careful, quick = suites["careful-reviewer"]["metrics"], suites["quick-reviewer"]["metrics"]
    assert careful == pytest.approx({"precision": 8 / 9, "recall": 0.8, "f1": 16 / 19, "verdictAgreement": 1.0})
    assert quick == pytest.approx({"precision": 0.6, "recall": 0.3, "f1": 0.4, "verdictAgreement": 0.5})
    rows = result.cases.set_index(["target", "case"])
    assert rows.loc[("quick-reviewer", "orders-sql-filter"), "extra"] == [
        ["security.sql-injection", "internal/orders/search.go"]
    ]
    # each row names its recorded run relative to the corpus directory: no host path in a run
    assert (
        rows.loc[("quick-reviewer", "orders-sql-filter"), "source"]
        == "findings/runs/quick-reviewer/orders-sql-filter.json"
    )
    assert not any(str(tmp_path) in source for source in result.cases["source"])


def test_rule_outside_the_catalogue_is_named(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    gold = tmp_path / "corpus" / "findings" / "gold" / "refund-rounding.json"
    record = json.loads(gold.read_text())
    record["findings"][0]["rule_key"] = "made.up"
    gold.write_text(json.dumps(record))
    with pytest.raises(CorpusError, match=r"refund-rounding.json.findings\[0\].rule_key: 'made.up' is not in"):
        load_findings(load_corpus(path))
    assert any("made.up" in str(p) for p in validate_corpus(path))


def test_run_naming_an_unknown_gold_record(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    (tmp_path / "corpus" / "findings" / "runs" / "x.json").write_text(
        json.dumps({"agent": "a", "gold": "nope", "findings": []})
    )
    with pytest.raises(CorpusError, match=r"x.json.gold: 'nope' names no gold record"):
        load_findings(load_corpus(path))


def test_an_engine_baseline_leaves_out_recorded_agents(tmp_path: Path, monkeypatch) -> None:
    from workbench.store.baselines import load_baseline, record_baseline

    from ..conftest import engine_spec

    path = _corpus(tmp_path)
    (tmp_path / "fixtures" / "api" / "src").mkdir(parents=True)
    (tmp_path / "fixtures" / "api" / "src" / "a.ts").write_text("export const a = 1;\n")
    data = json.loads(path.read_text())
    data["retrieval"] = [{"name": "a", "query": "find a", "repoFixture": "api", "expectedPrimary": ["src/a.ts"]}]
    path.write_text(json.dumps(data))
    result = run(
        load_corpus(path),
        RunOptions(
            targets=[engine_spec({"find a": ["src/a.ts"]}, monkeypatch)], out_dir=tmp_path / "runs", progress=False
        ),
    )
    assert {"careful-reviewer", "quick-reviewer"} <= set(result.cases["target"])
    base = load_baseline(record_baseline(result, "engine", path))
    assert set(base.cases["suite"]) == {"retrieval"}


README_TABLE = """# JWT middleware fixture

Seeded findings (illustrative; gold.json is canonical):

| # | File | Line | Rule key | Severity |
|---|------|-----:|----------|----------|
| 1 | `src/auth/jwt.middleware.ts` | 18 | `security.jwt-alg-unverified` | BLOCKER |
| 2 | `src/auth/jwt.middleware.ts` | 31 | `security.secret-in-log` | {severity} |
| 3 | `src/auth/jwt.middleware.ts` | 0 | `conformance.missing-test` | MINOR |
"""


def _with_readme(tmp_path: Path, severity: str) -> Path:
    path = _corpus(tmp_path)
    fixture = tmp_path / "fixtures" / "jwt"
    fixture.mkdir(parents=True)
    (fixture / "README.md").write_text(README_TABLE.format(severity=severity))
    gold = tmp_path / "corpus" / "findings" / "gold" / "jwt-auth-middleware.json"
    gold.write_text(json.dumps(dict(json.loads(gold.read_text()), source="fixtures/jwt")))
    return path


def test_readme_findings_table_that_agrees_passes(tmp_path: Path) -> None:
    assert validate_corpus(_with_readme(tmp_path, "MAJOR")) == []


def test_readme_findings_table_that_disagrees_names_row_and_field(tmp_path: Path, capsys) -> None:
    path = _with_readme(tmp_path, "BLOCKER")
    problems = [str(p) for p in validate_corpus(path)]
    assert len(problems) == 1
    assert "README.md:8: findings table row 2 (src/auth/jwt.middleware.ts, security.secret-in-log)" in problems[0]
    assert "severity is 'BLOCKER' in the table but 'MAJOR' in jwt-auth-middleware.json findings[1]" in problems[0]
    assert main(["validate", "--corpus", str(path)]) == 3
    assert "findings table row 2" in capsys.readouterr().err


def test_readme_rows_and_findings_that_do_not_pair(tmp_path: Path) -> None:
    path = _with_readme(tmp_path, "MAJOR")
    readme = tmp_path / "fixtures" / "jwt" / "README.md"
    table = README_TABLE.format(severity="MAJOR")
    readme.write_text(table + "| 4 | `src/auth/jwt.middleware.ts` | 40 | `security.sql-injection` | MAJOR |\n")
    assert str(validate_corpus(path)[0]).endswith(
        "README.md:10: findings table row 4 (src/auth/jwt.middleware.ts, security.sql-injection) has no finding "
        "in jwt-auth-middleware.json"
    )
    readme.write_text(table.replace("| 31 |", "| 33 |"))
    assert "row 2 (src/auth/jwt.middleware.ts, security.secret-in-log): line is '33' in the table but 31" in str(
        validate_corpus(path)[0]
    )
    readme.write_text(table.replace("`security.secret-in-log`", "`security.sensitive-data-exposure`"))
    assert "row 2 (src/auth/jwt.middleware.ts, security.sensitive-data-exposure): rule_key is" in str(
        validate_corpus(path)[0]
    )  # paired by position once (file, rule_key) finds nothing
    readme.write_text("\n".join(line for line in table.splitlines() if "missing-test" not in line))
    assert (
        "the findings table has no row for jwt-auth-middleware.json findings[2] (src/auth/jwt.middleware.ts, "
        "conformance.missing-test)" in str(validate_corpus(path)[0])
    )
    readme.write_text("# prose only\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")  # no findings table: nothing to compare
    assert validate_corpus(path) == []
