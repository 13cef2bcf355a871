"""What a scan found: incidents (one error event's evidence for one signature), grouped into
findings (one per signature), and the :class:`Run` that holds them with the log's facts.

An incident keeps its own line, phase, numbers and the evidence it rests on; a finding shows
its first incident and counts the others, so a crash loop with three OOMs is one finding with
three incidents. :func:`group` builds the findings from the incidents once the log is read:
nothing rewrites a finding afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from .catalog import ProblemSignature
from .catalog.load import build

ENGINE_AGNOSTIC = frozenset({"any", "pytorch", "cuda", "linux", "nccl"})  # layers every engine runs on


# An engine that runs another inside it: Ollama's runner prints llama.cpp's loading lines, often
# many more of them than Ollama's own, but the knobs that log's user has are Ollama's.
HOST_ENGINES = {"llamacpp": "ollama"}


def most_seen_engine(counts: dict[str, int], writers: Sequence[str] = ()) -> str | None:
    """The engine whose entries and frames a log showed most, a serving engine before the
    layers every engine runs on (vLLM's log also shows PyTorch's errors), and the engine that
    hosts it where the log shows that one too. Where the log shows no serving engine, the
    first engine whose own logging header its lines had (``writers``): weaker evidence, as an
    engine embedding another (early SGLang) may log in the other's format."""
    specific = {e: n for e, n in counts.items() if e not in ENGINE_AGNOSTIC} or counts
    seen = max(specific.items(), key=lambda kv: kv[1])[0] if specific else None
    if writers and (seen is None or seen in ENGINE_AGNOSTIC):
        return writers[0]
    host = HOST_ENGINES.get(seen or "")
    return host if host is not None and counts.get(host) else seen

MAX_INCIDENTS = 32  # incidents kept per finding (the count goes on)
MAX_LINES_KEPT = 32  # line numbers kept per finding
MAX_PROCESSES = 64  # process or rank tags whose facts are kept apart

# How much a diagnosis rests on, strongest first.
TIERS = ("exact", "class", "partial", "fuzzy")


class Incident(msgspec.Struct):
    """One signature's evidence in one error event."""

    line: int
    text: str
    facts: dict[str, Any]
    tier: str  # exact | class | partial | fuzzy
    confidence: float
    phase: str
    phase_source: str  # fixed | frames | marker | followers | fallback | unknown
    basis: str  # one phrase: what the diagnosis rests on
    frames: list[str] = msgspec.field(default_factory=list)
    origin: str | None = None  # process or rank tag: "(EngineCore_DP0 pid=1)", "[rank0]"
    context_facts: dict[str, Any] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)
    wording_severity: str | None = None
    occurrences: int = 1
    last_line: int = 0
    lines: list[int] = msgspec.field(default_factory=list)


