"""Render a run summary as the scoreboard the seeds print (markdown table + one line per suite)."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from ..analysis.markdown import LIMIT, fit
from ..analysis.markdown import table as md_table
from ..store.verdicts import FAIL, SKIPPED, comparison_line, exit_line, pair_verdict, run_verdict, warnings

SHORT = {
    "precisionAtK": "p@{k}",
    "recallAtK": "r@{k}",
    "mrr": "mrr",
    "ndcgAtK": "ndcg@{k}",
    "symbolAccAtK": "sym-acc@{k}",
    "symbolRecallAtK": "sym-r@{k}",
    "symbolMrr": "sym-mrr",
}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value in (0.0, 1.0) else f"{value:.3f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        padded = [
            c.rjust(w) if a == "r" else c.center(w) if a == "c" else c.ljust(w) for c, w, a in zip(cells, widths, align)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = {"l": lambda w: "-" * (w + 2), "r": lambda w: "-" * (w + 1) + ":", "c": lambda w: ":" + "-" * w + ":"}
    return [line(header), "|" + "|".join(rule[a](w) for a, w in zip(align, widths)) + "|"] + [line(r) for r in rows]


def verdict_text(result: dict[str, Any]) -> str:
    """``PASS (21/22 cases pass)``, ``FAIL (...; floors missed)``, ``NO FLOORS (...)`` or ``skipped: reason``."""
    verdict = pair_verdict(result)
    if verdict == SKIPPED:
        return f"skipped: {result.get('skipped')}"
    cases = f"{result.get('passed_cases', 0)}/{result.get('cases', 0)} cases pass"
    if verdict == FAIL:
        return f"FAIL ({cases}; {'; '.join(result.get('failures') or ['below a floor'])})"
    gated = ", beats the controls" if result.get("gate") == "controls" else ""
    return f"{verdict} ({cases}{gated})"


def scoreboard_rows(summary: dict[str, Any], regressions: Set[tuple[str, str, str]] = frozenset()) -> list[list[str]]:
    """One row per (suite, target, metric): value, floor and pass mark."""
    rows = []
    for suite, per_target in summary["suites"].items():
        for target, result in per_target.items():
            if result.get("skipped"):
                rows.append([suite, target, "(skipped)", "-", "-", result["skipped"]])
                continue
            floors, unjudged = result.get("thresholds") or {}, result.get("skipped_floors") or {}
            for metric, value in result["metrics"].items():
                floor = floors.get(metric)
                mark = (
                    "-"
                    if floor is None
                    else "skipped"
                    if metric in unjudged
                    else ("yes" if value is not None and value >= floor else "NO")
                )
                if (suite, target, metric) in regressions:
                    mark += " (regressed)"
                rows.append([suite, target, metric, _fmt(value), _fmt(floor), mark])
    return rows


def suite_line(suite: str, target: str, result: dict[str, Any], k: int) -> str:
    """``Retrieval [builtin]: p@5=0.873, r@5=1.0, mrr=0.976 (22/22 cases pass): PASS``."""
    if result.get("skipped"):
        return f"{suite.capitalize()} [{target}]: skipped ({result['skipped']})"
    parts = [f"{SHORT.get(m, m).format(k=k)}={_fmt(v)}" for m, v in result["metrics"].items()]
    errors = f", {result['errors']} errored" if result.get("errors") else ""
    return (
        f"{suite.capitalize()} [{target}]: {', '.join(parts)} "
        f"({result['passed_cases']}/{result['cases']} cases pass{errors}): {pair_verdict(result)}"
    )


def control_lines(summary: dict[str, Any]) -> list[str]:
    """Each candidate against each control on the suite's headline metric, then the warnings."""
    section = summary.get("controls") or {}
    lines = [
        comparison_line(suite, cand, ctrl, c)
        for suite, per in section.items()
        for cand, versus in per.items()
        for ctrl, c in versus.items()
    ]
    return (["Against the controls (paired t-test on the headline metric):", *lines] if lines else []) + warnings(
        section
    )


def cost_line(result: dict[str, Any], seconds: float | None) -> str:
    """``  - cost: $0.04 (4/4 cases reported; 12 in / 28 out tokens; m-1); latency: 0.021 s/case``;
    ``cost: -`` for an engine that reported no usage (unknown, never 0)."""
    usage = result.get("usage")
    if not usage or usage.get("cost_usd") is None:
        cost = "-" if not usage else f"- ({usage['cases_reporting']}/{result.get('cases', 0)} cases reported usage)"
    else:
        tokens = [f"{usage[key]:,} {word}" for key, word in (("input_tokens", "in"), ("output_tokens", "out"))
                  if usage.get(key) is not None]  # fmt: skip
        counted = " / ".join(tokens) + " tokens" if tokens else ""
        extra = "; ".join(p for p in [counted, ",".join(usage.get("models") or [])] if p)
        cost = (
            f"${usage['cost_usd']:.4g} ({usage['cases_reporting']}/{result.get('cases', 0)} cases reported"
            f"{'; ' + extra if extra else ''})"
        )
    latency = "-" if seconds is None else f"{seconds:.3g} s/case"
    return f"  - cost: {cost}; latency: {latency}"


