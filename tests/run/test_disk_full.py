"""Issue 20, item 9: a full disk during ``run`` or ``mine --out`` is one line naming the path (exit 3),
never a traceback, and the run's journal is kept so ``--resume`` finishes it."""

from __future__ import annotations

import errno
import io
from pathlib import Path
from typing import Any

import pandas as pd

from tests.git_history import shop_history
from workbench import files
from workbench.cli import main
from workbench.run import resume

FULL = OSError(errno.ENOSPC, "No space left on device")


def _full(*args: Any, **kwargs: Any) -> None:
    raise FULL


def _run(corpus: Path, out: Path) -> list[str]:
    return ["run", "--corpus", str(corpus), "--suite", "retrieval", "--target", "bm25", "--out", str(out), "--json"]


def test_a_full_disk_writing_the_run_directory_keeps_the_journal(
    tiny_corpus: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    out = tmp_path / "runs"
    monkeypatch.setattr(pd.DataFrame, "to_parquet", _full)
    assert main(_run(tiny_corpus, out)) == 3
    err = capsys.readouterr().err
    [journal] = out.glob(".*.journal")
    run_id = journal.name[1 : -len(".journal")]
    assert f"error: {out / run_id}: cannot write: No space left on device (ENOSPC)" in err
    assert "Traceback" not in err and "resume with: workbench run --resume" in err
    assert [p.name for p in out.iterdir()] == [journal.name]  # no half-written run directory
    monkeypatch.undo()
    assert main(["run", "--resume", run_id, "--out", str(out), "--json"]) in (0, 1)
    assert (out / run_id / "scores.parquet").is_file() and not journal.exists()


class _FillingHandle(io.TextIOWrapper):
    """A journal file whose disk fills after its first line."""

    lines = 0

    def write(self, text: str) -> int:
        _FillingHandle.lines += 1
        if _FillingHandle.lines > 1:
            super().write(text[:7])  # a torn line, as a full disk leaves it
            raise FULL
        return super().write(text)


def test_a_full_disk_writing_the_journal_is_one_line_and_resumable(
    tiny_corpus: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    out = tmp_path / "runs"
    _FillingHandle.lines = 0

    def filling_open(path: Any, mode: str = "r", **kwargs: Any) -> Any:
        return _FillingHandle(open(path, mode.replace("a", "ab"), buffering=0), **kwargs)  # noqa: SIM115

    monkeypatch.setattr(resume, "open", filling_open, raising=False)
    assert main(_run(tiny_corpus, out)) == 3
    err = capsys.readouterr().err
    [journal] = out.glob(".*.journal")
    assert f"error: {journal / resume.OUTCOMES}: cannot write: No space left on device (ENOSPC)" in err
    assert "Traceback" not in err and "1 case(s) saved" in err
    monkeypatch.undo()
    run_id = journal.name[1 : -len(".journal")]
    assert main(["run", "--resume", run_id, "--out", str(out), "--json"]) in (0, 1)
    assert (out / run_id / "cases.jsonl").read_text().count("\n") == 4


def test_a_full_disk_during_mine_out_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    repo = tmp_path / "shop"
    shop_history(repo)
    out = tmp_path / "mined" / "corpus.json"
    monkeypatch.setattr(files, "_write_fd", _full)
    assert main(["mine", str(repo), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert f"error: {out}: cannot write: No space left on device (ENOSPC)" in err and "Traceback" not in err
    left = [p.name for p in out.parent.iterdir()]
    assert not out.exists() and left == [files.lock_path(out).name]  # no temp file left, only mine's lock file
