"""Issue 13, part 2: engines cannot hang or flood a run (cmd: and http://)."""

from __future__ import annotations

import socket
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from workbench.contract import FileRef, Repo
from workbench.corpus import load_corpus
from workbench.errors import TargetError
from workbench.run.runner import RunOptions, run
from workbench.targets.command import CommandTransport
from workbench.targets.http import HttpTarget
from workbench.targets.pipes import STDERR_KEEP
from workbench.targets.protocol import ProtocolTarget
from workbench.targets.serve import Dispatcher, make_server
from workbench.wire import parse_hits

from ..conftest import write_corpus

HOSTILE = Path(__file__).parents[1] / "engines" / "hostile_engine.py"
REPO = [Repo("api", Path("/tmp/api"))]


@pytest.fixture
def engine():
    transport = CommandTransport([sys.executable, str(HOSTILE)], timeout=3)
    target = ProtocolTarget("hostile", transport)
    yield target, transport
    target.close()


def _paths(target: ProtocolTarget, query: str) -> list[str]:
    return [ref.path for ref in target.context_pack(query, REPO, 8).primary]


def test_an_engine_that_closes_stdout_but_keeps_running_does_not_hang(engine) -> None:
    target, _ = engine
    started = time.monotonic()
    with pytest.raises(TargetError, match="closed its output|exited"):
        target.context_pack("close-stdout", REPO, 8)
    assert time.monotonic() - started < 5  # within the 3 s timeout, plus a loaded machine
    assert _paths(target, "ok") == ["src/a.ts"]  # restarted for the next request


def test_stderr_is_kept_to_its_last_64_kb(engine) -> None:
    target, transport = engine
    tracemalloc.start()
    try:
        assert _paths(target, "flood") == ["src/a.ts"]
        time.sleep(0.2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (only,) = transport._running
    assert len(only.stderr_tail()) <= STDERR_KEEP
    assert peak < 8 * 2**20, f"peak {peak / 2**20:.1f} MB while the engine wrote 50 MB of stderr"


def test_two_answer_lines_do_not_shift_later_answers(engine) -> None:
    target, _ = engine
    assert _paths(target, "twice") == ["src/first.ts"]
    assert _paths(target, "ok") == ["src/a.ts"]  # the second 'twice' line is skipped by its id
    assert _paths(target, "no-id") == ["src/plain.ts"]  # an answer without an id is still accepted


def test_paths_outside_the_repository_are_invalid_answers(engine) -> None:
    target, _ = engine
    with pytest.raises(TargetError, match=r"primary\[0\]\.path: invalid answer: path '\.\./\.\./etc/passwd' is out"):
        target.context_pack("outside", REPO, 8)
    for bad in ("/etc/passwd", "C:/x", "a/../../b", "../x", "src/../.."):
        with pytest.raises(TargetError, match="outside the repository"):
            parse_hits({"hits": [{"file": bad}]})


def test_paths_inside_the_repository_are_normalized_before_judging() -> None:
    """Issue 41: ``src/../src/x.py`` is inside, and is the ``src/x.py`` the corpus names."""
    from workbench.wire import parse_pack

    for spelled in ("src/../src/x.py", "./src/x.py", "src//x.py", "src/./x.py", "lib/../src/x.py"):
        assert [h.file for h in parse_hits({"hits": [{"file": spelled}]})] == ["src/x.py"], spelled
    pack = parse_pack({"primary": ["src/../src/x.py", {"path": "./src/y.py"}]}, [Repo("api", Path("."))])
    assert [ref.path for ref in pack.primary] == ["src/x.py", "src/y.py"]


def test_a_lone_surrogate_in_an_answer_fails_that_request(engine) -> None:
    target, _ = engine
    with pytest.raises(TargetError, match="lone surrogate"):
        target.context_pack("surrogate", REPO, 8)
    assert _paths(target, "ok") == ["src/a.ts"]


def test_the_timeout_covers_writing_the_request(tmp_path: Path) -> None:
    """An engine that stops reading stdin cannot block a large request past its timeout."""
    target = ProtocolTarget("deaf", CommandTransport([sys.executable, str(HOSTILE), "--deaf"], timeout=1.5))
    try:
        started = time.monotonic()
        with pytest.raises(TargetError, match="no answer within 1.5s"):
            target.context_pack("q" * (4 << 20), REPO, 8)  # bigger than any pipe buffer, never read
        assert time.monotonic() - started < 4.5  # the 1.5 s timeout, plus a loaded machine
    finally:
        target.close()


def test_no_thread_traceback_after_a_timeout_kill(engine) -> None:
    target, _ = engine
    seen: list[BaseException] = []
    old = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_value)
    try:
        with pytest.raises(TargetError, match="no answer within 3s"):
            target.context_pack("deaf", REPO, 8)
        target.close()
        time.sleep(0.3)
    finally:
        threading.excepthook = old
    assert seen == []


