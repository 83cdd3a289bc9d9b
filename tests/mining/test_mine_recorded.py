"""Mining a generated history gives exactly the output recorded before issue 24's speed-up.

``data/generated_mine.json`` was written by the code on main before the change (blob cache,
lazy parsing, literal pre-checks, pipelined commit reads); any change in cases, shapes, drop
counts or their order shows up here byte for byte. ``expectedSymbols`` (issue 21) came later:
it is compared without that field, so every field recorded before it stays byte-identical.
``data/generated_polyglot_mine.json`` (Python, TypeScript, JavaScript and Go modules, messages
decorated as real ones are) was written whole, ``expectedSymbols`` included, by the code on main
at bd1f197, before issue 24's third round (log filters first, lazy candidates, batched reads, the
sample without numpy, shared TS/JS ranges).
Both records' drop counts were re-recorded once, in issue 40, when the filters that read only the
log entry's changed files moved before those of the commit object: every case, the candidates and
the commits stayed byte-identical, and the drops add up to the same total.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.git_history import fast_import_history
from workbench.mining.mine import MineResult, mine

RECORDED = Path(__file__).parent / "data" / "generated_mine.json"
RECORDED_POLYGLOT = Path(__file__).parent / "data" / "generated_polyglot_mine.json"


def _mined(result: MineResult) -> dict[str, Any]:
    return {
        "commits": result.commits,
        "candidates": result.candidates,
        "dropped": dict(sorted(result.dropped.items())),
        "cases": result.cases,
    }


def test_generated_history_mines_the_recorded_cases(tmp_path: Path) -> None:
    repo = fast_import_history(tmp_path / "gen", 600, files=40, seed=7)
    result = mine(repo, max_cases=40, seed=3, fixture="gen", progress=False)
    mined = _mined(result)
    existing = [{key: value for key, value in case.items() if key != "expectedSymbols"} for case in result.cases]
    assert json.dumps({**mined, "cases": existing}, indent=1, sort_keys=True) + "\n" == RECORDED.read_text()
    assert result.commits == 600 and len(result.cases) == 40
    # the new field (issue 21): every generated commit edits a function, in the files it expects
    for case in result.cases:
        assert case["expectedSymbols"] and all(
            s.split(":")[0] in case["expectedPrimary"] for s in case["expectedSymbols"]
        )


def _mine_polyglot(tmp_path: Path) -> MineResult:
    """Mine the generated polyglot history and check it gives the recorded corpus byte for byte."""
    languages = (".py", ".ts", ".js", ".go")
    repo = fast_import_history(tmp_path / "poly", 900, files=48, seed=11, languages=languages, varied=True)
    result = mine(repo, max_cases=60, seed=5, fixture="poly", progress=False)
    assert json.dumps(_mined(result), indent=1, sort_keys=True) + "\n" == RECORDED_POLYGLOT.read_text()
    return result


def test_a_polyglot_history_mines_the_recorded_cases_byte_for_byte(tmp_path: Path) -> None:
    result = _mine_polyglot(tmp_path)
    gold = {path.rsplit(".", 1)[1] for case in result.cases for path in case["expectedPrimary"]}
    assert gold == {"py", "ts", "js", "go"} and all(case.get("expectedSymbols") for case in result.cases)


def test_gold_blobs_parse_a_blob_once_for_its_names_and_ranges() -> None:
    from workbench.code.enclosing import definition_ranges
    from workbench.mining import blobs
    from workbench.mining.shapes import outline_of, symbol_names

    cache = blobs.GoldBlobs(keep_trees=2)
    source = b"class Parser:\n    def parse_header(self, x):\n        return x\n"
    assert cache.names("b1", "a/x.py", source) == {"Parser", "parse_header", "Parser.parse_header"}
    assert cache.names("b1", "b/y.py", source) == cache.names("b1", "a/x.py", source)  # same blob: cached
    assert cache.ranges("b1", "a/x.py", source) == definition_ranges("a/x.py", source)
    assert cache.parses == 1  # names and ranges of one Python blob share one parse
    script = b"export class Store {\n  load(id: string) {\n    return id\n  }\n}\nfunction helper() {}\n"
    assert cache.names("t1", "s.ts", script) == frozenset(symbol_names(outline_of("s.ts", script)))
    assert sorted(cache.ranges("t1", "s.ts", script)) == sorted(definition_ranges("s.ts", script))
    assert cache.parses == 2  # one tree-sitter parse for both too
    assert cache.names("b1", "c/z.txt", source) == frozenset() and cache.parses == 2  # no parser for it
    assert cache.ranges("b2", "m.py", b"def broken(:\n") == [] and cache.names("b2", "m.py", b"def broken(:\n") == set()
    cache.ranges("b3", "m.py", b"def f():\n    pass\n")
    assert cache.parses == 4 and len(cache._trees) == 1  # a Python tree is read at once, never kept
    for blob in ("t3", "t4", "t5"):
        cache.ranges(blob, "m.ts", b"function f() {}\n")
    assert cache.parses == 7 and len(cache._trees) == 2  # only the last trees are kept


@contextmanager
def _spawned_helper(cases: int) -> Iterator[Executor]:
    """A helper process started by spawn: safe here, where pytest-xdist runs threads beside the test."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as helper:
        yield helper


