"""The cache is private (issue 41 item 3): a directory others can write is never read, and an
entry not sealed with this user's key is a miss, never code."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest

from workbench import paths
from workbench.reference import blobstore, cache


class _Planted:
    """A pickle that, when loaded, creates a marker file: loading it would run a stranger's code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (self.marker,))


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch):
    paths._CHOSEN.clear()
    paths._KEYS.clear()
    blobstore.close()
    yield
    paths._CHOSEN.clear()
    paths._KEYS.clear()
    blobstore.close()


def _plant(directory: Path, marker: Path, key: str = "tree", part: str = "index", version: str = "v") -> Path:
    """An entry named as ``cache`` names one, holding a pickle that runs code (format 2, unsealed)."""
    path = directory / f"{cache._key(key)}-{version}.{part}{cache.SUFFIX}"
    path.write_bytes(pickle.dumps((2, "")) + pickle.dumps(_Planted(marker)))
    return path


def test_a_cache_dir_others_can_write_is_never_read(tmp_path: Path, monkeypatch, fresh, capsys) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    marker = tmp_path / "ran"
    _plant(shared, marker)
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(shared))
    assert cache.load_shared("tree", "index", "v") is None
    assert not marker.exists()
    used = paths.private_dir()
    assert used != shared and stat.S_IMODE(used.stat().st_mode) == 0o700
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "writable by others" in err[0] and str(shared) in err[0]
    paths.private_dir()
    assert capsys.readouterr().err == ""  # said once
    from workbench.paths import snapshots_dir

    assert snapshots_dir().parent == used  # the snapshot store follows the same rule


def test_an_unsealed_or_copied_entry_in_the_users_own_dir_is_a_miss(tmp_path: Path, monkeypatch, fresh) -> None:
    own = tmp_path / "own"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(own))
    cache.save_shared("tree", "index", "v", {"ok": 1}, tmp_path / "repo")
    assert cache.load_shared("tree", "index", "v") == {"ok": 1}
    assert stat.S_IMODE((own / paths.KEY_NAME).stat().st_mode) == 0o600
    marker = tmp_path / "ran"
    _plant(own, marker, key="planted")
    assert cache.load_shared("planted", "index", "v") is None and not marker.exists()
    # an entry sealed with another user's key (copied in from elsewhere) is a miss too
    other = tmp_path / "other"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(other))
    cache.save_shared("copied", "index", "v", _Planted(marker), tmp_path / "repo")
    entry = next(other.glob(f"{cache._key('copied')}-*"))
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(own))
    (own / entry.name).write_bytes(entry.read_bytes())
    assert cache.load_shared("copied", "index", "v") is None and not marker.exists()


def test_a_key_others_can_read_is_not_used(tmp_path: Path, monkeypatch, fresh) -> None:
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    key = own / paths.KEY_NAME
    key.write_bytes(b"k" * paths.KEY_BYTES)
    key.chmod(0o644)
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(own))
    assert paths.seal(b"data") is None  # nothing is sealed (so nothing is written) with it
    cache.save_shared("tree", "index", "v", 1, tmp_path / "repo")
    assert cache.load_shared("tree", "index", "v") is None


def test_a_planted_blob_store_row_is_a_miss(tmp_path: Path, monkeypatch, fresh) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "own"))
    part: blobstore.Part[object] = blobstore.Part("test", "v1")
    part.put_many({"good": [1, 2]}, tmp_path / "repo")
    marker = tmp_path / "ran"
    db = blobstore._connection()
    assert db is not None
    with db:
        db.execute(
            "INSERT INTO blobs VALUES (?, ?, ?, 0)",
            ("test/v1", "bad", b"\0" * paths.TAG_BYTES + pickle.dumps(_Planted(marker))),
        )
    part.forget()
    assert part.get_many(["good", "bad"]) == {"good": [1, 2]} and not marker.exists()
    assert stat.S_IMODE(os.stat(blobstore.store_path()).st_mode) == 0o600
