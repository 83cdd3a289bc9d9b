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


def ray_cluster(env: dict[str, str], nodes: int, num_cpus: int = 1) -> list[subprocess.Popen[bytes]]:
    """A head and ``nodes - 1`` worker nodes of ``num_cpus`` each, returned once a driver joining
    the head sees every node alive (a head's port answers seconds before its raylet is up)."""
    started = [ray_head(env, num_cpus=num_cpus)]
    try:
        for _ in range(nodes - 1):
            started.append(_start([RAY, "start", f"--address=127.0.0.1:{RAY_PORT}", f"--num-cpus={num_cpus}"], env))
        count = (
            "import ray, time, sys\n"
            f"ray.init(address='127.0.0.1:{RAY_PORT}', log_to_driver=False)\n"
            f"end = time.monotonic() + {WAIT}\n"
            f"while sum(n['Alive'] for n in ray.nodes()) < {nodes} and time.monotonic() < end: time.sleep(0.5)\n"
            "print('ALIVE', sum(n['Alive'] for n in ray.nodes()))\n"
        )
        alive = subprocess.run([sys.executable, "-c", count], env=env, capture_output=True, text=True)
        counted = [line.split()[1] for line in alive.stdout.splitlines() if line.startswith("ALIVE ")]
        if alive.returncode or not counted or int(counted[-1]) < nodes:
            raise SystemExit(f"{nodes} Ray nodes not up within {WAIT:g} s: {alive.stdout} {alive.stderr[-1500:]}")
    except BaseException:
        stop_nodes(started)
        raise
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
