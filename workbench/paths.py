"""Every default location, and the one resolver of what a user names: a run directory, a run id,
``RUN#TARGET``, a baseline name or a baseline file.

``Locations`` (runs folder, baselines folder, derived from the corpus) resolves them; the CLI,
``load_run``, ``compare``, the report and the notebooks all resolve through it, so
``workbench report <run-id>`` and ``wb.load_run("<run-id>")`` mean what ``compare`` means.
Nothing here reads a run's frames (no pandas).

The cache directory is private, as ssh treats ``~/.ssh``: caches hold pickles (indexes, per-blob
facts) and revision snapshots, and a pickle runs code when loaded, so a directory another user can
write is never read: ``private_dir()`` returns the configured ``cache_dir()`` only when it is owned by
this user and not writable by group or others; otherwise it says so in one line on stderr, once, and
falls back to a private directory of its own. On top of that every entry is sealed: ``seal`` puts an
HMAC-SHA256 of the bytes (with a per-user key kept 0600 in the directory, ``.key``) in front, and
``unseal`` returns the bytes only when the tag matches, so an entry copied in from elsewhere or
planted by anyone without the key is a miss, never code.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreError, UsageError

DISTRIBUTION = "context-workbench"  # the name it is installed under (`workbench` on the index is another project)
REPORT_NOTEBOOK = "scoreboard.ipynb"  # the notebook that marks a folder as one holding the report notebooks
DEFAULT_CORPUS = Path("corpus/corpus.json")
DEFAULT_RUNS_DIR = Path("reports/runs")
DEFAULT_HTML_DIR = Path("reports/html")
DEFAULT_TREC_DIR = Path("reports/trec")
DEFAULT_BASELINES_DIR = Path("corpus/baselines")
GIT_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a full object name (SHA-1 or SHA-256)
NAME_MAX, PATH_MAX = 255, 4095  # bytes in a file-name part and in a whole path (Linux's limits)


def cache_dir() -> Path:
    """Where caches live: ``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench``, else
    ``~/.cache/workbench`` (created lazily on first write, never inside a repository)."""
    explicit = os.environ.get("WORKBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "workbench"


# The limits every cache under ``cache_dir()`` keeps (the index cache and the snapshot store alike).
CACHE_MAX_ENTRIES = 256
CACHE_MAX_BYTES = 512 * 1024 * 1024  # the default; ``$WORKBENCH_CACHE_MAX_MB`` overrides it
CACHE_PRUNE_INTERVAL = 60.0  # seconds between two prunes of one process
CACHE_TEMP_AGE = 3600.0  # a temp file this old belongs to a writer that died


def cache_max_bytes() -> int:
    """The size a cache keeps itself under: ``$WORKBENCH_CACHE_MAX_MB`` megabytes, else the
    default (a value that is no number is ignored)."""
    try:
        return int(float(os.environ["WORKBENCH_CACHE_MAX_MB"]) * 1024 * 1024)
    except (KeyError, ValueError, OverflowError):
        return CACHE_MAX_BYTES


KEY_NAME = ".key"
KEY_BYTES = 32
TAG_BYTES = 32
_LOCK = threading.Lock()
_SETTINGS = ("WORKBENCH_CACHE_DIR", "XDG_CACHE_HOME", "HOME")  # what ``paths.cache_dir`` reads
_CHOSEN: dict[str, Path] = {}  # those settings -> the directory used (checked once per process)
_KEYS: dict[Path, bytes] = {}


def unsafe_reason(path: Path) -> str | None:
    """Why ``path`` may not hold caches (owned by another user, writable by group or others, not a
    directory), or None when it is safe. ``lstat``: a symlink in its place is refused too."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"is owned by uid {st.st_uid}, not by this user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"is writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def private_dir() -> Path:
    """The cache directory to use: the configured one when it is safe, else a private fallback,
    said once on stderr. A missing directory is not created here (writers make it, 0700) and is
    checked again on the next call, so it is judged as soon as it exists."""
    setting = "\0".join(os.environ.get(name, "") for name in _SETTINGS)
    found = _CHOSEN.get(setting)  # called for every cache read: one dict lookup once decided
    if found is not None:
        return found
    configured = cache_dir()
    reason = unsafe_reason(configured)
    if reason is None and not configured.is_dir():
        return configured
    with _LOCK:
        found = _CHOSEN.get(setting)
        if found is None:
            found = _CHOSEN[setting] = configured if reason is None else _fallback(configured, reason)
    return found


