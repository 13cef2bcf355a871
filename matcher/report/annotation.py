"""A finding as one annotation: the words and the fingerprint that CI formats share.

GitHub annotations, SARIF results, GitLab Code Quality issues and JUnit failures each show
one finding at one line of one log. They say the same things: what failed, its role in the
diagnosis, the evidence line, and the fixes in order with the values computed from the log.
"""

from __future__ import annotations

import hashlib

from ..scan import Finding
from . import FileReport

PROBLEM_SEVERITIES = ("error", "warning")


def headline(report: FileReport, finding: Finding) -> str:
    """One line: the signature's title, its role and the line it starts on."""
    return f"{finding.signature.title} ({role(report, finding)}, line {finding.line})"


def role(report: FileReport, finding: Finding) -> str:
    kind = report.diagnosis.roles.get(finding.id, "related")
    if kind == "root-cause":
        return f"root cause, phase {finding.phase or 'unknown'}"
    if kind == "symptom":
        return f"symptom of {report.diagnosis.explained_by[finding.id]}"
    if kind == "wrapper":
        return "reports a failure whose cause is elsewhere in the log"
    return "also found"


def details(report: FileReport, finding: Finding) -> str:
    """Several lines: the evidence, how often it occurred, and the ordered fixes."""
    lines = [f"line {finding.line}: {report.evidence(finding)}"]
    if finding.occurrences > 1:
        lines.append(f"{finding.occurrences} occurrences, the last at line {finding.last_line}")
    for number, fix in enumerate(report.checklists[finding.id].fixes, 1):
        condition = "" if fix.applies else " (if the checks point here)"
        lines.append(f"fix {number}{condition}: {fix.title}: {fix.change}")
    lines.append(f"signature: {finding.id}")
    return "\n".join(lines)


def fingerprint(path: str, finding_id: str, line: int) -> str:
    """Stable across runs: the same finding in the same log at the same line keeps it."""
    return hashlib.md5(f"{path}\0{finding_id}\0{line}".encode(), usedforsecurity=False).hexdigest()
