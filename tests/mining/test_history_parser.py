"""Issue 20, item 5: history is parsed with NUL separators by position, so no commit text can forge
a field or a commit, and an odd file name skips its commit under a counted filter."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.git_history import commit, git, init
from workbench.mining.filters import MineFilters, filter_names
from workbench.mining.history import LogEntry, iter_commits, parse_commit_object, parse_log
from workbench.mining.mine import mine


def _git_dir(repo: Path) -> Path:
    return repo / ".git"


def test_a_message_with_the_old_separators_forges_nothing(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    commit(repo, "start", {"src/a.py": "x = 1\n"}, 0)
    forged = "0" * 40
    evil = f"fix refund rounding\x1e{forged}\x1f{forged}\x1fMallory\x1fm@x\x1f1\x1fforged query\x1f\n"
    real = commit(repo, evil, {"src/a.py": "x = 2\n"}, 1)
    commits = list(iter_commits(_git_dir(repo)))
    assert [c.sha for c in commits][0] == real and len(commits) == 2
    assert forged not in {c.sha for c in commits} and all(c.author == "Dev Eloper" for c in commits)
    assert commits[0].subject.startswith("fix refund rounding") and commits[0].changes == (("M", "src/a.py"),)


def _commit_odd_name(repo: Path, raw_name: bytes, step: int) -> str:
    """Commit a file whose name holds bytes a str path cannot (newlines, non-UTF-8)."""
    with open(os.path.join(os.fsencode(repo), raw_name), "wb") as handle:
        handle.write(b"x = 3\n")
    return commit(repo, "fix refund for odd orders in the ledger", {"src/a.py": "x = 9\n"}, step)


def test_odd_file_names_skip_their_commit_never_the_mine(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    commit(repo, "start", {"src/a.py": "x = 1\n", "src/b.py": "y = 1\n"}, 0)
    odd1 = _commit_odd_name(repo, b"src/new\nline.py", 1)
    odd2 = _commit_odd_name(repo, b"src/caf\xe9.py", 2)
    good = commit(repo, "handle empty carts when computing totals", {"src/b.py": "y = 2\n"}, 3)
    by_sha = {c.sha: c for c in iter_commits(_git_dir(repo))}
    assert by_sha[odd1].odd_paths and by_sha[odd2].odd_paths and not by_sha[good].odd_paths
    assert ("A", "src/new\nline.py") in by_sha[odd1].changes  # the path is one field, newline and all
    result = mine(repo, MineFilters())
    assert "odd-path" in filter_names() and result.dropped["odd-path"] == 2
    assert [case["source"]["commit"] for case in result.cases] == [good]


def _stream(entries: list[tuple[str, list[str], list[tuple[str, bytes]]]]) -> bytes:
    """What ``git log -z --format=%H%x00%P --name-status`` prints for these commits."""
    out = b""
    for sha, parents, changes in entries:
        out += sha.encode() + b"\0" + " ".join(parents).encode() + b"\0"
        if changes:
            out += b"\n" + b"".join(status.encode() + b"\0" + path + b"\0" for status, path in changes)
    return out


SHAS = st.text("0123456789abcdef", min_size=40, max_size=40)
PATHS = st.binary(min_size=1, max_size=40).filter(lambda b: b"\0" not in b)
CHANGES = st.lists(st.tuples(st.sampled_from("MADT"), PATHS), max_size=4)
ENTRIES = st.lists(st.tuples(SHAS, st.lists(SHAS, max_size=2), CHANGES), max_size=5)


@settings(max_examples=300, deadline=None)
@given(ENTRIES)
def test_parse_log_recovers_every_commit_whatever_the_paths(entries) -> None:
    tokens = _stream(entries).split(b"\0")[:-1]  # as ``stream_records`` yields them: no empty tail
    parsed = list(parse_log(tokens))
    assert parsed == [LogEntry(s, tuple(p), list(c)) for s, p, c in entries]


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text().filter(lambda t: "<" not in t and ">" not in t and "\n" not in t))
def test_a_commit_object_message_is_never_a_field(message: str, name: str) -> None:
    raw = (
        b"tree " + b"1" * 40 + b"\nauthor " + name.encode("utf-8", "surrogatepass") + b" <e@x> 1700000000 +0000\n"
        b"committer C <c@x> 1700000123 +0000\n\n" + message.encode("utf-8", "surrogatepass")
    )
    author, email, when, text = parse_commit_object(raw)
    assert (email, when) == ("e@x", 1700000123)
    assert author == name.encode("utf-8", "surrogatepass").strip().decode("utf-8", "replace")
    assert text == message.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()


def test_a_merge_and_a_root_commit_parse(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    root = commit(repo, "start", {"a.py": "1\n"}, 0)
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, "side change", {"b.py": "1\n"}, 1)
    git(repo, "checkout", "-q", "main")
    main_tip = commit(repo, "main change", {"a.py": "2\n"}, 2)
    git(repo, "merge", "-q", "--no-edit", "side")
    commits = {c.sha: c for c in iter_commits(_git_dir(repo))}
    assert len(commits) == 4 and commits[root].parents == () and commits[root].changes == (("A", "a.py"),)
    merge = next(c for c in commits.values() if len(c.parents) == 2)
    assert set(merge.parents) == {main_tip, side} and merge.changes == ()
