"""How far long work is, on stderr: the one progress helper of ``run``, ``mine`` and ``report``.

On a terminal it is a tqdm bar (done/total, rate, ETA). Without one (CI logs, ``make``) a bar's
carriage returns would fill the log, so a plain line is printed instead, at most every
``PLAIN_INTERVAL`` seconds (``$WORKBENCH_PROGRESS_SECONDS`` overrides it) and once at the end of
work that took that long:
``cases: 40/200 (20%), 3.10 case/s, ETA 00:51``. Nothing goes to stdout, so ``--json`` output
stays clean.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import Any, TextIO

PLAIN_INTERVAL = 5.0
_PLAIN = "{desc}: {n_fmt}/{total_fmt} ({percentage:.0f}%), {rate_fmt}, ETA {remaining}{postfix}"
_PLAIN_OPEN = "{desc}: {n_fmt}, {rate_fmt}{postfix}"  # no total known


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("WORKBENCH_PROGRESS_SECONDS", PLAIN_INTERVAL)))
    except ValueError:
        return PLAIN_INTERVAL


class Progress:
    """Count done items of ``total``; ``enabled`` False shows nothing (the count still runs)."""

    def __init__(
        self, total: int | None, desc: str, unit: str = "it", enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        self.total, self.desc, self.unit, self.n = total, desc, unit, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.postfix = ""
        self._bar: Any = None
        self._start = self._last = time.monotonic()
        self._interval = _interval()
        if enabled and _is_tty(self.stream):
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread (it would make the engine parse serially)
            self._bar = tqdm(total=total, desc=desc, unit=unit, file=self.stream, dynamic_ncols=True, delay=0.5)

    def update(self, n: int = 1) -> None:
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled and time.monotonic() - self._last >= self._interval:
            self._plain()

    def set_total(self, total: int) -> None:
        """The total, once known (a report knows its pages after reading the run)."""
        self.total = total
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def set_postfix_str(self, text: str) -> None:
        """What is being worked on now (shown after the counts)."""
        self.postfix = text
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def write(self, message: str) -> None:
        """A line on the stream that does not break the bar."""
        if self._bar is not None:
            self._bar.write(message, file=self.stream)
        else:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled and self.n and time.monotonic() - self._start >= self._interval:
            self._plain()  # the last count of long work (short work says nothing)
        self.enabled = False

    def line(self) -> str:
        """The plain line for the counts so far."""
        from tqdm import tqdm

        elapsed = time.monotonic() - self._start
        postfix = f" [{self.postfix}]" if self.postfix else ""
        fmt = _PLAIN if self.total else _PLAIN_OPEN
        return tqdm.format_meter(
            self.n, self.total, elapsed, prefix=self.desc, unit=self.unit, bar_format=fmt.replace("{postfix}", postfix)
        )

    def _plain(self) -> None:
        self._last = time.monotonic()
        print(self.line(), file=self.stream, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