def _fallback(configured: Path, reason: str) -> Path:
    import tempfile

    fallback = Path(tempfile.mkdtemp(prefix="workbench-cache-"))  # 0700, ours
    print(f"workbench: cache directory {configured} {reason}; using {fallback} instead", file=sys.stderr)
    return fallback


def _key(directory: Path) -> bytes | None:
    """This user's sealing key for ``directory`` (made on first use, 0600), None when unusable."""
    key = _KEYS.get(directory)
    if key is not None:
        return key
    path = directory / KEY_NAME
    key = _read_key(path)
    if key is None and not path.exists():
        key = _make_key(path)
    if key is not None:
        _KEYS[directory] = key
    return key


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o077:
            return None  # a key others can read or write authenticates nothing
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def _make_key(path: Path) -> bytes | None:
    """Write a fresh key to a 0600 temp file and link it into place: two processes racing both end
    up with the one that landed first."""
    import secrets
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mkstemp makes it 0600
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
        except OSError:
            return None
    finally:
        Path(temp).unlink(missing_ok=True)
    return _read_key(path)


def tag(data: bytes | memoryview, directory: Path | None = None) -> bytes | None:
    """The HMAC of ``data`` under the key of ``directory`` (default: the cache), None without a key."""
    import hashlib
    import hmac

    key = _key(directory or private_dir())
    return None if key is None else hmac.new(key, data, hashlib.sha256).digest()


def seal(data: bytes, directory: Path | None = None) -> bytes | None:
    """``data`` with its tag in front, None when no key can be had (then nothing is written)."""
    mac = tag(data, directory)
    return None if mac is None else mac + data


def unseal(sealed: bytes, directory: Path | None = None) -> bytes | None:
    """The bytes ``seal`` sealed, or None when the tag does not match (a planted or copied entry)."""
    import hmac

    if len(sealed) < TAG_BYTES:
        return None
    data = memoryview(sealed)[TAG_BYTES:]
    mac = tag(data, directory)
    return bytes(data) if mac is not None and hmac.compare_digest(mac, sealed[:TAG_BYTES]) else None


def notebooks_dir() -> Path:
    """Where the report notebooks are: a checkout's own ``notebooks/`` while you develop them (the
    working directory's, then the one beside the source tree of an editable install), else the copies
    the wheel ships inside the package (``workbench/notebooks/``). A ``notebooks/`` folder without
    the report notebooks (a user's own) is passed over."""
    package = Path(__file__).resolve().parent
    for folder in (Path("notebooks"), package.parent / "notebooks"):
        if (folder / REPORT_NOTEBOOK).is_file():
            return folder
    return package / "notebooks"


def snapshots_dir() -> Path:
    """Where revision snapshots live: ``<cache>/snapshots/<tree sha>/`` (see ``corpus.snapshots``), in
    the private cache directory (``private_dir``: never one others can write)."""
    return private_dir() / "snapshots"


def is_snapshot(root: Path) -> bool:
    """Whether ``root`` (resolved) is a revision snapshot: named by the git tree it holds and never
    changed once built, so nothing needs to check it for edits."""
    return bool(GIT_SHA.fullmatch(root.name)) and root.parent == snapshots_dir().resolve()


def journal_path(out_dir: Path | str, run_id: str) -> Path:
    """Where the journal of run ``run_id`` lives while it runs: a dot-directory beside its run directory."""
    return Path(out_dir) / f".{run_id}.journal"


def split_target(spec: str | Path) -> tuple[str, str]:
    """``RUN#TARGET`` -> ``("RUN", "TARGET")``; without ``#``, the target is ``""``: the one parser
    of a ``#TARGET`` suffix."""
    base, _, target = str(spec).partition("#")
    return base, target


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) holding
    ``reports/runs`` or ``corpus/``, so a notebook opened from ``notebooks/`` finds the project."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / DEFAULT_RUNS_DIR).is_dir() or (folder / DEFAULT_CORPUS.parent).is_dir():
            return folder
    return here


def project_path(path: Path | str) -> Path:
    """``path`` as given, or, when it is relative and missing from the working directory but present
    under the project root (a notebook's kernel runs in ``notebooks/``), the project's one."""
    given = Path(path)
    if given.is_absolute() or given.exists():
        return given
    under_root = project_root() / given
    return under_root if under_root.exists() else given


@dataclass(frozen=True)
class SideRef:
    """Where a named run or baseline (``RUN``, ``RUN#TARGET``, a baseline name or file) is on disk."""

    spec: str
    path: Path
    target: str
    is_run: bool


