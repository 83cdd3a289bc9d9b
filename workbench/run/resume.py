"""The journal of a run in progress, so an interrupted run can resume instead of starting over.

``<out_dir>/.<run-id>.journal/`` holds ``header.json`` (the run's manifest, written first and
atomically) and ``outcomes.jsonl``: one line per finished case, appended and flushed as the
case ends, and synced to disk at most once a second. A crash can tear only the last line,
which reading ignores. The directory starts with a dot, so ``latest_run`` and the reports never
take it for a run; the runner removes it once the run directory is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import CorpusError, StoreError
from ..files import dumps, write_json_atomic, writing
from ..options import RunOptions, deciding_fields
from ..paths import journal_path
from ..store.headers import is_complete_run, read_json
from ..store.runs import free_run_id
from ..store.shapes import check_manifest
from ..strictjson import loads_strict
from ..strictjson import read_json as strict_read_json
from ..suites import Outcome

if TYPE_CHECKING:
    from ..corpus import Corpus

HEADER, OUTCOMES = "header.json", "outcomes.jsonl"
FORMAT = 1
SYNC_EVERY = 1.0  # seconds: a machine that goes down loses at most the cases of the last one
Key = tuple[str, str, str, str, int]  # suite, target, case name, case hash, repeat index


def case_hash(case: dict[str, Any]) -> str:
    """A digest of a case's JSON definition: an outcome is reused only while its case is unchanged."""
    return hashlib.sha256(dumps(case, sort_keys=True).encode("utf-8")).hexdigest()[:16]


@dataclass
class Saved:
    """What an interrupted run left behind: enough for the user to be told how to resume."""

    path: Path
    run_id: str
    cases: int


class Journal:
    """Appends the outcomes of one run to its journal; safe to call from the ``--jobs`` threads."""

    def __init__(self, path: Path, run_id: str, cases: int = 0) -> None:
        self.path, self.run_id, self.cases = path, run_id, cases
        self._lock = threading.Lock()
        with writing(path / OUTCOMES):
            self._handle: IO[str] | None = open(path / OUTCOMES, "a", encoding="utf-8")
        self._synced = time.monotonic()

    @classmethod
    def create(cls, out_dir: Path | str, manifest: dict[str, Any]) -> Journal:
        """Reserve a run id no run or journal in ``out_dir`` has (``<id>``, ``<id>-2``, ...), write
        the header, and return the open journal. ``manifest["run_id"]`` is set to the id reserved."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        while True:  # the mkdir is the reservation: a run starting at the same moment takes the next id
            run_id = free_run_id(out_dir, str(manifest["run_id"]))
            path = journal_path(out_dir, run_id)
            try:
                path.mkdir()
                break
            except FileExistsError:
                continue
        manifest["run_id"] = run_id
        write_json_atomic(path / HEADER, {"format": FORMAT, "manifest": manifest})
        return cls(path, run_id)

    @classmethod
    def reopen(cls, path: Path, run_id: str) -> Journal:
        """Continue an existing journal, first cutting off a torn last line so appends start clean."""
        outcomes = path / OUTCOMES
        data = outcomes.read_bytes() if outcomes.exists() else b""
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            with open(outcomes, "r+b") as handle:
                handle.truncate(keep)
        return cls(path, run_id, len(read_outcomes(path)))

    def append(self, suite: str, target: str, outcome: Outcome, digest: str | None = None) -> Outcome:
        """Record one finished case (one JSON line, flushed to disk) and return the outcome as a
        resume will read it back, so resumed and uninterrupted runs score the same data.
        ``digest`` is the case's ``case_hash`` when the caller has it already."""
        [appended] = self.append_many(suite, target, [(outcome, digest)])
        return appended

    def append_many(
        self, suite: str, target: str, outcomes: list[tuple[Outcome, str | None]], read_back: bool = True
    ) -> list[Outcome]:
        """Record several finished cases in one write (cache hits, which arrive all at once).
        ``read_back=False``: the outcomes are already what reading them back gives (JSON-decoded
        observations, as cache hits are), so they are returned as they are."""
        lines = [dumps(_record(suite, target, outcome, digest)) + "\n" for outcome, digest in outcomes]
        with self._lock:
            if self._handle is None:
                raise StoreError(f"{self.path}: journal already closed")
            with writing(self.path / OUTCOMES):  # a full disk: one line; the torn line is cut on resume
                self._handle.write("".join(lines))
                self._handle.flush()  # in the OS's hands: survives Ctrl-C and a crash of this process
                if time.monotonic() - self._synced >= SYNC_EVERY:
                    self._sync()
            self.cases += len(lines)
        if not read_back:
            return [outcome for outcome, _ in outcomes]
        return [as_outcome(json.loads(line), outcome.case) for line, (outcome, _) in zip(lines, outcomes, strict=True)]

    def saved(self) -> Saved:
        """How many cases this journal holds, and where."""
        return Saved(self.path, self.run_id, self.cases)

    def _sync(self) -> None:
        """Put what was appended on the disk itself (at most once per ``SYNC_EVERY``: an fsync
        per case could cost more than a fast engine's answer on a slow disk)."""
        if self._handle is not None:
            os.fsync(self._handle.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        """Close the outcomes file, synced to disk (the journal stays on disk)."""
        with self._lock:
            if self._handle is not None:
                handle, self._handle = self._handle, None
                for step in (lambda: os.fsync(handle.fileno()), handle.close):
                    try:
                        step()
                    except OSError:  # a full disk: what was flushed is kept; resume cuts a torn last line
                        pass

    def remove(self) -> None:
        """Delete the journal: called once the run directory it fed is written."""
        self.close()
        shutil.rmtree(self.path, ignore_errors=True)


def _record(suite: str, target: str, outcome: Outcome, digest: str | None) -> dict[str, Any]:
    """The journal record of one outcome."""
    record = {
        "suite": suite,
        "target": target,
        "case": outcome.name,
        "hash": digest or case_hash(outcome.case),
        "repeat": int(outcome.meta.get("repeat", 0)),
        "observation": outcome.observation,
        "error": outcome.error,
        "seconds": outcome.seconds,
    }
    if any(key != "repeat" for key in outcome.meta):
        record["meta"] = {key: value for key, value in outcome.meta.items() if key != "repeat"}
    return record


def as_outcome(record: dict[str, Any], case: dict[str, Any]) -> Outcome:
    """The Outcome a journal record stands for, attached to the corpus case it was run on."""
    meta = dict(record.get("meta") or {}, repeat=int(record.get("repeat") or 0))
    return Outcome(case, record.get("observation"), record.get("error"), float(record.get("seconds") or 0.0), meta)


def read_journal_header(path: Path) -> dict[str, Any]:
    """A journal's header (``{"format", "manifest"}``); a StoreError names a missing or bad file."""
    if not (path / HEADER).is_file():
        raise StoreError(f"{path / HEADER}: missing (not a run journal)")
    header = strict_read_json(path / HEADER, "run journal header", StoreError)
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("manifest"), dict):
        raise StoreError(f"{path / HEADER}: not a format-{FORMAT} run journal header")
    check_manifest(header["manifest"], path / HEADER)
    return header


