"""Load and validate a corpus file (the solumbe/otito ``evals/corpus.json`` format).

``load_corpus`` returns a ``Corpus`` or raises one ``CorpusError`` line;
``validate_corpus`` returns every problem, one line each, naming the case and
the JSON-pointer-like location of the bad field, plus semantic checks a schema
cannot express (unknown fixtures, expected files missing from their fixture,
duplicate case names).
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from pathlib import Path
from typing import Any

from ..errors import CorpusError
from ..paths import DEFAULT_CORPUS, inside_path_problem, name_problem
from ..schemas import Problem, schema_problems
from ..schemas.verdicts import known_valid, remember_valid
from ..strictjson import loads_strict, read_bytes
from .model import Corpus, executable_place
from .scope import scope_problems
from .sections import case_sections, sections

# Importing jsonschema imports its format checkers, and the ``iri`` one compiles some forty lark
# grammars (rfc3987_syntax): 1-3 s, most of what ``workbench validate`` used to take. The corpus
# schema uses no ``format``, so that module is kept out while jsonschema loads.


def _read(path: Path) -> tuple[bytes, Any]:
    raw = read_bytes(path, "corpus file", CorpusError)
    return raw, loads_strict(raw, str(path), CorpusError)


def _resolve_fixture(corpus_dir: Path, entry: str) -> tuple[Path | None, bool]:
    """A fixture directory and whether it may be executed (relative, inside the corpus's parent and
    reached without a symlink: the resolved path is judged, never the spelling)."""
    given = Path(entry)
    if given.is_absolute():
        return (given if _is_fixture(given) else None), False
    for base in (corpus_dir, corpus_dir.parent):
        candidate = (base / given).resolve()
        if _is_fixture(candidate):
            return candidate, executable_place(base / given, corpus_dir.parent)
    return None, False


def _is_fixture(path: Path) -> bool:
    """A directory, or a git ``.bundle`` file (a git-backed fixture)."""
    return path.is_dir() or (path.suffix == ".bundle" and path.is_file())


def _fixtures(path: Path, data: dict[str, Any]) -> tuple[dict[str, Path], set[str], list[Problem]]:
    corpus_dir = path.parent.resolve()
    declared = data.get("fixtureRoots")
    declared = declared if isinstance(declared, dict) else {}
    fixtures, executable, problems = {}, set(), []
    for name, entry in declared.items():
        if not isinstance(entry, str) or name == "comment":
            continue
        found, runnable = _resolve_fixture(corpus_dir, entry)
        if found is None:
            problems.append(
                Problem(f"fixtureRoots.{name}", f"directory {entry!r} not found next to the corpus or its parent")
            )
            continue
        fixtures[name] = found
        if runnable:
            executable.add(name)
    for section in case_sections():
        for index, case in enumerate(_listed(data, section)):
            for name in case_fixtures(case):
                if name in fixtures or name in declared:
                    continue
                unsafe = name_problem(name, "a fixture not in fixtureRoots")
                found, runnable = (None, False) if unsafe else _resolve_fixture(corpus_dir, f"fixtures/{name}")
                if found is None:
                    key = "repoFixture" if "repoFixture" in case else "repoFixtures"
                    message = unsafe or f"unknown fixture {name!r} (not in fixtureRoots)"
                    problems.append(Problem(f"{section}[{index}].{key}", message, case.get("name")))
                    continue
                fixtures[name] = found
                if runnable:
                    executable.add(name)
    return fixtures, executable, problems


def _listed(data: dict[str, Any], section: str) -> list[Any]:
    value = data.get(section)
    return value if isinstance(value, list) else []


def case_fixtures(case: Any) -> list[str]:
    """The fixture names a case runs against, in order (``repoFixtures`` or ``[repoFixture]``)."""
    if not isinstance(case, dict):
        return []
    names = case.get("repoFixtures") or ([case["repoFixture"]] if case.get("repoFixture") else [])
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _expected_file_problems(data: dict[str, Any], fixtures: dict[str, Path]) -> list[Problem]:
    problems = []
    for section in ("retrieval", "tokenSavings"):
        cases = data.get(section)
        for index, case in enumerate(cases if isinstance(cases, list) else []):
            names = case_fixtures(case)
            if not names or any(n not in fixtures for n in names) or _from_git(case, names, fixtures):
                continue
            for key in ("expectedPrimary", "expectedAnyOf"):
                listed = case.get(key)
                if not isinstance(listed, list):
                    continue
                for item, expected in enumerate(listed):
                    if not isinstance(expected, str):
                        continue
                    where = f"{section}[{index}].{key}[{item}]"
                    problem = _missing_file(expected, names, fixtures)
                    if problem:
                        problems.append(Problem(where, problem, case.get("name")))
    return problems


def _from_git(case: dict[str, Any], names: list[str], fixtures: dict[str, Path]) -> bool:
    """Cases whose files come from git objects are checked by ``mining.fixtures.revision_problems``."""
    return bool(case.get("revision")) or any(not fixtures[n].is_dir() for n in names)


def _missing_file(expected: str, names: list[str], fixtures: dict[str, Path]) -> str | None:
    if len(names) == 1:
        fixture, rel = names[0], expected
    else:
        fixture, _, rel = expected.partition("/")
        if fixture not in names:
            return f"multi-repo path {expected!r} must start with one of {', '.join(names)}"
    path = fixtures[fixture] / rel
    if not path.is_file():
        other = _other_spelling(fixtures[fixture], rel)
        return f"{rel!r} does not exist in fixture {fixture!r}" + (
            f" (it exists as {other!r}, the same path in another Unicode normalization, NFC/NFD: "
            "write it as the fixture spells it)"
            if other
            else ""
        )
    if path.resolve() != fixtures[fixture].resolve() / os.path.normpath(rel):
        return (
            f"{rel!r} in fixture {fixture!r} is or lies under a symlink (to {path.resolve()}): engines "
            "index files, never links, so no answer could ever return it"
        )
    return None


def _other_spelling(fixture: Path, rel: str) -> str | None:
    """``rel`` in the other Unicode normalization when that file exists in ``fixture``, else None."""
    for form in ("NFC", "NFD"):
        other = unicodedata.normalize(form, rel)
        if other != rel and (fixture / other).is_file():
            return other
    return None


def _duplicate_names(data: dict[str, Any]) -> list[Problem]:
    problems = []
    for section in case_sections():
        seen: set[str] = set()
        for index, case in enumerate(_listed(data, section)):
            name = case.get("name") if isinstance(case, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                problems.append(Problem(f"{section}[{index}].name", f"duplicate case name {name!r}"))
            seen.add(name)
    return problems


def _path_problems(data: dict[str, Any]) -> list[Problem]:
    """Expected files that name something outside their fixture (checked at load time)."""
    problems = []
    for section in ("retrieval", "tokenSavings"):
        for index, case in enumerate(_listed(data, section)):
            if not isinstance(case, dict):
                continue
            for key in ("expectedPrimary", "expectedAnyOf", "expectedSymbols"):
                listed = case.get(key)
                for item, expected in enumerate(listed if isinstance(listed, list) else []):
                    if isinstance(expected, str) and key == "expectedSymbols":
                        expected = expected.rpartition(":")[0]  # ``path:Name``: the path part
                    problem = inside_path_problem(expected) if isinstance(expected, str) and expected else None
                    if problem:
                        name = case.get("name")
                        problems.append(
                            Problem(
                                f"{section}[{index}].{key}[{item}]", problem, name if isinstance(name, str) else None
                            )
                        )
    return problems


def _check(path: Path) -> tuple[bytes, Any, dict[str, Path], set[str], list[Problem]]:
    raw, data = _read(path)
    if not isinstance(data, dict):
        return raw, data, {}, set(), [Problem("", "corpus must be a JSON object")]
    known = known_valid(raw)  # a large unchanged corpus is not validated again on every run
    problems = [] if known else schema_problems(data)
    if not known and not problems:
        remember_valid(raw)
    problems += _duplicate_names(data)
    problems += _path_problems(data)
    problems += scope_problems(data)
    fixtures, executable, fixture_problems = _fixtures(path, data)
    problems += fixture_problems
    return raw, data, fixtures, executable, problems


def validate_corpus(path: Path | str = DEFAULT_CORPUS) -> list[Problem]:
    """Every problem with a corpus, including expected files missing from fixtures.

    An unreadable or non-JSON file raises ``CorpusError`` (there is nothing else to report).
    """
    path = Path(path)
    raw, data, fixtures, executable, problems = _check(path)
    problems += _fixture_problems(data, fixtures)
    if not problems:
        problems += _data_file_problems(
            Corpus(
                path=path.resolve(),
                data=data,
                sha256=hashlib.sha256(raw).hexdigest(),
                fixtures=fixtures,
                executable=frozenset(executable),
            )
        )
    return problems


def _fixture_problems(data: Any, fixtures: Any) -> list[Problem]:
    """What validate adds to the schema's problems: expected files and revisions missing from fixtures."""
    if not isinstance(data, dict):
        return []
    from .fixtures import revision_problems

    found = _expected_file_problems(data, fixtures)
    return found + [Problem(where, message, case) for where, message, case in revision_problems(data, fixtures)]


def _data_file_problems(corpus: Corpus) -> list[Problem]:
    """Problems each section's check finds in the data files it points to (goldens, gold records)."""
    problems = []
    for section in sections():
        if corpus.data.get(section.key):
            try:
                section.run_check(corpus)
            except CorpusError as exc:
                problems.append(Problem(section.key, str(exc)))
    return problems


def load_corpus(path: Path | str = DEFAULT_CORPUS) -> Corpus:
    """Load a corpus, or raise one ``CorpusError`` line naming the file, case and field."""
    path = Path(path)
    raw, data, fixtures, executable, problems = _check(path)
    if problems:
        # The count `workbench validate` would print: it also checks expected files in fixtures.
        every = len(problems) + len(_fixture_problems(data, fixtures))
        more = f" (+{every - 1} more; run `workbench validate`)" if every > 1 else ""
        raise CorpusError(f"{path}: {problems[0]}{more}")
    return Corpus(
        path=path.resolve(),
        data=data,
        sha256=hashlib.sha256(raw).hexdigest(),
        fixtures=fixtures,
        executable=frozenset(executable),
    )
