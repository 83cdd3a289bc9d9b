"""Issue 41 item 13: ``report`` on a full disk is one line naming the path (exit 3), never a
traceback, as ``export``, ``analyze`` and ``baseline record`` are. ENOSPC is simulated: the page
directory cannot be made, or no notebook can be written."""

from __future__ import annotations

import errno
import pathlib
from pathlib import Path
from typing import Any

import pytest

from tests.report_runs import build_run
from workbench.cli import main


def _full(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.notebooks
@pytest.mark.parametrize("where", ["page directory", "notebooks"])
def test_a_full_disk_during_report_is_one_line(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = build_run(tmp_path / "runs", suites=("retrieval",), targets=("builtin",))
    html = tmp_path / "html"
    if where == "page directory":
        make = pathlib.Path.mkdir

        def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
            if self.is_relative_to(html):
                raise OSError(errno.ENOSPC, "No space left on device", str(self))
            make(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    else:
        import nbformat
        import papermill.iorw

        monkeypatch.setattr(papermill.iorw.LocalHandler, "write", _full)
        monkeypatch.setattr(nbformat, "write", _full)
    assert main(["report", str(run), "--out", str(html), "--jobs", "1"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "No space left on device" in err
    if where == "page directory":
        assert f"error: {html / run.name}: cannot write: No space left on device (ENOSPC)" in err
