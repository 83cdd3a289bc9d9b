"""The calls of ``client.py`` with wrong types: ``test_public_api.py`` asserts mypy reports each
line marked ``# wrong:`` with the error code named there (and nothing else)."""

from __future__ import annotations

import workbench as wb


def headline(run_id: str) -> int:
    run = wb.load_run(42)  # wrong: arg-type
    result = wb.compare(run, run, seed="one")  # wrong: arg-type
    print(run.no_such_field)  # wrong: attr-defined
    return result.verdict  # wrong: return-value


def rerun() -> wb.Run:
    wb.RunOptions(timeout="fast")  # wrong: arg-type
    wb.load_runs("x")  # wrong: attr-defined
    return wb.run_eval(3.5)  # wrong: arg-type
