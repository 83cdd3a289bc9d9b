"""Gold findings records and recorded review runs, read and checked (no pandas: ``validate`` uses it).

Gold records are ``voyage-eval-gold/1`` files (``expected_verdict`` and ``findings`` of
``{file, line, rule_key, severity, owner_reviewer?, dual_flaggable?}``); a recorded run is
``{"agent", "gold": <gold file stem>, "verdict"?, "findings": [...]}``. Every problem is a
``CorpusError`` naming the file and the field; a findings table in a record's source README must
agree with the record (``findings_readme``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import CorpusError
from .findings_readme import check_readme, source_readme
from .goldens import confined, data_path, read_json

SEVERITIES = ("BLOCKER", "MAJOR", "MINOR", "SUGGESTION")
VERDICTS = ("BLOCK", "WARN", "ALLOW")
DEFAULT_TOLERANCE = 3


def computed_verdict(findings: list[dict[str, Any]]) -> str:
    """The Pass-4 rule: any BLOCKER blocks, else any MAJOR warns, else allow."""
    severities = {f.get("severity") for f in findings}
    return "BLOCK" if "BLOCKER" in severities else "WARN" if "MAJOR" in severities else "ALLOW"


def _check_findings(findings: Any, where: str, catalogue: set[str] | None) -> list[dict[str, Any]]:
    if not isinstance(findings, list):
        raise CorpusError(f"{where}.findings: expected a list")
    for index, finding in enumerate(findings):
        at = f"{where}.findings[{index}]"
        if not isinstance(finding, dict):
            raise CorpusError(f"{at}: expected an object")
        if not isinstance(finding.get("file"), str) or not finding["file"]:
            raise CorpusError(f"{at}.file: expected a repo-relative path")
        if not isinstance(finding.get("line", 0), int) or finding.get("line", 0) < 0:
            raise CorpusError(f"{at}.line: expected an integer >= 0")
        if not isinstance(finding.get("rule_key"), str):
            raise CorpusError(f"{at}.rule_key: expected a string")
        if catalogue is not None and finding["rule_key"] not in catalogue:
            raise CorpusError(f"{at}.rule_key: {finding['rule_key']!r} is not in the rule catalogue")
        if not isinstance(finding.get("dual_flaggable"), (str, type(None))):
            raise CorpusError(f"{at}.dual_flaggable: expected a rule key string")
        if finding.get("severity") not in SEVERITIES:
            raise CorpusError(f"{at}.severity: expected one of {', '.join(SEVERITIES)}")
    return findings


def _spec(corpus: Any) -> tuple[dict[str, Any], set[str] | None, int]:
    """The findings section checked: gold and runs directories, rule catalogue, line tolerance."""
    spec = corpus.data.get("findings") or {}
    where = f"{corpus.path}: findings"
    if not isinstance(spec, dict):
        raise CorpusError(f"{where}: expected an object with 'gold' and 'runs'")
    for key in ("gold", "runs"):
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise CorpusError(f"{where}.{key}: expected a directory (a string)")
    catalogue = spec.get("ruleCatalogue")
    if catalogue is not None and (not isinstance(catalogue, list) or not all(isinstance(r, str) for r in catalogue)):
        raise CorpusError(f"{where}.ruleCatalogue: expected a list of rule key strings")
    tolerance = spec.get("lineTolerance", DEFAULT_TOLERANCE)
    if not isinstance(tolerance, int) or isinstance(tolerance, bool) or not 0 <= tolerance <= 1_000_000:
        raise CorpusError(f"{where}.lineTolerance: expected an integer >= 0, got {tolerance!r}")
    return spec, None if catalogue is None else set(catalogue), tolerance


def load_findings(corpus: Any) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], int]:
    """Gold records by stem, recorded runs, and the line tolerance, validated."""
    spec, catalogue, tolerance = _spec(corpus)
    gold: dict[str, dict[str, Any]] = {}
    for path in sorted(data_path(corpus.path, str(spec.get("gold", "")), "findings.gold").glob("*.json")):
        record = read_json(confined(path, corpus.path, "gold record"), "gold record")
        where = str(path)
        if not isinstance(record, dict) or record.get("expected_verdict") not in VERDICTS:
            raise CorpusError(f"{where}.expected_verdict: expected one of {', '.join(VERDICTS)}")
        _check_findings(record.get("findings"), where, catalogue)
        readme = source_readme(record, path, [corpus.path.parent, corpus.path.parent.parent])
        if readme is not None:
            check_readme(record, path, readme)
        gold[path.stem] = record
    runs = []
    for path in sorted(data_path(corpus.path, str(spec.get("runs", "")), "findings.runs").rglob("*.json")):
        recorded = read_json(confined(path, corpus.path, "recorded run"), "recorded run")
        where = str(path)
        if not isinstance(recorded, dict) or not isinstance(recorded.get("agent"), str):
            raise CorpusError(f"{where}.agent: expected the recording agent's name")
        if not isinstance(recorded.get("gold"), str) or recorded["gold"] not in gold:
            raise CorpusError(f"{where}.gold: {recorded.get('gold')!r} names no gold record")
        if "verdict" in recorded and recorded["verdict"] not in VERDICTS:
            raise CorpusError(f"{where}.verdict: expected one of {', '.join(VERDICTS)}")
        _check_findings(recorded.get("findings"), where, None)
        runs.append(dict(recorded, source=_shown(path, corpus.path.parent)))
    return gold, runs, tolerance


def _shown(path: Path, base: Path) -> str:
    """A recorded run's file as the case rows show it: relative to the corpus's directory (a run's
    rows then name no host path and read the same on every machine), else as found."""
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def check(corpus: Any) -> None:
    """Every gold record and recorded run of the corpus's findings section, as CorpusErrors."""
    load_findings(corpus)
