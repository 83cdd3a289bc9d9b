"""Turn a commit message into a task query: the subject, cleaned of what is not the task.

Removed: a conventional-commit type prefix (``fix(router)!: ``; only the known types,
so a subsystem prefix such as ``router: `` stays, it is part of the description), a
leading gitmoji (``:bug:``) or bracketed type tag (``[fix]``), pull-request and issue
references (``(#123)``, ``GH-12``, ``PR #4``, ``.../pull/9``), trailing "Closes #n"-style
clauses and a final period. ``with_body`` appends the body's first paragraph (trailers
such as ``Signed-off-by:`` dropped), cleaned the same way.
"""

from __future__ import annotations

import re

CONVENTIONAL_TYPES = (
    "feat",
    "feature",
    "fix",
    "bugfix",
    "hotfix",
    "refactor",
    "perf",
    "chore",
    "build",
    "ci",
    "docs",
    "doc",
    "style",
    "test",
    "tests",
    "revert",
    "deps",
    "security",
    "types",
    "typing",
)
_TYPES = "|".join(CONVENTIONAL_TYPES)
_CONVENTIONAL = re.compile(rf"^(?:{_TYPES})(?:\([^)]*\))?!?\s*:\s*", re.IGNORECASE)
_TAG = re.compile(rf"^\[(?:{_TYPES})\]\s*[:\-]?\s*", re.IGNORECASE)
_GITMOJI = re.compile(r"^(?::[a-z0-9_+\-]+:\s*)+")
_CLOSES = re.compile(
    r"[\s,;.(\[-]*\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|related\s+to|part\s+of)"
    r"\s*:?\s*(?:[\w.-]+/[\w.-]+)?(?:#|gh-)\d+(?:\s*(?:,|and)\s*(?:#|gh-)?\d+)*[\s)\].]*$",
    re.IGNORECASE,
)
_REFS = re.compile(
    r"\(\s*(?:(?:see|refs?|close[sd]?|fix(?:e[sd])?|cf\.?)\s+)?(?:(?:#|gh-|pr\s*#?)\d+\s*,?\s*)+\)|"
    r"\[\s*(?:#|gh-)\d+\s*\]|"
    r"\b(?:pr|pull request)\s*#\d+|(?<![\w&])(?:gh-|#)\d+\b|https?://\S+/(?:pull|issues)/\d+\S*",
    re.IGNORECASE,
)
_LEADING_REF = re.compile(r"^(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|issue)?\s*(?:#|gh-)\d+\s*[:\-]\s*", re.IGNORECASE)
_TRAILER = re.compile(r"^[A-Z][\w-]*(?:-by)?:\s", re.MULTILINE)
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")
_SPACE_BEFORE_MARK = re.compile(r"\s+([:;,.])")
_WORD = re.compile(r"\w+")


def clean_subject(subject: str) -> str:
    """The task a subject describes, without prefixes, references or trailing period."""
    text = _spaced(subject)
    if _marked(text):
        for _ in range(2):  # "[fix] feat: ..." and ":bug: fix: ..." stack
            text = _GITMOJI.sub("", text)
            text = _TAG.sub("", text)
            text = _CONVENTIONAL.sub("", text)
            text = _LEADING_REF.sub("", text)
    return _tidy(text)


def _marked(text: str) -> bool:
    """Whether a prefix or reference pattern above can match: each needs a ``:`` (a gitmoji or
    conventional prefix), ``[`` (a tag, a bracketed reference), ``(`` (a parenthesised reference),
    ``#`` or ``gh-`` (an issue) or ``http`` (a link). Under ``re.IGNORECASE`` only ``G``, ``H``,
    ``T`` and ``P`` match those letters besides themselves, so a lower-cased search finds them. Most
    subjects carry none (a third of werkzeug's do), and the patterns are most of a query's cost."""
    lowered = text.lower()
    return any(mark in text for mark in ":#[(") or "gh-" in lowered or "http" in lowered


def _may_close(text: str, lowered: str) -> bool:
    """Whether ``_CLOSES`` can match ``text`` (``lowered``, its lower case): it ends in an issue number."""
    return "#" in text or "gh-" in lowered


def _may_refer(text: str, lowered: str) -> bool:
    """Whether ``_REFS`` can match: it needs an issue number, a link, or a parenthesised ``PR 12``."""
    return _may_close(text, lowered) or "http" in lowered or ("(" in text and "pr" in lowered)


def _tidy(text: str) -> str:
    """References, closing clauses and empty brackets cut, each pattern tried only where its marks
    are (a subsystem prefix's ``:`` marks a subject for ``clean_subject``, but none of these);
    spaces before punctuation, a dangling separator and a final period dropped."""
    lowered = text.lower()  # cuts below only remove text, so marks absent here stay absent
    if _may_close(text, lowered):
        previous = None
        while previous != text:
            previous = text
            text = _CLOSES.sub("", text)
    if _may_refer(text, lowered):
        text = _REFS.sub("", text)
    if "(" in text or "[" in text:
        text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACE_BEFORE_MARK.sub(r"\1", text)
    text = _spaced(text).strip(" -:;,").rstrip(" ([")
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _spaced(text: str) -> str:
    """Each run of whitespace as one space, none at either end (``re``'s ``\\s`` is ``str.isspace``)."""
    return " ".join(text.split())


def first_paragraph(body: str) -> str:
    """The body's first paragraph without trailer lines (``Signed-off-by: ...``) and references."""
    for block in re.split(r"\n\s*\n", body.strip()):
        lines = [line for line in block.splitlines() if line.strip() and not _TRAILER.match(line.strip())]
        text = _tidy(" ".join(line.strip() for line in lines))
        if text:
            return text
    return ""


def build_query(subject: str, body: str = "", with_body: bool = False) -> str:
    """The case query: the cleaned subject, plus the body's first paragraph with ``with_body``."""
    query = clean_subject(subject)
    if with_body:
        extra = first_paragraph(body)
        if extra and extra.lower() != query.lower():
            query = f"{query}. {extra}" if query else extra
    return query


def query_key(query: str) -> str:
    """What makes two queries the same (case, spacing and punctuation ignored)."""
    return " ".join(_WORD.findall(query.lower()))
