"""The Run object in a notebook: a short repr, select(suite=, target=), attribute-style accessors, ids."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.errors import StoreError
from workbench.store.runs import write_run

from ..analysis.test_compare import make_run


def _run(tmp_path):
    values = {"retrieval": {"a": {"mrr": 1.0}, "b": {"mrr": 0.5}}, "risk": {"r": {"accuracy": 1.0}}}
    one, two = make_run("x", values, target="builtin"), make_run("x", values, target="bm25")
    manifest = dict(
        one.manifest,
        run_id="20261201T000000Z-builtin+bm25",
        targets=[{"name": "builtin", "spec": "builtin"}, {"name": "bm25", "spec": "bm25"}],
    )
    summary = {"passed": True, "suites": {s: {"builtin": {}, "bm25": {}} for s in ("retrieval", "risk")}}
    import pandas as pd

    cases = pd.concat([one.cases, two.cases]).to_dict("records")
    path = write_run(
        tmp_path / "runs",
        manifest["run_id"],
        manifest,
        summary,
        cases,
        pd.concat([one.scores, two.scores], ignore_index=True),
    )
    return path


def test_repr_select_and_accessors(tmp_path) -> None:
    run = wb.load_run(_run(tmp_path))
    assert repr(run) == (
        "Run('20261201T000000Z-builtin+bm25': suites retrieval, risk; targets builtin, bm25; 6 cases, 6 scores; passed)"
    )
    assert run.targets == ["builtin", "bm25"] and run.suites == ["retrieval", "risk"]
    narrow = run.select(suite="retrieval", target="bm25")
    assert narrow.targets == ["bm25"] and narrow.suites == ["retrieval"]
    assert set(narrow.cases["case"]) == {"a", "b"} and set(narrow.scores["target"]) == {"bm25"}
    assert run.select(suite="risk").targets == ["builtin", "bm25"] and len(run.select(suite="risk").cases) == 2
    with pytest.raises(StoreError, match=r"no suite 'tokens' in this run \(has retrieval, risk\)"):
        run.select(suite="tokens")
    with pytest.raises(StoreError, match=r"no target 'random'"):
        run.select(target="random")


def test_load_run_by_id(tmp_path) -> None:
    path = _run(tmp_path)
    assert wb.load_run(path.name, runs_dir=tmp_path / "runs").run_id == path.name