class Finding(msgspec.Struct):
    """A signature and the incidents it was found in; its line, phase and facts are those of
    its first incident."""

    signature: ProblemSignature
    incidents: list[Incident]
    occurrences: int
    lines: list[int]
    last_line: int

    @property
    def first(self) -> Incident:
        return self.incidents[0]

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def severity(self) -> str:
        return self.first.wording_severity or self.signature.severity

    @property
    def line(self) -> int:
        return self.first.line

    @property
    def text(self) -> str:
        return self.first.text

    @property
    def facts(self) -> dict[str, Any]:
        return self.first.facts

    @property
    def context_facts(self) -> dict[str, Any]:
        return self.first.context_facts

    @property
    def phase(self) -> str:
        return self.first.phase

    @property
    def phase_source(self) -> str:
        return self.first.phase_source

    @property
    def frames(self) -> list[str]:
        return self.first.frames

    @property
    def notes(self) -> list[str]:
        return self.first.notes

    @property
    def confidence(self) -> float:
        return self.first.confidence

    @property
    def tier(self) -> str:
        return self.first.tier

    @property
    def match(self) -> str:
        """The report's older field: ``fuzzy`` for a fuzzy hit, else ``regex``."""
        return "fuzzy" if self.tier == "fuzzy" else "regex"

    def all_facts(self, run_facts: dict[str, Any], foreign: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Facts for this finding's expressions: the run's, then those in force here, then its
        own; ``foreign``: names that only another process set (a sibling pipeline stage)."""
        shared = {k: v for k, v in {**run_facts, **self.context_facts}.items() if k not in foreign}
        return {**shared, **self.facts}


class Run(msgspec.Struct):
    name: str
    lines: int = 0
    facts: dict[str, Any] = msgspec.field(default_factory=dict)
    fact_lines: dict[str, int] = msgspec.field(default_factory=dict)
    origin_facts: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)  # per process or rank tag
    fact_origins: dict[str, str | None] = msgspec.field(default_factory=dict)  # the tag of the line that last set a fact
    stages: set[str] = msgspec.field(default_factory=set)  # vLLM-Omni pipeline stage tags seen ("[Stage-0]")
    phases: list[tuple[str, int]] = msgspec.field(default_factory=list)
    findings: list[Finding] = msgspec.field(default_factory=list)
    prompt_lines_skipped: int = 0
    fuzzy_lines_scored: int = 0
    fuzzy_lines_dropped: int = 0
    engine_counts: dict[str, int] = msgspec.field(default_factory=dict)
    engine_writers: list[str] = msgspec.field(default_factory=list)  # engines whose logging header lines had

    @property
    def phase_reached(self) -> str | None:
        return self.phases[-1][0] if self.phases else None

    @property
    def engine(self) -> str | None:
        if "engine" in self.facts:
            return self.facts["engine"]
        return most_seen_engine(self.engine_counts, self.engine_writers)

    @property
    def incidents(self) -> int:
        return sum(len(f.incidents) for f in self.findings)


def group(incidents: Iterable[tuple[ProblemSignature, Incident]], keep: Callable[[ProblemSignature], bool]) -> list[Finding]:
    """Findings from (signature, incident) pairs in line order, one per signature kept."""
    by_id: dict[str, Finding] = {}
    for sig, incident in sorted(incidents, key=lambda pair: pair[1].line):
        if not keep(sig):
            continue
        finding = by_id.get(sig.id)
        if finding is None:
            by_id[sig.id] = Finding(sig, [incident], incident.occurrences, incident.lines[:MAX_LINES_KEPT],
                                    incident.last_line)
            continue
        if len(finding.incidents) < MAX_INCIDENTS:
            finding.incidents.append(incident)
        finding.occurrences += incident.occurrences
        finding.lines.extend(incident.lines[:MAX_LINES_KEPT - len(finding.lines)])
        finding.last_line = max(finding.last_line, incident.last_line)
    return sorted(by_id.values(), key=lambda f: f.line)


def _uncatalogued() -> ProblemSignature:
    """The pseudo-signature of an error that no catalog signature explains: reported so that
    an operator sees what a wrapper points at, never with memory fixes."""
    doc: dict[str, Any] = {
        "id": "uncatalogued",
        "title": "An error that no catalog signature explains",
        "kind": "problem",
        "severity": "warning",
        "status": "stable",
        "summary": "The log shows an exception or an error-level message that logkb has no signature for; "
                   "it is not diagnosed as a GPU-memory failure.",
        "cause": "No signature in the catalog matches this error, by its wording or by its symptom and phase. "
                 "It may be the real cause that a later wrapper message (engine core or shard failed) points at.",
        "checks": [
            {"id": "read-the-error", "title": "What does the error line itself say?",
             "look": "Read the error line and the frames just above it: a missing file, a wrong argument, an "
                     "unsupported model or a driver problem is fixed where it is named, not by memory settings."},
            {"id": "first-error", "title": "Is this the first error in the log?",
             "look": "Later errors are often consequences of the first one; start from the earliest."},
        ],
        "fixes": [],
        "verify": "The next run gets past the step that printed this error.",
        "references": [],
        "engines": [{"name": "any"}],
        "match": {"patterns": []},
    }
    sig = build(doc, Path("uncatalogued"), literals=[], reviewed=True)
    assert isinstance(sig, ProblemSignature)
    return sig


UNCATALOGUED = _uncatalogued()
