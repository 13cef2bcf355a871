"""``logkb scan --quiet``: one line per log that has a root cause, as linters print a finding.

    logs/server.log:37: error: vllm.kv-cache.no-available-memory: No GPU memory left for the KV cache (phase kv-cache-allocation; logkb explain vllm.kv-cache.no-available-memory)

Logs without a root cause print nothing; the checklist is one ``logkb explain`` away.
"""

from __future__ import annotations

import click

from . import FileReport

_COLORS = {"error": "red", "warning": "yellow", "info": "blue"}


def render(reports: list[FileReport], color: bool = False) -> str:
    lines = []
    for report in reports:
        root = report.diagnosis.root_cause
        if root is None:
            continue
        severity = click.style(root.severity, fg=_COLORS.get(root.severity), bold=True) if color else root.severity
        lines.append(f"{report.path}:{root.line}: {severity}: {root.id}: {root.signature.title} "
                     f"(phase {root.phase or 'unknown'}; logkb explain {root.id})")
    return "".join(line + "\n" for line in lines)
