"""Symptom classes: what a line shows happened (the GPU ran out of memory, host memory ran
out), whichever layer's words say it, and which problem signature owns a symptom in a phase.

Symptom entries (``kind: symptom`` in the catalog) list the wordings as patterns, each with
its ``form`` (torch, cuda-runtime, nccl, cublas, ggml, metal, ...), canonical message starts
for a line cut short at the end of the input, and exception classes that mean the symptom
even without their message. Problem signatures declare ``match.owns`` rules; the most
specific rule that accepts the symptom, its form and the phase wins.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..catalog import OwnRule, ProblemSignature, Signature, SymptomClass
from ..findings import ENGINE_AGNOSTIC
from .context import engine_fits
from .lines import search

MIN_PREFIX = 8  # characters of a canonical message start that a cut line must show
_EXCEPTION = re.compile(
    r"^(?P<type>(?:[A-Za-z_][\w.]{0,120}?)?(?:Error|Exception|Interrupt|Exit|Failure)"
    r"|(?:[a-z_]\w{0,40}\.){1,6}(?:errors|exceptions)\.[A-Z]\w{0,60})"
    r"(?:\((?P<cause>[A-Za-z_][\w.]{0,120})\))?(?::\s*(?P<message>.*))?$")
# (the second form: a class in an errors or exceptions module, whatever its name says:
# triton.runtime.errors.OutOfResources; the cause in brackets: a wrapper that re-raises the
# exception of a remote task, Ray's "ray.exceptions.RayTaskError(OutOfMemoryError)")


class SymptomMatch(msgspec.Struct, eq=False):
    name: str  # the symptom class: "gpu-oom", "host-oom"
    form: str | None  # whose wording: "nccl", "torch", ...
    partial: str | None = None  # why the evidence is partial: the message is cut or missing


def exception_line(text: str) -> re.Match[str] | None:
    """A Python exception line (``ValueError: ...``, ``torch.OutOfMemoryError:``)."""
    return _EXCEPTION.match(text.strip())


def _belongs(sig: Signature, engine: str | None) -> bool:
    """An owner for this log: one of its engines, or engine-agnostic when the engine is unknown."""
    if engine is None:
        return bool(set(sig.engines) & ENGINE_AGNOSTIC)
    return engine_fits(sig, engine)


# Forms only one runtime prints, so they name the engine of a log that names none (Ollama relays
# ggml's reports, and among LLM servers only ggml's Vulkan and Kompute backends use Vulkan; the
# Metal and allocation forms are printed by several runtimes).
RUNTIME_FORMS = {"ggml": "llamacpp", "vulkan": "llamacpp"}


class Symptoms:
    """The catalog's symptom classes and owner rules, ready to apply."""

    def __init__(self, signatures: list[Signature]) -> None:
        self.classes = [s for s in signatures if isinstance(s, SymptomClass)]
        self._by_type = {t: s for s in self.classes for t in s.symptom.exception_types}
        self._owners: list[tuple[ProblemSignature, OwnRule]] = [
            (sig, rule) for sig in signatures if isinstance(sig, ProblemSignature) for rule in sig.owns]

    def of_exception(self, text: str) -> SymptomMatch | None:
        """An exception whose class means a symptom, its message missing or not recognised,
        unless the symptom's exclusions name the message (a class name that another layer reuses
        for something else)."""
        match = exception_line(text)
        if match is None:
            return None
        sig = self._by_type.get(match.group("type")) or self._by_type.get(match.group("cause") or "")
        if sig is None or any(search(ex, text, sig) for ex in sig.exclude):
            return None
        reason = "the exception's message is missing" if not (match.group("message") or "").strip() else \
            "only the exception's class shows it"
        return SymptomMatch(sig.symptom.name, sig.symptom.exception_form, reason)

    def of_cut_line(self, text: str) -> SymptomMatch | None:
        """A last line cut short: after any exception class, the start of a canonical message."""
        match = exception_line(text)
        rest = (match.group("message") or "") if match else text
        rest = rest.strip()
        if len(rest) < MIN_PREFIX:
            return None
        for sig in self.classes:
            if any(prefix.startswith(rest) for prefix in sig.symptom.prefixes):
                return SymptomMatch(sig.symptom.name, None, "the message is cut short")
        return None

    def owner(self, symptom: str, form: str | None, phase: str | None, engine: str | None,
              facts: dict[str, Any], innermost_frame: str | None = None) -> ProblemSignature | None:
        """The problem signature that diagnoses this symptom here: a signature of the log's
        own engine before an engine-agnostic one, then the most specific rule, then catalog
        order. A rule's ``requires`` must hold on ``facts``. With ``innermost_frame`` (a
        traceback cut before its exception) only rules that accept a cut traceback ending in
        that frame."""
        best: tuple[int, int, int] | None = None
        chosen = None
        for order, (sig, rule) in enumerate(self._owners):
            if innermost_frame is None and rule.cut_only:
                continue
            if innermost_frame is not None and not (rule.cut_traceback and (
                    search(rule.innermost_frame, innermost_frame, sig) if rule.innermost_frame is not None
                    else bool(rule.phases))):
                continue
            if not rule.accepts(symptom, form, phase) or not _belongs(sig, engine or RUNTIME_FORMS.get(form or "")) \
                    or not sig.requirement_holds(rule.requires, facts):
                continue
            rank = (int(engine is not None and engine in sig.engines), rule.specificity, -order)
            if best is None or rank > best:
                best, chosen = rank, sig
        return chosen
