"""Issue 13, part 1: every loader is total. Each bad input a tester found loads or fails with one
WorkbenchError line naming the file and field (never a traceback, never a later crash)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.corpus.goldens import load_golden
from workbench.errors import CorpusError, StoreError
from workbench.store.baselines import list_baselines, load_baseline
from workbench.store.headers import read_header
from workbench.store.runs import load_run
from workbench.strictjson import loads_strict, nesting_depth
from workbench.suites.findings import load_findings
from workbench.suites.ranking import RankingSuite

from ..conftest import REPO_ROOT, write_corpus
from ..report_runs import build_run

DEEP = "[" * 3000 + "]" * 3000
BIG = "1" * 4400


@pytest.mark.parametrize(
    "text, message",
    [
        (DEEP, "nested deeper than 64 levels"),
        ('{"a": ' * 3000 + "1" + "}" * 3000, "nested deeper than 64 levels"),
        (BIG, "integer literal of 4400 digits"),
        ('{"k": 9223372036854775808}', "out of range"),
        ('{"x": NaN}', "NaN is not a number"),
        ('{"x": -Infinity}', "-Infinity is not a number"),
        ('{"x": 1e999}', "overflows to infinity"),
        ('{"q": ["refund \\ud800"]}', r"q\[0\]: lone surrogate"),
        ('{"\\udc00": 1}', "lone surrogate"),
        (b'{"a": "\xff"}', "not UTF-8"),
        ('{"a": ', "invalid JSON"),
        ('{"a": 1, "b": [{"c": 1, "d": 2, "c": 3}]}', "f.json: duplicate key 'c' in one object"),  # issue 41
    ],
)
def test_strict_reader_refuses(text: str | bytes, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        loads_strict(text, "f.json", StoreError)


def test_strict_reader_accepts_ordinary_json() -> None:
    value = loads_strict('{"a": [1, 2.5, -3e-2, "\\ud83d\\ude00", null, true], "b": {"c": "d"}}', "f", StoreError)
    assert value == {"a": [1, 2.5, -0.03, "\U0001f600", None, True], "b": {"c": "d"}}
    assert nesting_depth('[[["]]]]"]]]') == 3  # brackets inside strings do not count


def _corpus(tmp_path: Path, **extra: object) -> Path:
    (tmp_path / "fixtures" / "api" / "src").mkdir(parents=True)
    (tmp_path / "fixtures" / "api" / "src" / "a.ts").write_text("export const a = 1;\n")
    case = {"name": "a", "query": "find a", "repoFixture": "api", "expectedPrimary": ["src/a.ts"]}
    data = {"k": 5, "fixtureRoots": {"api": "fixtures/api"}, "retrieval": [case]}
    data.update(extra)
    return write_corpus(tmp_path, data)


def _raw_corpus(tmp_path: Path, text: str) -> Path:
    path = _corpus(tmp_path)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"retrieval": ' + DEEP + "}", "nested deeper"),
        ('{"k": ' + BIG + "}", "integer literal of 4400 digits"),
        ('{"thresholds": {"retrieval": {"mrr": NaN}}}', "NaN is not a number"),
        ('{"thresholds": {"retrieval": {"mrr": Infinity}}}', "Infinity is not a number"),
        ('{"k": 5, "thresholds": {"retrieval": {"mrr": 0.9, "mrr": 0.1}}}', "corpus.json: duplicate key 'mrr'"),
    ],
)
def test_corpus_text_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        load_corpus(_raw_corpus(tmp_path, text))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"k": 1e30}, r"k: must be at most 1000"),
        (
            {"retrieval": [{"name": "a", "query": "refund \ud800", "repoFixture": "api", "expectedPrimary": []}]},
            r"retrieval\[0\]\.query: lone surrogate",
        ),
        (
            {"retrieval": [{"name": ["a"], "query": "q", "repoFixture": "api", "expectedPrimary": []}]},
            r"retrieval\[0\]\.name: expected a string",
        ),
        (
            {"retrieval": [{"name": "a", "query": "q", "repoFixture": "api", "expectedPrimary": ["/etc/passwd"]}]},
            r"retrieval\[0\]\.expectedPrimary\[0\]: must be a path inside the fixture",
        ),
        (
            {"retrieval": [{"name": "a", "query": "q", "repoFixture": "api", "expectedPrimary": ["../../x"]}]},
            r"expectedPrimary\[0\]: must not leave the fixture",
        ),
    ],
)
def test_corpus_fields_refused_at_load(tmp_path: Path, change: dict, message: str) -> None:
    path = _corpus(tmp_path)
    data = json.loads(path.read_text())
    data.update(change)
    path.write_text(json.dumps(data))  # json.dumps escapes the lone surrogate as \ud800
    with pytest.raises(CorpusError, match=message):
        load_corpus(path)


def _findings_corpus(tmp_path: Path, **spec_change: object) -> Path:
    shutil.copytree(REPO_ROOT / "corpus" / "findings", tmp_path / "corpus" / "findings")
    spec = json.loads((REPO_ROOT / "corpus" / "corpus.json").read_text())["findings"]
    spec.update(spec_change)
    return write_corpus(tmp_path, {"findings": spec})


@pytest.mark.parametrize(
    "change, message",
    [
        ({"lineTolerance": "three"}, r"findings\.lineTolerance: expected an integer >= 0, got 'three'"),
        ({"ruleCatalogue": [{}]}, r"findings\.ruleCatalogue: expected a list of rule key strings"),
        ({"gold": ["findings/gold"]}, r"findings\.gold: expected a directory"),
    ],
)
def test_findings_section_types(tmp_path: Path, change: dict, message: str) -> None:
    path = _findings_corpus(tmp_path, **change)
    with pytest.raises(CorpusError, match=message):
        load_findings(load_corpus(path))
    assert any("findings" in str(p) for p in validate_corpus(path))


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"expected_verdict": "BLOCK", "findings": [{"file": "a\xff"}]}', "not UTF-8"),
        ('{"expected_verdict": "BLOCK", "findings": ' + DEEP + "}", "nested deeper"),
        (
            '{"expected_verdict": "BLOCK", "findings": [{"file": "\\ud800", "rule_key": "x"}]}',
            r"findings\[0\]\.file: lone surrogate",
        ),
        (
            '{"expected_verdict": "BLOCK", "findings": [{"file": "a", "line": 1, "rule_key": "conformance.naming", '
            '"severity": "MAJOR", "dual_flaggable": ["x"]}]}',
            r"findings\[0\]\.dual_flaggable: expected a rule key",
        ),
    ],
)
def test_bad_gold_record_is_named(tmp_path: Path, content: str | bytes, message: str) -> None:
    path = _findings_corpus(tmp_path)
    gold = next((tmp_path / "corpus" / "findings" / "gold").glob("*.json"))
    gold.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CorpusError, match=rf"{gold.name}.*{message}"):
        load_findings(load_corpus(path))


def test_recorded_run_with_a_list_as_gold_and_a_bad_byte(tmp_path: Path) -> None:
    path = _findings_corpus(tmp_path)
    recorded = next((tmp_path / "corpus" / "findings" / "runs").rglob("*.json"))
    data = json.loads(recorded.read_text())
    recorded.write_text(json.dumps(dict(data, gold=[data["gold"]])))
    with pytest.raises(CorpusError, match=rf"{recorded.name}\.gold: .* names no gold record"):
        load_findings(load_corpus(path))
    recorded.write_bytes(b'{"agent": "\xc3"}')
    with pytest.raises(CorpusError, match=rf"{recorded.name}: not UTF-8"):
        load_findings(load_corpus(path))


@pytest.mark.parametrize(
    "line, message",
    [
        (b'{"query": "q\xff", "expected": ["a.go"]}', r"g\.jsonl:1: not UTF-8"),
        ('{"query": "q", "expected": ' + DEEP + "}", r"g\.jsonl:1: nested deeper"),
        ('{"query": "refund \\ud800", "expected": ["a.go"]}', r"g\.jsonl:1: query: lone surrogate"),
        ('{"query": "q", "expected": ["a.go"], "id": ' + BIG + "}", r"g\.jsonl:1: integer literal"),
        ('{"query": "q", "expected": ["a.go"], "language": ["go"]}', r"g\.jsonl:1\.language: expected a string"),
    ],
)
def test_bad_golden_line_is_named(tmp_path: Path, line: str | bytes, message: str) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_bytes(line if isinstance(line, bytes) else line.encode())
    with pytest.raises(CorpusError, match=message):
        load_golden(golden)


def test_golden_comment_lines_are_skipped(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text('# a comment\n\n{"query": "q", "expected": ["a.go"]}\n')
    assert [q.query for q in load_golden(golden)] == ["q"]


def test_list_as_ranking_repo_fixture(tmp_path: Path) -> None:
    path = _corpus(tmp_path, ranking=[{"name": "r", "repoFixture": ["api"], "golden": "g.jsonl"}])
    with pytest.raises(CorpusError, match=r"ranking\[0\]\.repoFixture: expected a non-empty string"):
        RankingSuite().check(load_corpus(path))


def _baseline_doc() -> dict:
    doc = json.loads((REPO_ROOT / "corpus" / "baselines" / "builtin.json").read_text())
    return dict(doc, cases=doc["cases"][:3])


@pytest.mark.parametrize(
    "change, message",
    [
        ({"metrics": {"retrieval": {"mrr": "0.9"}}}, r"metrics\.retrieval\.mrr: expected number or null"),
        ({"suites": "x"}, r"suites: expected object"),
        ({"thresholds": {"retrieval": {"mrr": "high"}}}, r"thresholds\.retrieval\.mrr: expected number"),
        ({"target": ["builtin"]}, r"target: expected object"),
    ],
)
def test_bad_baseline_field(tmp_path: Path, change: dict, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps(dict(_baseline_doc(), **change)))
    with pytest.raises(StoreError, match=rf"b\.json: {message}"):
        load_baseline(path)


def test_deep_baseline(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"format": 1, "cases": ' + DEEP + "}")
    with pytest.raises(StoreError, match=r"b\.json: nested deeper"):
        load_baseline(path)


def test_one_bad_baseline_does_not_hide_the_good_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    baselines = corpus.parent / "baselines"
    baselines.mkdir()
    (baselines / "good.json").write_text(json.dumps(dict(_baseline_doc(), name="good")))
    (baselines / "bad.json").write_text(json.dumps(dict(_baseline_doc(), metrics={"retrieval": {"mrr": "x"}})))
    frame = list_baselines(baselines)
    assert frame.dropna(subset=["name"])["name"].tolist() == ["good"]
    assert frame.loc[frame["error"].notna(), "path"].tolist() == [str(baselines / "bad.json")]
    assert main(["baseline", "list", "--corpus", str(corpus)]) == 0
    out, err = capsys.readouterr()
    assert "good" in out and "bad.json" not in out
    assert "skipped" in err and "bad.json: metrics.retrieval.mrr" in err


@pytest.fixture(scope="module")
def built_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("runs"), suites=("retrieval",))


@pytest.fixture
def run_dir(built_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built_run, tmp_path / built_run.name))


@pytest.mark.parametrize(
    "file, content, message",
    [
        ("summary.json", DEEP, r"summary\.json: nested deeper"),
        ("summary.json", "[]", r"summary\.json: top level: expected object"),
        ("summary.json", '{"suites": "x"}', r"summary\.json: suites: expected object"),
        (
            "summary.json",
            '{"suites": {"retrieval": {"builtin": {"metrics": {"mrr": "0.5"}}}}}',
            r"summary\.json: suites\.retrieval\.builtin\.metrics\.mrr: expected number or null",
        ),
        ("manifest.json", "[]", r"manifest\.json: top level: expected object"),
        ("manifest.json", '{"run_id": "r1", "targets": []}', r"manifest\.json: corpus: expected object"),
        ("manifest.json", '{"corpus": {"path": "c"}, "targets": ["builtin"]}', r"targets\[0\]: expected object"),
        ("cases.jsonl", DEEP + "\n", r"cases\.jsonl:1: nested deeper"),
        ("cases.jsonl", '{"suite": ["x"], "target": "t", "case": "c"}\n', r"cases\.jsonl: line 1\.suite: expected"),
        ("cases.jsonl", '{"suite": "s", "target": "t", "case": "\\ud800"}\n', r"cases\.jsonl:1: case: lone surrogate"),
    ],
)
def test_bad_run_file_is_named(run_dir: Path, file: str, content: str, message: str) -> None:
    (run_dir / file).write_text(content)
    for reader in (read_header, load_run):
        with pytest.raises(StoreError, match=message):
            reader(run_dir)


@pytest.mark.parametrize("command", ["compare", "merge", "report"])
def test_cli_commands_refuse_a_wrong_typed_run(
    run_dir: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (run_dir / "summary.json").write_text('{"suites": "x"}')
    other = shutil.copytree(run_dir, tmp_path / "other")
    args = {
        "compare": ["compare", str(run_dir), str(other)],
        "merge": ["merge", str(run_dir), str(other)],
        "report": ["report", str(run_dir), "--out", str(tmp_path / "html")],
    }[command]
    assert main(args) == 3
    err = capsys.readouterr().err
    assert "summary.json: suites: expected object" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench import strictjson

    monkeypatch.setattr(strictjson, "MAX_FILE_BYTES", 100)
    path = _corpus(tmp_path)
    path.write_text(json.dumps({"description": "x" * 200}))
    with pytest.raises(CorpusError, match="corpus file larger than"):
        load_corpus(path)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_named_as_a_golden_is_refused(tmp_path: Path, device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device} here")
    path = _corpus(tmp_path, ranking=[{"name": "r", "repoFixture": "api", "golden": device}])
    with pytest.raises(CorpusError, match=rf"ranking\[0\]\.golden: '{device}' must be a path relative to the corpus"):
        RankingSuite().check(load_corpus(path))
    (tmp_path / "corpus" / "dev.jsonl").symlink_to(device)  # a link to it: judged where it leads
    path.write_text(
        json.dumps(
            {**json.loads(path.read_text()), "ranking": [{"name": "r", "repoFixture": "api", "golden": "dev.jsonl"}]}
        )
    )
    with pytest.raises(CorpusError, match=rf"golden 'dev.jsonl' resolves to {device}, outside"):
        RankingSuite().check(load_corpus(path))


@pytest.mark.parametrize("golden", ["../../outside.jsonl", "OUTSIDE_ABS", "link.jsonl"])
def test_a_golden_never_names_a_file_outside_the_corpus_parent(tmp_path: Path, golden: str) -> None:
    """Issue 41: a ranking golden (or findings gold) is confined as fixtures are; one line naming the field."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside.jsonl"
    outside.write_text('{"id": "q1", "query": "secret", "expected": [{"file": "a.py"}]}\n')
    project = tmp_path / "project"
    (project / "corpus").mkdir(parents=True)
    (project / "corpus" / "link.jsonl").symlink_to(outside)
    name = {"OUTSIDE_ABS": str(outside), "../../outside.jsonl": f"../../../{outside.name}"}.get(golden, golden)
    path = _corpus(project, ranking=[{"name": "r", "repoFixture": "api", "golden": name}])
    with pytest.raises(CorpusError, match=r"corpus.json: ranking\[0\]\.golden.*(must be a path relative|outside)"):
        RankingSuite().check(load_corpus(path))
    problems = [str(p) for p in validate_corpus(path)]
    assert len(problems) == 1 and "ranking[0].golden" in problems[0], problems


def test_a_findings_gold_record_linked_from_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-gold.json"
    outside.write_text(json.dumps({"expected_verdict": "BLOCK", "findings": []}))
    project = tmp_path / "project"
    (project / "corpus" / "gold").mkdir(parents=True)
    (project / "corpus" / "runs").mkdir()
    (project / "corpus" / "gold" / "g.json").symlink_to(outside)
    path = _corpus(project, findings={"gold": "gold", "runs": "runs"})
    with pytest.raises(CorpusError, match="gold record resolves to .*, outside"):
        load_findings(load_corpus(path))
