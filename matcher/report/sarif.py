"""SARIF 2.1.0, for code-scanning dashboards: one result per finding, one rule per signature.

The rule id is the signature id, so a dashboard groups the same failure across runs and
logs; the rule's help is the signature's own text (cause, checks, fixes in order, how to
verify), as plain text and as markdown. A result points at the log file (a relative path
relative to ``%SRCROOT%``, the checkout, as code-scanning tools expect) and the line of the
message, shows that line (redacted) as the region's snippet, and carries the fixes with the
values computed from that log. stdin has no URI: ``--stdin-filename`` names it.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..catalog import Fix, ProblemSignature
from ..checklist import generic_change
from ..scan import Finding
from . import FileReport
from .annotation import details, fingerprint, headline

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SOURCE_ROOT = "%SRCROOT%"
STDIN = "<stdin>"


def render(reports: list[FileReport], catalog_version: str) -> str:
    signatures: dict[str, ProblemSignature] = {}
    for report in reports:
        for finding in report.diagnosis.findings:
            signatures.setdefault(finding.id, finding.signature)
    index = {sig_id: i for i, sig_id in enumerate(signatures)}
    run = {
        "tool": {"driver": {
            "name": "logkb",
            "version": __version__,
            "rules": [_rule(sig) for sig in signatures.values()],
            "properties": {"catalogVersion": catalog_version},
        }},
        "invocations": [_invocation(reports)],
        "results": [_result(r, f, index[f.id]) for r in reports for f in r.diagnosis.findings],
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def artifact_uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (to the checkout)."""
    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri()
    return quote(pure.as_posix())


def _rule(sig: ProblemSignature) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": sig.id,
        "shortDescription": {"text": sig.title},
        "fullDescription": {"text": sig.summary or sig.title},
        "help": {"text": _help(sig), "markdown": _help_markdown(sig)},
        "defaultConfiguration": {"level": LEVELS[sig.severity]},
        "properties": {"tags": list(sig.tags), "status": sig.status},
    }
    if sig.phase:
        rule["properties"]["phase"] = sig.phase
    if sig.references:
        rule["helpUri"] = sig.references[0].url
    return rule


def _help(sig: ProblemSignature) -> str:
    """The signature's guidance without any log's numbers: those go in each result."""
    parts = [sig.cause or ""]
    if sig.checks:
        parts.append("Check:\n" + "\n".join(f"- {c.title} {c.look}" for c in sig.checks))
    if sig.fixes:
        parts.append("Fix, in this order:\n" + "\n".join(
            f"{i}. {x.title}{_generic_change(x)} (trade-off: {x.tradeoff})" for i, x in enumerate(sig.fixes, 1)
        ))
    if sig.verify:
        parts.append(f"Verify: {sig.verify}")
    return "\n\n".join(p for p in parts if p)


def _help_markdown(sig: ProblemSignature) -> str:
    parts = [f"**{sig.title}**", " ".join((sig.cause or "").split())]
    if sig.checks:
        parts.append("**Check**\n\n" + "\n".join(f"- {c.title} {' '.join(c.look.split())}" for c in sig.checks))
    if sig.fixes:
        parts.append("**Fix, in this order**\n\n" + "\n".join(
            f"{i}. {x.title}{_generic_change(x)} (trade-off: {' '.join(x.tradeoff.split())})"
            for i, x in enumerate(sig.fixes, 1)))
    if sig.verify:
        parts.append(f"**Verify**: {' '.join(sig.verify.split())}")
    if sig.references:
        parts.append("**References**\n\n" + "\n".join(f"- <{r.url}>" for r in sig.references))
    parts.append(f"Checklist for a log: `logkb explain {sig.id}`")
    return "\n\n".join(p for p in parts if p)


def _generic_change(fix: Fix) -> str:
    """': change' in the words that need no numbers from a log."""
    return f": {generic_change(fix)}"


def _result(report: FileReport, finding: Finding, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": finding.id,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": headline(report, finding) + "\n" + details(report, finding)},
        "locations": [_location(report.path, finding.line, report.evidence(finding))],
        "partialFingerprints": {"logkbFinding/v1": fingerprint(report.path, finding.id, finding.line)},
        "properties": {
            "role": report.diagnosis.roles.get(finding.id, "related"),
            "phase": finding.phase or "unknown",
            "occurrences": finding.occurrences,
            "confidence": finding.confidence,
        },
    }


def artifact_location(path: str) -> dict[str, Any]:
    if path == STDIN:
        return {"description": {"text": "standard input"}}
    if PurePath(path).is_absolute():
        return {"uri": artifact_uri(path)}
    return {"uri": artifact_uri(path), "uriBaseId": SOURCE_ROOT}


def _location(path: str, line: int | None = None, snippet: str | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": artifact_location(path)}
    if line:
        physical["region"] = {"startLine": line}
        if snippet:
            physical["region"]["snippet"] = {"text": snippet}
    return {"physicalLocation": physical}


def _invocation(reports: list[FileReport]) -> dict[str, Any]:
    failed = [r for r in reports if r.error]
    return {
        "executionSuccessful": not failed,
        "toolExecutionNotifications": [
            {"level": "error", "message": {"text": r.error}, "locations": [_location(r.path)]} for r in failed
        ],
    }
