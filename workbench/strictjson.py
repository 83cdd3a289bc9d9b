"""Strict JSON reading for every file and answer workbench loads from someone else.

``json.loads`` accepts things that crash later: 3,000-deep nesting (RecursionError in whatever walks
it), integer literals of thousands of digits (ValueError, or OverflowError when made a float),
``NaN``/``Infinity`` (a floor that can never fail), ``1e999`` (infinity again), lone surrogates
(``"\\ud800"``: the journal cannot encode them), an object with one key twice (the last would win
silently) and, read as text, non-UTF-8 bytes. ``loads_strict`` refuses each at load time with one
line naming the source and, where it can, the field (a JSON pointer) or the key; ``read_json`` and
``read_jsonl`` do the same for files. The checks run at C speed on the common path: the text is
scanned for bracket depth and surrogate escapes with regular expressions, and only a document that
has a surrogate escape is walked to find the field.

TREC files are read here too, number by number as trec_eval reads them (``trec_integer``,
``trec_number``): C ``atoi``/``atof`` take ASCII digits, and read a prefix of what they do not
take, so ``1_0``, Arabic-Indic or fullwidth digits and, for an integer, ``1e2`` or ``2.5`` (all
of which Python's ``int``/``float`` read otherwise) are refused with the field named, never misread.
"""

from __future__ import annotations

import json
import math
import re
import stat
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import WorkbenchError

MAX_DEPTH = 64
MAX_FILE_BYTES = 1 << 30
MAX_INT = 2**63 - 1
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_DROP_ASCII = dict.fromkeys(i for i in range(128) if chr(i) not in "[]{}")  # str.translate: C speed


class Refused(ValueError):
    """Raised inside the decoder hooks; turned into the caller's error with the source named."""


def _int(text: str) -> int:
    if len(text) > 20:
        raise Refused(f"integer literal of {len(text.lstrip('-'))} digits (at most 64-bit integers)")
    value = int(text)
    if abs(value) > MAX_INT:
        raise Refused(f"integer {text} out of range (at most 64-bit integers)")
    return value


def _float(text: str) -> float:
    if len(text) > 400:
        raise Refused(f"number literal of {len(text)} characters")
    value = float(text)
    if not math.isfinite(value):
        raise Refused(f"number {text[:40]} overflows to infinity")
    return value


# What atoi/atol and atof read whole, and Python reads to the same value: ASCII digits, a sign, a
# point and an exponent (no "_", no other digits, no hexadecimal, no "inf" or "nan").
TREC_INTEGER = r"[+-]?[0-9]+"
TREC_WHOLE = r"[+-]?[0-9]+(?:\.0*)?"  # a relevance: atol reads "2.0" as 2, and so do we
TREC_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
MAX_TREC_INTEGER = 2**31 - 1  # a C int


def trec_integer(text: str, name: str, column: int, pattern: str = TREC_INTEGER) -> int:
    """Field ``column`` (1-based) of a TREC line, an integer (``TREC_INTEGER``, or ``TREC_WHOLE``) as
    ``atoi`` reads it; a ValueError naming the field for anything it would read otherwise than Python."""
    whole = text.partition(".")[0]
    if not re.fullmatch(pattern, text) or len(whole) > 11 or abs(value := int(whole)) > MAX_TREC_INTEGER:
        raise ValueError(
            f"{name} {text[:40]!r} is not an integer of ASCII digits within a C int, as trec_eval reads it "
            f"(field {column})"
        )
    return value


def trec_number(text: str, name: str, column: int) -> float:
    """Field ``column`` (1-based) of a TREC line, a finite number (``TREC_NUMBER``) as ``atof`` reads it;
    a ValueError naming the field otherwise (``1_0``, other digits, ``0x10``, ``inf``, ``1e400``)."""
    if not re.fullmatch(TREC_NUMBER, text) or not math.isfinite(value := float(text)):
        raise ValueError(
            f"{name} {text[:40]!r} is not a finite number of ASCII digits, as trec_eval reads it (field {column})"
        )
    return value


