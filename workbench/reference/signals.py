"""Evidence beyond term ranking: the task names a file or symbol, a route, or a message.

Each function returns ``{document: (strength, reason)}`` for one repository index;
strengths are on the scale of a ranking score (a perfect match of every query term
scores 1), so a pin of 2 puts a file above anything ranking alone can find.
"""

from __future__ import annotations

import posixpath

from .filetable import file_table
from .index import RepoIndex
from .messages import message_words
from .query import Query
from .related import quiet
from .routes import match, render
from .text import STOP_WORDS, stem, symbol_keys

Evidence = dict[int, tuple[float, str]]
PIN = 2.0
SYMBOL_PIN = 1.6
JOINED_SYMBOL = 0.2
EXCEPTION_CLASS = 0.6
HANDLER = 1.5
CLIENT = 0.6
ROUTING_TABLE = 0.7  # the file mapping a route to a handler defined elsewhere
LOCALE = 1.0
MESSAGE = 1.5
MAX_SYMBOL_FILES = 4
STOP_STEMS = frozenset(stem(w) for w in STOP_WORDS)


def _add(found: Evidence, doc: int, strength: float, reason: str) -> None:
    if strength > found.get(doc, (0.0, ""))[0]:
        found[doc] = (strength, reason)


def named_files(index: RepoIndex, q: Query) -> Evidence:
    """Files the task names: by path, path suffix, base name, or a name spelled in any
    convention (``users_service``, ``UsersService`` and ``users-service.ts`` name each other)."""
    found: Evidence = {}
    table = file_table(index)
    for mention in q.files:
        mention = mention.lstrip("./")
        whole = set(table.by_suffix.get(mention, []))  # the path, or a tail of it after a ``/``
        for i in sorted(whole | set(table.by_basename.get(posixpath.basename(mention), []))):
            _add(found, i, PIN + 0.2 if i in whole else PIN, f"named in the task ({mention})")
    for ident in q.identifiers:  # a test named like the class is not what naming the class asks for
        named = {i for key in set(symbol_keys(ident)) for i in table.by_name_key.get(key, [])}
        for i in sorted(named):
            if not quiet(index.kinds[i], q):
                _add(found, i, PIN, f"named in the task ({ident})")
    return found


def named_symbols(index: RepoIndex, q: Query) -> Evidence:
    """Files defining a symbol the task names, when few files define it.

    An identifier-shaped mention (``OrdersService``, ``parse_header()``) pins its file; the
    exception class heading a traceback line, or a run of plain words spelling a symbol
    (``named tuple``), adds weaker evidence.
    """
    found: Evidence = {}
    mentions = [(ident, _spellings(ident), SYMBOL_PIN) for ident in q.identifiers]
    if q.exception:
        mentions.append((q.exception, [symbol_keys(q.exception)], EXCEPTION_CLASS))
    mentions += [(shown, [keys], JOINED_SYMBOL) for shown, keys in q.phrases]
    for shown, spellings, strength in mentions:
        for keys in spellings:  # most specific first: Owner.member, then Owner, then member
            docs = list(dict.fromkeys(d for key in keys for d in index.symbols.get(key, [])))
            if docs:
                break
        if docs and len(docs) <= MAX_SYMBOL_FILES:
            for i in docs:
                _add(found, i, strength, f"defines {shown}")
    return found


def _spellings(ident: str) -> list[tuple[str, ...]]:
    """Lookup keys of a mention, most specific first (``OrdersService.create``, ``OrdersService``,
    ``create``; ``sku.Parse`` falls through to ``Parse`` when no symbol is named ``sku``)."""
    if "." not in ident:
        return [symbol_keys(ident)]
    owner, member = ident.rsplit(".", 1)
    return [symbol_keys(ident), symbol_keys(owner.rsplit(".", 1)[-1]), symbol_keys(member)]


def _handler_file(index: RepoIndex, doc: int, handler: str) -> int | None:
    """The file defining a route's handler (``notesController.remove``, ``h.CreateTransfer``):
    among what the routing file imports or its own directory, else the only definition."""
    name = handler.rsplit(".", 1)[-1]
    if not name:
        return None
    found = list(dict.fromkeys(d for key in symbol_keys(name) for d in index.symbols.get(key, [])))
    folder = posixpath.dirname(index.files[doc])
    near = [d for d in found if d in index.imports[doc] or posixpath.dirname(index.files[d]) == folder]
    if len(near) == 1:
        return near[0]
    return found[0] if len(found) == 1 else None