def test_a_helper_process_parsing_half_the_blobs_mines_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.mining import blobs

    used: list[int] = []
    submit = ProcessPoolExecutor.submit

    def counted(self: ProcessPoolExecutor, fn: Any, *args: Any) -> Any:
        used.append(len(args[0]) if fn is blobs._read_many else 0)
        return submit(self, fn, *args)

    monkeypatch.setattr(importlib.import_module("workbench.mining.mine"), "parse_helper", _spawned_helper)
    monkeypatch.setattr(ProcessPoolExecutor, "submit", counted)
    _mine_polyglot(tmp_path)
    assert sum(used) > 0  # the helper did parse some of the Python blobs


def test_parse_ahead_gives_what_names_and_ranges_give_with_or_without_a_helper() -> None:
    from workbench.code.enclosing import enclosing
    from workbench.mining import blobs
    from workbench.mining.pyfacts import name_words
    from workbench.mining.shapes import names_symbol

    big = b"class Big:\n" + b"".join(b"    def m%d(self):\n        return %d\n" % (i, i) for i in range(60))
    big += b"".join(b"\n\ndef top%d():\n    return %d\n" % (i, i) for i in range(30))
    query = "make `top7` faster"
    sources = [
        ("p1", "a/big.py", big, frozenset({5, 130}), name_words(query)),
        ("p2", "b/small.py", b"def f():\n    pass\n", frozenset({2}), frozenset()),
        ("p2", "b/copy.pyi", b"def f():\n    pass\n", frozenset({1}), frozenset()),  # another extension
        ("p3", "c/broken.py", b"def broken(:\n", frozenset({1}), frozenset()),
        ("t1", "s.ts", b"export function helper() {}\n", frozenset({1}), frozenset()),  # left to names and ranges
        ("p1", "again/big.py", b"ignored: the blob id says it is p1", frozenset({200}), frozenset()),
    ]
    plain = blobs.GoldBlobs()
    whole = [(plain.names(*item[:3]), plain.ranges(*item[:3])) for item in sources[:-1]]
    with _spawned_helper(len(sources)) as helper:
        for cache in (blobs.GoldBlobs(), blobs.GoldBlobs(helper=helper)):
            cache.parse_ahead(sources)
            assert cache.parses == 4  # p1, p2 (.py and .pyi), p3; not the TypeScript blob, not p1 twice
            for (blob, path, data, lines, _), (names, ranges) in zip(sources[:-1], whole, strict=True):
                got = cache.ranges(blob, path, data)
                assert all(enclosing(got, line, line) == enclosing(ranges, line, line) for line in [*lines, 200])
                assert names_symbol(query, cache.names(blob, path, data)) == names_symbol(query, names)
            assert len(cache.ranges("p1", "a/big.py", big)) < len(whole[0][1])  # read in part
            assert cache.parses == 5  # only the TypeScript blob was parsed since


