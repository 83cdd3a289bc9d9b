"""Read a task description: its terms, and the shapes that deserve more than ranking.

Shapes: a named file (``event-service.ts``, ``src/x/y.py``, ``users_service``), a named
symbol (``OrdersService``, ``parse_header``, ``Cart.total``, ``useCart()``), a route
(``POST /orders/:id/cancel``), a quoted or error-looking message, and intents
(the task is about tests, translations, docs, config) that lift the demotion of
those kinds of files.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .messages import message_words
from .roles import is_question, wanted_kinds, word_weight
from .routes import VERBS, normalize
from .text import STOP_WORDS, identifier_terms, stem, symbol_keys

# Words that say which kinds of file the task is about (matched on whole, lower-case words).
INTENTS: dict[str, frozenset[str]] = {
    "test": frozenset(
        "test tests testing tested spec specs unittest unittests e2e flaky coverage "
        "fixture fixtures mock mocks assertion assertions pytest jest vitest".split()
    ),
    "translation": frozenset(
        "translation translations translate translated translating i18n l10n locale "
        "locales localization localisation localize localise wording catalog catalogs "
        "french german spanish italian portuguese dutch japanese chinese korean russian "
        "polish swedish turkish arabic hindi language languages".split()
    ),
    "doc": frozenset("doc docs documentation readme guide changelog".split()),
    "config": frozenset(
        "config configuration configure setting settings env environment yaml toml "
        "dockerfile ci pipeline tsconfig eslint prettier".split()
    ),
    "migration": frozenset("migration migrations migrate".split()),
    "style": frozenset("css style styles styling stylesheet theme".split()),
}
LONG_WORDS = 20  # a task longer than this is prose: its title frames it, its body describes it
PROSE_WORDS = 0  # a task longer than this is ranked with the textbook legs blended in (``prose``)
ERROR_WORDS = frozenset(
    "error errors exception exceptions throws thrown throw raises raised raise message "
    "traceback panic panics crash crashes fails failing says shows warning".split()
)
FILE_EXTENSIONS = (
    "py",
    "pyi",
    "ts",
    "tsx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "go",
    "json",
    "md",
    "yaml",
    "yml",
    "toml",
    "vue",
    "svelte",
    "css",
    "scss",
    "html",
    "sql",
    "sh",
    "rs",
    "java",
    "rb",
    "po",
)
_FILE = re.compile(r"(?<![\w/.-])((?:[\w@.-]+/)*[\w@-][\w@.-]*\.(?:" + "|".join(FILE_EXTENSIONS) + r"))\b")
_PATHLIKE = re.compile(r"(?<![\w/])((?:[\w@.-]+/)+[\w@.-]+)")
_SEGMENT = r"[\w:{}\[\]<>$.*-]"
_ROUTE = re.compile(
    r"(?:\b(?P<verb>" + "|".join(VERBS) + r")\s+)?(?<![\w.])"
    r"(?P<path>/" + _SEGMENT + r"+(?:/" + _SEGMENT + r"*)*)"
)
_QUOTED = re.compile(r"\"([^\"]{3,})\"|“([^”]{3,})”|`([^`]{3,})`|(?<![\w])'([^']{3,}?)'(?![\w])")
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?")
_ERROR_PREFIX = re.compile(r"^\s*(?:[A-Z]\w*(?:Error|Exception)|Error|panic|fatal)\b:?", re.IGNORECASE)
_EXCEPTION_LINE = re.compile(r"^\s*(?:[\w.]+\.)?(?P<name>[A-Z]\w+):\s+\S")
# Language names a task may use for a translation catalog, and the locale codes they stand for.
LANGUAGES = {
    "english": "en",
    "french": "fr",
    "german": "de",
    "spanish": "es",
    "italian": "it",
    "portuguese": "pt",
    "dutch": "nl",
    "japanese": "ja",
    "chinese": "zh",
    "korean": "ko",
    "russian": "ru",
    "polish": "pl",
    "swedish": "sv",
    "turkish": "tr",
    "arabic": "ar",
    "hindi": "hi",
    "danish": "da",
    "norwegian": "nb",
    "finnish": "fi",
    "czech": "cs",
    "greek": "el",
    "hebrew": "he",
    "ukrainian": "uk",
    "romanian": "ro",
    "hungarian": "hu",
    "indonesian": "id",
    "vietnamese": "vi",
    "thai": "th",
}


@dataclass
class Query:
    """A task, analysed."""

    raw: str
    terms: list[str] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # term -> the query word it came from
    words: set[str] = field(default_factory=set)  # message words, for literal matching
    files: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    route: tuple[str, tuple[str, ...]] | None = None
    quoted: list[str] = field(default_factory=list)
    error_shaped: bool = False
    intents: set[str] = field(default_factory=set)
    joined: list[str] = field(default_factory=list)  # adjacent words spelled as one identifier
    phrases: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (words, symbol keys)
    exception: str = ""  # ``KeyError`` of ``KeyError: 'user_id'`` (a traceback's last line)
    languages: set[str] = field(default_factory=set)  # locale codes of languages the task names
    roles: frozenset[str] = frozenset()  # file kinds the task's role words ask for


def _is_identifier(token: str) -> bool:
    bare = token.removesuffix("()")
    if token.endswith("()") or "." in bare or "_" in bare.strip("_"):
        return True
    if bare.isupper():
        return False  # POST, URL, API: shouting, not naming
    return any(c.isupper() for c in bare[1:])  # a lone Capitalized word is prose, not a name


def _add_terms(q: Query, text: str, weight: float, plain: bool = False) -> None:
    """Terms of ``text`` at ``weight``; in ``plain`` prose, role words and question
    scaffolding weigh what ``roles.word_weight`` says."""
    question = plain and is_question(q.raw)
    for word in re.findall(r"[A-Za-z_$][\w$]*", text):
        scale = word_weight(word.lower(), question) if plain and word.islower() else 1.0
        for term in identifier_terms(word):
            if term not in q.sources:
                q.sources[term] = word
                q.terms.append(term)
                q.weights.append(weight * scale)


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _shapes(q: Query, text: str) -> tuple[str, str]:
    """Pull out route, file and quoted shapes; return (text for terms, text for identifiers)."""
    route = _ROUTE.search(text)
    if route and any(s != ":" for s in normalize(route.group("path"))):
        q.route = ((route.group("verb") or "").upper(), normalize(route.group("path")))
        text = _blank(text, route.start(), route.end())
    for m in list(_FILE.finditer(text)) + list(_PATHLIKE.finditer(text)):
        if m.group(1) not in q.files and text[m.start(1) : m.end(1)] == m.group(1):
            q.files.append(m.group(1))
            text = _blank(text, m.start(1), m.end(1))
    naming = text
    for m in _QUOTED.finditer(text):
        phrase = next(g for g in m.groups() if g)
        if " " in phrase.strip():
            q.quoted.append(phrase)
            naming = _blank(naming, m.start(), m.end())
    return text, naming


def is_long(raw: str) -> bool:
    """Whether a task is long prose (an issue, a whole commit message): more than ``LONG_WORDS`` words."""
    return len(raw.split()) > LONG_WORDS


def title(raw: str) -> str:
    """The words that frame a task: the first line (its title) of a long one or of one with a
    body below its first line; all of a one-line task.

    In an issue or a commit message the body lists everything the change touched (``add tests``,
    ``update the README``); only the title says what kind of file the task is about."""
    first, _, body = raw.strip().partition("\n")
    return first if is_long(raw) or body.strip() else raw


@functools.lru_cache(maxsize=8)
def analyse(raw: str) -> Query:
    """Analyse one task description (never raises: any text is a query). Kept for the last tasks:
    a pack ranks files and searches symbols for one task, so callers treat the Query as read-only."""
    q = Query(raw=raw)
    text, naming = _shapes(q, raw)
    lower_words = re.findall(r"[a-z0-9]+", raw.lower())
    framing = re.findall(r"[a-z0-9]+", title(raw).lower())
    q.intents = {name for name, vocab in INTENTS.items() if vocab & set(framing)}
    tokens = _TOKEN.findall(naming)
    exception = _EXCEPTION_LINE.match(raw)
    q.exception = exception.group("name") if exception else ""
    q.identifiers = [t.removesuffix("()") for t in tokens if _is_identifier(t) and t != q.exception]
    q.languages = {LANGUAGES[w] for w in lower_words if w in LANGUAGES}
    for mention in q.files:
        _add_terms(q, re.sub(r"\.(?:" + "|".join(FILE_EXTENSIONS) + r")$", "", mention), 1.5)
    for identifier in q.identifiers:
        _add_terms(q, identifier, 1.5)
    if q.route:
        _add_terms(q, " ".join(s for s in q.route[1] if s != ":"), 1.5)
    _add_terms(
        q, " ".join(w for w in re.findall(r"[A-Za-z_$][\w$]*", text) if w.lower() not in STOP_WORDS), 1.0, plain=True
    )
    q.roles = wanted_kinds(framing)
    _add_joined(q, text)
    q.words = set(message_words(raw))
    q.error_shaped = bool(q.quoted or q.exception or _ERROR_PREFIX.match(raw) or ERROR_WORDS & set(lower_words))
    return q


def _add_joined(q: Query, text: str) -> None:
    """``run until complete`` may be ``run_until_complete``: offer each run of 2-3 adjacent
    words as one joined term (used only where the repository knows it)."""
    for run in re.split(r"[^A-Za-z\s]+", text):
        words = [w.lower() for w in run.split() if w.lower() not in STOP_WORDS]
        for n in (2, 3):
            for i in range(len(words) - n + 1):
                shown = " ".join(words[i : i + n])
                q.phrases.append((shown, symbol_keys(shown)))
                term = stem("".join(words[i : i + n]))
                if term not in q.sources and term not in q.joined:
                    q.joined.append(term)
                    q.sources[term] = shown
