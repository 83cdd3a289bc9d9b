"""Which report pages a run needs: a page whose suites the run does not have is not rendered.

Each suite page belongs to some suites (``PAGE_SUITES``); when none of them has a result for any
target of the run (absent, or skipped for every target), the page would only repeat "the suite
was not run" under every heading, so it is left out and the index says so in one line. Pages not
listed (the scoreboard, the baseline diff, significance, a user's own notebooks) always render.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PAGE_SUITES: dict[str, tuple[str, ...]] = {
    "retrieval": ("retrieval", "tokens"),
    "classifiers": ("risk", "harness", "gate", "findings"),
    "ranking": ("ranking",),
}


def ran_suites(summary: dict[str, Any]) -> set[str]:
    """Suites with a result (not skipped) for at least one target."""
    return {
        suite
        for suite, per in (summary.get("suites") or {}).items()
        if any(not result.get("skipped") for result in per.values())
    }


def split_pages(sources: list[Path], summary: dict[str, Any]) -> tuple[list[Path], dict[str, str]]:
    """The notebooks to render, and for each one left out the one-line reason."""
    ran = ran_suites(summary)
    keep, left_out = [], {}
    for source in sources:
        wanted = PAGE_SUITES.get(source.stem)
        if wanted is None or ran & set(wanted):
            keep.append(source)
        else:
            left_out[source.stem] = f"not rendered: this run has no {', '.join(wanted)} results"
    return keep, left_out
