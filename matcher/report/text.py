"""The terminal checklist: what failed, what to check, what to change, in that order."""

from __future__ import annotations

import click

from ..checklist import display
from . import FileReport

_STATUS = {"fail": "[FAIL]", "pass": "[ ok ]", "unknown": "[ ?  ]"}
_COLORS = {"error": "red", "warning": "yellow", "info": "blue", "fail": "red", "pass": "green", "unknown": "yellow"}
WIDTH = 100


def render(reports: list[FileReport], color: bool = False, verbose: bool = False) -> str:
    out: list[str] = []
    for report in reports:
        out.extend(_file(report, color, verbose))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _style(text: str, key: str, color: bool, bold: bool = False) -> str:
    return click.style(text, fg=_COLORS.get(key), bold=bold) if color else text


def _wrap(text: str, indent: str) -> list[str]:
    import textwrap  # only a report with findings wraps text

    return textwrap.wrap(" ".join(text.split()), WIDTH, initial_indent=indent, subsequent_indent=indent) or [indent]


def _file(report: FileReport, color: bool, verbose: bool) -> list[str]:
    d = report.diagnosis
    run = report.run
    head = f"{report.path}: {run.lines} lines"
    if run.engine:
        version = run.facts.get("engine_version")
        head += f", {run.engine}" + (f" {version}" if version else "")
    lines = [_style(head, "info", color, bold=True)]
    if report.error:
        lines.append(_style(f"  input error: {report.error}", "error", color))
    if d.root_cause is None:
        problems = [f for f in run.findings if f.severity in ("error", "warning") and f.id not in d.explained_by]
        reached = f" (reached phase: {run.phase_reached})" if run.phase_reached else ""
        lines.append(f"  no GPU-memory problem found{reached}" if not problems else "  no root cause decided")
        lines.extend(_notices(report))
        return lines
    root = d.root_cause
    sig = root.signature
    checklist = report.checklists[root.id]
    how = "" if root.tier == "exact" else f", {root.tier} evidence, confidence {root.confidence:.2f}"
    if root.occurrences > 1:
        how += f", {root.occurrences} times up to line {root.last_line}"
    lines.append(
        _style(f"  ROOT CAUSE  {root.id}", root.severity, color, bold=True)
        + f"  ({root.severity}, phase {root.phase or 'unknown'}, line {root.line}{how})"
    )
    lines.extend(_wrap(sig.title, "  "))
    lines.append(f"  line {root.line}: {report.evidence(root)}")
    lines.append(f"  rests on: {root.first.basis}")
    if len(root.incidents) > 1:
        shown = ", ".join(f"line {i.line} ({i.phase})" for i in root.incidents[:8])
        more = f" and {len(root.incidents) - 8} more" if len(root.incidents) > 8 else ""
        lines.extend(_wrap(f"incidents: {len(root.incidents)} separate events: {shown}{more}", "  "))
    for note in root.notes:
        lines.append(f"  note: {note}")
    lines.append("")
    lines.append("  Why")
    lines.extend(_wrap(sig.cause or "", "    "))
    if checklist.checks:
        lines.append("")
        lines.append("  Check")
        for check in checklist.checks:
            mark = _style(_STATUS[check.status], check.status, color)
            lines.append(f"    {mark} {check.title}")
            if check.detail:
                lines.extend(_wrap(check.detail, "           "))
            elif check.status == "unknown" or verbose:
                lines.extend(_wrap(check.look, "           "))
            if check.command and check.status != "pass":
                lines.append(f"           $ {check.command}")
    if checklist.fixes:
        lines.append("")
        lines.append("  Fix, in this order")
        for number, fix in enumerate(checklist.fixes, 1):
            condition = "" if fix.applies else "  (if the check above points here)"
            lines.append(f"    {number}. {fix.title}{condition}")
            lines.extend(_wrap(f"change: {fix.change}", "       "))
            for value in fix.values:
                inputs = ", ".join(f"{k}={display(v)}" for k, v in value.inputs.items())
                lines.extend(_wrap(f"computed: {value.name} = {display(value.value)} from {inputs}", "       "))
            lines.extend(_wrap(f"trade-off: {fix.tradeoff}", "       "))
            if fix.verify and verbose:
                lines.extend(_wrap(f"verify: {fix.verify}", "       "))
    if sig.verify:
        lines.append("")
        lines.append("  Verify")
        lines.extend(_wrap(sig.verify, "    "))
    others = [f for f in d.findings if f is not root]
    if others:
        lines.append("")
        lines.append("  Also in this log")
        for other in others:
            role = d.roles.get(other.id, "related")
            because = f", explained by {d.explained_by[other.id]}" if other.id in d.explained_by else ""
            count = f", {other.occurrences}x" if other.occurrences > 1 else ""
            lines.append(f"    - {other.id} ({role}{because}; line {other.line}{count})")
    return lines


def _notices(report: FileReport) -> list[str]:
    """Info-level findings of a run without a root cause, and the error lines each explains
    (TensorRT's out-of-memory lines that only preceded a skipped tactic)."""
    d = report.diagnosis
    lines: list[str] = []
    for notice in (f for f in d.findings if f.severity == "info"):
        lines.extend(_wrap(f"note: {notice.signature.title} (line {notice.line})", "  "))
        explained = [f"{f.id} (line {f.line})" for f in d.findings if d.explained_by.get(f.id) == notice.id]
        if explained:
            lines.extend(_wrap(f"it explains: {', '.join(explained)}", "    "))
    return lines
