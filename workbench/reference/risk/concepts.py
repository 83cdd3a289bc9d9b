"""The risk vocabulary: which review-risk concepts a task or a file path touches.

``risk_concepts(mode, text)`` answers the four predicates of the risk suite:

- ``query``: concepts a task description touches (``refund a payment`` -> ``money flow``);
- ``path``: concepts a file path touches (``src/auth/roles.guard.ts`` -> ``auth/security``);
- ``gate``: ``{"gate"}`` when changing the path should gate a merge (tests, fixtures, docs,
  manifests and lockfiles never do; secrets and money/auth/data-model code do);
- ``secret``: ``{"secret"}`` when the path is a secret or environment file (``.env.production``,
  ``deploy/id_rsa``), never a template of one (``.env.example``).

The knowledge lives in a table (``risk_vocabulary.VOCABULARY``, or any JSON file of the same
shape passed to ``load_vocabulary``); this module is the small generic matcher that reads it.
Words match whole, plural-folded tokens only, so ``payload`` is not ``pay`` and ``author`` is
not ``auth``.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import TargetError
from ..text import fold_plural, split_identifier, tokens

MODES = ("query", "path", "gate", "secret")
CONCEPTS = (
    "money flow",
    "auth/security",
    "data model",
    "request surface",
    "configuration",
    "dependency",
    "frontend/backend contract",
    "large file diff",
)
GATE, SECRET = "gate", "secret"
MIN_STEM = 5
RULE_KEYS = frozenset({"terms", "files", "dirs", "paths", "patterns"})
GATE_KEYS = frozenset({"concepts", "secret", "exempt"})
SECRET_KEYS = frozenset({"exempt"})


@dataclass(frozen=True)
class View:
    """A task or path prepared once for every rule: words, n-grams and, for paths, name and dirs."""

    raw: str
    words: frozenset[str]
    grams: frozenset[tuple[str, ...]]
    name: str = ""
    dirs: frozenset[str] = frozenset()
    path: str = ""


@dataclass(frozen=True)
class Rule:
    """One table entry compiled for matching (see ``risk_vocabulary`` for the field meanings)."""

    words: frozenset[str] = frozenset()
    stems: tuple[str, ...] = ()
    phrases: frozenset[tuple[str, ...]] = frozenset()
    files: re.Pattern[str] | None = None
    dirs: frozenset[str] = frozenset()
    paths: re.Pattern[str] | None = None
    patterns: tuple[re.Pattern[str], ...] = ()

    def on_terms(self, view: View) -> bool:
        return (
            not self.words.isdisjoint(view.words)
            or not self.phrases.isdisjoint(view.grams)
            or (bool(self.stems) and any(word.startswith(self.stems) for word in view.words))
        )

    def on_text(self, view: View) -> bool:
        """Whether a task description matches (terms and raw-text patterns)."""
        return self.on_terms(view) or any(p.search(view.raw) for p in self.patterns)

    def on_path(self, view: View) -> bool:
        """Whether a path matches (terms, file-name globs, directory names, path globs)."""
        return (
            self.on_terms(view)
            or bool(self.files and self.files.match(view.name))
            or not self.dirs.isdisjoint(view.dirs)
            or bool(self.paths and self.paths.match(view.path))
        )


@dataclass(frozen=True)
class Vocabulary:
    """A compiled vocabulary: concept rules plus the gate and secret predicates."""

    concepts: tuple[tuple[str, Rule], ...]
    gate_concepts: frozenset[str]
    gate_secret: bool
    gate: Rule
    gate_exempt: Rule
    secret: Rule
    secret_exempt: Rule
    stop_words: frozenset[str]
    max_phrase: int

    def view(self, text: str, is_path: bool) -> View:
        """Tokenize once: words, and n-grams with and without stop words (``add an index``)."""
        if not is_path:
            return View(text, *self._words_and_grams(text))
        path = text.strip().replace("\\", "/").lstrip("/")
        while path.startswith("./"):
            path = path[2:]
        lowered = path.lower()
        *dirs, name = lowered.split("/")
        return View(text, *self._words_and_grams(path), name=name, dirs=frozenset(dirs), path="/" + lowered)

    def _words_and_grams(self, text: str) -> tuple[frozenset[str], frozenset[tuple[str, ...]]]:
        seq = tokens(text)
        content = [t for t in seq if t not in self.stop_words]
        grams = {
            tuple(s[i : i + n])
            for s in (seq, content)
            for n in range(2, self.max_phrase + 1)
            for i in range(len(s) - n + 1)
        }
        return frozenset(seq), frozenset(grams)

    def query_concepts(self, text: str) -> set[str]:
        view = self.view(text, is_path=False)
        return {label for label, rule in self.concepts if rule.on_text(view)}

    def path_concepts(self, path: str) -> set[str]:
        return self._path_concepts(self.view(path, is_path=True))

    def is_secret(self, path: str) -> bool:
        return self._is_secret(self.view(path, is_path=True))

    def is_gate(self, path: str) -> bool:
        view = self.view(path, is_path=True)
        if self.gate_exempt.on_path(view):
            return False
        if self.gate.on_path(view) or (self.gate_secret and self._is_secret(view)):
            return True
        return any(rule.on_path(view) for label, rule in self.concepts if label in self.gate_concepts)

    def _path_concepts(self, view: View) -> set[str]:
        return {label for label, rule in self.concepts if rule.on_path(view)}

    def _is_secret(self, view: View) -> bool:
        return self.secret.on_path(view) and not self.secret_exempt.on_path(view)

    def classify(self, mode: str, text: str) -> set[str]:
        """The concepts of ``text`` under ``mode`` (one of ``MODES``)."""
        answers: dict[str, Callable[[str], set[str]]] = {
            "query": self.query_concepts,
            "path": self.path_concepts,
            "gate": lambda t: {GATE} if self.is_gate(t) else set(),
            "secret": lambda t: {SECRET} if self.is_secret(t) else set(),
        }
        if mode not in answers:
            raise TargetError(f"risk_concepts: unknown mode {mode!r} (expected one of {', '.join(MODES)})")
        if not isinstance(text, str):
            raise TargetError(f"risk_concepts: text for mode {mode!r} must be a string, got {type(text).__name__}")
        return answers[mode](text) if text.strip() else set()


class _Loader:
    """Compiles a vocabulary table, failing with one line naming the bad field."""

    def __init__(self, table: Mapping[str, Any], source: str) -> None:
        self.table, self.source = table, source
        self.groups = self._string_lists(table.get("groups", {}), "groups")
        self.longest = 1

    def fail(self, where: str, message: str) -> TargetError:
        return TargetError(f"risk vocabulary {self.source}: {where}: {message}")

    def _string_lists(self, value: Any, where: str) -> dict[str, list[str]]:
        if not isinstance(value, Mapping):
            raise self.fail(where, "expected an object")
        for key, items in value.items():
            self.strings(items, f"{where}.{key}")
        return dict(value)

    def strings(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(where, "expected a list of non-empty strings")
        return value

    def rule(self, spec: Any, where: str, extra: frozenset[str] = frozenset()) -> Rule:
        if not isinstance(spec, Mapping):
            raise self.fail(where, "expected an object")
        unknown = set(spec) - RULE_KEYS - extra
        if unknown:
            allowed = ", ".join(sorted(RULE_KEYS | extra))
            raise self.fail(where, f"unknown key {sorted(unknown)[0]!r} (expected {allowed})")
        words, stems, phrases = self.terms(spec.get("terms", []), f"{where}.terms")
        return Rule(
            words=words,
            stems=stems,
            phrases=phrases,
            files=self.globs(spec.get("files", []), f"{where}.files", anchored=False),
            dirs=frozenset(d.lower() for d in self.strings(spec.get("dirs", []), f"{where}.dirs")),
            paths=self.globs(spec.get("paths", []), f"{where}.paths", anchored=True),
            patterns=self.regexes(spec.get("patterns", []), f"{where}.patterns"),
        )

    def terms(self, value: Any, where: str) -> tuple[frozenset[str], tuple[str, ...], frozenset[tuple[str, ...]]]:
        words, stems, phrases = set(), [], set()
        for index, term in enumerate(self.strings(value, where)):
            if term.endswith("*"):
                stems.append(self.stem(term, f"{where}[{index}]"))
                continue
            parts = tokens(term)
            if not parts:
                raise self.fail(f"{where}[{index}]", f"{term!r} has no word in it")
            words.add(fold_plural("".join(split_identifier(term))))
            if len(parts) > 1:
                phrases.add(tuple(parts))
                self.longest = max(self.longest, len(parts))
        return frozenset(words), tuple(stems), frozenset(phrases)

    def stem(self, term: str, where: str) -> str:
        stem = term[:-1].lower()
        if not re.fullmatch(r"[a-z0-9]+", stem) or len(stem) < MIN_STEM:
            raise self.fail(where, f"stem {term!r} must be one word of at least {MIN_STEM} letters")
        return stem

    def globs(self, value: Any, where: str, anchored: bool) -> re.Pattern[str] | None:
        expanded: list[str] = []
        for index, glob in enumerate(self.strings(value, where)):
            if glob.startswith("@"):
                if glob[1:] not in self.groups:
                    raise self.fail(f"{where}[{index}]", f"unknown group {glob!r}")
                expanded.extend(g for item in self.groups[glob[1:]] for g in expand_braces(item))
            else:
                expanded.extend(expand_braces(glob))
        prefix = "*/" if anchored else ""
        parts = [fnmatch.translate(prefix + g.lower()) for g in expanded]
        return re.compile("|".join(parts)) if parts else None

    def regexes(self, value: Any, where: str) -> tuple[re.Pattern[str], ...]:
        compiled = []
        for index, pattern in enumerate(self.strings(value, where)):
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise self.fail(f"{where}[{index}]", f"invalid regular expression ({exc})") from None
        return tuple(compiled)


def expand_braces(glob: str) -> list[str]:
    """``id_{rsa,dsa}{,_*}`` -> ``['id_rsa', 'id_rsa_*', 'id_dsa', 'id_dsa_*']``."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if not match:
        return [glob]
    head, tail = glob[: match.start()], glob[match.end() :]
    return [g for option in match.group(1).split(",") for g in expand_braces(head + option + tail)]


