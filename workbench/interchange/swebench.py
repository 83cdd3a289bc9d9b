"""Import a SWE-bench-style instance file as a retrieval corpus (``workbench import swebench``).

Each instance (JSON list or JSONL) has ``instance_id``, ``repo`` (``owner/name``),
``base_commit``, ``patch`` and ``problem_statement``; its repository is a local clone
found under ``--repos`` as ``<name>``, ``<owner>__<name>``, ``<owner>/<name>`` (a work
tree or bare repository, optionally ending ``.git``) or ``<name>.bundle``; ``repo`` is a plain
name (``paths.name_problem``, as fixture names are), so no instance reaches outside ``--repos``
(a link the user put there is followed). A case runs
at ``base_commit``, its query is the problem statement, and its gold is chosen by the one
rule ``workbench mine`` uses (``workbench.mining.filters.sort_files``): the non-test source
files the patch modifies. Tests the patch touches and every file of ``test_patch`` become
``tests``; docs, changelogs, manifests and files the patch adds (absent at the base) are left
out and listed under ``dropped`` with why. An instance with no gold file is skipped. ``shape``
and ``expectedSymbols`` (the definitions the patch edits, at ``base_commit``;
``workbench.mining.gold_symbols``) are as for mined cases.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..corpus.gitio import CatFile, resolve_commits
from ..corpus.scope import MINED_SCOPE
from ..corpus.sources import GitRepo, open_repo
from ..corpus.write import root_entry, write_corpus
from ..errors import CorpusError
from ..mining.filters import MineFilters, SortedFiles, sort_files
from ..mining.gold_symbols import diff_changes, symbols_of_changes
from ..mining.shapes import outline_of, query_shape, symbol_names
from ..paths import name_problem
from .formats import first_seen, read_records, require

_DIFF = re.compile(r"^diff --git a/(.+?) b/(.+?)$", re.MULTILINE)


def patch_files(patch: str) -> tuple[list[str], list[str]]:
    """(files the patch changes that exist before it, files it adds), in patch order."""
    existing, added = [], []
    blocks = _DIFF.split(patch)
    for index in range(1, len(blocks) - 2, 3):
        old, body = blocks[index], blocks[index + 2]
        header = body.split("\n@@", 1)[0]
        if "\nnew file mode" in "\n" + header or "--- /dev/null" in header:
            added.append(blocks[index + 1])
        else:
            existing.append(old)
    return list(dict.fromkeys(existing)), list(dict.fromkeys(added))


def find_clone(repos: Path, repo: str) -> Path | None:
    """The local clone of ``owner/name`` under ``repos``, or None."""
    owner, _, name = repo.rpartition("/")
    stems = [name, f"{owner}__{name}", f"{owner}/{name}"] if owner else [name]
    for stem in stems:
        for candidate in (repos / stem, repos / f"{stem}.git", repos / f"{stem}.bundle"):
            if candidate.exists():
                return candidate
    return None


def _fixture(repo: str, taken: dict[str, str]) -> str:
    owner, _, name = repo.rpartition("/")
    simple = re.sub(r"[^A-Za-z0-9._-]+", "-", name) or "repo"
    if taken.get(simple, repo) == repo:
        return simple
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{owner}__{name}")


def gold_files(patch: str, test_patch: str, options: MineFilters | None = None) -> SortedFiles:
    """The patch's files sorted as ``mine`` sorts a commit's; ``tests`` also holds every file of
    ``test_patch``, and ``dropped`` the files the patch adds (they do not exist at the base)."""
    existing, added = patch_files(patch)
    files = sort_files([("M", path) for path in existing] + [("A", path) for path in added], options or MineFilters())
    test_existing, test_added = patch_files(test_patch)
    tests = tuple(sorted(set(files.tests) | set(test_existing) | set(test_added)))
    dropped = dict(files.dropped)
    for path in files.new_or_gone:
        dropped[path] = "added by the patch (absent at base_commit)"
    return SortedFiles(files.source, files.new_or_gone, tests, dict(sorted(dropped.items())))


def _case(instance: dict[str, Any], fixture: str, files: SortedFiles, shape: str, symbols: list[str]) -> dict[str, Any]:
    case: dict[str, Any] = {
        "name": instance["instance_id"],
        "query": instance["problem_statement"].strip(),
        "repoFixture": fixture,
        "revision": instance["base_commit"],
        "expectedPrimary": list(files.source),
        **({"expectedSymbols": symbols} if symbols else {}),
        "shape": shape,
        "source": {"instance_id": instance["instance_id"], "repo": instance["repo"]},
    }
    if files.tests:
        case["tests"] = list(files.tests)
    if files.dropped:
        case["dropped"] = files.dropped
    return case


def import_swebench(paths: list[Path], repos: Path, out: Path | None) -> tuple[dict[str, Any], int]:
    """The corpus of the instances in ``paths`` (written to ``out`` unless None) and how many were skipped."""
    if out is not None and out.exists():
        raise CorpusError(f"{out}: exists; choose another --out")
    instances = [(path, where, record) for path in paths for where, record in read_records(path, "instance")]
    opened: dict[str, tuple[str, GitRepo]] = {}  # repo -> (fixture, clone)
    taken: dict[str, str] = {}
    seen: dict[Any, str] = {}
    for path, where, instance in instances:  # every instance is checked before any clone is read
        label = f"instance {str(instance.get('instance_id', '?'))[:80]!r}"
        for key in ("instance_id", "repo", "base_commit", "patch", "problem_statement"):
            require(instance, key, path, label)
        problem = name_problem(instance["repo"], "repo")
        if problem:
            raise CorpusError(f"{path}: {label}: {problem} (a clone is looked up under --repos by name)")
        first_seen(seen, instance["instance_id"], f"{where}: {label}", "instance_id")
    cases, skipped = [], 0
    for path, _, instance in instances:
        label = f"instance {instance['instance_id'][:80]!r}"
        if instance["repo"] not in opened:
            clone = find_clone(repos, instance["repo"])
            if clone is None:
                raise CorpusError(
                    f"{path}: {label}: repo {instance['repo']!r}: no clone under {repos} "
                    "(<name>, <owner>__<name>, <owner>/<name>, .git or .bundle)"
                )
            fixture = _fixture(instance["repo"], taken)
            taken[fixture] = instance["repo"]
            opened[instance["repo"]] = (fixture, open_repo(clone, fixture))
        fixture, repo = opened[instance["repo"]]
        files = gold_files(instance["patch"], str(instance.get("test_patch") or ""))
        if not files.source:
            skipped += 1
            continue
        shape, symbols = _shape(repo, instance, list(files.source), path, label)
        cases.append(_case(instance, fixture, files, shape, symbols))
    data = {
        "description": "Imported from SWE-bench-style instances by `workbench import swebench`.",
        "k": 5,
        "goldScope": MINED_SCOPE.body(),
        "fixtureRoots": {fixture: root_entry(repo, out) for fixture, repo in opened.values()},
        "retrieval": cases,
    }
    if out is not None:
        write_corpus(out, data)
    return data, skipped


def _shape(repo: GitRepo, instance: dict[str, Any], gold: list[str], path: Path, label: str) -> tuple[str, list[str]]:
    """The case's shape and its ``expectedSymbols`` (the gold patch's definitions at base_commit)."""
    commit = resolve_commits(repo.git_dir, [instance["base_commit"]]).get(instance["base_commit"])
    if commit is None:
        raise CorpusError(f"{path}: {label}: base_commit {instance['base_commit']!r} is not a commit of {repo.path}")
    symbols: set[str] = set()
    changes = diff_changes(instance["patch"])
    expected: list[str] = []
    with CatFile(repo.git_dir) as objects:
        for rel in gold:
            found = objects.read(f"{commit}:{rel}")
            if found is None or found[0] != "blob":
                raise CorpusError(
                    f"{path}: {label}: the patch modifies {rel!r}, which does not exist at base_commit {commit[:12]}"
                )
            symbols |= symbol_names(outline_of(rel, found[1]))
            expected += symbols_of_changes(rel, found[1], changes.get(rel, []))
    return query_shape(instance["problem_statement"], gold, symbols), expected