def read_outcomes(path: Path) -> list[dict[str, Any]]:
    """The journal's outcome records, in the order they finished. A torn last line (a crash
    mid-write) is ignored; any other bad line is a StoreError naming it."""
    file = path / OUTCOMES
    try:
        text = file.read_text(encoding="utf-8") if file.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{file}: unreadable ({exc})") from None
    records = []
    for number, line in enumerate(text.split("\n")[:-1], 1):  # [-1]: after the last newline, torn or empty
        record = loads_strict(line, f"{file}:{number}", StoreError)
        if not isinstance(record, dict) or not {"suite", "target", "case", "hash"} <= set(record):
            raise StoreError(f"{file}:{number}: not an outcome record")
        records.append(record)
    return records


def reusable(path: Path) -> dict[Key, dict[str, Any]]:
    """The journal's records keyed by (suite, target, case, case hash, repeat); a later record wins."""
    return {(r["suite"], r["target"], r["case"], r["hash"], int(r.get("repeat") or 0)): r for r in read_outcomes(path)}


def find_journal(spec: str | Path, out_dir: Path | str) -> Path:
    """The journal directory for ``spec``: a journal path, or a run id under ``out_dir``.

    A StoreError says when that run is already complete, or names the place looked in."""
    given = Path(spec)
    is_path = len(given.parts) > 1 or given.name.endswith(".journal") or (given / HEADER).is_file()
    path = given if is_path else journal_path(out_dir, str(spec))
    found = (path / HEADER).is_file()
    if found:
        run_dir = path.parent / str(read_journal_header(path)["manifest"].get("run_id"))
    else:
        run_dir = given if is_path else Path(out_dir) / str(spec)
    refuse_complete(run_dir, path if found else None)
    if not found:
        raise StoreError(f"{spec}: no run journal to resume (looked for {path / HEADER})")
    return path


def refuse_complete(run_dir: Path, journal: Path | None = None) -> None:
    """A StoreError when ``run_dir`` is a complete run: there is nothing left to resume.

    A run the ``--deadline`` cut short (or that stopped at its ``--budget-usd``/``--budget-seconds``)
    is written and complete, but its journal lets a resume run the cases it left out."""
    if is_complete_run(run_dir) and not _cut_by_deadline(run_dir):
        leftover = f"; its journal {journal} is left over and can be deleted" if journal else ""
        raise StoreError(f"{run_dir}: run {run_dir.name} is already complete, nothing to resume{leftover}")


def _cut_by_deadline(run_dir: Path) -> bool:
    try:
        summary = read_json(run_dir / "summary.json")
    except StoreError:
        return False
    if not isinstance(summary, dict):
        return False
    budget = summary.get("budget")
    return isinstance(summary.get("deadline"), dict) or (isinstance(budget, dict) and bool(budget.get("stopped")))


def resume_header(corpus: Corpus, options: RunOptions) -> dict[str, Any]:
    """The manifest an interrupted run began with, once it is checked that resuming it with
    ``corpus`` and ``options`` reproduces that run (same corpus bytes, same deciding options)."""
    journal = Path(options.resume or "")
    manifest = read_journal_header(journal)["manifest"]
    run_id = str(manifest.get("run_id"))
    refuse_complete(journal.parent / run_id)
    old = str(manifest.get("corpus", {}).get("sha256"))
    if old != corpus.sha256:
        raise CorpusError(
            f"{corpus.path}: changed since run {run_id} started (SHA-256 {old[:12]} -> "
            f"{corpus.sha256[:12]}); its outcomes cannot be reused, start a new run"
        )
    options.resumed(manifest, deciding_fields(type(options)), journal)  # a UsageError if they differ
    return manifest


def resume_options(
    resume: Path | str, options: RunOptions, given: Collection[str], corpus_path: Path | str | None
) -> tuple[Path | str, RunOptions]:
    """The corpus and RunOptions that finish the run journaled at ``resume`` (a journal path, or a
    run id under ``options.out_dir``): its deciding options come from the journal, and one in
    ``given`` that contradicts it is a UsageError."""
    journal = find_journal(resume, options.out_dir)
    manifest = read_journal_header(journal)["manifest"]
    return corpus_path or manifest["corpus"]["path"], options.resumed(manifest, given, journal)
