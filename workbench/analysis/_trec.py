"""TREC run and qrels files as columns, for ``evaluate``.

A run line is ``case Q0 doc rank score tag``, a qrels line ``case iteration doc relevance``; fields
are split as ``str.split`` splits them, blank lines are skipped, and numbers are read as trec_eval
reads them (``strictjson.trec_integer``/``trec_number``: ASCII digits; the rank and the relevance
integers, ``2.0`` allowed for a relevance; the score a finite decimal number), the interchange
reader's rules. That line-by-line reading (``_by_lines``) is the definition and names the first bad
line and field. A plain file (printable ASCII fields one space apart, numbers matching those rules)
is read by pyarrow's CSV reader instead, without a Python object per field: the same values, ten
times faster; a file it does not take as plainly well-formed is read line by line.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..code.collector import collector_paused
from ..errors import UsageError
from ..strictjson import MAX_TREC_INTEGER, TREC_INTEGER, TREC_NUMBER, TREC_WHOLE, trec_integer, trec_number

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class _Number:
    """A number field of a TREC line: its index, its name in errors, the rule it must match, whether
    it is an integer, and the bytes the fast reading lets pyarrow parse (``_checked``)."""

    field: int
    name: str
    pattern: str
    integer: bool
    fast: bytes

    def parse(self, text: str) -> float:
        if not self.integer:
            return trec_number(text, self.name, self.field + 1)
        value = trec_integer(text, self.name, self.field + 1, self.pattern)
        return value if self.pattern == TREC_INTEGER else float(value)  # a relevance is a float column


_DIGITS = b"0123456789+-"
# fields a line, and the numbers it carries
_LAYOUT: dict[str, tuple[int, tuple[_Number, ...]]] = {
    "ranking": (
        6,
        (_Number(3, "rank", TREC_INTEGER, True, _DIGITS), _Number(4, "score", TREC_NUMBER, False, _DIGITS + b".eE")),
    ),
    "qrels": (4, (_Number(3, "relevance", TREC_WHOLE, True, _DIGITS),)),
}
_LINES = 65536  # lines split per batch by the line-by-line reading

# case ids and doc ids (both arrow string arrays, or object arrays when read line by line), numbers
Columns = tuple[Any, Any, list[Any]]


def trec_columns(path: Path, what: str) -> Columns:
    """Case ids and doc ids (arrow string arrays, or object arrays of str when read line by line)
    and the numbers (ranking: rank, score; qrels: relevance) of a TREC file; ``what`` is
    ``ranking`` or ``qrels``. A UsageError names the file and its first bad line."""
    try:
        with path.open("rb"):  # the reading error, as open() words it
            pass
        columns = _by_arrow(path, what)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the TREC {what} file ({exc})") from None
    return columns if columns is not None else _by_lines(path, what, path.read_bytes())


def _by_arrow(path: Path, what: str) -> Columns | None:
    """The columns through pyarrow's CSV reader; None when a line is not plainly well-formed: not
    1 space between fields, a field empty or with a byte that is not printable ASCII, a number that
    does not match its rule (``_Number.pattern``) or is out of range. Fields are read as bytes (no
    UTF-8 check: printable ASCII is checked after); case and doc ids are then viewed as strings,
    without a copy, and the numbers cast from their checked text."""
    import pyarrow as pa
    import pyarrow.csv as csv

    width, numbers = _LAYOUT[what]
    names = [str(i) for i in range(width)]
    try:
        table = csv.read_csv(
            pa.memory_map(str(path)),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.binary()), null_values=[], strings_can_be_null=False
            ),
        )
        if not all(_plain(table.column(name), 0x21, 0x7F) for name in names):
            return None
        values = [_checked(_text(table.column(str(n.field)).combine_chunks()), n) for n in numbers]
        if any(column is None for column in values):
            return None
        cases, docs = _text(table.column("0").combine_chunks()), _text(table.column("2").combine_chunks())
    except pa.ArrowInvalid:  # a line with other fields, spaces or numbers: the line-by-line reading decides
        return None
    return cases, docs, [column.to_numpy() for column in values]


def _checked(column: Any, number: _Number) -> Any:
    """A string column of one number field as numbers (int64 for a rank, else float64), or None when
    the line-by-line reading must decide: a byte other than ``number.fast`` (digits and signs, and
    for a score ``.eE``), a text pyarrow does not parse whole, a value out of range. Over those bytes
    pyarrow's parser takes a subset of ``number.pattern``'s texts, to the same values."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(column):
        offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column) + 1]
        if not _only(np.frombuffer(column.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]], number.fast):
            return None
    values = pc.cast(column, pa.int64() if number.pattern == TREC_INTEGER else pa.float64())
    if not len(values):
        return values
    if number.integer:
        return values if pc.max(pc.abs(values)).as_py() <= MAX_TREC_INTEGER else None
    return values if pc.all(pc.is_finite(values)).as_py() else None


