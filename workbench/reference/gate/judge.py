"""The reference engine's local merge gate: judge a staged change before it is merged.

``run_gate(repo, options)`` reads the diff against ``options["base"]`` (default ``HEAD``; the
index when ``staged``, the default, else the working tree) and runs seven checks:

- ``Changed files``: how many paths changed (WARN when none);
- ``Secret safety``: secret or environment files, and credential values in added lines (FAIL);
- ``Risk review``: paths the risk vocabulary says gate a merge (WARN);
- ``Release discipline``: a version bump without a changelog (FAIL under team/company governance);
- ``Validation execution``: with ``runValidation``, the base-committed validation policy's
  commands run on the change through the sandbox (FAIL without a policy or on failure);
- ``Policy profile``: controls the ``policy`` needs that a local run cannot verify (FAIL);
- ``Convergence``: with ``request`` and ``minConvergence`` (0..1), the share of changed files on
  scope for the request (FAIL below the minimum).

The verdict is FAIL if any check fails, else WARN if any warns, else PASS. Hosted CI, review
approvals and the human merge decision stay separate authorities.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...contract import Check, GateResult, Repo
from ...errors import TargetError
from .checks import changed_files, risk_review, secret_safety
from .convergence import convergence
from .diff import read_diff
from .policy import POLICIES, policy_profile
from .release import GOVERNANCE, release_discipline
from .validation import validation_execution


@dataclass(frozen=True)
class GateOptions:
    """Validated gate options (DESIGN: the ``gate`` request's ``options``)."""

    base: str = "HEAD"
    staged: bool = True
    policy: str = "standard"
    governance: str = "solo"
    request: str | None = None
    min_convergence: float | None = None
    run_validation: bool = False


def _pick(options: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    """``options[key]`` if given and of ``kind`` (``float`` accepts ints, never booleans)."""
    value = options.get(key)
    if value is None:
        return default
    fits = isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float else isinstance(value, kind)
    if not fits:
        raise TargetError(f"gate: option {key!r} should be {kind.__name__}, got {type(value).__name__}")
    return value


def parse_options(options: dict[str, Any] | None) -> GateOptions:
    """Gate options from a request dict; None values mean "not given", unknown keys are ignored."""
    options = options or {}
    parsed = GateOptions(
        base=_pick(options, "base", str, "HEAD"),
        staged=_pick(options, "staged", bool, True),
        policy=_pick(options, "policy", str, "standard"),
        governance=_pick(options, "governance", str, "solo"),
        request=_pick(options, "request", str, None),
        min_convergence=_pick(options, "minConvergence", float, None),
        run_validation=_pick(options, "runValidation", bool, False),
    )
    if parsed.min_convergence is not None and 1 < parsed.min_convergence <= 100:
        parsed = replace(parsed, min_convergence=parsed.min_convergence / 100)  # solumbe spells it in percent
    if parsed.policy not in POLICIES:
        raise TargetError(f"gate: unknown policy {parsed.policy!r} (expected {', '.join(POLICIES)})")
    if parsed.governance not in GOVERNANCE:
        raise TargetError(f"gate: unknown governance {parsed.governance!r} (expected {', '.join(GOVERNANCE)})")
    if parsed.min_convergence is not None and not 0 <= parsed.min_convergence <= 1:
        raise TargetError(
            f"gate: minConvergence must be a fraction (0-1) or a percentage, got {parsed.min_convergence!r}"
        )
    return parsed


def verdict(checks: list[Check]) -> str:
    """FAIL if any check fails, else WARN if any warns, else PASS (SKIPPED checks do not count)."""
    statuses = {check.status for check in checks}
    return "FAIL" if "FAIL" in statuses else "WARN" if "WARN" in statuses else "PASS"


def run_gate(repo: Repo, options: dict[str, Any] | None = None) -> GateResult:
    """Judge the change in ``repo`` (see the module docstring); the repository is only read."""
    opts = parse_options(options)
    diff = read_diff(Path(repo.path), opts.base, opts.staged)
    checks = [
        changed_files(diff),
        secret_safety(diff),
        risk_review(diff),
        release_discipline(diff, opts.governance),
        validation_execution(diff, opts.run_validation),
        policy_profile(diff, opts.policy),
        convergence(diff, opts.request, opts.min_convergence),
    ]
    return GateResult(verdict(checks), checks)