def route_matches(index: RepoIndex, q: Query) -> Evidence:
    """Handlers of a route-shaped task (and, weaker, the routing table and the clients)."""
    found: Evidence = {}
    if q.route is None:
        return found
    method, segments = q.route
    best = max((match(segments, r.segments) for _, r in index.routes if r.role == "serve"), default=0.0)
    for i, route in index.routes:
        if method and route.method and route.method != method:
            continue
        quality = match(segments, route.segments)
        if quality <= 0:
            continue
        if route.role != "serve":
            _add(found, i, CLIENT * min(1.0, quality / max(len(segments), 1)), f"calls {render(route)}")
            continue
        strength = HANDLER * quality / best if best else 0.0
        target = _handler_file(index, i, route.handler) if route.handler else None
        if target is not None and target != i:
            _add(found, target, strength, f"handles {render(route)} ({route.handler})")
            _add(found, i, strength * ROUTING_TABLE, f"routes {render(route)} to {route.handler}")
        else:
            _add(found, i, strength, f"handles {render(route)}")
    return found


def named_locales(index: RepoIndex, q: Query) -> Evidence:
    """Translation catalogs of the languages a task names (``German`` -> ``de.json``, ``de/``)."""
    found: Evidence = {}
    if not q.languages:
        return found
    for i, parts in file_table(index).catalogs:
        for code in q.languages & parts:
            _add(found, i, LOCALE, f"catalog of the language the task names ({code})")
    return found


def _key_users(index: RepoIndex, key: str) -> list[int]:
    """Code using a catalog key, spelled whole or namespaced (``checkout.pay`` vs ``pay``)."""
    if key in index.key_users:
        return index.key_users[key]
    tail = key.split(".", 1)[-1] if key.count(".") >= 2 else None
    return [
        doc
        for used, docs in index.key_users.items()
        if used.endswith("." + key) or (tail is not None and used == tail)
        for doc in docs
    ]


def _probes(q: Query) -> list[tuple[set[str], int, float, float]]:
    """(words, min literal words, min coverage, strength) to try against the message literals.

    A quoted phrase is the strongest evidence; an unquoted error-looking task may carry
    the message inline; any other task that restates most of a longer message (``a
    discount above the basket total is applied`` vs ``Discount exceeds the basket total``)
    gets a nudge only, since words shared with a literal are not a quotation.
    """
    if q.quoted:
        return [(set(message_words(phrase)), 2, 0.75, MESSAGE) for phrase in q.quoted]
    if q.error_shaped:
        return [(q.words, 3, 0.8, MESSAGE * 0.8)]
    return [(q.words, 4, 0.75, MESSAGE * 0.2)]


def quoted_messages(index: RepoIndex, q: Query) -> Evidence:
    """Code holding a message the task quotes or paraphrases; catalog hits lead to the key's users."""
    found: Evidence = {}
    for words, min_words, min_coverage, strength in _probes(q):
        hits = index.messages.match(words, min_words, min_coverage)
        for entry, coverage, matched in hits[:20]:
            if matched < min(len(words), 0.6 * len(words) + 1) and q.quoted:
                continue  # the literal explains too little of the quoted phrase
            doc, message, key = index.messages.entries[entry]
            if not _informative(index, entry):
                continue
            _credit(index, found, doc, message, key, strength * coverage)
    return found


def _informative(index: RepoIndex, entry: int) -> bool:
    """Whether a message literal has two words beyond stop words (remembered per index)."""
    known: dict[int, bool] = index.derived.setdefault("informative messages", {})
    if entry not in known:
        known[entry] = len(set(message_words(index.messages.entries[entry][1])) - STOP_STEMS) >= 2
    return known[entry]


def _credit(index: RepoIndex, found: Evidence, doc: int, message: str, key: str, strength: float) -> None:
    shown = message if len(message) <= 60 else message[:57] + "..."
    if key:
        _add(found, doc, strength * 0.8, f'translates "{shown}" ({key})')
        for user in _key_users(index, key):
            _add(found, user, strength, f'shows "{shown}" via {key}')
    else:
        _add(found, doc, strength, f'contains "{shown}"')
