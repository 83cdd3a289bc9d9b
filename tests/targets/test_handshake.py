"""The capabilities handshake: a retrieval-only engine gets its other suites skipped, not errored."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from workbench.corpus import load_corpus
from workbench.options import RunOptions
from workbench.run.runner import run
from workbench.targets.handshake import Handshake, ask, handshake_answer, parse_handshake
from workbench.targets.protocol import ProtocolTarget
from workbench.targets.serve import Dispatcher

from ..conftest import write_corpus

ENGINE = Path(__file__).parents[1] / "engines" / "retrieval_only.py"
ANSWERS = {"list orders": ["src/orders.ts"], "find users": ["src/users.ts", "src/orders.ts"]}


def _corpus(root: Path) -> Path:
    for rel in ("api/src/orders.ts", "api/src/users.ts"):
        (root / "fixtures" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "fixtures" / rel).write_text(f"// {rel}\n")
    (root / "corpus" / "golden.jsonl").parent.mkdir(parents=True, exist_ok=True)
    (root / "corpus" / "golden.jsonl").write_text(json.dumps({"query": "orders", "expected_top_3": ["orders"]}))
    return write_corpus(
        root,
        {
            "thresholds": {"retrieval": {"recallAtK": 0.9, "mrr": 0.9}, "risk": {"accuracy": 0.9}},
            "fixtureRoots": {"api": "fixtures/api"},
            "retrieval": [
                {"name": "orders", "query": "list orders", "repoFixture": "api", "expectedPrimary": ["src/orders.ts"]},
                {"name": "users", "query": "find users", "repoFixture": "api", "expectedPrimary": ["src/users.ts"]},
            ],
            "risk": [
                {
                    "name": "auth",
                    "mode": "query",
                    "query": "rotate the jwt secret",
                    "expectedConcepts": ["auth"],
                    "notExpectedConcepts": [],
                }
            ],
            "ranking": [{"name": "api", "repoFixture": "api", "golden": "golden.jsonl"}],
        },
    )


@pytest.mark.parametrize("handshake", ["1", "0"])
def test_retrieval_only_engine_run_passes_with_other_suites_skipped(tmp_path, monkeypatch, handshake) -> None:
    monkeypatch.setenv("ANSWERS", json.dumps(ANSWERS))
    monkeypatch.setenv("HANDSHAKE", handshake)
    spec = f"cmd:{sys.executable} {ENGINE}"
    result = run(
        load_corpus(_corpus(tmp_path)),
        RunOptions(targets=[spec], out_dir=tmp_path / "runs", progress=False, timeout=10),
    )
    suites = result.summary["suites"]
    name = next(iter(suites["retrieval"]))
    assert suites["retrieval"][name]["passed"] is True and suites["retrieval"][name]["errors"] == 0
    for skipped in ("risk", "ranking"):
        reason = suites[skipped][name]["skipped"]
        assert reason and "lacks capability" in reason, reason
        assert suites[skipped][name]["errors"] == 0
    assert result.summary["passed"] is True
    assert set(result.cases["suite"]) == {"retrieval"}  # no errored rows for the skipped suites
    target = result.manifest["targets"][0]
    if handshake == "1":
        assert "handshake" in suites["risk"][name]["skipped"]
        assert target["version"] == "0.3.1" and target["capabilities"] == ["context_pack"]
        assert target["engine"] == "tiny-retriever"
    else:
        assert "unsupported capability: risk_concepts" in suites["risk"][name]["skipped"]
        assert "capabilities" not in target


def test_no_answer_to_the_handshake_means_every_capability() -> None:
    for body in ({"error": "cannot answer capabilities"}, "garbage", {"capabilities": "all"}, [1]):
        assert parse_handshake(body).capabilities is None
    assert parse_handshake({"capabilities": ["search", "teleport"], "version": "2"}) == Handshake(
        frozenset({"search"}), None, "2"
    )

    def broken(capability, request):
        from workbench.errors import TargetError

        raise TargetError("engine exited with code 1")

    target = ProtocolTarget("x", broken, version="fallback")
    assert target.capabilities == {"context_pack", "risk_concepts", "infer_harness", "gate", "search"}
    assert target.version == "fallback" and "no handshake" in ask(broken).note


def test_served_target_answers_the_handshake() -> None:
    class OnlyRisk:
        name, version = "risky", "1.2"

        def risk_concepts(self, mode, text):
            return {"auth"}

    status, body = Dispatcher(OnlyRisk(), {}).answer("/v1/capabilities", {"capability": "capabilities"})
    assert status == 200 and body == {"capabilities": ["risk_concepts"], "name": "risky", "version": "1.2"}
    assert handshake_answer(OnlyRisk()) == body
    served = ProtocolTarget("http", lambda cap, req: Dispatcher(OnlyRisk(), {}).answer(f"/v1/{cap}", req)[1])
    assert served.capabilities == {"risk_concepts"} and served.version == "1.2"


def test_http_target_shakes_hands_with_a_served_engine() -> None:
    import threading

    from workbench.targets.http import HttpTarget
    from workbench.targets.serve import make_server

    class OnlyRisk:
        name, version = "risky", "2.0"

        def risk_concepts(self, mode, text):
            return {"auth"}

    server = make_server(Dispatcher(OnlyRisk(), {}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        target = HttpTarget(f"http://127.0.0.1:{server.server_port}", timeout=5)
        assert target.capabilities == {"risk_concepts"} and target.version == "2.0"
        assert target.risk_concepts("query", "x") == {"auth"}
    finally:
        server.shutdown()
        server.server_close()


def test_an_unsupported_answer_reused_from_a_journal_still_skips() -> None:
    from workbench.targets.handshake import note_unsupported, skip_reason

    target = ProtocolTarget("x", lambda cap, req: {"error": "nope"})
    note_unsupported(target, "search", [None, "search: engine error: unsupported capability: search"])
    assert "search" not in target.capabilities
    assert skip_reason(target, "search").endswith("(the engine answered 'unsupported capability: search')")
    other = ProtocolTarget("y", lambda cap, req: {"error": "nope"})
    note_unsupported(other, "search", ["search: engine error: index not built"])
    assert "search" in other.capabilities
