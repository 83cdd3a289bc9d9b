"""Issue 13, part 3: `serve` serves what it was started with, and nothing else (127.0.0.1 only)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from workbench.contract import GateResult, Pack, Repo
from workbench.targets import guarded_http
from workbench.targets.guarded_http import loopback_host
from workbench.targets.serve import MAX_QUERY, Dispatcher, make_server


class Recorder:
    """A target that records what it was asked and answers trivially."""

    name, version = "recorder", "0"

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def context_pack(self, query: str, repos: list[Repo], limit: int) -> Pack:
        self.calls.append(("context_pack", [str(r.path) for r in repos]))
        return Pack([], [], "")

    def risk_concepts(self, mode: str, text: str) -> set[str]:
        time.sleep(0.005)
        return {"sql"} if "sql" in text else set()

    def gate(self, repo: Repo, options: dict[str, Any]) -> GateResult:
        self.calls.append(("gate", options))
        return GateResult("PASS", [])


@pytest.fixture
def served(tmp_path: Path):
    (tmp_path / "api").mkdir()
    target = Recorder()
    server = make_server(Dispatcher(target, {"api": tmp_path / "api"}))
    # a short poll: shutdown() waits for the next one (0.5 s by default, after every test)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_port, target, tmp_path / "api"
    server.shutdown()
    server.server_close()


def post(
    port: int, path: str, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None
) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    data = raw if raw is not None else json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    status, payload = response.status, json.loads(response.read() or b"{}")
    conn.close()
    return status, payload


def test_requests_name_repos_only_by_served_names(served) -> None:
    port, target, api = served
    status, body = post(port, "/v1/context_pack", {"query": "q", "repos": [{"name": "etc", "path": "/etc"}]})
    assert "unknown repo 'etc'" in body["error"] and "serves only api" in body["error"]
    post(port, "/v1/context_pack", {"query": "q", "repos": [{"name": "api", "path": "/etc"}]})
    assert target.calls == [("context_pack", [str(api)])]  # the request's path is never used


def test_commands_run_only_with_allow_exec(served, tmp_path: Path) -> None:
    port, target, _ = served
    _, body = post(port, "/v1/gate", {"repo": {"name": "api"}, "options": {"runValidation": True}})
    assert "--allow-exec" in body["error"] and target.calls == []
    allowed = Dispatcher(target, {"api": tmp_path / "api"}, allow_exec=True)
    assert allowed.answer("/v1/gate", {"repo": {"name": "api"}, "options": {"runValidation": True}})[0] == 200
    assert target.calls == [("gate", {"runValidation": True})]
    assert (
        "unknown repo"
        in allowed.answer(
            "/v1/gate", {"repo": {"name": "x", "path": str(tmp_path)}, "options": {"runValidation": True}}
        )[1]["error"]
    )


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Host": "evil.example"}, 403),
        ({"Host": "127.0.0.1.nip.io:8765"}, 403),
        ({"Content-Type": "application/json; charset=utf-8", "Host": "localhost:{port}"}, 200),
        ({"Host": "localhost:1"}, 403),  # a loopback name with another port (issue 20: exact host and port)
        ({"Host": "127.0.0.1"}, 403),  # no port means 80
    ],
)
def test_content_type_and_host(served, headers: dict[str, str], status: int) -> None:
    port, _, _ = served
    headers = {key: value.replace("{port}", str(port)) for key, value in headers.items()}
    assert post(port, "/v1/risk_concepts", {"mode": "query", "text": "sql"}, headers)[0] == status


def test_loopback_host_names() -> None:
    for ok in (
        "localhost:8765",
        "LOCALHOST:8765",
        "127.0.0.1:8765",
        "127.1.2.3:8765",
        "[::1]:8765",
        "a.localhost:8765",
    ):
        assert loopback_host(ok, "127.0.0.1", 8765), ok
    for ok in ("localhost", "::1", "[::1]", "127.0.0.1:80"):
        assert loopback_host(ok, "127.0.0.1", 80), ok
    for bad in ("", None, "example.com:8765", "10.0.0.1:8765", "localhost.evil.com:8765", "[::2]:8765"):
        assert not loopback_host(bad, "127.0.0.1", 8765), bad
    for bad in ("localhost", "localhost:80", "127.0.0.1:87650", "[::1]", "[::1]x", "localhost:8765x", "::1"):
        assert not loopback_host(bad, "127.0.0.1", 8765), bad


def _raw(port: int, head: bytes, body: bytes = b"", wait: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(head + body)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _head(port: int) -> bytes:
    return f"POST /v1/risk_concepts HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n".encode()


@pytest.mark.parametrize(
    "length, status", [(b"-5", b"400"), (b"abc", b"400"), (None, b"411"), (b"99999999999", b"413")]
)
def test_content_length_checked(served, length: bytes | None, status: bytes) -> None:
    port, _, _ = served
    head = _head(port) + (b"Content-Length: " + length + b"\r\n" if length is not None else b"") + b"\r\n"
    assert _raw(port, head, b'{"text": "x"}').split(b" ")[1] == status


def test_a_short_body_frees_its_worker(served, monkeypatch: pytest.MonkeyPatch) -> None:
    port, _, _ = served
    monkeypatch.setattr(guarded_http, "READ_DEADLINE", 1.0)
    started = time.monotonic()
    answer = _raw(port, _head(port) + b"Content-Length: 100\r\n\r\n", b'{"text": "x"}')
    assert answer.split(b" ")[1] == b"400" and b"shorter than its Content-Length" in answer
    assert time.monotonic() - started < 5
    assert post(port, "/v1/risk_concepts", {"mode": "query", "text": "sql"})[1] == {"concepts": ["sql"]}


def test_an_idle_client_is_dropped(served, monkeypatch: pytest.MonkeyPatch) -> None:
    port, _, _ = served
    monkeypatch.setattr(guarded_http, "IDLE_TIMEOUT", 0.5)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /v1/risk_concepts HTTP/1.1\r\n")  # and then nothing
        assert sock.recv(65536) == b""  # the server closed it
    assert time.monotonic() - started < 5


def test_body_and_query_caps(served) -> None:
    port, _, _ = served
    over = str(guarded_http.MAX_BODY + 1).encode()
    assert (
        _raw(port, _head(port) + b"Content-Length: " + over + b"\r\n\r\n").split(b" ")[1] == b"413"
    )  # body never read
    started = time.monotonic()
    _, body = post(port, "/v1/context_pack", {"query": "q " * 1_500_000, "repos": ["api"]})
    assert f"longer than {MAX_QUERY} characters" in body["error"]
    assert time.monotonic() - started < 5


def test_200_concurrent_requests_are_all_answered(served) -> None:
    port, _, _ = served

    def one(i: int) -> int:
        status, body = post(port, "/v1/risk_concepts", {"mode": "query", "text": f"sql {i}"})
        return status if body == {"concepts": ["sql"]} else -status

    barrier_start = time.monotonic()
    with ThreadPoolExecutor(max_workers=200) as pool:
        statuses = list(pool.map(one, range(200)))
    assert statuses == [200] * 200
    assert time.monotonic() - barrier_start < 60


def test_too_many_repos_are_refused(served) -> None:
    port, target, _ = served
    _, body = post(port, "/v1/context_pack", {"query": "q", "repos": ["api"] * 1000})
    assert "at most 32" in body["error"] and target.calls == []


def test_clients_dripping_bytes_do_not_delay_a_normal_request(served) -> None:
    """Issue 20, item 8: 16 connections dripping a byte every second (well inside the idle timeout)
    hold no worker, so a normal request is answered at once."""
    port, _, _ = served
    stop = threading.Event()
    drippers = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(16)]

    def drip(sock: socket.socket) -> None:
        for byte in _head(port) + b"Content-Length: 5\r\n\r\n":
            if stop.wait(1.0):
                return
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return

    threads = [threading.Thread(target=drip, args=(sock,), daemon=True) for sock in drippers]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1.5)  # every dripper is connected and has sent a byte
        started = time.monotonic()
        assert post(port, "/v1/risk_concepts", {"mode": "query", "text": "sql"})[1] == {"concepts": ["sql"]}
        assert time.monotonic() - started < 3
    finally:
        stop.set()
        for sock in drippers:
            sock.close()
