"""Templates and markup as files of their own: which code renders which template.

A template (``.hbs``, ``.html``, ``.jinja``, ``.ejs``, ``.njk``, ...) is what an agent
opens to change what a page or an email says, and the code that renders it is what it
opens next. Code names its templates in string literals: ``res.render('emails/welcome')``,
``render_template("orders/detail.html")``, ``{% extends "base.html" %}``. Those references,
resolved against the repository's template files, become edges of the import graph, so
a template brings its service along and the other way round.
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..code.kinds import TEMPLATE_EXTENSIONS, extension

_EXTS = "|".join(e.lstrip(".") for e in TEMPLATE_EXTENSIONS)
# A quoted path ending in a template extension, or the quoted first argument of a call that renders
# (``render('x')``, ``renderFile``, ``render_template``, ``TemplateResponse``, ``partial('x')``).
_FILE_LITERAL = re.compile(r"""['"`]((?:\.{0,2}/)?[\w@.-]+(?:/[\w@.-]+)*\.(?:""" + _EXTS + r"""))['"`]""")
_CALL_WORDS = ("render", "emplate", "partial")
_ARGUMENT = r"""\w*\s*\(?\s*['"`]((?:\.{0,2}/)?[\w@-]+(?:/[\w@.-]+)*)['"`]"""
_RENDER_CALLS = {word: re.compile(word + _ARGUMENT) for word in _CALL_WORDS}  # a literal prefix each: fast
_HAS_FILE = re.compile(r"""\.(?:""" + _EXTS + r""")['"`]""")
_PARTIAL = re.compile(r"\{\{>\s*([\w@./-]+)")
MAX_REFS = 64
MAX_MATCHES = 3


def is_template(path: str) -> bool:
    """Whether ``path`` is a template or markup file."""
    return extension(path.rsplit("/", 1)[-1]) in TEMPLATE_EXTENSIONS


def template_refs(text: str) -> list[str]:
    """The template names a file's text mentions (as written, at most ``MAX_REFS``)."""
    if "'" not in text and '"' not in text and "`" not in text and "{{>" not in text:
        return []
    found = dict.fromkeys(_FILE_LITERAL.findall(text)) if _HAS_FILE.search(text) else {}
    for word, call in _RENDER_CALLS.items():
        if word in text:
            found.update(dict.fromkeys(call.findall(text)))
    if "{{>" in text:
        found.update(dict.fromkeys(_PARTIAL.findall(text)))
    return [ref for ref in found if len(ref) >= 3][:MAX_REFS]


def _keys(path: str) -> list[str]:
    """Every way code may name a template: its path without extension and each suffix of it."""
    ext = extension(path.rsplit("/", 1)[-1])
    bare = path[: -len(ext)] if ext else path
    parts = bare.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def template_edges(files: list[str], refs: list[list[str]]) -> list[set[int]]:
    """Per file, the templates its references resolve to (a name matching more than
    ``MAX_MATCHES`` templates, such as ``index``, resolves to none)."""
    by_key: dict[str, list[int]] = defaultdict(list)
    for i, path in enumerate(files):
        if is_template(path):
            for key in _keys(path):
                by_key[key].append(i)
    out: list[set[int]] = [set() for _ in files]
    if not by_key:
        return out
    for i, names in enumerate(refs):
        for ref in names:
            ref = ref.lstrip("./")
            ext = extension(ref.rsplit("/", 1)[-1])
            key = ref[: -len(ext)] if ext in TEMPLATE_EXTENSIONS else ref
            found = by_key.get(key, [])
            if 0 < len(found) <= MAX_MATCHES:
                out[i].update(j for j in found if j != i)
    return out