def _only(data: np.ndarray, allowed: bytes) -> bool:
    """Whether every byte of ``data`` is one of ``allowed``: a few vector compares when its bytes span
    a narrow range (decimal numbers: ``-`` to ``9``), else ``bytes.translate``."""
    low, high = int(data.min()), int(data.max())
    if high - low < 16:
        return not any((data == byte).any() for byte in range(low, high + 1) if byte not in allowed)
    return not data.tobytes().translate(None, allowed)


def _plain(column: Any, low: int, high: int) -> bool:
    """Every value of an arrow binary column is non-empty and all its bytes are in ``[low, high)``."""
    import numpy as np

    for chunk in column.chunks:
        if not len(chunk):
            continue
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + len(chunk) + 1]
        data = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
        if np.diff(offsets).min() < 1 or data.min() < low or data.max() >= high:
            return False
    return True


def _text(column: Any) -> Any:
    """A binary arrow array of ASCII values as a string array, sharing its buffers."""
    import pyarrow as pa

    return pa.Array.from_buffers(pa.string(), len(column), column.buffers(), offset=column.offset)


def _by_lines(path: Path, what: str, data: bytes) -> Columns:
    """The columns by ``str.split`` of each line, a batch of lines at a time (the field lists of
    one batch are all that is alive at once), with the garbage collector paused: those lists hold
    no cycles, and each batch would otherwise set off collections that scan every object the
    process has (6x the time of the split)."""
    import numpy as np

    width, layout = _LAYOUT[what]
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot read the TREC {what} file ({exc})") from None
    cases: list[np.ndarray] = []
    docs: list[np.ndarray] = []
    numbers: list[list[Any]] = [[] for _ in layout]
    with collector_paused():
        for start in range(0, len(lines), _LINES):
            fields = list(map(str.split, lines[start : start + _LINES]))
            counts = np.fromiter(map(len, fields), dtype=np.int64, count=len(fields))
            if np.any((counts != width) & (counts > 0)):
                _first_bad_line(path, what, lines)
            fields = list(compress(fields, counts))  # blank lines dropped
            cases.append(np.fromiter(map(itemgetter(0), fields), dtype=object, count=len(fields)))
            docs.append(np.fromiter(map(itemgetter(2), fields), dtype=object, count=len(fields)))
            try:
                for column, number in zip(numbers, layout):
                    column.extend(map(number.parse, map(itemgetter(number.field), fields)))
            except ValueError:
                _first_bad_line(path, what, lines)
    empty = np.empty(0, dtype=object)
    return np.concatenate(cases) if cases else empty, np.concatenate(docs) if docs else empty, numbers


def _first_bad_line(path: Path, what: str, lines: list[str]) -> NoReturn:
    """Raise the error of the first bad line, naming its field (one line at a time: only on the way
    to an error)."""
    width, layout = _LAYOUT[what]
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if fields and len(fields) != width:
            raise UsageError(f"{path}:{number}: a TREC {what} line has {width} fields, found {len(fields)}")
        try:
            for field in layout if fields else ():
                field.parse(fields[field.field])
        except ValueError as exc:
            raise UsageError(f"{path}:{number}: expected numbers in the TREC {what} line: {exc}") from None
    raise AssertionError(f"{path}: no bad line found")
