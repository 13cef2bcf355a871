"""The run record: what one log says about its run, in a fixed shape that two runs can share.

Engine, version, model and hardware; the settings that decide GPU memory; the memory budget
(total, the utilization budget and what it holds, what lies outside it); the KV cache; the
phase reached and the outcome. ``compare`` puts two records side by side so an operator can
change one knob at a time and see what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnose import Diagnosis
from .redact import redact_secrets

SETTINGS = (
    "model", "dtype", "quantization", "gpu_memory_utilization", "max_model_len", "max_num_seqs",
    "max_num_batched_tokens", "tensor_parallel_size", "enforce_eager", "kv_cache_dtype",
    "kv_cache_memory_bytes", "swap_space_gib", "block_size", "mem_fraction_static", "context_length",
    "max_running_requests", "chunked_prefill_size", "max_total_tokens", "max_input_tokens",
    "max_batch_prefill_tokens", "n_ctx", "n_gpu_layers",
)
HARDWARE = ("gpu_name", "gpu_count", "tensor_parallel_size")
KV_FACTS = ("kv_cache_tokens", "gpu_blocks", "cpu_blocks", "max_concurrency", "concurrency_tokens", "max_total_num_tokens")

# (label, fact) rows of the memory picture, inside the budget, in allocation order.
BUDGET_PARTS = (
    ("weights", "weights_gib"),
    ("activation peak", "activation_peak_gib"),
    ("non-torch", "non_torch_gib"),
    ("CUDA graphs", "cudagraph_gib"),
    ("KV cache", "kv_cache_gib"),
)


@dataclass
class Budget:
    total_gib: float | None
    utilization: float | None
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def budget_gib(self) -> float | None:
        if self.total_gib is None or self.utilization is None:
            return None
        return round(self.total_gib * self.utilization, 2)

    @property
    def outside_gib(self) -> float | None:
        budget = self.budget_gib
        return None if budget is None else round(self.total_gib - budget, 2)  # type: ignore[operator]


@dataclass
class RunRecord:
    path: str
    engine: str | None
    version: str | None
    settings: dict[str, Any]
    budget: Budget
    kv_cache: dict[str, Any]
    phase_reached: str | None
    outcome: str
    root_cause: str | None
    failed_phase: str | None
    facts: dict[str, Any]

    @property
    def hardware(self) -> dict[str, Any]:
        """What the log says about the GPUs: name, count, memory of one device."""
        found = {key: self.facts[key] for key in HARDWARE if key in self.facts}
        if self.budget.total_gib is not None:
            found["gpu_total_gib"] = self.budget.total_gib
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "engine": self.engine, "version": self.version,
            "model": self.settings.get("model"),
            "hardware": self.hardware,
            "settings": self.settings,
            "memory": {
                "total_gib": self.budget.total_gib, "gpu_memory_utilization": self.budget.utilization,
                "budget_gib": self.budget.budget_gib, "outside_budget_gib": self.budget.outside_gib,
                **{fact: value for fact, value in self.budget.parts.items()},
            },
            "kv_cache": self.kv_cache,
            "phase_reached": self.phase_reached,
            "outcome": self.outcome,
            "root_cause": self.root_cause,
            "failed_phase": self.failed_phase,
        }


def record(diagnosis: Diagnosis) -> RunRecord:
    run = diagnosis.run
    facts = dict(run.facts)
    root = diagnosis.root_cause
    if root is not None:
        facts = {**facts, **root.facts}
    facts = {k: redact_secrets(v) if isinstance(v, str) else v for k, v in facts.items()}  # a model URL's password
    settings = {k: facts[k] for k in SETTINGS if k in facts}
    if "max_model_len" not in settings and "concurrency_tokens" in facts:
        settings["max_model_len"] = facts["concurrency_tokens"]
    total = _first(facts, "total_gib", "device_total_gib")
    kv = dict(facts)
    if "kv_cache_gib" not in kv and "available_kv_gib" in kv:
        kv["kv_cache_gib"] = kv["available_kv_gib"]
    if "activation_peak_gib" not in kv and all(_is_number(kv.get(k)) for k in ("peak_torch_gib", "weights_gib")):
        kv["activation_peak_gib"] = round(kv["peak_torch_gib"] - kv["weights_gib"], 2)  # V0 one-line summary
    parts = {fact: float(kv[fact]) for _, fact in BUDGET_PARTS if isinstance(kv.get(fact), (int, float))}
    budget = Budget(total, _first(facts, "gpu_memory_utilization", "mem_fraction_static"), parts)
    return RunRecord(
        path=run.name,
        engine=run.engine,
        version=facts.get("engine_version"),
        settings=settings,
        budget=budget,
        kv_cache={k: facts[k] for k in KV_FACTS if k in facts},
        phase_reached=run.phase_reached,
        outcome=diagnosis.outcome,
        root_cause=root.id if root else None,
        failed_phase=diagnosis.phase if root is not None and root.severity == "error" else None,
        facts=facts,
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _first(facts: dict[str, Any], *names: str) -> Any:
    for name in names:
        value = facts.get(name)
        if isinstance(value, (int, float)):
            return value
    return None


@dataclass
class Comparison:
    a: RunRecord
    b: RunRecord
    changed: dict[str, tuple[Any, Any]]
    memory_deltas: dict[str, tuple[Any, Any]]

    @property
    def knobs_changed(self) -> list[str]:
        return [k for k in self.changed if k != "model"]


def compare(a: RunRecord, b: RunRecord) -> Comparison:
    keys = [k for k in SETTINGS if k in a.settings or k in b.settings]
    changed = {k: (a.settings.get(k), b.settings.get(k)) for k in keys if a.settings.get(k) != b.settings.get(k)}
    mem_a, mem_b = a.as_dict()["memory"], b.as_dict()["memory"]
    deltas = {k: (mem_a.get(k), mem_b.get(k)) for k in dict.fromkeys([*mem_a, *mem_b]) if mem_a.get(k) != mem_b.get(k)}
    for key in KV_FACTS:
        if a.kv_cache.get(key) != b.kv_cache.get(key):
            deltas[key] = (a.kv_cache.get(key), b.kv_cache.get(key))
    return Comparison(a, b, changed, deltas)
