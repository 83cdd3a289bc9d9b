"""Everything the index learns from one file's bytes, as one picklable ``FileFacts``.

This is the expensive, per-file, content-only step: it is what the on-disk cache
stores (keyed by a digest of extension and content) and what cold indexing runs in
worker processes. Anything that depends on other files (imports resolved to
paths, mount prefixes, kinds refined by routes) happens later in ``index``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..code.enclosing import python_ranges
from ..code.kinds import PYTHON_EXTENSIONS, extension, file_kind, is_code
from ..code.outline import Outline
from ..code.pychunks import parsed_module
from ..code.pysymbols import outline_from_tree
from ..code.tsranges import Range
from ..code.tssymbols import GRAMMARS, tree_outline
from . import blobstore
from .cache import code_digest
from .fields import doc_terms, export_terms, identifier_parts, lookup_keys, route_terms, symbol_terms
from .messages import catalog_entries, code_literals, message_words
from .routes import Route, extract_routes, path_route
from .templates import template_refs
from .text import identifier_terms

# Cached facts are only valid for the code that extracted them.
EXTRACTOR_VERSION = code_digest(
    "extract",
    "fields",
    "kinds",
    "messages",
    "outline",
    "pychunks",
    "pysymbols",
    "routes",
    "templates",
    "text",
    "tsranges",
    "tssymbols",
)
# A Python blob's ``code.enclosing.definition_ranges``, by content digest (``cache.digest``, salted
# with the extension): the engine computes them from the tree it parses anyway (``extract_parsed``),
# so the ``bm25`` control, which chunks by them, reads them instead of parsing the blob again. A run
# asks each target for all its cases in turn, so the control reads what the engine kept hundreds of
# revisions before: 4 MB of pickles held (about a kilobyte a blob) spare most reads of the store.
RANGES: blobstore.Part[list[Range]] = blobstore.Part(
    "ranges", code_digest("enclosing", "pychunks"), memory=4 * blobstore.MEMORY
)
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_SEPARATE = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))  # every other byte -> space
_DIGITS = b"0123456789"
_TERMS: dict[bytes, tuple[str, ...]] = {}
LITERAL_KINDS = frozenset({"config", "manifest", "other"})


@dataclass(slots=True)
class FileFacts:
    """Parsed facts of one file: outline, routes, message and key literals, catalog, term counts."""

    outline: Outline = field(default_factory=Outline)
    routes: list[Route] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    catalog: list[tuple[str, str]] = field(default_factory=list)
    content: dict[str, int] = field(default_factory=dict)
    symbol_terms: dict[str, int] = field(default_factory=dict)
    doc_terms: dict[str, int] = field(default_factory=dict)
    export_terms: dict[str, int] = field(default_factory=dict)
    route_terms: dict[str, int] = field(default_factory=dict)
    lookup_keys: tuple[str, ...] = ()
    message_words: list[tuple[str, ...]] = field(default_factory=list)  # literals, then catalog messages
    lines: int = 0
    templates: list[str] = field(default_factory=list)  # template names the text mentions
    name_parts: frozenset[str] = frozenset()  # parts of the names it defines (``identifier_parts``)

    def slim(self) -> FileFacts:
        """What an index keeps of these facts once linked: the symbols defined and the line count
        (the rest went into its ranking, import graph, routes and message index)."""
        return FileFacts(Outline(self.outline.symbols), lines=self.lines)


def content_terms(data: bytes) -> dict[str, int]:
    """Term frequencies of a file's bytes: every identifier split, stemmed and joined.

    An identifier is a run of ``[A-Za-z0-9_]`` with its leading digits dropped (what
    ``[A-Za-z_][A-Za-z0-9_]*`` finds): runs come from one ``translate`` and ``split``
    in C, twice as fast as a regex scan, and each distinct run is stemmed once.
    """
    counts: dict[str, int] = {}
    get = counts.get
    for run, n in Counter(data.translate(_SEPARATE).split()).items():
        found = _TERMS.get(run)
        if found is None:
            word = run.lstrip(_DIGITS)
            found = _TERMS[run] = identifier_terms(word.decode("ascii")) if word else ()
        for term in found:
            counts[term] = get(term, 0) + n
    return counts


def _python(data: bytes) -> tuple[Outline, list[Range]]:
    """A Python file's outline and definition ranges from one parse (``pysymbols.python_outline``
    and ``enclosing.definition_ranges`` each parse it on their own), a top-level definition at a
    time (``pychunks``: the pieces an earlier version shared are not parsed again): empty both when
    it does not parse."""
    parsed = parsed_module(data)
    if parsed is None:
        return Outline(), []
    tree, offsets = parsed
    return outline_from_tree(tree, offsets), python_ranges(tree, offsets)


def _outline(rel: str, data: bytes) -> tuple[Outline, list[Range] | None]:
    ext = extension(rel.rsplit("/", 1)[-1])
    if ext in PYTHON_EXTENSIONS:
        return _python(data)
    if ext in GRAMMARS:
        return tree_outline(data, ext), None
    return Outline(), None


def facts_key(rel: str, digest: str) -> str:
    """The per-blob key of ``extract_file(rel, data)``: ``digest`` (of the bytes, salted with the
    extension: ``cache.digest``) and all that ``extract_file`` reads of ``rel`` besides (its kind,
    a catalog's file name, the route a page's path serves), so one blob under another path shares
    its facts exactly when they are the same."""
    kind = file_kind(rel)
    name = rel.rsplit("/", 1)[-1].lower() if kind == "translation" else ""
    return f"{digest}:{kind}:{name}:{path_route(rel)}"


def extract_file(rel: str, data: bytes, count_content: bool = True) -> FileFacts:
    """Parse one file (``rel`` picks the language and kind) into FileFacts. ``count_content`` False
    leaves ``content`` empty, for a caller that counts it with the symbols' bodies (``bodies``)."""
    return extract_parsed(rel, data, count_content)[0]


def extract_parsed(rel: str, data: bytes, count_content: bool = True) -> tuple[FileFacts, list[Range] | None]:
    """``extract_file``, and for a Python file parsed as code its ``code.enclosing.definition_ranges``
    from the same parse (None for any other file)."""
    ranges: list[Range] | None = None
    text = data.decode("utf-8", errors="replace")
    kind = file_kind(rel)
    facts = FileFacts(content=content_terms(data) if count_content else {}, lines=text.count("\n") + 1)
    if kind == "translation":
        facts.catalog = catalog_entries(rel, text)
    elif is_code(rel):
        facts.outline, ranges = _outline(rel, data)
        facts.routes = extract_routes(rel, text)
        facts.symbol_terms = symbol_terms(facts.outline)
        facts.doc_terms = doc_terms(facts.outline, text)
        facts.export_terms = export_terms(facts.outline)
        facts.route_terms = route_terms(facts.routes)
        facts.lookup_keys = lookup_keys(facts.outline)
        facts.name_parts = frozenset(identifier_parts(facts.outline))
    if is_code(rel) or kind == "template":
        facts.templates = template_refs(text)
    if kind != "translation" and (is_code(rel) or kind in LITERAL_KINDS):
        facts.literals, facts.keys = code_literals(text)
    facts.message_words = [message_words(m) for m in facts.literals] + [message_words(m) for _, m in facts.catalog]
    return facts, ranges