@dataclass(frozen=True)
class Locations:
    """Where runs and baselines are: ``runs`` (run ids are looked up here) and ``baselines``
    (baseline names), the one resolver of what a user names."""

    runs: Path = DEFAULT_RUNS_DIR
    baselines: Path = DEFAULT_BASELINES_DIR

    @classmethod
    def of(cls, corpus: Path | str | None = None, runs: Path | str | None = None) -> Locations:
        """The locations of a corpus: its baselines in ``<corpus dir>/baselines/`` (the default
        corpus's when None), runs in ``runs`` (default ``reports/runs``); relative paths are found
        from the project root too (``project_path``), so ``notebooks/`` resolves like the root."""
        baselines = project_path(corpus or DEFAULT_CORPUS).parent / "baselines"
        return cls(project_path(runs if runs is not None else DEFAULT_RUNS_DIR), baselines)

    @classmethod
    def project(cls, start: Path | None = None) -> Locations:
        """The default locations of the project at or above ``start`` (see ``project_root``)."""
        root = project_root(start)
        return cls(root / DEFAULT_RUNS_DIR, root / DEFAULT_BASELINES_DIR)

    def run_dir(self, name: str | Path) -> Path | None:
        """The run directory ``name`` names (a directory, or a run id under ``runs``), or None."""
        text = str(name)
        check_path_length(text, "run")
        path = project_path(text) if project_path(text).is_dir() else self.runs / text
        return path if text and path.is_dir() else None

    def baseline(self, name: Path | str) -> Path:
        """A baseline file: a ``.json`` path as given, else ``<baselines>/<name>.json``."""
        check_path_length(name, "baseline")
        path = Path(name)
        return project_path(path) if path.suffix == ".json" else self.baselines / f"{name}.json"

    def run(self, spec: str | Path) -> SideRef:
        """A run (``RUN`` or ``RUN#TARGET``); a StoreError names where it looked."""
        base, target = split_target(spec)
        path = self.run_dir(base)
        if path is None:
            raise StoreError(f"{spec}: not a run directory, nor a run id in {self.runs}")
        return SideRef(str(spec), path, target, True)

    def side(self, spec: str | Path) -> SideRef:
        """A run directory (a path, or a run id under ``runs``) or a baseline file (a ``.json``
        path, or a name in ``baselines``); a ``#TARGET`` suffix narrows it to one target. A
        StoreError says when it is neither."""
        base, target = split_target(spec)
        run = self.run_dir(base)
        if run is not None:
            return SideRef(str(spec), run, target, True)
        path = self.baseline(base)
        if not path.is_file():
            raise StoreError(f"{spec}: not a run directory, a run id in {self.runs}, or a baseline in {self.baselines}")
        return SideRef(str(spec), path, target, False)


def check_path_length(path: Path | str, what: str) -> None:
    """A UsageError naming ``what`` when ``path`` is too long to name a file (a part over
    ``NAME_MAX`` bytes, or over ``PATH_MAX`` in all), before the system's "File name too long"."""
    raw = os.fsencode(str(path))
    if len(raw) > PATH_MAX or any(len(part) > NAME_MAX for part in raw.split(b"/")):
        shown = str(path)[:60]
        raise UsageError(
            f"{what} {shown!r}... ({len(raw)} bytes): too long to name a file "
            f"(at most {NAME_MAX} bytes a part, {PATH_MAX} in all)"
        )


def inside_path_problem(path: str) -> str | None:
    """Why a repo-relative path could leave its repository (absolute, ``..``, a drive), else None."""
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":") or "\0" in path:
        return f"must be a path inside the fixture, got {path!r}"
    if ".." in parts:
        return f"must not leave the fixture with '..', got {path!r}"
    return None


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+@-]*")


def name_problem(name: str, what: str = "name") -> str | None:
    """Why ``name`` (a fixture name, run tag or imported name) is not a plain name, else None: one or
    more ``/``-separated parts of letters, digits and ``._+@-``, none empty, ``.``, ``..`` or hidden."""
    parts = name.split("/")
    if not name or len(name) > 200 or not all(_NAME.fullmatch(part) for part in parts):
        return f"{what} must be a plain name (letters, digits, ._+@-), not a path, got {name!r}"
    return None


def safe_id(text: str, fallback: str = "x") -> str:
    """``text`` as one file-name component: runs of anything but letters, digits and ``._+-`` become
    ``-``; leading dots are dropped (never ``..`` or a hidden file); at most 80 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9._+-]+", "-", text).lstrip(".-")[:80].rstrip("-")
    return cleaned or fallback
