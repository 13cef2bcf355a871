"""Markdown for a pull-request comment: a table of the logs, then each failure's checklist.

A reviewer reads the root cause, the checks with their verdicts and the fixes in order with
the values computed from the log; the explanation and the other findings sit in collapsed
``<details>`` blocks so that a comment about several logs stays short.
"""

from __future__ import annotations

import re

from .. import __version__
from ..checklist import display
from ..scan import Finding
from . import FileReport

_STATUS = {"fail": "❌ fail", "pass": "✅ pass", "unknown": "❔ unknown"}


def render(reports: list[FileReport], catalog_version: str) -> str:
    failing = [r for r in reports if r.diagnosis.root_cause is not None or r.error]
    out = [f"### logkb: {len(failing)} of {len(reports)} log(s) need attention", ""]
    out += ["| log | outcome | root cause | phase | line |", "|---|---|---|---|---|"]
    for report in reports:
        root = report.diagnosis.root_cause
        outcome = "input error" if report.error else report.diagnosis.outcome
        cells = [code(report.path), outcome, code(root.id) if root else "", prose(report.diagnosis.phase or ""),
                 str(root.line) if root else ""]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    for report in failing:
        out += ["", *_file(report)]
    out += ["", f"<sub>logkb {__version__}, catalog {catalog_version}</sub>"]
    return "\n".join(out) + "\n"


def code(value: str) -> str:
    """Inline code on one line, fenced longer than any backtick run in the value."""
    value = " ".join(value.split())
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {value} " if value.startswith("`") or value.endswith("`") else value
    return f"{fence}{padded}{fence}"


def prose(value: str) -> str:
    """Text from a log or the catalog on one line; a ``<`` cannot open an HTML tag."""
    return " ".join(value.split()).replace("<", "&lt;")


def block(value: str) -> list[str]:
    """A fenced code block longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`{3,}", value)), default=2)
    fence = "`" * (longest + 1)
    return [f"{fence}text", value, fence]


def _file(report: FileReport) -> list[str]:
    out = [f"#### {code(report.path)}"]
    if report.error:
        out += ["", f"**Input error:** {prose(report.error)}"]
    root = report.diagnosis.root_cause
    if root is None:
        return out
    sig = root.signature
    checklist = report.checklists[root.id]
    how = "" if root.match == "regex" else f", fuzzy match {root.confidence:.2f}"
    where = f"{root.severity}, phase {code(root.phase or 'unknown')}, line {root.line}{how}"
    out += ["", f"**Root cause:** {prose(sig.title)}  ", f"{code(root.id)} ({where})", "",
            *block(report.evidence(root))]
    if checklist.checks:
        out += ["", "**Checks**", ""]
        for check in checklist.checks:
            explanation = check.detail or check.look
            out.append(f"- {_STATUS[check.status]}: **{prose(check.title)}** {prose(explanation)}")
            if check.command and check.status != "pass":
                out.append(f"  {code('$ ' + check.command)}")
    if checklist.fixes:
        out += ["", "**Fix, in this order**", ""]
        for number, fix in enumerate(checklist.fixes, 1):
            condition = " _(if the checks point here)_" if not fix.applies else ""
            out.append(f"{number}. **{prose(fix.title)}**{condition}: {prose(fix.change)}")
            for value in fix.values:
                inputs = ", ".join(f"{k} = {display(v)}" for k, v in value.inputs.items())
                out.append(f"   - computed {code(f'{value.name} = {display(value.value)}')} from {prose(inputs)}")
            out.append(f"   - trade-off: {prose(fix.tradeoff)}")
    why = [prose(sig.cause or "")]
    if sig.verify:
        why += ["", f"**Verify:** {prose(sig.verify)}"]
    out += ["", *_details("Why this happens, and how to verify the fix", why)]
    others = [f for f in report.diagnosis.findings if f is not root]
    if others:
        items = [_other(report, f) for f in others]
        out += ["", *_details(f"Also in this log ({len(others)})", items)]
    return out


def _other(report: FileReport, finding: Finding) -> str:
    role = report.diagnosis.roles.get(finding.id, "related")
    because = report.diagnosis.explained_by.get(finding.id)
    role += f", explained by {code(because)}" if because else ""
    count = f", {finding.occurrences}x" if finding.occurrences > 1 else ""
    return f"- {code(finding.id)} {prose(finding.signature.title)} ({role}; line {finding.line}{count})"


def _details(summary: str, body: list[str]) -> list[str]:
    return [f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]
