"""``serve --interleave``: a log written by the server over HTTP, with feedback posted here, analyses
to the credit computed by hand; ``interleave analyze`` counts every kind of bad line, never crashes."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.contract import FileRef, Pack
from workbench.online import InterleavingDispatcher, analyze_log, case_rng, team_draft
from workbench.online.interleave import coins
from workbench.targets import make_server


class Fixed:
    """An engine whose pack is always the same files of repo ``r``."""

    def __init__(self, name: str, paths: list[str]) -> None:
        self.name, self.version, self.paths = name, "1", paths

    def context_pack(self, query: str, repos: list[Any], limit: int) -> Pack:
        return Pack(primary=[FileRef("r", p) for p in self.paths])


def _post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture
def served(tmp_path: Path):
    log = tmp_path / "log" / "impressions.jsonl"
    ids = iter(["imp-1", "imp-2", "imp-3"])
    dispatcher = InterleavingDispatcher(
        Fixed("alpha", ["x1", "x2"]), Fixed("beta", ["y1", "y2"]), {"r": tmp_path}, log, seed=0, new_id=ids.__next__
    )
    server = make_server(dispatcher)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port, log
    server.shutdown()
    server.server_close()


def test_a_served_log_with_posted_feedback_analyses_to_the_hand_computed_credit(served) -> None:
    port, log = served
    request = {"query": "q", "repos": [{"name": "r"}], "limit": 8}
    packs = [_post(port, "/v1/context_pack", request) for _ in range(3)]
    assert [p["impression"] for p in packs] == ["imp-1", "imp-2", "imp-3"]
    first = packs[0]["primary"]
    assert sorted(f["path"] for f in first) == ["x1", "x2", "y1", "y2"] and all("team" not in f for f in first)
    # imp-1: x1 and x2 are alpha's (team a), y1 beta's: 2 clicks to 1, A wins; zzz was not shown.
    # imp-2: y2 opened and y1 edited, both beta's: 0 to 2, B wins. imp-3: no feedback, no task.
    assert _post(port, "/v1/feedback", {"impression": "imp-1", "opened": ["x1", "y1", "zzz"], "edited": ["r/x2"]}) == {
        "ok": True,
        "duplicate": False,
    }
    assert _post(port, "/v1/feedback", {"impression": "imp-2", "opened": ["y2"], "edited": ["y1"]})["ok"]
    assert _post(port, "/v1/feedback", {"impression": "imp-1", "opened": ["y1", "y2"]})["duplicate"] is True
    assert "unknown impression" in _post(port, "/v1/feedback", {"impression": "ghost"})["error"]
    assert "list" in _post(port, "/v1/feedback", {"impression": "imp-3", "opened": "x1"})["error"]

    records = [json.loads(line) for line in log.read_text().splitlines()]
    shown = records[0]["shown"]
    assert records[0]["targets"] == {"a": "alpha", "b": "beta"} and records[0]["seed"] == 0
    assert {s["path"]: s["team"] for s in shown} == {"x1": "a", "x2": "a", "y1": "b", "y2": "b"}
    # the log reproduces the list: its seed and impression id give the same coins
    redrawn = team_draft([("r", "x1"), ("r", "x2")], [("r", "y1"), ("r", "y2")], 8, coins(case_rng(0, "imp-1")))
    assert [{"repo": r, "path": p, "team": t} for (r, p), t in redrawn] == shown

    found = analyze_log(log)
    assert found.cases[["impression", "clicks_a", "clicks_b", "outcome"]].values.tolist() == [
        ["imp-1", 2, 1, "a"],
        ["imp-2", 0, 2, "b"],
    ]
    assert (found.target_a, found.target_b) == ("alpha", "beta")
    assert found.preference is not None and (found.preference.wins_a, found.preference.wins_b) == (1, 1)
    assert found.preference.p == 1.0 and found.preference.preference == 0.0
    assert {k: found.counts[k] for k in ("impressions", "feedback", "tasks", "duplicate_feedback", "out_of_list")} == {
        "impressions": 3,
        "feedback": 2,
        "tasks": 2,
        "duplicate_feedback": 0,  # the server answers a repeat as a duplicate and does not log it
        "out_of_list": 1,
    }
    assert found.counts["no_feedback"] == 1 and found.counts["malformed"] == 0


def test_analyze_counts_every_bad_line_and_keeps_the_credit(served, capsys: pytest.CaptureFixture[str]) -> None:
    port, log = served
    _post(port, "/v1/context_pack", {"query": "q", "repos": [{"name": "r"}]})
    _post(port, "/v1/feedback", {"impression": "imp-1", "opened": ["x1"]})
    with log.open("ab") as out:
        out.write(b"not json\n")
        out.write(b'{"feedback": "ghost", "opened": []}\n')
        out.write(b'{"x": 1}\n')
        out.write(b'{"impression": "imp-1", "shown": []}\n')
        out.write(b'{"impression": "bad", "shown": [{"repo": "r", "path": "p", "team": "c"}]}\n')
        out.write(b'{"feedback": "imp-1", "opened": [3]}\n')
        out.write(b"\xff\xfe\n\n")
    found = analyze_log(log)
    assert found.counts["malformed"] == 5 and found.counts["unknown_impression"] == 1
    assert found.counts["duplicate_impressions"] == 1 and found.counts["lines"] == 9
    assert found.cases["outcome"].tolist() == ["a"] and len(found.problems) == 7
    assert main(["interleave", "analyze", str(log)]) == 0
    text = capsys.readouterr().out
    assert "malformed 5" in text and "wins A (alpha) 1, ties 0, wins B (beta) 0" in text
    assert main(["interleave", "analyze", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["unknown_impression"] == 1
    assert main(["interleave", "analyze", str(log.parent / "missing.jsonl")]) == 3


def test_the_server_remembers_only_the_last_impressions_for_feedback(tmp_path: Path) -> None:
    ids = iter(f"imp-{i}" for i in range(1, 5))
    dispatcher = InterleavingDispatcher(
        Fixed("alpha", ["x1"]), Fixed("beta", ["y1"]), {"r": tmp_path}, tmp_path / "log.jsonl",
        new_id=ids.__next__, max_pending=2,
    )  # fmt: skip
    request = {"query": "q", "repos": [{"name": "r"}], "limit": 8}
    shown = [dispatcher.answer("/v1/context_pack", request)[1]["impression"] for _ in range(3)]
    assert shown == ["imp-1", "imp-2", "imp-3"] and list(dispatcher.shown) == ["imp-2", "imp-3"]
    status, answer = dispatcher.answer("/v1/feedback", {"impression": "imp-1", "opened": ["x1"]})
    assert status == 200 and "older than the last 2 impressions" in answer["error"]
    assert dispatcher.answer("/v1/feedback", {"impression": "imp-3", "opened": ["x1"]})[1] == {
        "ok": True,
        "duplicate": False,
    }
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 4  # every impression stays in the log


def test_a_repeated_feedback_is_not_logged_and_a_feedback_body_is_bounded(tmp_path: Path) -> None:
    """Issue 41 item 8: 20 posts of one impression's feedback, up to 4 MB each, grew the log by
    80 MB. Now only the first is logged (it is the one ``analyze`` counts), and a feedback's paths
    are bounded (``MAX_FEEDBACK_CHARS``) before anything is written."""
    from workbench.online import serve as online_serve

    log = tmp_path / "log.jsonl"
    dispatcher = InterleavingDispatcher(
        Fixed("alpha", ["x1"]), Fixed("beta", ["y1"]), {"r": tmp_path}, log, new_id=lambda: "imp-1"
    )
    dispatcher.answer("/v1/context_pack", {"query": "q", "repos": [{"name": "r"}]})
    logged = log.stat().st_size
    paths = ["p" * 4000 for _ in range(16)]  # 64,000 characters: within the bound
    answers = [dispatcher.answer("/v1/feedback", {"impression": "imp-1", "opened": paths})[1] for _ in range(20)]
    assert answers[0] == {"ok": True, "duplicate": False}
    assert all(a == {"ok": True, "duplicate": True} for a in answers[1:])
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["opened"] == paths
    assert log.stat().st_size < logged + online_serve.MAX_FEEDBACK_CHARS + 1000
    huge = ["p" * 4000 for _ in range(online_serve.MAX_PATHS)]  # 4 MB of paths, each one allowed
    status, answer = dispatcher.answer("/v1/feedback", {"impression": "imp-1", "edited": huge})
    assert status == 200 and "at most 65,536 characters of paths" in answer["error"]
    assert len(log.read_text().splitlines()) == 2


def test_analyze_prints_no_terminal_escape_from_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 41, minor: target names and problems from a log reach the terminal escaped."""
    log = tmp_path / "log.jsonl"
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
    shown = [{"repo": "r", "path": "x", "team": "a"}, {"repo": "r", "path": "y", "team": "b"}]
    records = [
        {"impression": "i1", "targets": {"a": f"alpha{evil}", "b": "beta"}, "shown": shown},
        {"impression": "i2", "targets": {"a": f"other{evil}", "b": "beta"}, "shown": shown},
        {"feedback": "i1", "opened": ["x"]},
        {"feedback": f"ghost{evil}", "opened": []},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["interleave", "analyze", str(log)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "alpha\\x1b]0;pwned\\x07\\x1b[2J\\u202e (A)" in out and "other\\x1b" in out


def test_serve_refuses_a_pack_request_without_repositories(served) -> None:
    """Issue 41, minor: ``"repos": []`` was answered ``ValueError: max() arg is an empty sequence``."""
    port, _ = served
    for repos in ([], None):
        answer = _post(port, "/v1/context_pack", {"query": "q", "repos": repos})
        assert (
            answer["error"] == "'repos' should be a list of at least one and at most 32 {name} of served repositories"
        )
