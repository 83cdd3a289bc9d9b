"""The shapes of the files a run directory and a baseline hold, checked when they are read.

``compare``, ``merge``, ``report`` and ``baseline`` index into ``manifest.json``, ``summary.json``,
``cases.jsonl`` and baseline files freely; a file someone edited by hand (a list where an object
belongs, ``"suites": "x"``, a metric value that is a string) must fail where it is read, as one
``StoreError`` line naming the file and the field, not later as a traceback. Unknown keys are kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import StoreError

BASELINE_FORMAT = 1
_KINDS: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "list": list,
    "string": str,
    "integer": int,
    "boolean": bool,
    "number": (int, float),
}


def _fail(path: Path, where: str, expected: str, value: Any) -> None:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise StoreError(f"{path}: {where}: expected {expected}, got {shown}")


def _is(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _KINDS[kind])


def expect(value: Any, kinds: str, path: Path, where: str) -> Any:
    """``value`` when it is one of ``kinds`` (``"object"``, ``"string|null"``, ...), else a StoreError."""
    if not any(_is(value, kind) for kind in kinds.split("|")):
        _fail(path, where, " or ".join(kinds.split("|")), value)
    return value


def _fields(obj: dict[str, Any], spec: dict[str, str], path: Path, where: str) -> None:
    for key, kinds in spec.items():
        if key in obj:
            expect(obj[key], kinds, path, f"{where}{key}" if not where else f"{where}.{key}")


def _numbers(value: Any, path: Path, where: str, nulls: bool = True) -> None:
    expect(value, "object", path, where)
    for key, number in value.items():
        expect(number, "number|null" if nulls else "number", path, f"{where}.{key}")


def check_manifest(data: Any, path: Path) -> dict[str, Any]:
    """A run's manifest: an object with a ``corpus`` object and a list of named ``targets``."""
    expect(data, "object", path, "top level")
    _fields(
        data,
        {
            "run_id": "string",
            "created": "string|null",
            "options": "object",
            "targets": "list",
            "merged_from": "list",
            "seed": "integer|null",
        },
        path,
        "",
    )
    _fields(data.get("options", {}), {"shard": "list|null", "suites": "list|null"}, path, "options")
    shard = data.get("options", {}).get("shard")
    if shard is not None and (
        len(shard) != 2 or not all(_is(v, "integer") for v in shard) or not 0 <= shard[0] < shard[1]
    ):
        _fail(path, "options.shard", "[index, count] with 0 <= index < count", shard)
    if "case_ids" in data:
        expect(data["case_ids"], "object", path, "case_ids")
        _fields(data["case_ids"], {"count": "integer", "sha256": "string"}, path, "case_ids")
    expect(data.get("corpus"), "object", path, "corpus")
    _fields(data["corpus"], {"path": "string", "sha256": "string|null", "k": "integer"}, path, "corpus")
    for index, target in enumerate(data.get("targets", [])):
        expect(target, "object", path, f"targets[{index}]")
        expect(target.get("name"), "string", path, f"targets[{index}].name")
        _fields(target, {"spec": "string"}, path, f"targets[{index}]")
    return data


def check_suite_entry(entry: Any, path: Path, where: str) -> None:
    """One ``suites.<suite>.<target>`` entry of a summary (or a baseline's counts)."""
    expect(entry, "object", path, where)
    _fields(
        entry,
        {
            "cases": "integer|null",
            "scored": "integer|null",
            "passed_cases": "integer|null",
            "errors": "integer|null",
            "passed": "boolean|null",
            "skipped": "string|null",
            "failures": "list",
        },
        path,
        where,
    )
    for key in ("metrics", "thresholds"):
        if key in entry:
            _numbers(entry[key], path, f"{where}.{key}", nulls=key == "metrics")


def check_summary(data: Any, path: Path) -> dict[str, Any]:
    """A run's summary: ``{"passed", "suites": {suite: {target: {...}}}}``."""
    expect(data, "object", path, "top level")
    _fields(
        data,
        {"passed": "boolean|null", "run_dir": "string|null", "baseline": "object|null", "sandbox": "string|null"},
        path,
        "",
    )
    for suite, per_target in expect(data.get("suites", {}), "object", path, "suites").items():
        for target, entry in expect(per_target, "object", path, f"suites.{suite}").items():
            check_suite_entry(entry, path, f"suites.{suite}.{target}")
    return data


def check_case_rows(rows: list[Any], path: Path) -> list[dict[str, Any]]:
    """The rows of ``cases.jsonl``: objects with string suite, target and case."""
    for number, row in enumerate(rows, 1):
        where = f"line {number}"
        expect(row, "object", path, where)
        for key in ("suite", "target", "case"):
            expect(row.get(key), "string", path, f"{where}.{key}")
        _fields(row, {"passed": "boolean|null", "error": "string|null"}, path, where)
    return rows


def check_baseline(data: Any, path: Path) -> dict[str, Any]:
    """A baseline document (``workbench.baseline``): every field a reader indexes, typed."""
    expect(data, "object", path, "top level")
    if data.get("format") != BASELINE_FORMAT:
        _fail(path, "format", str(BASELINE_FORMAT), data.get("format"))
    _fields(
        data,
        {
            "name": "string",
            "recorded": "string|null",
            "run_id": "string|null",
            "git_commit": "string|null",
            "workbench_version": "string|null",
            "corpus": "object|null",
        },
        path,
        "",
    )
    expect(data.get("name"), "string", path, "name")
    expect(data.get("target"), "object", path, "target")
    expect(data["target"].get("name"), "string", path, "target.name")
    for suite, metrics in expect(data.get("metrics"), "object", path, "metrics").items():
        _numbers(metrics, path, f"metrics.{suite}")
    for suite, counts in expect(data.get("suites", {}), "object", path, "suites").items():
        check_suite_entry(counts, path, f"suites.{suite}")
    for suite, floors in expect(data.get("thresholds", {}), "object", path, "thresholds").items():
        if suite != "comment":
            expect(floors, "object", path, f"thresholds.{suite}")
            for metric, value in floors.items():
                expect(value, "string" if metric == "comment" else "number", path, f"thresholds.{suite}.{metric}")
    for index, case in enumerate(expect(data.get("cases"), "list", path, "cases")):
        where = f"cases[{index}]"
        expect(case, "object", path, where)
        for key in ("suite", "case"):
            expect(case.get(key), "string", path, f"{where}.{key}")
        _fields(case, {"passed": "boolean|null", "error": "string|null"}, path, where)
        _numbers(case.get("scores"), path, f"{where}.scores")
    return data
