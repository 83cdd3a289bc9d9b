"""Find credential values in added lines: private keys, cloud and service tokens, password literals.

Findings name the file, line and kind of credential, never the value itself, so a gate report
does not spread the secret it caught. Obvious placeholders (``changeme``, ``<token>``,
``${VAR}``, ``xxxx``) are not credentials.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

CREDENTIALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("Stripe secret key", re.compile(r"\b[rs]k_live_[A-Za-z0-9]{16,}\b")),
    (
        "password or key literal",
        re.compile(
            r"""(?ix)(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|
        client[_-]?secret|private[_-]?key)\w*["']?\s*[:=]>?\s*["']([^"'\s]{6,})["']"""
        ),
    ),
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{.*\}|<.*>|%\(.*\)s|\{\{.*\}\}|x{4,}|\*{4,}|.*(?:changeme|change_me|"
    r"example|placeholder|dummy|your[_-]).*)$"
)


def _is_value(text: str) -> bool:
    """A literal that looks like a credential: not a placeholder, not a plain word like a label."""
    return not _PLACEHOLDER.match(text) and not text.isalpha()


def credential_kinds(line: str) -> list[str]:
    """The kinds of credential a line of source contains (empty for placeholders and labels)."""
    found = []
    for kind, pattern in CREDENTIALS:
        match = pattern.search(line)
        if match and (not match.groups() or _is_value(match.group(1))):
            found.append(kind)
    return found


def credential_findings(lines_by_path: Iterable[tuple[str, list[tuple[int, str]]]]) -> list[str]:
    """``path:line: kind`` for every credential in the added lines of each path."""
    return [
        f"{path}:{number}: {kind}"
        for path, lines in lines_by_path
        for number, text in lines
        for kind in credential_kinds(text)
    ]
