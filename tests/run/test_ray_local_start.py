"""A local Ray start never joins a stray cluster: ``/tmp/ray/ray_current_cluster`` outlives the
head that wrote it, and ``ray.init()`` without an address would try to join it (and refuse
``num_cpus``). No Ray needed: the call is recorded."""

import os

from workbench.run.ray_connection import start_local_ray


class _RecordingRay:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def init(self, **kwargs) -> None:
        self.calls.append({**kwargs, "PYTHONPATH": os.environ.get("PYTHONPATH")})


def test_a_local_start_asks_for_a_new_local_instance_and_restores_pythonpath(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/before")
    ray = _RecordingRay()
    start_local_ray(ray, num_cpus=2)
    (call,) = ray.calls
    assert call["address"] == "local"
    assert call["num_cpus"] == 2
    assert call["PYTHONPATH"] != "/before"
    assert os.environ["PYTHONPATH"] == "/before"
