"""Target resolution and the JSON protocol adapters (cmd: and http://)."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from workbench.contract import FileRef, Repo, capabilities
from workbench.errors import TargetError
from workbench.targets import resolve_target
from workbench.targets.command import CommandTransport
from workbench.targets.http import HttpTarget, parse_go_code_results
from workbench.targets.protocol import ProtocolTarget

from ..conftest import ENGINE

REPO = [Repo("api", Path("/tmp/api"))]


@pytest.fixture
def engine(monkeypatch):
    monkeypatch.setenv("ANSWERS", json.dumps({"list orders": ["src/orders.ts", "src/index.ts"]}))
    target = ProtocolTarget("scripted", CommandTransport([sys.executable, str(ENGINE)], timeout=2))
    yield target
    target.close()


def test_context_pack_round_trip(engine) -> None:
    pack = engine.context_pack("list orders", REPO, 8)
    assert pack.primary == [FileRef("api", "src/orders.ts"), FileRef("api", "src/index.ts")]
    assert pack.related == []


def test_crash_fails_one_request_and_the_next_restarts(engine) -> None:
    with pytest.raises(TargetError, match="exited with code 7: dying on purpose"):
        engine.context_pack("crash now", REPO, 8)
    assert engine.context_pack("list orders", REPO, 8).primary[0].path == "src/orders.ts"


def test_hang_times_out_and_the_next_request_works(engine) -> None:
    with pytest.raises(TargetError, match="no answer within 2s"):
        engine.context_pack("hang forever", REPO, 8)
    assert len(engine.context_pack("list orders", REPO, 8).primary) == 2


def test_garbage_and_error_answers_fail_only_that_request(engine) -> None:
    with pytest.raises(TargetError, match="answered garbage"):
        engine.context_pack("garbage please", REPO, 8)
    with pytest.raises(TargetError, match="engine error: cannot answer"):
        engine.risk_concepts("query", "refund")
    assert engine.context_pack("list orders", REPO, 8).primary


def test_resolve_specs() -> None:
    with pytest.raises(TargetError, match="unknown target 'nonsense'"):
        resolve_target("nonsense")
    with pytest.raises(TargetError, match="not found"):
        resolve_target("cmd:definitely-not-a-program-xyz")
    with pytest.raises(TargetError, match="python:<module>:<factory>"):
        resolve_target("python:onlymodule")
    with pytest.raises(TargetError, match="cannot import"):
        resolve_target("python:no_such_module_xyz:make")


class _Engine:
    name = "plugin"
    version = "1.2"

    def context_pack(self, query, repos, limit):
        raise NotImplementedError


def make_engine() -> _Engine:
    return _Engine()


def test_python_plugin_spec() -> None:
    target = resolve_target("python:tests.targets.test_targets:make_engine")
    assert target.name == "plugin" and capabilities(target) == {"context_pack"}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/v1/context_pack":
            answer = {"primary": [{"repo": "api", "path": "src/a.ts"}], "related": []}
        elif self.path == "/api/tools/semantic_search":
            xml = (
                f"<results><result><file>{body['repo']}/x.go</file><symbol>Find</symbol></result>"
                "<result><file>y.go</file><symbol>Y</symbol></result></results>"
            )
            answer = {"content": [{"type": "text", "text": xml}], "is_error": False}
        else:
            self.send_response(404)
            self.end_headers()
            return
        payload = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def http_engine():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    # a short poll: shutdown() waits for the next one (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_http_target(http_engine: str) -> None:
    target = resolve_target(http_engine, timeout=5)
    assert isinstance(target, HttpTarget)
    assert target.context_pack("q", REPO, 8).primary == [FileRef("api", "src/a.ts")]
    hits = target.search("find", Repo("svc", Path("/tmp/svc")), 20)
    assert [(h.file, h.symbol) for h in hits] == [("svc/x.go", "Find"), ("y.go", "Y")]
    with pytest.raises(TargetError, match="HTTP 404"):
        target.risk_concepts("query", "x")


def test_unreachable_http_target() -> None:
    target = HttpTarget("http://127.0.0.1:9", timeout=2)
    with pytest.raises(TargetError, match="unreachable"):
        target.context_pack("q", REPO, 8)


def test_go_code_error_answer() -> None:
    with pytest.raises(TargetError, match="engine error: index missing"):
        parse_go_code_results({"content": [{"type": "text", "text": "index missing"}], "is_error": True})