def test_a_surrogate_answer_in_a_run_fails_that_case_and_leaves_no_journal(tmp_path: Path) -> None:
    fixture = tmp_path / "fixtures" / "api" / "src"
    fixture.mkdir(parents=True)
    (fixture / "a.ts").write_text("export const a = 1;\n")
    cases = [
        {"name": name, "query": query, "repoFixture": "api", "expectedPrimary": ["src/a.ts"]}
        for name, query in (("bad", "surrogate"), ("outside", "outside"), ("good", "ok"))
    ]
    corpus = load_corpus(write_corpus(tmp_path, {"fixtureRoots": {"api": "fixtures/api"}, "retrieval": cases}))
    out = tmp_path / "runs"
    result = run(
        corpus,
        RunOptions(
            suites=["retrieval"], targets=[f"cmd:{sys.executable} {HOSTILE}"], out_dir=out, progress=False, timeout=5
        ),
    )
    errors = result.cases.set_index("case")["error"]
    assert "lone surrogate" in errors["bad"] and "outside the repository" in errors["outside"]
    assert errors.isna()["good"]
    assert [p.name for p in out.iterdir()] == [result.path.name]  # no journal left behind


class _Dripper:
    """An HTTP server on 127.0.0.1 that sends its answer one byte every 0.2 s (bounded: 200 bytes)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n" + b" " * 200
                for byte in reply:
                    if self.stop.is_set():
                        break
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break
                    time.sleep(0.2)

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def test_http_timeout_is_a_wall_clock_deadline() -> None:
    dripper = _Dripper()
    try:
        target = HttpTarget(f"http://127.0.0.1:{dripper.port}", timeout=1.0)
        started = time.monotonic()
        with pytest.raises(TargetError, match="no answer within 1s"):
            target.risk_concepts("query", "refund")
        assert time.monotonic() - started < 2.0
    finally:
        dripper.close()


def test_http_answer_paths_are_checked() -> None:
    target = ProtocolTarget("x", lambda capability, request: {"primary": ["../x"]})
    with pytest.raises(TargetError, match="outside the repository"):
        target.context_pack("q", REPO, 8)
    assert ProtocolTarget("x", lambda c, r: {"primary": ["src/a.ts"]}).context_pack("q", REPO, 8).primary == [
        FileRef("api", "src/a.ts")
    ]


def test_http_requests_carry_an_id_and_a_wrong_echo_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Risky:
        name, version = "risky", "0"

        def risk_concepts(self, mode: str, text: str) -> set[str]:
            return {"sql"}

    server = make_server(Dispatcher(Risky(), {}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        target = HttpTarget(f"http://127.0.0.1:{server.server_port}", timeout=5)
        assert target.risk_concepts("query", "x") == {"sql"}  # serve echoes the id; it matches
        assert Dispatcher(Risky(), {}).answer("/v1/risk_concepts", {"mode": "query", "text": "x", "id": 7})[1] == {
            "concepts": ["sql"],
            "id": 7,
        }
    finally:
        server.shutdown()
        server.server_close()
    monkeypatch.setattr("workbench.targets.http.post_json", lambda url, body, timeout: {"concepts": [], "id": 999})
    with pytest.raises(TargetError, match="echoes id 999, not 1"):
        HttpTarget("http://127.0.0.1:9").risk_concepts("query", "x")
