"""Terminal rendering of run records: the record, the memory picture, and a comparison."""

from __future__ import annotations

from typing import Any

from ..checklist import display
from ..record import BUDGET_PARTS, Comparison, RunRecord, startup_memory

BAR = 50
FULL, EMPTY = "█", "·"


def render_record(rec: RunRecord) -> str:
    lines = [rec.path]
    engine = " ".join(str(x) for x in (rec.engine, rec.version) if x) or "unknown"
    lines.append(f"  engine      {engine}")
    if "model" in rec.settings:
        lines.append(f"  model       {rec.settings['model']}")
    hardware = rec.hardware
    if hardware:
        gpu = hardware.get("gpu_name", "GPU")
        count = hardware.get("gpu_count") or hardware.get("tensor_parallel_size")
        total = hardware.get("gpu_total_gib")
        lines.append(f"  hardware    {f'{count} x ' if count and count != 1 else ''}{gpu}"
                     + (f", {display(total)} GiB" if total is not None else ""))
    outcome = rec.outcome
    if rec.root_cause:
        outcome += f" in phase {rec.failed_phase or 'unknown'}: {rec.root_cause}"
    lines.append(f"  outcome     {outcome}")
    lines.append(f"  reached     {rec.phase_reached or 'unknown'}")
    if rec.started:
        lines.append(f"  date        {rec.started}" + (f" to {rec.ended}" if rec.ended and rec.ended != rec.started else ""))
    settings = {k: v for k, v in rec.settings.items() if k != "model"}
    if settings:
        lines.append("  settings")
        lines.extend(f"    {k:26} {display(v)}" for k, v in settings.items())
    others = {k: v for k, v in rec.arguments.items() if k not in rec.settings}
    if others:
        lines.append(f"  other arguments ({', '.join(rec.argument_sources)})")
        lines.extend(f"    {k:26} {_value(v)}" for k, v in others.items())
    if rec.environment:
        lines.append("  environment")
        lines.extend(f"    {k:26} {_value(v)}" for k, v in rec.environment.items())
    for gpu in rec.gpus:
        used = f", {display(gpu['used_gib'])} of {display(gpu['total_gib'])} GiB in use" if gpu["total_gib"] else ""
        lines.append(f"  nvidia-smi  GPU {gpu['index']} {gpu['name']}{used}")
    at_start = startup_memory(rec.startup)
    if at_start:
        lines.append("  at startup  " + _pairs(at_start))
    if rec.kv_cache:
        lines.append("  KV cache")
        lines.extend(f"    {k:26} {display(v)}" for k, v in rec.kv_cache.items())
    lines.extend(render_budget(rec))
    if rec.processes:
        lines.append("  per process")
        for process in rec.processes:
            shown = {**process.memory, **process.kv_cache}
            rest = {k: v for k, v in process.facts.items() if k not in shown}
            summary = [_pairs({**shown, **rest})] if shown or rest else []
            if process.arguments:
                summary.append(f"{len(process.arguments)} arguments ({', '.join(process.argument_sources)})")
            if process.environment:
                summary.append(f"{len(process.environment)} environment variables")
            summary.extend(f"{p['id']} at line {p['line']} ({_pairs(p['facts'])})" if p["facts"] else
                           f"{p['id']} at line {p['line']}" for p in process.problems)
            lines.append(f"    {process.key:26} {'; '.join(summary)}")
    return "\n".join(lines) + "\n"


def _value(value: Any) -> str:
    text = "None" if value is None else display(value)
    return text if len(text) <= 100 else text[:97] + "..."


def _pairs(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} {display(v)}" for k, v in values.items())


def render_budget(rec: RunRecord) -> list[str]:
    """Proportional bars of the memory budget; the scale is the GPU's total memory."""
    budget = rec.budget
    if budget.total_gib is None and not budget.parts:
        return []
    scale = budget.total_gib or max([budget.budget_gib or 0, *budget.parts.values(), 1.0])
    lines = [f"  memory (GiB, bar = {display(round(scale, 2))} GiB{' total' if budget.total_gib else ''})"]

    def row(label: str, value: float | None) -> None:
        if value is None:
            return
        cells = max(0, min(BAR, round(BAR * max(value, 0) / scale))) if scale else 0
        lines.append(f"    {label:22} {FULL * cells}{EMPTY * (BAR - cells)} {display(round(value, 2)):>7}")

    row("GPU total", budget.total_gib)
    if budget.budget_gib is not None:
        row(f"budget (x{display(budget.utilization)})", budget.budget_gib)
    for label, fact in BUDGET_PARTS:
        if fact in budget.parts:
            row(f"  {label}", budget.parts[fact])
    if budget.outside_gib is not None:
        row("outside the budget", budget.outside_gib)
        lines.append("      (other processes, the CUDA context and allocations outside PyTorch live here)")
    return lines


def render_comparison(cmp: Comparison) -> str:
    a, b = cmp.a, cmp.b
    lines = [f"A: {a.path}", f"B: {b.path}", ""]
    lines.append(f"  {'':28} {'A':>24} {'B':>24}")
    lines.append(f"  {'outcome':28} {_cell(a.outcome):>24} {_cell(b.outcome):>24}")
    lines.append(f"  {'phase reached':28} {_cell(a.phase_reached):>24} {_cell(b.phase_reached):>24}")
    lines.append(f"  {'root cause':28} {_cell(a.root_cause):>24} {_cell(b.root_cause):>24}")
    if cmp.changed:
        lines.append("")
        lines.append("  settings that changed")
        lines.extend(f"    {k:26} {_cell(x):>24} {_cell(y):>24}" for k, (x, y) in cmp.changed.items())
    if cmp.memory_deltas:
        lines.append("")
        lines.append("  memory and KV cache")
        lines.extend(f"    {k:26} {_cell(x):>24} {_cell(y):>24}" for k, (x, y) in cmp.memory_deltas.items())
    for process in cmp.processes:
        lines.append("")
        lines.append(f"  process {process.key}")
        lines.extend(f"    {k:26} {_cell(x):>24} {_cell(y):>24}"
                     for k, (x, y) in {**process.changed, **process.memory_deltas}.items())
    if cmp.only_in_a or cmp.only_in_b:
        lines.append("")
        if cmp.only_in_a:
            lines.append(f"  processes only in A: {', '.join(cmp.only_in_a)}")
        if cmp.only_in_b:
            lines.append(f"  processes only in B: {', '.join(cmp.only_in_b)}")
    knobs = cmp.knobs_changed
    lines.append("")
    if len(knobs) > 1:
        lines.append(f"  warning: {len(knobs)} knobs changed between the runs ({', '.join(knobs)}); "
                     "change one at a time to know which one mattered")
    elif not knobs:
        lines.append("  no setting the logs show changed between the runs")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = "-" if value is None else display(value)
    return text if len(text) <= 24 else text[:21] + "..."
