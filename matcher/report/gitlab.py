"""GitLab Code Quality: a JSON list of issues, shown in merge requests beside the log's line.

Each finding is one issue whose ``check_name`` is the signature id and whose fingerprint
hashes the file, the id and the line: unique within a report and the same on every run, so
GitLab can tell new findings from fixed ones between the base and the merge request.
"""

from __future__ import annotations

import json
from typing import Any

from ..scan import Finding
from . import FileReport
from .annotation import details, fingerprint, headline

SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}
INPUT_ERROR = "logkb.input-error"


def render(reports: list[FileReport]) -> str:
    issues: list[dict[str, Any]] = []
    for report in reports:
        if report.error:
            issues.append(_issue(INPUT_ERROR, report.error, report.error, "critical", report.path, 1))
        for finding in report.diagnosis.findings:
            issues.append(_finding(report, finding))
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def _finding(report: FileReport, finding: Finding) -> dict[str, Any]:
    return _issue(finding.id, headline(report, finding), details(report, finding),
                  SEVERITIES[finding.severity], report.path, finding.line)


def _issue(check: str, description: str, body: str, severity: str, path: str, line: int) -> dict[str, Any]:
    return {
        "type": "issue",
        "check_name": check,
        "description": description,
        "content": {"body": body},
        "categories": ["Bug Risk"],
        "severity": severity,
        "fingerprint": fingerprint(path, check, line),
        "location": {"path": path, "lines": {"begin": line}},
    }
