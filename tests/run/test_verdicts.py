"""Verdicts say what was judged: NO FLOORS (never PASS) without floors, 0 cases is an error, the
controls comparison in the summary and scoreboard, and ``--gate controls`` as the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import write_corpus
from workbench.cli import main
from workbench.run import run_eval
from workbench.run.controls import control_section, gate_on_controls

TOPICS = ["invoice", "shipment", "coupon", "refund", "ledger", "payroll", "voucher", "tariff", "rebate", "escrow"]


def _decoy_corpus(root: Path, decoys: bool) -> Path:
    """Ten cases, each query naming a function in ``src/modN.ts``. With ``decoys`` a notes file
    repeats every query word, so bm25 (text statistics) ranks the notes first while the
    definition is what an engine should return; without them both engines find every file."""
    for i, topic in enumerate(TOPICS):
        src = root / "fixtures" / "shop" / "src" / f"mod{i}.ts"
        src.parent.mkdir(parents=True, exist_ok=True)
        name = f"compute{topic.capitalize()}Total"
        src.write_text(f"export function {name}(items: number[]): number {{\n  return items.length;\n}}\n")
        if decoys and i < len(TOPICS) - 2:  # two cases without a decoy: the paired differences vary
            notes = root / "fixtures" / "shop" / "docs" / f"notes{i}.md"
            notes.parent.mkdir(parents=True, exist_ok=True)
            notes.write_text(f"Notes: compute {topic} total. " * 8 + "\n")
    cases = [
        {"name": t, "query": f"compute {t} total", "repoFixture": "shop", "expectedPrimary": [f"src/mod{i}.ts"]}
        for i, t in enumerate(TOPICS)
    ]
    return write_corpus(root, {"k": 5, "fixtureRoots": {"shop": "fixtures/shop"}, "retrieval": cases})


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_a_suite_without_floors_is_no_floors_in_json_text_and_the_last_line(tmp_path, capsys) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=False)
    code, out = _cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "r"), "--json"], capsys)
    summary = json.loads(out)
    pair = summary["suites"]["retrieval"]["builtin"]
    assert code == 0 and pair["verdict"] == "NO FLOORS" and pair["passed"] is None
    assert summary["verdict"] == "NO FLOORS" and summary["passed"] is None
    stored = json.loads((Path(summary["run_dir"]) / "summary.json").read_text())
    assert stored["verdict"] == "NO FLOORS"
    code, out = _cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "r")], capsys)
    last = out.strip().splitlines()[-1]
    assert code == 0 and last == "Overall: NO FLOORS (nothing was gated: no suite ran against a floor; exit 0)"
    assert "PASS" not in out


def test_a_suite_asked_for_with_zero_cases_exits_3(tmp_path, capsys) -> None:
    (tmp_path / "fixtures" / "shop").mkdir(parents=True)
    corpus = write_corpus(tmp_path, {"fixtureRoots": {"shop": "fixtures/shop"}, "retrieval": []})
    code = main(["run", "--corpus", str(corpus), "--suite", "retrieval", "--out", str(tmp_path / "r")])
    assert code == 3 and "suite retrieval has 0 cases" in capsys.readouterr().err


def test_controls_section_says_whether_each_candidate_beats_each_control(tmp_path) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=True)
    run = run_eval(corpus, targets=["builtin", "bm25", "random"], out_dir=tmp_path / "r", progress=False)
    versus = run.summary["controls"]["retrieval"]["builtin"]
    assert set(versus) == {"bm25", "random"}
    bm25 = versus["bm25"]
    assert bm25["metric"] == "mrr" and bm25["n"] == 10 and bm25["beats"] and not bm25["below"]
    assert bm25["delta"] == pytest.approx(bm25["candidate"] - bm25["control"]) and bm25["p"] < 0.05


def test_a_candidate_below_a_control_is_a_warning_on_the_scoreboard(tmp_path, capsys) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=True)
    code, out = _cli(
        ["run", "--corpus", str(corpus), "--target", "random", "--target", "builtin", "--out", str(tmp_path / "r")],
        capsys,
    )
    assert code == 0 and "retrieval [builtin] vs random: mrr" in out
    summary = {
        "suites": {"retrieval": {"weak": {"verdict": "NO FLOORS"}}},
        "controls": {
            "retrieval": {
                "weak": {
                    "bm25": {
                        "metric": "mrr",
                        "n": 5,
                        "candidate": 0.2,
                        "control": 0.6,
                        "delta": -0.4,
                        "p": 0.01,
                        "beats": False,
                        "below": True,
                    }
                }
            }
        },
    }
    from workbench.report.text import control_lines

    lines = control_lines(summary)
    assert "WARNING: weak is below bm25 on retrieval mrr (0.200 vs 0.600, p=0.01)" in lines
    assert any(line.endswith("BELOW bm25") for line in lines)


def test_gate_controls_fails_when_builtin_does_not_beat_bm25(tmp_path, capsys) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=False)  # both find every file: no significant difference
    code, out = _cli(["run", "--corpus", str(corpus), "--gate", "controls", "--out", str(tmp_path / "r")], capsys)
    assert code == 1 and "Overall: FAIL (exit 1)" in out
    assert "does not beat bm25 significantly on mrr" in out  # bm25 was added: no control was given


def test_gate_controls_passes_when_builtin_beats_bm25(tmp_path, capsys) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=True)
    code, out = _cli(
        ["run", "--corpus", str(corpus), "--gate", "controls", "--out", str(tmp_path / "r"), "--json"], capsys
    )
    summary = json.loads(out)
    assert code == 0 and summary["verdict"] == "PASS" and summary["gate"] == "controls"
    assert summary["suites"]["retrieval"]["builtin"]["verdict"] == "PASS"
    assert summary["suites"]["retrieval"]["bm25"]["verdict"] == "NO FLOORS"  # a control is never gated


def test_gate_controls_falls_back_to_random_and_fails_closed_without_pairs() -> None:
    import pandas as pd

    scores = pd.DataFrame(
        [
            {"suite": "retrieval", "target": t, "case": f"c{i}", "metric": "mrr", "value": v}
            for i in range(6)
            for t, v in (("eng", 1.0 if i else 0.5), ("random", 0.2 if i % 2 else 0.3))
        ]
    )
    section = control_section(scores, {"retrieval": "mrr"})
    summary = {"suites": {"retrieval": {"eng": {"verdict": "NO FLOORS", "failures": []}}}, "controls": section}
    judged = gate_on_controls(summary, {"retrieval": "mrr"})
    assert judged["verdict"] == "PASS" and set(section["retrieval"]["eng"]) == {"random"}
    lonely = gate_on_controls(
        {"suites": {"retrieval": {"eng": {"verdict": "NO FLOORS", "failures": []}}}}, {"retrieval": "mrr"}
    )
    assert lonely["verdict"] == "FAIL"
    assert lonely["suites"]["retrieval"]["eng"]["failures"] == [
        "--gate controls: no control (bm25, guess or random) scored retrieval mrr"
    ]


def test_gate_controls_asks_to_beat_both_bm25_and_guess() -> None:
    import pandas as pd

    values = {"eng": [1.0, 1.0, 0.9, 1.0, 1.0, 0.8], "bm25": [0.2, 0.3, 0.2, 0.1, 0.3, 0.2]}
    values["guess"] = [1.0, 1.0, 1.0, 1.0, 0.9, 0.8]  # the wording gives every case away
    scores = pd.DataFrame(
        [
            {"suite": "retrieval", "target": t, "case": f"c{i}", "metric": "mrr", "value": v[i]}
            for t, v in values.items()
            for i in range(6)
        ]
    )
    section = control_section(scores, {"retrieval": "mrr"})
    summary = {"suites": {"retrieval": {"eng": {"verdict": "NO FLOORS", "failures": []}}}, "controls": section}
    judged = gate_on_controls(summary, {"retrieval": "mrr"})
    assert section["retrieval"]["eng"]["bm25"]["beats"] and judged["verdict"] == "FAIL"
    assert [f.split(" (")[0] for f in judged["suites"]["retrieval"]["eng"]["failures"]] == [
        "--gate controls: does not beat guess significantly on mrr"
    ]


def test_run_eval_takes_one_target_as_a_string(tmp_path) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=False)
    run = run_eval(corpus, targets="builtin", suites="retrieval", out_dir=tmp_path / "r", progress=False)
    assert run.targets == ["builtin"]


def test_unknown_suite_or_target_is_a_usage_error(tmp_path, capsys) -> None:
    corpus = _decoy_corpus(tmp_path, decoys=False)
    out = str(tmp_path / "r")
    assert main(["run", "--corpus", str(corpus), "--suite", "nosuch", "--out", out]) == 2
    assert "unknown suite 'nosuch'" in capsys.readouterr().err
    assert main(["run", "--corpus", str(corpus), "--target", "nosuch", "--out", out]) == 2
    assert "unknown target 'nosuch'" in capsys.readouterr().err


def test_merged_shards_judge_the_controls_on_every_case(tmp_path) -> None:
    from workbench.run.merge import merge_runs

    corpus = _decoy_corpus(tmp_path, decoys=True)
    opts = {"targets": ["builtin", "bm25"], "gate": "controls", "progress": False}
    whole = run_eval(corpus, out_dir=tmp_path / "whole", **opts)
    shards = [run_eval(corpus, out_dir=tmp_path / f"s{i}", shard=(i, 2), **opts) for i in range(2)]
    merged = merge_runs([s.path for s in shards], tmp_path / "merged")
    assert merged.summary["verdict"] == whole.summary["verdict"] == "PASS"
    assert merged.summary["controls"]["retrieval"]["builtin"]["bm25"]["n"] == 10
    assert merged.summary["controls"] == whole.summary["controls"]


def test_the_scoreboard_page_lists_the_controls_comparison(tmp_path) -> None:
    import workbench as wb

    corpus = _decoy_corpus(tmp_path, decoys=True)
    run = run_eval(corpus, targets=["builtin", "bm25"], out_dir=tmp_path / "r", progress=False)
    frame = wb.views.controls(wb.load_run(run.path)).data
    row = frame.set_index(["candidate", "control"]).loc[("builtin", "bm25")]
    assert row["metric"] == "mrr" and row["n"] == 10 and row["verdict"] == "beats"
    alone = run_eval(corpus, targets=["builtin"], out_dir=tmp_path / "r", progress=False)
    assert "no candidate and control" in repr(wb.views.controls(alone))


def test_run_format_markdown_is_a_table_and_the_verdict_under_the_limit(tmp_path, capsys) -> None:
    from workbench.report.text import render_markdown

    corpus = _decoy_corpus(tmp_path, decoys=True)
    args = ["run", "--corpus", str(corpus), "--target", "builtin", "--target", "bm25", "--out", str(tmp_path / "r")]
    code, out = _cli([*args, "--format", "markdown"], capsys)
    lines = out.strip().splitlines()
    assert code == 0 and lines[0] == "### workbench run: NO FLOORS"
    assert "| retrieval | builtin | mrr | 1 | - | - |" in lines
    # eight cases with a decoy ranked first by bm25 (RR 0.5), two without (RR 1): mean 0.6
    assert "- retrieval [builtin] vs bm25: mrr 1.000 vs 0.600 (delta +0.400, n=10, p=" in out
    assert lines[-1].startswith("**Overall: NO FLOORS")
    summary = json.loads(_cli([*args, "--json"], capsys)[1])
    short = render_markdown(summary, limit=900)
    assert len(short) <= 900 and "_Table truncated:" in short and short.endswith("exit 0)**")
