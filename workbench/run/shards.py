"""Shards that stay put, and the case-id record ``merge`` checks completeness against.

A case's shard is a hash of its identity (suite and case name) modulo the shard count, never its
position: adding, removing or reordering cases leaves every other case in its shard, and every
target's version of a case lands in the same shard. Each run records the ids of every case of
its whole plan (all shards: count and SHA-256 of the sorted ``suite/target/case`` ids) beside its
own shard, so ``merge`` can tell a complete set of shards from a partial or mixed one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from ..errors import StoreError

CaseId = tuple[str, str, str]


def shard_of(suite: str, case_name: str, count: int) -> int:
    """The shard (0-based, of ``count``) a case belongs to: a hash of its suite and name."""
    digest = hashlib.sha256(f"{suite}\0{case_name}".encode("utf-8", "backslashreplace")).digest()
    return int.from_bytes(digest[:8], "big") % count


def select_shard(suite: str, cases: list[dict[str, Any]], shard: tuple[int, int] | None) -> list[dict[str, Any]]:
    """The cases of ``suite`` in shard ``(index, count)`` (all of them when not sharded), in order."""
    if shard is None:
        return cases
    index, count = shard
    return [case for case in cases if shard_of(suite, str(case.get("name")), count) == index]


def ids_record(ids: Iterable[CaseId]) -> dict[str, Any]:
    """``{"count", "sha256"}`` of a set of case ids (how a manifest records its whole plan)."""
    unique = sorted(set(ids))
    text = "\n".join("\0".join(i) for i in unique)
    return {"count": len(unique), "sha256": hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()}


def check_shards(runs: list[Any], merged_ids: Iterable[CaseId]) -> None:
    """Refuse shards that overlap, come from different plans, or do not add up to the whole plan.

    ``runs`` are loaded runs (``manifest`` with ``options.shard`` and ``case_ids``); runs without
    shard options are merged as before (only duplicate cases are refused, elsewhere)."""
    shards = [(run, (run.manifest.get("options") or {}).get("shard")) for run in runs]
    sharded = [(run, shard) for run, shard in shards if shard]
    if not sharded:
        return
    if len(sharded) != len(runs):
        plain = next(run for run, shard in shards if not shard)
        raise StoreError(f"cannot merge: {plain.path} is not a shard run but the others are")
    counts = {int(shard[1]) for _, shard in sharded}
    if len(counts) > 1:
        raise StoreError(f"cannot merge shards of different counts ({', '.join(map(str, sorted(counts)))})")
    count = counts.pop()
    seen: dict[int, Any] = {}
    for run, (index, _) in sharded:
        if int(index) in seen:
            raise StoreError(f"cannot merge: shard {index}/{count} given twice ({seen[int(index)].path}, {run.path})")
        seen[int(index)] = run
    plans = {str(run.manifest.get("case_ids")) for run in runs}
    if len(plans) > 1:
        raise StoreError(
            "cannot merge shards of different plans (suites, targets or cases differ): "
            + ", ".join(str(run.path) for run in runs)
        )
    missing = sorted(set(range(count)) - set(seen))
    if missing:
        raise StoreError(f"cannot merge: shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing")
    recorded = runs[0].manifest.get("case_ids")
    merged = ids_record(merged_ids)
    if isinstance(recorded, dict) and merged != {k: recorded.get(k) for k in merged}:
        raise StoreError(
            f"cannot merge: the shards hold {merged['count']} of the plan's {recorded.get('count')} "
            "cases (a shard run stopped early or was edited)"
        )
