"""Issue 20, item 4: answers are bounded. A cap on entries per answer and bytes per line, the
timeout covering parsing too, and an answer's ``repo`` checked against the request."""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from workbench.contract import Repo
from workbench.errors import TargetError
from workbench.targets import protocol
from workbench.targets.command import CommandTransport
from workbench.targets.protocol import ProtocolTarget
from workbench.wire import MAX_ANSWER_BYTES, MAX_FILES, parse_hits, parse_pack

ENGINE = Path(__file__).parents[1] / "engines" / "untrusted_engine.py"
REPO = [Repo("api", Path("/tmp/api"))]


@pytest.fixture
def target():
    engine = ProtocolTarget("untrusted", CommandTransport([sys.executable, str(ENGINE)], timeout=20), timeout=20)
    yield engine
    engine.close()


def test_an_answer_of_a_million_files_fails_its_case_quickly_and_small(target: ProtocolTarget) -> None:
    started = time.monotonic()
    tracemalloc.start()
    try:
        with pytest.raises(
            TargetError, match=rf"primary: invalid answer: 200000 entries, more than the cap of {MAX_FILES}"
        ):
            target.context_pack("many:200000", REPO, 8)
        with pytest.raises(TargetError, match="answer longer than|more than the cap"):  # the 10^6 files
            target.context_pack("many:1000000", REPO, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 15
    assert peak < 200 * 2**20
    assert [r.path for r in target.context_pack("ok", REPO, 8).primary] == ["src/a.ts"]  # the engine is still usable


def test_a_line_over_the_byte_cap_is_refused(target: ProtocolTarget) -> None:
    with pytest.raises(TargetError, match=f"answer longer than {MAX_ANSWER_BYTES // 2**20} MB"):
        target.context_pack("huge-line", REPO, 8)
    assert [r.path for r in target.context_pack("ok", REPO, 8).primary] == ["src/a.ts"]


def test_an_answer_naming_an_unrequested_repo_is_an_error(target: ProtocolTarget) -> None:
    with pytest.raises(
        TargetError, match=r"primary\[0\]\.repo: invalid answer: repo 'zzz-not-requested' was not requested"
    ):
        target.context_pack("other-repo", REPO, 8)
    two = [Repo("api", Path("/a")), Repo("web", Path("/w"))]
    pack = parse_pack({"primary": [{"repo": "web", "path": "x.ts"}, {"repo": "api", "path": "y.ts"}]}, two)
    assert [(r.repo, r.path) for r in pack.primary] == [("web", "x.ts"), ("api", "y.ts")]
    with pytest.raises(TargetError, match="'zzz' was not requested"):
        parse_pack({"related": [{"repo": "zzz", "path": "x.ts"}]}, two)


def test_entry_caps_hold_for_every_capability() -> None:
    assert len(parse_hits({"hits": [{"file": "a.go"}] * MAX_FILES})) == MAX_FILES
    with pytest.raises(TargetError, match="search: hits: invalid answer"):
        parse_hits({"hits": [{"file": "a.go"}] * (MAX_FILES + 1)})


def test_the_timeout_covers_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_parse(body: dict[str, Any], repos: list[Repo]) -> Any:
        time.sleep(0.4)
        return parse_pack(body, repos)

    monkeypatch.setattr(protocol, "parse_pack", slow_parse)
    quick = ProtocolTarget(
        "t", lambda capability, request: {"primary": ["a.ts"]}, capabilities=("context_pack",), timeout=0.2
    )
    with pytest.raises(TargetError, match=r"context_pack: answer not received and parsed within 0\.2s"):
        quick.context_pack("q", REPO, 8)
    patient = ProtocolTarget(
        "t", lambda capability, request: {"primary": ["a.ts"]}, capabilities=("context_pack",), timeout=5
    )
    assert [r.path for r in patient.context_pack("q", REPO, 8).primary] == ["a.ts"]
