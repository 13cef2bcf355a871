"""The run record: what one log says about its run, in a fixed shape that two runs can share.

Engine, version, model and hardware; the settings that decide GPU memory; every argument the
engine printed and the memory-relevant environment (``runlog.py``); the memory budget (total,
the utilization budget and what it holds, what lies outside it, what other processes held at
startup); the KV cache; the phase reached and the outcome; the first and last timestamps; and
one record per process or rank. ``compare`` puts two records side by side so an operator can
change one knob at a time and see what it did.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .catalog.vocabulary import RecordFacts, builtin_vocabulary
from .diagnose import Diagnosis
from .findings import Run
from .redact import redact_secrets
from .runlog import ProcessLog, RunLog, process_key

# Arguments that name the run rather than tune it: shown when they change, never counted as knobs.
NOT_KNOBS = frozenset({"model", "model_tag", "model_id", "model_path", "served_model_name", "tokenizer", "host",
                       "hostname", "port", "master_port", "master_addr", "shard_uds_path", "seed"})


def record_facts() -> RecordFacts:
    """Which facts are settings, hardware and KV cache, in the order shown (``kb/facts.yaml``)."""
    return builtin_vocabulary().record


# (label, fact) rows of the memory picture, inside the budget, in allocation order.
BUDGET_PARTS = (
    ("weights", "weights_gib"),
    ("activation peak", "activation_peak_gib"),
    ("non-torch", "non_torch_gib"),
    ("CUDA graphs", "cudagraph_gib"),
    ("KV cache", "kv_cache_gib"),
)


class Budget(msgspec.Struct):
    total_gib: float | None
    utilization: float | None
    parts: dict[str, float] = msgspec.field(default_factory=dict)

    @property
    def budget_gib(self) -> float | None:
        if self.total_gib is None or self.utilization is None:
            return None
        return round(self.total_gib * self.utilization, 2)

    @property
    def outside_gib(self) -> float | None:
        budget = self.budget_gib
        return None if budget is None else round(self.total_gib - budget, 2)  # type: ignore[operator]


class RunRecord(msgspec.Struct):
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
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    argument_sources: list[str] = msgspec.field(default_factory=list)
    environment: dict[str, str] = msgspec.field(default_factory=dict)
    startup: dict[str, float] = msgspec.field(default_factory=dict)  # free and total memory the engine found at startup
    gpus: list[dict[str, Any]] = msgspec.field(default_factory=list)  # rows of a pasted nvidia-smi table
    started: str | None = None
    ended: str | None = None
    processes: list[ProcessRecord] = msgspec.field(default_factory=list)

    @property
    def hardware(self) -> dict[str, Any]:
        """What the log says about the GPUs: name, count, memory of one device."""
        found = {key: self.facts[key] for key in record_facts().hardware if key in self.facts}
        if self.gpus:
            found.setdefault("gpu_name", self.gpus[0]["name"])
            found.setdefault("gpu_count", len(self.gpus))
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
                **startup_memory(self.startup),
            },
            "kv_cache": self.kv_cache,
            "phase_reached": self.phase_reached,
            "outcome": self.outcome,
            "root_cause": self.root_cause,
            "failed_phase": self.failed_phase,
            "arguments": self.arguments,
            "argument_sources": self.argument_sources,
            "environment": self.environment,
            "gpus": self.gpus,
            "started": self.started,
            "ended": self.ended,
            "processes": [p.as_dict() for p in self.processes],
        }


class ProcessRecord(msgspec.Struct):
    """One process, rank or stage of the run: what it printed about its start and the facts
    the scan read on its lines."""

    key: str  # the name across runs: "EngineCore_DP0", "VllmWorker rank=1", "rank1", "TP0"
    tag: str  # as printed: "(EngineCore_DP0 pid=43)"
    arguments: dict[str, Any]
    argument_sources: list[str]
    environment: dict[str, str]
    startup: dict[str, float]
    facts: dict[str, Any]
    problems: list[dict[str, Any]] = msgspec.field(default_factory=list)  # incidents on its lines: id, line, phase, facts

    @property
    def memory(self) -> dict[str, Any]:
        facts = self.facts
        if "kv_cache_gib" not in facts and "available_kv_gib" in facts:
            facts = {**facts, "kv_cache_gib": facts["available_kv_gib"]}
        parts = {fact: facts[fact] for _, fact in BUDGET_PARTS if _is_number(facts.get(fact))}
        return {**parts, **startup_memory(self.startup)}

    @property
    def kv_cache(self) -> dict[str, Any]:
        return {k: self.facts[k] for k in record_facts().kv_cache if k in self.facts}

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "tag": self.tag, "arguments": self.arguments,
                "argument_sources": self.argument_sources, "environment": self.environment,
                "memory": self.memory, "kv_cache": self.kv_cache, "facts": self.facts, "problems": self.problems}


def startup_memory(startup: dict[str, float]) -> dict[str, float]:
    """Free memory at startup and what other processes (and the driver) held then."""
    if "free_gib" not in startup:
        return {}
    found = {"free_at_start_gib": startup["free_gib"]}
    if "total_gib" in startup:
        found["held_by_others_at_start_gib"] = round(startup["total_gib"] - startup["free_gib"], 2)
    if "requested_gib" in startup:
        found["requested_gib"] = startup["requested_gib"]
    return found


def record(diagnosis: Diagnosis, log: RunLog | None = None) -> RunRecord:
    """The record of a diagnosed run; ``log`` adds what :class:`RunLog` read on the way."""
    run = diagnosis.run
    facts = dict(run.facts)
    root = diagnosis.root_cause
    if root is not None:
        facts = {**facts, **root.facts}
    facts = _redacted(facts)  # a model URL's password
    log = log or RunLog()
    processes = _processes(log, run)
    arguments: dict[str, Any] = {}
    sources: list[str] = []
    environment: dict[str, str] = {}
    for process in sorted(log.processes.values(), key=lambda p: p.tag != ""):  # untagged lines first
        for name, value in process.arguments.items():
            arguments.setdefault(name, value)
        sources.extend(s for s in process.argument_sources if s not in sources)
        for name, value in process.environment.items():
            environment.setdefault(name, value)
    lists = record_facts()
    settings = {k: facts[k] for k in lists.settings if k in facts}
    settings.update({k: arguments[k] for k in lists.settings if k not in settings and arguments.get(k) is not None})
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
        kv_cache={k: facts[k] for k in lists.kv_cache if k in facts},
        phase_reached=run.phase_reached,
        outcome=diagnosis.outcome,
        root_cause=root.id if root else None,
        failed_phase=diagnosis.phase if root is not None and root.severity == "error" else None,
        facts=facts,
        arguments=arguments,
        argument_sources=sources,
        environment=environment,
        startup=next((p.startup for p in log.processes.values() if p.startup), {}),
        gpus=[gpu.as_dict() for gpu in log.gpus],
        started=log.started,
        ended=log.ended,
        processes=processes,
    )


def _processes(log: RunLog, run: Run) -> list[ProcessRecord]:
    """One record per tagged process that printed or showed anything the record keeps."""
    problems: dict[str, list[dict[str, Any]]] = {}
    for finding in run.findings:
        for incident in finding.incidents:
            if incident.origin:
                problems.setdefault(incident.origin, []).append(
                    {"id": finding.id, "line": incident.line, "phase": incident.phase, "facts": _redacted(incident.facts)})
    tags = [t for t in dict.fromkeys([*log.processes, *run.origin_facts, *problems]) if t]
    records = []
    for tag in tags:
        printed = log.processes.get(tag) or ProcessLog(tag)
        facts = _redacted(run.origin_facts.get(tag, {}))
        if not (printed.arguments or printed.environment or printed.startup or facts or tag in problems):
            continue
        records.append(ProcessRecord(process_key(tag, tags), tag, printed.arguments, printed.argument_sources,
                                     printed.environment, printed.startup, facts,
                                     sorted(problems.get(tag, []), key=lambda p: p["line"])))
    return records


def _redacted(facts: dict[str, Any]) -> dict[str, Any]:
    return {k: redact_secrets(v) if isinstance(v, str) else v for k, v in facts.items()}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _first(facts: dict[str, Any], *names: str) -> Any:
    for name in names:
        value = facts.get(name)
        if isinstance(value, (int, float)):
            return value
    return None


class ProcessComparison(msgspec.Struct):
    """One process present in both runs: its own changed arguments and memory deltas."""

    key: str
    changed: dict[str, tuple[Any, Any]]
    memory_deltas: dict[str, tuple[Any, Any]]

    @property
    def knobs_changed(self) -> list[str]:
        return _knobs(self.changed)


class Comparison(msgspec.Struct):
    a: RunRecord
    b: RunRecord
    changed: dict[str, tuple[Any, Any]]
    memory_deltas: dict[str, tuple[Any, Any]]
    processes: list[ProcessComparison] = msgspec.field(default_factory=list)  # when both runs have several
    only_in_a: list[str] = msgspec.field(default_factory=list)  # process keys
    only_in_b: list[str] = msgspec.field(default_factory=list)

    @property
    def knobs_changed(self) -> list[str]:
        return _knobs(self.changed)


ENV_PREFIX = "env."  # an environment variable's key among the changes: "env.PYTORCH_CUDA_ALLOC_CONF"


def _knobs(changed: dict[str, tuple[Any, Any]]) -> list[str]:
    return [k for k in changed if k not in NOT_KNOBS]


def compare(a: RunRecord, b: RunRecord) -> Comparison:
    """Every setting, argument and environment variable that differs, then the memory."""
    known = record_facts().settings
    keys = [k for k in known if k in a.settings or k in b.settings]
    changed = {k: (a.settings.get(k), b.settings.get(k)) for k in keys if a.settings.get(k) != b.settings.get(k)}
    changed.update(_changed_arguments(a.arguments, a.argument_sources, b.arguments, b.argument_sources, skip=known))
    changed.update(_changed_environment(a.environment, b.environment))
    mem_a, mem_b = a.as_dict()["memory"], b.as_dict()["memory"]
    deltas = _deltas(mem_a, mem_b)
    deltas.update(_deltas(a.kv_cache, b.kv_cache))
    comparison = Comparison(a, b, changed, deltas)
    if len(a.processes) > 1 and len(b.processes) > 1:
        ours = {p.key: p for p in a.processes}
        theirs = {p.key: p for p in b.processes}
        for key, one in ours.items():
            other = theirs.get(key)
            if other is None:
                continue
            process_changes = _changed_arguments(one.arguments, one.argument_sources, other.arguments,
                                                 other.argument_sources)
            process_changes.update(_changed_environment(one.environment, other.environment))
            process_deltas = _deltas(one.memory, other.memory)
            process_deltas.update(_deltas(one.kv_cache, other.kv_cache))
            if process_changes or process_deltas:
                comparison.processes.append(ProcessComparison(key, process_changes, process_deltas))
        comparison.only_in_a = [k for k in ours if k not in theirs]
        comparison.only_in_b = [k for k in theirs if k not in ours]
    return comparison


def _changed_arguments(a: dict[str, Any], a_sources: list[str], b: dict[str, Any], b_sources: list[str],
                       skip: tuple[str, ...] = ()) -> dict[str, tuple[Any, Any]]:
    """Arguments that differ. One that only one run shows counts when both printed the same
    kind of dump: there, a missing name means its default (vLLM's "non-default args")."""
    same_dump = bool(set(a_sources) & set(b_sources))
    changed = {}
    for name in dict.fromkeys([*a, *b]):
        if name in skip or (not same_dump and (name not in a or name not in b)):
            continue
        if a.get(name) != b.get(name):
            changed[name] = (a.get(name), b.get(name))
    return changed


def _changed_environment(a: dict[str, str], b: dict[str, str]) -> dict[str, tuple[Any, Any]]:
    """Variables that differ; one only one run lists counts when both logs list an environment."""
    both_listed = bool(a) and bool(b)
    return {ENV_PREFIX + name: (a.get(name), b.get(name)) for name in dict.fromkeys([*a, *b])
            if a.get(name) != b.get(name) and (both_listed or (name in a and name in b))}


def _deltas(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {k: (a.get(k), b.get(k)) for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)}
