"""``logkb scan --statistics``: how often each signature was found, most frequent first.

One row per signature: the logs it was found in, its occurrences over all of them, how many
of those logs it was the root cause of, its severity and its title.
"""

from __future__ import annotations

from collections import Counter

from . import FileReport


def render(reports: list[FileReport]) -> str:
    logs: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    roots: Counter[str] = Counter()
    described: dict[str, tuple[str, str]] = {}
    for report in reports:
        for finding in report.diagnosis.findings:
            logs[finding.id] += 1
            occurrences[finding.id] += finding.occurrences
            described.setdefault(finding.id, (finding.severity, finding.signature.title))
        if report.diagnosis.root_cause is not None:
            roots[report.diagnosis.root_cause.id] += 1
    if not logs:
        return f"no finding in {len(reports)} log(s)\n"
    width = max(len(sig_id) for sig_id in logs)
    rows = [f"{'logs':>5} {'times':>6} {'root':>5}  {'signature':{width}}  severity  title"]
    for sig_id in sorted(logs, key=lambda s: (-logs[s], -occurrences[s], s)):
        severity, title = described[sig_id]
        rows.append(f"{logs[sig_id]:>5} {occurrences[sig_id]:>6} {roots[sig_id]:>5}  {sig_id:{width}}  {severity:8}  {title}")
    return "\n".join(rows) + "\n"
