"""Exit codes as documented (issue 42, item 7): an engine that cannot be reached, and a port that is
taken, are one-line errors with exit 3, never a quality FAIL (exit 1) or a traceback (exit 4)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from workbench.cli import main


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_http_engine_is_exit_3_with_one_line(
    tiny_corpus: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    args = ["run", "--corpus", str(tiny_corpus), "--target", url, "--out", str(tmp_path / "runs")]
    code = main(args)
    err = capfd.readouterr().err.strip().splitlines()
    assert code == 3
    assert len(err) == 1 and "unreachable" in err[0] and "before any case ran" in err[0], err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_serve_on_a_busy_port_is_exit_3_with_one_line(capfd: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code = main(["serve", "--target", "random", "--port", str(port)])
    err = capfd.readouterr().err.strip().splitlines()
    assert code == 3
    assert err == [f"error: cannot serve on 127.0.0.1:{port}: Address already in use"]