def _not_measured(notes: dict[str, str]) -> list[str]:
    """``  - not measured: symbolAccAtK, symbolMrr (why)``, one line per reason."""
    by_reason: dict[str, list[str]] = {}
    for metric, why in notes.items():
        by_reason.setdefault(why, []).append(metric)
    return [f"  - not measured: {', '.join(metrics)} ({why})" for why, metrics in by_reason.items()]


def baseline_lines(summary: dict[str, Any]) -> list[str]:
    """The run against its baseline (``run --baseline``): one verdict line per judged target, or
    why it could not be compared."""
    section = summary.get("baseline") or {}
    if section.get("error"):
        return [f"Baseline {section.get('name')}: not compared: {section['error']}"]
    return str(section["line"]).splitlines() if section.get("line") else []


def _floors_skipped(unjudged: dict[str, str], floors: dict[str, Any]) -> list[str]:
    """``  - floor skipped: symbolAccAtK >= 0.35 (why)``: a floor on a metric the target cannot carry."""
    return [f"  - floor skipped: {metric} >= {floors.get(metric, 0):g} ({why})" for metric, why in unjudged.items()]


def latencies(cases: Any) -> dict[tuple[str, str], float]:
    """Mean engine seconds per case of each (suite, target) of a run's cases frame (cached ones have none)."""
    import pandas as pd

    if cases is None or len(cases) == 0 or "seconds" not in cases:
        return {}
    means = pd.to_numeric(cases["seconds"], errors="coerce").groupby([cases["suite"], cases["target"]]).mean()
    return {(str(s), str(t)): float(v) for (s, t), v in means.items() if not pd.isna(v)}


def render_scoreboard(
    summary: dict[str, Any],
    k: int = 5,
    regressions: Set[tuple[str, str, str]] = frozenset(),
    latency: dict[tuple[str, str], float] | None = None,
) -> str:
    """The full scoreboard text for a run summary; with ``latency`` (``latencies(run.cases)``) each
    suite line is followed by the engine's reported cost and its seconds per case."""
    rows = scoreboard_rows(summary, regressions)
    lines = _table(["Group", "Target", "Metric", "Value", "Threshold", "Pass"], rows, ["l", "l", "l", "r", "r", "c"])
    for suite, per_target in summary["suites"].items():
        for target, result in per_target.items():
            lines.append(suite_line(suite, target, result, k))
            if latency is not None and not result.get("skipped"):
                lines.append(cost_line(result, latency.get((suite, target))))
            lines += [f"  - failed: {f}" for f in result.get("failures") or []]
            lines += _not_measured(result.get("skipped_metrics") or {})
            lines += _floors_skipped(result.get("skipped_floors") or {}, result.get("thresholds") or {})
            if not result.get("skipped"):
                lines += [f"  - skipped {case}: {why}" for case, why in (result.get("skipped_cases") or {}).items()]
    lines += control_lines(summary) + baseline_lines(summary)
    if summary.get("run_dir"):
        lines.append(f"Run: {summary['run_dir']}")
    if summary.get("sandbox"):
        lines.append(f"sandbox: {summary['sandbox']}")
    lines.append(exit_line(run_verdict(summary)))  # the last line: what was judged, and the exit code
    return "\n".join(lines)


def render_markdown(
    summary: dict[str, Any], k: int = 5, regressions: Set[tuple[str, str, str]] = frozenset(), limit: int = LIMIT
) -> str:
    """``workbench run --format markdown``: the verdict, the scoreboard table, one line per suite
    and target, the controls, under ``limit`` characters (a PR comment, ``$GITHUB_STEP_SUMMARY``)."""
    verdict = run_verdict(summary)
    head, rows = md_table(
        ["Group", "Target", "Metric", "Value", "Threshold", "Pass"], scoreboard_rows(summary, regressions)
    )
    where = f"`{summary['run_dir']}/summary.json` has every row" if summary.get("run_dir") else ""
    lines = [
        f"- {suite_line(suite, target, result, k)}"
        + "".join(f"; failed: {failure}" for failure in result.get("failures") or [])
        for suite, per_target in summary["suites"].items()
        for target, result in per_target.items()
    ]
    controls = [
        f"**{line}**" if line.endswith(":") else f"> **{line}**" if line.startswith("WARNING") else f"- {line}"
        for line in control_lines(summary)
    ]
    against = [f"**{line}**" for line in baseline_lines(summary)]
    tail = ["", *lines, "", *controls, *against, "", f"**{exit_line(verdict)}**"]
    return fit([f"### workbench run: {verdict}", "", *head], rows, tail, limit, where)
