"""Run the corpus: every log with a sidecar, compared with what its sidecar expects.

A sidecar (``<name>.yaml`` beside ``<name>.log``) names where the log came from and what
logkb must find in it: the root cause id (or null for a healthy log), the phase, the line of
the root-cause message and optionally facts. ``logkb test`` and the test suite both use
:func:`run_corpus`; the per-signature table counts true positives, false positives and misses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
import yaml

from .catalog.files import yaml_problem
from .diagnose import Diagnosis, diagnose, exit_severities
from .scan import Scanner

FLOAT_TOLERANCE = 0.011


class Sample(msgspec.Struct):
    log: Path
    sidecar: Path
    meta: dict[str, Any]

    @property
    def expect(self) -> dict[str, Any]:
        return self.meta.get("expect") or {}

    @property
    def healthy(self) -> bool:
        return self.meta.get("kind") == "healthy"

    @property
    def gap(self) -> str | None:
        """A known miss, in words: the sample is kept as it is, its expectation stays the truth,
        and a catalog change that makes it pass must remove the note."""
        return self.meta.get("gap")

    @property
    def non_memory(self) -> bool:
        """A failure that is not a memory problem: no catalog diagnosis, ``uncatalogued`` allowed."""
        return self.meta.get("kind") == "non-memory"


class Outcome(msgspec.Struct):
    sample: Sample
    diagnosis: Diagnosis
    problems: list[str] = msgspec.field(default_factory=list)
    gap_problems: list[str] = msgspec.field(default_factory=list)  # what a sample with a known gap still misses

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def found(self) -> str | None:
        root = self.diagnosis.root_cause
        return root.id if root else None


class SidecarError(Exception):
    """A sidecar that cannot be read as a YAML mapping; the message names the file and line."""


def discover(roots: Iterable[Path]) -> list[Sample]:
    samples = []
    for root in roots:
        for sidecar in sorted(root.rglob("*.yaml")):
            log = _log_for(sidecar)
            if log is None:
                continue
            samples.append(Sample(log, sidecar, read_sidecar(sidecar)))
    return samples


def read_sidecar(sidecar: Path) -> dict[str, Any]:
    """A sidecar's mapping (safe-loaded); empty for an empty file."""
    try:
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise SidecarError(f"{sidecar}: not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        raise SidecarError(yaml_problem(sidecar, exc)) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise SidecarError(f"{sidecar}: line 1: a sidecar is a YAML mapping (source, kind, expect, ...)")
    return meta


def _log_for(sidecar: Path) -> Path | None:
    for suffix in (".log", ".log.gz", ".txt"):
        candidate = sidecar.with_name(sidecar.name[: -len(".yaml")] + suffix)
        if candidate.exists():
            return candidate
    return None


def check(scanner: Scanner, sample: Sample) -> Outcome:
    """The sample against its sidecar; for a sample with a known ``gap`` the misses are kept
    apart, and a gap that no longer misses anything is a problem (remove the note)."""
    outcome = _check(scanner, sample)
    if sample.gap is not None:
        if outcome.problems:
            outcome.gap_problems, outcome.problems = outcome.problems, []
        else:
            outcome.problems.append("known gap is closed: remove 'gap' from the sidecar")
    return outcome


def _check(scanner: Scanner, sample: Sample) -> Outcome:
    from .read import open_input

    with open_input(str(sample.log)) as stream:
        run = scanner.run(stream, str(sample.log))
    diagnosis = diagnose(run)
    outcome = Outcome(sample, diagnosis)
    expect = sample.expect
    wanted = expect.get("root_cause")
    if wanted is not None:
        wanted = scanner.catalog.current_id(wanted)  # a sidecar may name a renamed signature by its old id
    problems = outcome.problems
    severity = exit_severities({f.id: f.severity for f in run.findings}, diagnosis.explained_by)
    if sample.non_memory or (wanted is None and not sample.healthy):  # a failure no signature fits
        loud = [f"{f.id}@{f.line}" for f in run.findings
                if severity[f.id] in ("error", "warning") and f.id != "uncatalogued" and not f.signature.wrapper]
        if loud:
            problems.append(f"non-memory failure diagnosed as: {', '.join(loud)}")
        if wanted is None:
            return outcome
    elif sample.healthy or wanted is None:
        loud = [f"{f.id}@{f.line}" for f in run.findings if severity[f.id] in ("error", "warning")]
        if loud:
            problems.append(f"healthy log has problems: {', '.join(loud)}")
        return outcome
    root = diagnosis.root_cause
    if root is None or root.id != wanted:
        problems.append(f"root cause {root.id if root else None}, expected {wanted}")
        return outcome
    if expect.get("phase") and root.phase != expect["phase"]:
        problems.append(f"phase {root.phase}, expected {expect['phase']}")
    if expect.get("line") and expect["line"] not in root.lines:
        problems.append(f"root cause on line(s) {root.lines[:5]}, expected line {expect['line']}")
    facts = {**run.facts, **root.context_facts, **root.facts}
    for name, value in (expect.get("facts") or {}).items():
        if not _same(facts.get(name), value):
            problems.append(f"fact {name}={facts.get(name)!r}, expected {value!r}")
    return outcome


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        try:
            return math.isclose(float(got), float(want), abs_tol=FLOAT_TOLERANCE)
        except (TypeError, ValueError):
            return False
    return got == want


class Tally(msgspec.Struct):
    tp: int = 0
    fp: int = 0
    fn: int = 0


def confusion(outcomes: Iterable[Outcome]) -> dict[str, Tally]:
    """Per signature id: correct root causes, wrong ones, and misses."""
    table: dict[str, Tally] = {}
    for outcome in outcomes:
        wanted = outcome.sample.expect.get("root_cause")
        found = outcome.found
        if wanted is not None:
            table.setdefault(wanted, Tally())
        if found is not None:
            table.setdefault(found, Tally())
        if wanted is not None and found == wanted:
            table[wanted].tp += 1
        else:
            if wanted is not None:
                table[wanted].fn += 1
            if found is not None and not (outcome.sample.healthy and outcome.diagnosis.root_cause.severity == "info"):
                table[found].fp += 1
    return dict(sorted(table.items()))


def run_corpus(scanner: Scanner, roots: Iterable[Path]) -> list[Outcome]:
    return [check(scanner, sample) for sample in discover(roots)]