def compile_vocabulary(table: Mapping[str, Any], source: str = "<table>") -> Vocabulary:
    """Compile a vocabulary table (the shape of ``risk_vocabulary.VOCABULARY``)."""
    load = _Loader(table, source)
    spec = table.get("concepts")
    if not isinstance(spec, Mapping) or not spec:
        raise load.fail("concepts", "expected a non-empty object of concept -> rule")
    concepts = tuple((label, load.rule(rule, f"concepts[{label!r}]")) for label, rule in spec.items())
    gate, secret = table.get("gate", {}), table.get("secret", {})
    gate_rule = load.rule(gate, "gate", extra=GATE_KEYS)
    secret_rule = load.rule(secret, "secret", extra=SECRET_KEYS)
    gate_concepts = load.strings(gate.get("concepts", []), "gate.concepts")
    missing = [c for c in gate_concepts if c not in spec]
    if missing:
        raise load.fail("gate.concepts", f"unknown concept {missing[0]!r}")
    gate_exempt = load.rule(gate.get("exempt", {}), "gate.exempt")
    secret_exempt = load.rule(secret.get("exempt", {}), "secret.exempt")
    stop_words = load.strings(table.get("stopWords", []), "stopWords")
    return Vocabulary(
        concepts=concepts,
        gate_concepts=frozenset(gate_concepts),
        gate_secret=bool(gate.get("secret", False)),
        gate=gate_rule,
        gate_exempt=gate_exempt,
        secret=secret_rule,
        secret_exempt=secret_exempt,
        stop_words=frozenset(w.lower() for w in stop_words),
        max_phrase=load.longest,
    )


def load_vocabulary(path: Path | str) -> Vocabulary:
    """Compile a vocabulary from a JSON file of the same shape as the built-in table."""
    path = Path(path)
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TargetError(f"risk vocabulary {path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise TargetError(f"risk vocabulary {path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(table, Mapping):
        raise TargetError(f"risk vocabulary {path}: expected a JSON object")
    return compile_vocabulary(table, str(path))


@lru_cache(maxsize=1)
def default_vocabulary() -> Vocabulary:
    """The built-in vocabulary, compiled once."""
    from .vocabulary import VOCABULARY

    return compile_vocabulary(VOCABULARY, "workbench.reference.risk.vocabulary")


@lru_cache(maxsize=65536)
def _classify(mode: str, text: str) -> frozenset[str]:
    return frozenset(default_vocabulary().classify(mode, text))


def risk_concepts(mode: str, text: str) -> set[str]:
    """Concepts of ``text`` under ``mode`` with the built-in vocabulary (memoised)."""
    if not isinstance(mode, str) or not isinstance(text, str):
        return default_vocabulary().classify(mode, text)  # raises the clear TargetError
    return set(_classify(mode, text))
