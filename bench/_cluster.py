"""A simulated Ray cluster on this machine for ``bench/scale.py``: one ``ray start --head --block``
and N-1 ``ray start --address 127.0.0.1:PORT --block`` processes, each in its own process group,
so stopping them ends only what the bench started (never ``ray stop``, which ends every cluster)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RAY_PORT = 6390  # the bench's own head; another cluster on this machine is never touched
RAY = str(Path(sys.executable).parent / "ray")
WAIT = 90.0  # seconds for the head's port and then every node to be up
OBJECT_STORE = 200 * 2**20  # bytes per worker node (a run ships only small cases and answers)


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*command, "--block", "--disable-usage-stats"],
        # Ray >= 2.59 turns token auth on for a head when a token file exists (~/.ray/auth_token,
        # written by any local ray.init), and a driver joining by address then sends none: this
        # bench's own local cluster opts out, as Ray's message says to
        env=dict(env, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def ray_head(env: dict[str, str], num_cpus: int = 2) -> subprocess.Popen[bytes]:
    """A Ray head (no dashboard) this script owns, up once its GCS port answers."""
    head = _start(
        [RAY, "start", "--head", f"--port={RAY_PORT}", f"--num-cpus={num_cpus}", "--include-dashboard=false"], env
    )
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", RAY_PORT), timeout=1).close()
            return head
        except OSError:
            if head.poll() is not None:
                raise SystemExit(f"ray start exited {head.returncode}") from None
            time.sleep(0.5)
    stop_nodes([head])
    raise SystemExit(f"the bench's Ray head did not come up within {WAIT:g} s")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _worker_ports() -> list[str]:
    """Ports of a worker node's own agents: their defaults (the dashboard agent's 52365) are fixed, so
    a second node on one machine would lose its agent, and Ray then ends that node's raylet."""
    names = ("dashboard-agent-listen-port", "dashboard-agent-grpc-port", "metrics-export-port")
    names += ("runtime-env-agent-port",)
    return [f"--{name}={_free_port()}" for name in names]


_COUNTER = """
import ray, sys, time
ray.init(address=sys.argv[1], log_to_driver=False)
for line in sys.stdin:
    want, end = int(line), time.monotonic() + float(sys.argv[2])
    while sum(n["Alive"] for n in ray.nodes()) < want and time.monotonic() < end:
        time.sleep(0.25)
    print("ALIVE", sum(n["Alive"] for n in ray.nodes()), flush=True)
"""


def ray_cluster(env: dict[str, str], nodes: int, num_cpus: int = 1) -> list[subprocess.Popen[bytes]]:
    """A head and ``nodes - 1`` worker nodes of ``num_cpus`` each, started one after the other: each
    worker is started once a driver joined to the head sees the nodes before it alive (on 2 cores,
    nodes starting together starve their agents, and Ray ends a raylet whose agent is late)."""
    started = [ray_head(env, num_cpus=num_cpus)]
    counter = subprocess.Popen(
        [sys.executable, "-c", _COUNTER, f"127.0.0.1:{RAY_PORT}", str(WAIT)],
        env=dict(env, RAY_AUTH_MODE="disabled"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        for want in range(1, nodes + 1):
            if want > 1:
                worker = [RAY, "start", f"--address=127.0.0.1:{RAY_PORT}", f"--num-cpus={num_cpus}", *_worker_ports()]
                started.append(_start([*worker, f"--object-store-memory={OBJECT_STORE}"], env))
            assert counter.stdin is not None and counter.stdout is not None
            counter.stdin.write(f"{want}\n")
            counter.stdin.flush()
            said = counter.stdout.readline().split()
            if len(said) != 2 or int(said[1]) < want:
                seen = " ".join(said) or "no answer"
                raise SystemExit(f"Ray node {want} of {nodes} not up within {WAIT:g} s ({seen})")
    except BaseException:
        stop_nodes(started)
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(counter.pid, signal.SIGTERM)
        counter.wait()
    return started


def stop_nodes(started: list[subprocess.Popen[bytes]]) -> None:
    """Stop the nodes this script started (workers first) and every process of their groups."""
    for node in reversed(started):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGTERM)
        try:
            node.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(node.pid, signal.SIGKILL)
            node.wait()
