"""Reports: one :class:`FileReport` per input, rendered by small pure functions per format."""

from __future__ import annotations

from typing import Any

import msgspec

from ..checklist import Checklist, build
from ..diagnose import Diagnosis, diagnose, exit_severities
from ..redact import clip, redact
from ..scan import Finding, Run

SEVERITIES = ("error", "warning", "info")


class FileReport(msgspec.Struct):
    path: str
    diagnosis: Diagnosis
    checklists: dict[str, Checklist] = msgspec.field(default_factory=dict)
    redact: bool = True
    error: str | None = None

    @property
    def run(self) -> Run:
        return self.diagnosis.run

    def evidence(self, finding: Finding) -> str:
        return self.evidence_text(finding.text)

    def evidence_text(self, text: str) -> str:
        return redact(text) if self.redact else clip(text, 4000)


def build_report(run: Run, redact_secrets: bool = True, error: str | None = None) -> FileReport:
    diagnosis = diagnose(run)
    run_facts = derived_facts(run)
    checklists = {f.id: build(f, *stage_facts(run, run_facts, f)) for f in run.findings}
    return FileReport(run.name, diagnosis, checklists, redact_secrets, error)


def derived_facts(run: Run) -> dict[str, Any]:
    """The run's facts plus what logkb itself knows: the engine, the phase reached and how
    many pipeline stages (vLLM-Omni) the log shows."""
    extra = {"engine": run.engine, "phase_reached": run.phase_reached,
             "pipeline_stages": len(run.stages) if len(run.stages) >= 2 else None}
    return {**{k: v for k, v in extra.items() if v is not None}, **run.facts}


def stage_facts(run: Run, run_facts: dict[str, Any], finding: Finding) -> tuple[dict[str, Any], frozenset[str]]:
    """A pipeline stage's finding sees its own stage's facts, never a sibling stage's (another
    stage's weights are not this run's)."""
    origin = finding.first.origin
    if origin not in run.stages or len(run.stages) < 2:
        return run_facts, frozenset()
    own = run.origin_facts.get(origin, {})
    foreign = frozenset(name for name, tag in run.fact_origins.items()
                        if tag in run.stages and tag != origin and name not in own)
    return {**run_facts, **own}, foreign


def worst_severity(reports: list[FileReport]) -> str | None:
    ranks = [SEVERITIES.index(severity) for r in reports for severity in
             exit_severities({f.id: f.severity for f in r.run.findings}, r.diagnosis.explained_by).values()]
    return SEVERITIES[min(ranks)] if ranks else None


def finding_dict(report: FileReport, finding: Finding) -> dict[str, Any]:
    checklist = report.checklists[finding.id]
    sig = finding.signature
    return {
        "id": finding.id,
        "title": sig.title,
        "tags": list(sig.tags),
        "severity": finding.severity,
        "role": report.diagnosis.roles.get(finding.id, "related"),
        "phase": finding.phase,
        "line": finding.line,
        "last_line": finding.last_line,
        "occurrences": finding.occurrences,
        "confidence": finding.confidence,
        "match": finding.match,
        "tier": finding.tier,
        "basis": finding.first.basis,
        "evidence": report.evidence(finding),
        "facts": _public_facts(finding.facts, report.redact),
        "summary": sig.summary,
        "cause": sig.cause,
        "explained_by": report.diagnosis.explained_by.get(finding.id),
        "notes": finding.notes,
        "checks": [
            {"id": c.id, "title": c.title, "status": c.status, "detail": c.detail, "look": c.look, "command": c.command}
            for c in checklist.checks
        ],
        "fixes": [
            {
                "order": i + 1, "id": x.id, "title": x.title, "change": x.change, "applies": x.applies,
                "computed": x.computed,
                "values": [{"name": v.name, "value": v.value, "expression": v.expression, "from": v.inputs} for v in x.values],
                "tradeoff": x.tradeoff, "verify": x.verify,
            }
            for i, x in enumerate(checklist.fixes)
        ],
        "verify": sig.verify,
        "references": [r.url for r in sig.references],
        "incidents": [
            {"line": i.line, "last_line": i.last_line, "occurrences": i.occurrences, "phase": i.phase,
             "phase_source": i.phase_source, "tier": i.tier, "confidence": i.confidence, "basis": i.basis,
             "origin": i.origin, "evidence": report.evidence_text(i.text),
             "facts": _public_facts(i.facts, report.redact)}
            for i in finding.incidents
        ],
    }


def file_dict(report: FileReport) -> dict[str, Any]:
    diagnosis = report.diagnosis
    return {
        "path": report.path,
        "root_cause": diagnosis.root_cause.id if diagnosis.root_cause else None,
        "phase": diagnosis.phase,
        "outcome": diagnosis.outcome,
        "engine": report.run.engine,
        "lines": report.run.lines,
        "facts": _public_facts(report.run.facts, report.redact),
        "phases": [{"phase": p, "line": n} for p, n in report.run.phases],
        "stats": {
            "prompt_lines_skipped": report.run.prompt_lines_skipped,
            "fuzzy_lines_scored": report.run.fuzzy_lines_scored,
            "fuzzy_lines_over_cap": report.run.fuzzy_lines_dropped,
            "occurrences_folded": sum(f.occurrences - 1 for f in report.run.findings),
            "incidents": report.run.incidents,
        },
        "findings": [finding_dict(report, f) for f in diagnosis.findings],
        "error": report.error,
    }


def _public_facts(facts: dict[str, Any], redact_secrets: bool) -> dict[str, Any]:
    out = {}
    for key, value in facts.items():
        if isinstance(value, str) and redact_secrets:
            value = redact(value)
        out[key] = value
    return out