def _constant(name: str) -> float:
    raise Refused(f"{name} is not a number JSON allows")


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The bracket nesting depth of a JSON text (strings ignored), counting at most to ``limit + 1``."""
    return _depth(_STRING.sub("", text), limit)


def _depth(bare: str, limit: int) -> int:
    brackets = _NOT_BRACKET.sub("", bare.translate(_DROP_ASCII))
    depth = 0
    while brackets and depth <= limit:
        reduced = _INNERMOST.sub("", brackets)
        if reduced == brackets:  # unbalanced: json.loads reports it
            break
        brackets, depth = reduced, depth + 1
    return depth


def pointer(parts: list[str | int]) -> str:
    """A readable location (``cases[3].scores``) from path parts."""
    text = ""
    for part in parts:
        if isinstance(part, str):  # a key may hold the very surrogate being reported: show it escaped
            part = part.encode("utf-8", "backslashreplace").decode("utf-8")
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _walk(value: Any) -> Iterator[tuple[list[str | int], Any]]:
    stack: list[tuple[list[str | int], Any]] = [([], value)]
    while stack:
        parts, item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                yield [*parts, key], key
                stack.append(([*parts, key], child))
        elif isinstance(item, list):
            stack.extend(([*parts, index], child) for index, child in enumerate(item))
        else:
            yield parts, item


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refused when a key comes twice (``json`` would keep the last)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        twice = next(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
        raise Refused(f"duplicate key {twice!r} in one object (JSON keeps only the last)")
    return value


def lone_surrogate(value: Any) -> str | None:
    """The location of the first string holding a lone surrogate (or ``""`` for the top), else None."""
    for parts, item in _walk(value):
        if isinstance(item, str) and _SURROGATES.search(item):
            return pointer(parts) or "top level"
    return None


def loads_strict(
    text: str | bytes, source: str, error: type[WorkbenchError] = WorkbenchError, max_depth: int = MAX_DEPTH
) -> Any:
    """Parse one JSON document or raise ``error("<source>: <what>")``; see the module doc."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{source}: not UTF-8 (byte 0x{text[exc.start]:02x} at offset {exc.start})") from None
    # brackets and number-like runs inside strings count too on this first, fast look: a text that
    # passes it is fine; one that does not is looked at again without its strings, or parsed slowly
    if _depth(text, max_depth) > max_depth and _depth(_STRING.sub("", text), max_depth) > max_depth:
        raise error(f"{source}: nested deeper than {max_depth} levels")
    try:
        value = json.loads(
            text, parse_int=_int, parse_float=_float, parse_constant=_constant, object_pairs_hook=_unique
        )
    except Refused as exc:
        raise error(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        where = f"{source}:{exc.lineno}:{exc.colno}:" if "\n" in text else f"{source}: column {exc.colno}:"
        raise error(f"{where} invalid JSON ({exc.msg})") from None
    except (RecursionError, ValueError) as exc:
        raise error(f"{source}: invalid JSON ({exc})") from None
    if _SURROGATE_ESCAPE.search(text):
        found = lone_surrogate(value)
        if found is not None:
            raise error(f"{source}: {found}: lone surrogate in a string (not valid Unicode)")
    return value


def read_bytes(path: Path, what: str, error: type[WorkbenchError]) -> bytes:
    """A regular file's bytes, or ``error`` naming the file (missing, a directory or device or FIFO,
    unreadable, over 1 GB): ``/dev/zero`` named as a golden file must not be read forever."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: {what} is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise error(f"{path}: {what} larger than {MAX_FILE_BYTES >> 20} MB")
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: {what} not found") from None
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc.strerror or exc})") from None


def read_json(path: Path, what: str, error: type[WorkbenchError] = WorkbenchError) -> Any:
    """One JSON file, strictly (see ``loads_strict``)."""
    return loads_strict(read_bytes(path, what, error), str(path), error)


def decode_text(raw: bytes, source: str, error: type[WorkbenchError]) -> str:
    """UTF-8 text, or ``error`` naming the line of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(f"{source}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x})") from None


def jsonl_lines(
    raw: bytes, source: str, error: type[WorkbenchError], skip_comments: bool = False
) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a JSON-lines text (``#`` lines skipped if asked)."""
    # lines end at "\n" only: str.splitlines would also split inside a string holding \x85 or \u2028
    for number, line in enumerate(decode_text(raw, source, error).split("\n"), 1):
        stripped = line.strip()
        if not stripped or (skip_comments and stripped.startswith("#")):
            continue
        yield number, loads_strict(stripped, f"{source}:{number}", error)


def read_jsonl(path: Path, what: str, error: type[WorkbenchError] = WorkbenchError) -> list[Any]:
    """The values of a JSON-lines file (blank lines skipped), strictly; errors name file and line."""
    return [value for _, value in jsonl_lines(read_bytes(path, what, error), str(path), error)]
