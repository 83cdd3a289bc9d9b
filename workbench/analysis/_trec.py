"""TREC run and qrels files as columns, for ``evaluate``.

A run line is ``case Q0 doc rank score tag``, a qrels line ``case iteration doc relevance``; fields
are split as ``str.split`` splits them, blank lines are skipped, rank is read with ``int`` and
score and relevance with ``float``. That line-by-line reading (``_by_lines``) is the definition and
names the first bad line. A plain file (printable ASCII fields one space apart, decimal ranks) is
read by pyarrow's CSV reader instead, without a Python object per field: the same values, ten
times faster; a file it does not take as plainly well-formed is read line by line.
"""

from __future__ import annotations

from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..code.collector import collector_paused
from ..errors import UsageError

if TYPE_CHECKING:
    import numpy as np

# fields a line, and (field, parser) of each number it carries
_LAYOUT: dict[str, tuple[int, tuple[tuple[int, type], ...]]] = {
    "ranking": (6, ((3, int), (4, float))),
    "qrels": (4, ((3, float),)),
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
    1 space between fields, a field empty or with a byte that is not printable ASCII, a rank that
    is not decimal digits. Fields are read as bytes (no UTF-8 check: printable ASCII is checked
    after) but score and relevance; case and doc ids are then viewed as strings, without a copy."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    width, parsers = _LAYOUT[what]
    names = [str(i) for i in range(width)]
    texts = [name for name in names if (int(name), float) not in parsers]
    types = {name: pa.binary() if name in texts else pa.float64() for name in names}
    try:
        table = csv.read_csv(
            pa.memory_map(str(path)),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False),
        )
        if not all(_plain(table.column(name), 0x21, 0x7F) for name in texts):
            return None
        numbers = [table.column(str(field)) for field, _ in parsers]
        if parsers[0][1] is int:  # decimal digits only: pyarrow would read "0x10" as 16, int() does not
            rank = numbers[0]
            numbers[0] = pc.cast(_text(rank.combine_chunks()), pa.int64()) if _plain(rank, 0x2D, 0x3A) else None
        if any(column is None for column in numbers):
            return None
        cases, docs = _text(table.column("0").combine_chunks()), _text(table.column("2").combine_chunks())
    except pa.ArrowInvalid:  # a line with other fields, spaces or numbers: the line-by-line reading decides
        return None
    return cases, docs, [column.to_numpy() for column in numbers]


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

    width, parsers = _LAYOUT[what]
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot read the TREC {what} file ({exc})") from None
    cases: list[np.ndarray] = []
    docs: list[np.ndarray] = []
    numbers: list[list[Any]] = [[] for _ in parsers]
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
                for column, (field, parse) in zip(numbers, parsers):
                    column.extend(map(parse, map(itemgetter(field), fields)))
            except ValueError:
                _first_bad_line(path, what, lines)
    empty = np.empty(0, dtype=object)
    return np.concatenate(cases) if cases else empty, np.concatenate(docs) if docs else empty, numbers


def _first_bad_line(path: Path, what: str, lines: list[str]) -> NoReturn:
    """Raise the error of the first bad line (one line at a time: only on the way to an error)."""
    width, parsers = _LAYOUT[what]
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if fields and len(fields) != width:
            raise UsageError(f"{path}:{number}: a TREC {what} line has {width} fields, found {len(fields)}")
        try:
            for field, parse in parsers if fields else ():
                parse(fields[field])
        except ValueError:
            raise UsageError(f"{path}:{number}: expected numbers in the TREC {what} line") from None
    raise AssertionError(f"{path}: no bad line found")