def test_a_dead_helper_leaves_its_share_to_this_process() -> None:
    from workbench.mining import blobs

    class Dead(Executor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            future: Future[Any] = Future()
            future.set_exception(BrokenProcessPool("killed"))
            return future

    items = [
        (f"b{i}", f"m{i}.py", b"def f%d():\n    return %d\n" % (i, i), frozenset({1}), frozenset()) for i in range(6)
    ]
    cache = blobs.GoldBlobs(helper=Dead())
    cache.parse_ahead(items)
    assert cache.parses == 6 and cache._helper is None
    assert [cache.ranges(*item[:3]) for item in items] == [[(f"f{i}", 1, 2)] for i in range(6)]


def test_no_helper_for_a_few_cases_or_beside_another_thread() -> None:
    from workbench.mining import blobs

    with blobs.parse_helper(blobs.HELPER_MIN_CASES - 1) as helper:
        assert helper is None
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with blobs.parse_helper(10 * blobs.HELPER_MIN_CASES) as helper:
            assert helper is None  # forking beside a running thread could deadlock the child
    finally:
        stop.set()
        other.join()


@pytest.mark.parametrize("least", [400, 1_000, 1_800])
def test_a_history_read_in_two_halves_mines_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, least: int
) -> None:
    """The older half read by the helper (``split``), from the count or from the middle of the newer
    half's read (``least`` 400: K is what was read when the count came, at most 200, plus half of the
    rest; 1,000: this process waits for the count at 500 and does not split, 900 commits being too few),
    or not split at all (1,800): the recorded corpus either way."""
    from workbench.mining import split

    handed: list[int] = []
    asked: list[list[int]] = []
    submit = ProcessPoolExecutor.submit

    def counted(self: ProcessPoolExecutor, fn: Any, *args: Any) -> Any:
        if fn is split.older_keys:
            handed.append(args[1])  # K, the commits the newer half reads
        if fn is split.held:
            asked.append(args[0])  # the older half's candidates the sample picked
        return submit(self, fn, *args)

    monkeypatch.setattr(split, "SPLIT_MIN", least)
    monkeypatch.setattr(importlib.import_module("workbench.mining.mine"), "parse_helper", _spawned_helper)
    monkeypatch.setattr(ProcessPoolExecutor, "submit", counted)
    result = _mine_polyglot(tmp_path)
    if least > 900:
        assert handed == [] and asked == []
    else:
        assert len(handed) == 1 and 450 <= handed[0] <= 550
        # Only the sample's picks among the older half crossed back, in one round trip.
        assert len(asked) == 1 and 0 < len(asked[0]) <= len(result.cases) < result.candidates // 2


@pytest.mark.parametrize("dies_on", ["older_keys", "held"])
def test_a_dead_helper_leaves_the_older_half_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dies_on: str
) -> None:
    """The helper dies when handed the older half, or after it sent the half's keys back, when this
    process asks for the sample's picks among them: either way the older half is read here."""
    from workbench.mining import split

    class DiesOnTheHalf(Executor):
        """Runs what it is handed in this process, and dies when handed ``dies_on``."""

        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            future: Future[Any] = Future()
            if fn is getattr(split, dies_on):
                future.set_exception(BrokenProcessPool("killed"))
            else:
                future.set_result(fn(*args))
            return future

    @contextmanager
    def dying(cases: int) -> Iterator[Executor]:
        yield DiesOnTheHalf()

    monkeypatch.setattr(split, "SPLIT_MIN", 400)
    monkeypatch.setattr(importlib.import_module("workbench.mining.mine"), "parse_helper", dying)
    repo = fast_import_history(tmp_path / "gen", 600, files=40, seed=7)
    split_result = mine(repo, max_cases=40, seed=3, fixture="gen", progress=False)
    monkeypatch.setattr(split, "SPLIT_MIN", 10_000)
    whole = mine(repo, max_cases=40, seed=3, fixture="gen", progress=False)
    assert _mined(split_result) == _mined(whole) and split_result.commits == 600


def test_the_helpers_share_grows_when_it_waits_and_shrinks_when_it_is_behind() -> None:
    from workbench.mining import blobs

    class Instant(Executor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            future: Future[Any] = Future()
            future.set_result(fn(*args))
            return future

    cache = blobs.GoldBlobs(helper=Instant())
    items = [
        (f"b{i}", f"m{i}.py", b"def f%d():\n    return %d\n" % (i, i), frozenset({1}), frozenset()) for i in range(4)
    ]
    batch = cache.start(items)
    assert batch.here and batch.there  # both sides read some
    cache.read_here(batch)
    cache.finish(batch)  # the helper was done before it was waited for: it gets more next time
    assert cache._share > 0.5
    slow: Future[Any] = Future()
    late = blobs.Batch([], ["x"], {}, slow)
    slow.set_running_or_notify_cancel()
    threading.Timer(0.05, slow.set_result, [[(frozenset(), frozenset(), [])]]).start()
    share = cache._share
    cache.finish(late)
    assert cache._share < share  # it was still at work: less next time
