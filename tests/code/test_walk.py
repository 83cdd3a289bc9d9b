"""Walking a tree: ``.gitignore`` files (each compiled once per content), binaries and sizes."""

from __future__ import annotations

from pathlib import Path

from workbench.code import walk

from ..conftest import write_tree


def test_the_same_gitignore_in_two_folders_ignores_relative_to_each(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            "a/.gitignore": "/gen.py\n*.tmp\n",
            "a/gen.py": "x = 1\n",
            "a/keep.py": "x = 1\n",
            "b/.gitignore": "/gen.py\n*.tmp\n",
            "b/gen.py": "x = 1\n",
            "b/sub/gen.py": "x = 1\n",  # ``/gen.py`` anchors at b/, not below it
            "b/notes.tmp": "scratch\n",
            "gen.py": "x = 1\n",
        },
    )
    (root / "bin.dat").write_bytes(b"\0\1\2")
    (root / "big.txt").write_text("x" * (walk.MAX_BYTES + 1))
    assert walk.list_files(root) == ["a/.gitignore", "a/keep.py", "b/.gitignore", "b/sub/gen.py", "gen.py"]
    (root / "a/.gitignore").write_text("*.tmp\n")  # another content, compiled anew
    assert "a/gen.py" in walk.list_files(root)
