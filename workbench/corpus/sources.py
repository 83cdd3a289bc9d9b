"""Open a repository given as a work tree, a bare repository or a ``.bundle`` file.

Only the git dir is ever used, read-only. A bundle is cloned (``git clone --bare``
reads it; nothing writes to it) into a bare repository under the workbench cache
directory, keyed by the bundle's content, so every later call reuses that clone.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import GitError
from ..paths import private_dir
from .gitio import GIT_TIMEOUT, git_env, git_text

BUNDLES_DIR = "bundles"


@dataclass(frozen=True)
class GitRepo:
    """A readable repository: its name, what the user gave, the git dir read, and the kind of source."""

    name: str
    path: Path
    git_dir: Path
    kind: str  # "worktree", "bare" or "bundle"


GENERIC_NAMES = frozenset({"repo", "repository", "git", "src", "source", "clone", "checkout", "mirror"})


def _clean(stem: str) -> str:
    for suffix in (".bundle", ".git"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-")


def remote_name(git_dir: Path) -> str | None:
    """The project name in the URL of the repository's ``origin`` (else first) remote, or None."""
    from .gitio import git_bytes

    listed = git_bytes(git_dir, "config", "--get-regexp", r"^remote\..*\.url$", check=False).decode("utf-8", "replace")
    urls = dict(line.split(" ", 1) for line in listed.splitlines() if " " in line)
    url = urls.get("remote.origin.url") or next(iter(urls.values()), "")
    name = _clean(re.split(r"[/:\\]", url.strip().rstrip("/"))[-1]) if url.strip() else ""
    return name or None


def repo_name(path: Path, git_dir: Path | None = None) -> str:
    """A fixture name for a repository path: its directory or bundle stem without ``.git``/``.bundle``,
    in ``[A-Za-z0-9._-]``. A bare repository (``git_dir`` is the path itself) or a folder with a
    generic name (``repo``) takes the name of its remote's project when it has a remote."""
    resolved = path.resolve()
    stem = _clean(resolved.name)
    if git_dir is not None and (git_dir == resolved or stem.lower() in GENERIC_NAMES):
        return remote_name(git_dir) or stem or "repo"
    return stem or "repo"


def is_git_source(path: Path) -> bool:
    """Whether ``path`` looks like a work tree, a bare repository or a bundle (cheap, no git call)."""
    if path.is_file():
        return path.suffix == ".bundle"
    return (path / ".git").exists() or _looks_bare(path)


def _looks_bare(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def open_repo(path: Path | str, name: str | None = None) -> GitRepo:
    """The repository at ``path``, or a GitError saying why it is not one."""
    given = Path(path)
    if given.is_file():
        if given.suffix != ".bundle":
            raise GitError(f"{given}: not a git repository or .bundle file")
        return GitRepo(name or repo_name(given), given.resolve(), _bundle_clone(given.resolve()), "bundle")
    if not given.is_dir():
        raise GitError(f"{given}: no such repository")
    if _looks_bare(given) and not (given / ".git").exists():
        return GitRepo(name or repo_name(given, given.resolve()), given.resolve(), given.resolve(), "bare")
    if not (given / ".git").exists():
        raise GitError(f"{given}: not a git repository (no .git; give a work tree, bare repository or .bundle)")
    git_dir = Path(
        git_text(
            given / ".git" if (given / ".git").is_dir() else _linked_git_dir(given), "rev-parse", "--absolute-git-dir"
        ).strip()
    )
    return GitRepo(name or repo_name(given, git_dir), given.resolve(), git_dir, "worktree")


def _linked_git_dir(work_tree: Path) -> Path:
    """The git dir a ``.git`` file points to (a linked worktree or a submodule)."""
    text = (work_tree / ".git").read_text(errors="replace").strip()
    if not text.startswith("gitdir:"):
        raise GitError(f"{work_tree}/.git: not a git dir or a gitdir: file")
    target = Path(text.split(":", 1)[1].strip())
    return target if target.is_absolute() else (work_tree / target).resolve()


def _point_head(clone: Path) -> None:
    """A bundle made without HEAD leaves the clone's HEAD dangling: point it (in our clone, never the
    bundle) at the bundle's first branch, so ``HEAD`` names the tip the bundle carries."""
    from .gitio import git_bytes

    if git_bytes(clone, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
        return
    heads = git_text(clone, "for-each-ref", "--format=%(refname)", "refs/heads").split()
    if heads:
        git_bytes(clone, "symbolic-ref", "HEAD", heads[0])


def _bundle_digest(bundle: Path) -> str:
    h = hashlib.blake2b(digest_size=12)
    with bundle.open("rb") as handle:
        while block := handle.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=64)
def _bundle_clone(bundle: Path) -> Path:
    """A bare clone of ``bundle`` in the cache (made once per bundle content; the bundle is only read)."""
    try:
        key = _bundle_digest(bundle)
    except OSError as exc:
        raise GitError(f"{bundle}: cannot read bundle ({exc.strerror})") from None
    root = private_dir() / BUNDLES_DIR
    target = root / f"{key}.git"
    if (target / "HEAD").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(dir=root, prefix=f".{key}-"))
    try:
        done = subprocess.run(
            ["git", "clone", "--bare", "--quiet", str(bundle), str(temp / "repo.git")],
            capture_output=True,
            env=git_env(),
            timeout=GIT_TIMEOUT,
        )
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"{bundle}: not a readable bundle ({lines[-1] if lines else done.returncode})")
        _point_head(temp / "repo.git")
        try:
            (temp / "repo.git").rename(target)
        except OSError:  # another process cloned it first
            if not (target / "HEAD").is_file():
                raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return target
