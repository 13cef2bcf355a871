"""Choose the root cause among a run's findings.

Relations in the catalog decide, not scores: a finding whose signature ``explains`` another
found near it turns that one into a symptom (a CUDA OOM during graph capture explains the
generic CUDA OOM on the same line), and a ``wrapper`` message ("Engine core initialization
failed", "Shard 0 failed to start") never wins while anything else failed. Among what is
left, errors come before warnings and the earliest line wins: later errors are usually
consequences of the first.
"""

from __future__ import annotations

import msgspec

from .scan import Finding, Run

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
NEAR_LINES = 60  # a specific finding explains a generic one this close to it


class Diagnosis(msgspec.Struct):
    run: Run
    root_cause: Finding | None
    roles: dict[str, str] = msgspec.field(default_factory=dict)  # id -> root-cause | symptom | wrapper | related
    explained_by: dict[str, str] = msgspec.field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        """Root cause first, then the rest in line order."""
        rest = [f for f in self.run.findings if f is not self.root_cause]
        return ([self.root_cause] if self.root_cause else []) + rest

    @property
    def phase(self) -> str | None:
        if self.root_cause is not None:
            return self.root_cause.phase or "unknown"
        return self.run.phase_reached

    @property
    def outcome(self) -> str:
        if self.root_cause is None:
            return "ready" if self.run.phase_reached == "serving" else "no-problem"
        return "failed" if self.root_cause.severity == "error" else "degraded"


def diagnose(run: Run) -> Diagnosis:
    findings = run.findings
    by_id = {f.id: f for f in findings}
    explained_by: dict[str, str] = {}
    for finding in findings:
        for target in finding.signature.explains:
            other = by_id.get(target)
            if other is not None and other is not finding and _near(finding, other):
                explained_by.setdefault(other.id, finding.id)
    ranked = [f for f in findings if f.id not in explained_by and f.severity in ("error", "warning")]
    unwrapped = [f for f in ranked if not f.signature.wrapper]
    pool = unwrapped or ranked
    root = min(pool, key=lambda f: (_SEVERITY_RANK[f.severity], f.line), default=None)
    roles: dict[str, str] = {}
    for finding in findings:
        if finding is root:
            roles[finding.id] = "root-cause"
        elif finding.id in explained_by:
            roles[finding.id] = "symptom"
        elif finding.signature.wrapper and root is not None:
            roles[finding.id] = "wrapper"
        else:
            roles[finding.id] = "related"
    return Diagnosis(run, root, roles, explained_by)


def _near(a: Finding, b: Finding) -> bool:
    return b.line <= a.last_line + NEAR_LINES and a.line <= b.last_line + NEAR_LINES


def exit_severities(severities: dict[str, str], explained_by: dict[str, str]) -> dict[str, str]:
    """Each finding's severity for the exit status, by id: a finding that another explains
    counts at the severity of the finding at the top of its chain of explanations (TensorRT's
    out-of-memory errors before a tactic it skipped are no failure of the build)."""

    def severity(finding_id: str, hops: int = 0) -> str:
        above = explained_by.get(finding_id)
        if above is None or above not in severities or hops > len(severities):
            return severities[finding_id]
        return severity(above, hops + 1)

    return {finding_id: severity(finding_id) for finding_id in severities}
