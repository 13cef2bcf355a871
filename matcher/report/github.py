"""GitHub Actions workflow commands: one annotation per finding, then each checklist in a group.

``::error file=F,line=N,title=T::message`` puts the finding on the log's line in the
workflow summary and the pull request. GitHub shows at most ten annotations of each level
per step, so root causes go first, the rest up to the cap, and a last line says how many
were left out. The full text checklist follows in one collapsible group per file; workflow
commands are switched off around it, so a log line that looks like one stays text.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from ..scan import Finding
from . import FileReport
from . import text as text_report
from .annotation import details, headline

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}
PER_LEVEL = 10  # annotations GitHub shows per level and step


def render(reports: list[FileReport]) -> str:
    annotations = _annotations(reports)
    shown: list[str] = []
    per_level: Counter[str] = Counter()
    for level, line in annotations:
        per_level[level] += 1
        if per_level[level] <= PER_LEVEL:
            shown.append(line)
    left_out = len(annotations) - len(shown)
    if left_out:
        shown.append(
            f"logkb: {left_out} more annotation(s) left out: GitHub shows at most {PER_LEVEL} "
            "errors, warnings and notices per step; every finding is in the checklists below."
        )
    for report in reports:
        shown.extend(_group(report))
    return "\n".join(shown) + "\n"


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **properties: str | int) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{level} {props}::{escape_data(message)}" if props else f"::{level}::{escape_data(message)}"


def _annotations(reports: list[FileReport]) -> list[tuple[str, str]]:
    """(level, command) pairs: input errors and root causes first, then the other findings."""
    first: list[tuple[str, str]] = []
    rest: list[tuple[str, str]] = []
    for report in reports:
        if report.error:
            first.append(("error", command("error", report.error, file=report.path, title="logkb: input error")))
        for finding in report.diagnosis.findings:
            target = first if finding is report.diagnosis.root_cause else rest
            target.append((LEVELS[finding.severity], _finding(report, finding)))
    return first + rest


def _finding(report: FileReport, finding: Finding) -> str:
    message = headline(report, finding) + "\n" + details(report, finding)
    return command(LEVELS[finding.severity], message, file=report.path, line=finding.line,
                   title=f"logkb: {finding.signature.title}")


def _group(report: FileReport) -> list[str]:
    body = text_report.render([report]).rstrip("\n")
    token = hashlib.sha256(body.encode()).hexdigest()[:32]  # cannot appear in the body it hashes
    return [f"::group::logkb {escape_data(report.path)}", f"::stop-commands::{token}", body, f"::{token}::",
            "::endgroup::"]
