"""Error events and the incidents they resolve to.

An event is a stretch of the log that belongs to one failure: its error lines, its traceback
(header, frames, chained exceptions), a native stack printed after it, and what follows it
without a break. It opens at an error-ish line and ends at the first line that does not
continue it (:func:`continues_event`, the rule ``logkb watch`` shares), or FRAME_GAP lines on. When it ends it is resolved, from
the strongest evidence down:

1. exact: a signature's own wording matched on a line of the event;
2. class x context: a symptom (any layer's out-of-memory) in a phase and engine that a
   signature owns (``match.owns``), when only generic signatures matched;
3. partial: the symptom from a cut or bare exception line, or a traceback cut before its
   exception line whose frames show a phase that a signature owns (unless an error line no
   signature explains came before it in the event: that error is what the traceback reports);
4. fuzzy: a gated line close to a signature's template;
5. otherwise its last exception, else its first native fatal statement (a failed assertion,
   ``CUDA error: ...``), else its first error-level line, else a traceback that an error
   announced (its header, or frames logged at error level) cut before its exception line is
   ``uncatalogued``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from ..catalog import Pattern, ProblemSignature
from ..findings import MAX_LINES_KEPT, UNCATALOGUED, Incident
from .context import FRAME_GAP, WEIGHT_LOADING, forward_is_workload
from .lines import ERROR_WORDS, IPYTHON_SOURCE_LINES, NATIVE_FRAME, search
from .symptoms import SymptomMatch, Symptoms, exception_line

MAX_EVENT_ITEMS = 16  # exception, error and gated lines kept per event
NEAR_LINES = 60  # an error-level line this close after a diagnosis is taken as part of it
CUT_SLACK = 2  # a traceback whose last frame is this close to the end of the input was cut

CLASS_CONFIDENCE = 0.8
PARTIAL_CONFIDENCE = 0.6
CUT_TRACEBACK_CONFIDENCE = 0.4
OFF_RANGE_CONFIDENCE = 0.6  # multiplier when the log's engine version is outside the range

# Lines that continue a traceback: indented frames and source, blank lines, chained-exception
# headers, exception lines, caret markers.
_TRACEBACK_TAIL = re.compile(
    r"^(?:\s|$|Traceback \(most recent call last\)|During handling of the above exception"
    r"|The above exception was the direct cause|(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Interrupt|Exit)\b|\^+\s*$)"
)


# A native runtime's fatal statement, which carries no log level: ggml's and C's failed
# assertions, CUDA/HIP runtime errors as ggml and PyTorch print them, CPython's fatal errors.
# Only lines that are candidates already (they hold an error word). Not C++'s "terminate called
# after throwing": it re-announces an exception whose text ("what(): ...") was matched already.
_FATAL = re.compile(
    r"GGML_ASSERT\(.{1,300}\) failed|Assertion [`'].{1,300}' failed|\b(?:CUDA|HIP|cuBLAS|CUBLAS) error: \S"
    r"|^Fatal Python error: "
)


def is_fatal(text: str) -> bool:
    return _FATAL.search(text) is not None


def continues_traceback(text: str) -> bool:
    """True for a line that is part of the traceback before it."""
    return _TRACEBACK_TAIL.match(text) is not None


def continues_event(text: str) -> bool:
    """True for a line that is part of the event before it (see the module docstring)."""
    # Further error lines continue an error burst too (llama.cpp prints the failed allocation,
    # then the buffer, then the caller).
    return continues_traceback(text) or ERROR_WORDS.search(text) is not None or NATIVE_FRAME.match(text) is not None


class Seen(msgspec.Struct, eq=False):
    """A line of an event and what was in force there."""

    line: int
    text: str
    phase: str
    phase_source: str
    frames: list[str]
    origin: str | None
    context_facts: dict[str, Any]


class Event(msgspec.Struct, eq=False):
    first_line: int
    last_line: int
    hits: dict[str, tuple[ProblemSignature, Incident]] = msgspec.field(default_factory=dict)
    symptoms: list[tuple[SymptomMatch, Seen]] = msgspec.field(default_factory=list)
    exceptions: list[Seen] = msgspec.field(default_factory=list)  # exception lines no signature matched
    errors: list[Seen] = msgspec.field(default_factory=list)  # error-level lines no signature matched
    fatals: list[Seen] = msgspec.field(default_factory=list)  # native fatal statements no signature matched
    gated: list[Seen] = msgspec.field(default_factory=list)  # lines with error words, for the fuzzy pass
    frames: list[str] = msgspec.field(default_factory=list)
    # Hits whose wording declares ``requires``: signature id -> (the condition's key, the hit's
    # captures). The condition must still hold on the facts known when the event ends: a
    # line that settles it (PyTorch's hint under its CUDA error) may follow the hit.
    conditional: dict[str, tuple[str, dict[str, Any]]] = msgspec.field(default_factory=dict)
    frame_phase: str | None = None
    fallback_phase: str | None = None  # the phase fallback frame maps name (a model's forward pass)
    native_phase: str | None = None  # the phase the innermost mapped frame of a native stack after the error names
    marker_phase: str | None = None  # the phase markers had set when the event began
    last_frame_line: int = 0
    last_frame_origin: str | None = None  # the process tag of the line the last frame came on
    last_frame_ipython: bool = False  # IPython prints source lines under it (IPYTHON_SOURCE_LINES)
    last_exception_line: int = 0
    header: tuple[str, Seen] | None = None  # the exception class an IPython traceback header names, and the header
    # The traceback is an error's: its "Traceback (most recent call last):" header was seen, or
    # its frames were logged at error level (a paste that starts below the header).
    traceback_error: bool = False
    # Some frame was logged with a logging header below error level (a stack that a warning or
    # a debug dump prints): frames without a traceback header are then not taken for an error's.
    frames_logged: bool = False

    def touch(self, line_no: int) -> None:
        self.last_line = max(self.last_line, line_no)

    def add_hit(self, sig: ProblemSignature, incident: Incident) -> None:
        existing = self.hits.get(sig.id)
        if existing is None:
            self.hits[sig.id] = (sig, incident)
            return
        _, first = existing
        first.occurrences += 1
        first.last_line = incident.line
        if len(first.lines) < MAX_LINES_KEPT:
            first.lines.append(incident.line)

    def drop_unmet(self, facts: dict[str, Any]) -> None:
        """Forget the conditional hits whose condition no longer holds on ``facts``."""
        for sig_id, (key, values) in list(self.conditional.items()):
            sig = self.hits[sig_id][0]
            if not sig.requirement_holds(key, {**facts, **values}):
                del self.hits[sig_id], self.conditional[sig_id]

    def keep(self, items: list[Any], item: Any) -> None:
        if len(items) < MAX_EVENT_ITEMS:
            items.append(item)

    def settle_phase_from_frames(self, engine: str | None) -> None:
        """An error logged before its traceback (vLLM logs the error, then the traceback; a
        paste may put the exception first; ggml and Go print the native stack after the
        error): where nothing decided the phase of a line, the frames of the event's
        traceback do, and in a program of ``engine`` a model's forward pass does too, also over
        a weight-loading marker (see forward_is_workload)."""
        mapped = self.frame_phase or self.native_phase
        fallback = self.fallback_phase if forward_is_workload(engine) else None
        if mapped is None and fallback is None:
            return
        phase, source = (mapped, "frames") if mapped else (fallback, "fallback")
        over_loading = source == "fallback"
        for _, incident in self.hits.values():
            if _frames_decide(incident.phase, incident.phase_source, over_loading):
                incident.phase, incident.phase_source = phase, source
        for seen in (*(seen for _, seen in self.symptoms), *self.exceptions, *self.errors, *self.fatals):
            if _frames_decide(seen.phase, seen.phase_source, over_loading):
                seen.phase, seen.phase_source = phase, source

    def phase_of_frames(self, engine: str | None) -> tuple[str, str]:
        """The phase of a traceback read from its frames alone: a frame map's, else the
        markers', else, in a program of ``engine``, a fallback frame map's (see
        forward_is_workload)."""
        if self.frame_phase:
            return self.frame_phase, "frames"
        if self.marker_phase:
            return self.marker_phase, "marker"
        if self.fallback_phase and forward_is_workload(engine):
            return self.fallback_phase, "fallback"
        return "unknown", "unknown"

    @property
    def cut_before_exception(self) -> bool:
        """A traceback whose frames run on after the last exception line."""
        return bool(self.frames) and self.last_frame_line > self.last_exception_line

    def cut_by_input_end(self, input_ended_at: int | None) -> bool:
        """A traceback cut before its exception line because the input ends there."""
        if input_ended_at is None or not self.cut_before_exception:
            return False
        reach = max(self.last_line, self.last_frame_line + (IPYTHON_SOURCE_LINES if self.last_frame_ipython else 0))
        return reach >= input_ended_at - CUT_SLACK


class Resolver(msgspec.Struct, eq=False):
    """Turns a closed event into incidents (see the module docstring)."""

    symptoms: Symptoms
    generic: frozenset[str]  # ids some other signature explains: a symptom's owner may replace them
    engine: Callable[[], str | None]
    fuzzy: Callable[[list[Seen], set[str]], list[tuple[ProblemSignature, Incident]]]
    facts: Callable[[], dict[str, Any]]  # the run's facts so far

    def resolve(self, event: Event, input_ended_at: int | None, found: set[str],
                last_incident: int = 0, provisional: bool = False) -> list[tuple[ProblemSignature, Incident]]:
        """``input_ended_at``: the last line of the input, when the event reaches it;
        ``last_incident``: the line of the latest incident before this event; ``provisional``:
        the event is still open (pipe mode shows what it holds so far; no fuzzy pass yet)."""
        out = list(event.hits.values())
        specific = [sig for sig, _ in out if sig.id not in self.generic and not sig.wrapper]
        if not specific:
            owned = self._owned(event, input_ended_at)
            if owned is not None and owned[0].id not in event.hits:
                # The numbers of the message it explains (the generic wording on the same line).
                for _, generic in out:
                    if generic.line == owned[1].line:
                        owned[1].facts = {**generic.facts, **owned[1].facts}
                out.append(owned)
        if not any(not sig.wrapper for sig, _ in out):
            fuzzy = self.fuzzy(event.gated, found) if not out and not provisional else []
            out.extend(fuzzy)
            if all(sig.wrapper for sig, _ in fuzzy):  # a wrapper found by its template still points elsewhere
                near = bool(last_incident) and event.first_line - last_incident <= NEAR_LINES
                uncatalogued = self._uncatalogued(event, input_ended_at, wrapped=bool(out) or near)
                if uncatalogued is not None:
                    out.append((UNCATALOGUED, uncatalogued))
        return out

    def _owned(self, event: Event, input_ended_at: int | None) -> tuple[ProblemSignature, Incident] | None:
        engine, facts = self.engine(), self.facts
        candidates = list(event.symptoms)
        if input_ended_at is not None:
            last = max((s for s in (*event.exceptions, *event.errors, *event.gated)), key=lambda s: s.line, default=None)
            if last is not None and last.line >= input_ended_at:
                cut = self.symptoms.of_cut_line(last.text)
                if cut is not None:
                    candidates.append((cut, last))
            headed = self._headed(event, input_ended_at)
            if headed is not None:
                candidates.append(headed)
        for symptom, seen in candidates:
            owner = self.symptoms.owner(symptom.name, symptom.form, seen.phase, engine, seen.context_facts)
            if owner is None or any(search(ex, seen.text, owner) for ex in owner.exclude):
                continue  # the owner's own exclusions hold for its symptoms too
            where = f" in {seen.phase}" if seen.phase != "unknown" else ""
            form = f" ({symptom.form})" if symptom.form else ""
            if symptom.partial:
                basis = f"partial: {symptom.partial}; its words show {symptom.name}{form}{where}"
                tier, confidence = "partial", PARTIAL_CONFIDENCE
            else:
                basis = f"class: {symptom.name}{form}{where}" + (" frames" if seen.phase_source in ("frames", "fallback") else "")
                tier, confidence = "class", CLASS_CONFIDENCE
            return owner, _incident(seen, tier, confidence, basis)
        # A traceback cut before its exception is read from its frames only when nothing in the
        # event says what failed: an error line no signature explains (a JIT build's
        # "collect2: error: ld returned 1 exit status") is what the traceback reports.
        if event.cut_by_input_end(input_ended_at) and not event.errors and not event.fatals:
            phase, source = event.phase_of_frames(engine)
            owner = self.symptoms.owner("gpu-oom", None, phase, engine, facts(), innermost_frame=event.frames[-1])
            if owner is not None:
                seen = Seen(event.last_frame_line, event.frames[-1], phase, source, list(event.frames),
                            event.last_frame_origin, facts())
                basis = f"partial: the exception line is not in this log{_shown_by(phase, source)}"
                incident = _incident(seen, "partial", CUT_TRACEBACK_CONFIDENCE, basis)
                incident.notes.append("The traceback ends before its exception line: confirm the error in the full log.")
                return owner, incident
        return None

    def _headed(self, event: Event, input_ended_at: int) -> tuple[SymptomMatch, Seen] | None:
        """A traceback cut before its exception whose IPython header names a class that means a
        symptom: the header speaks for the missing line, in the phase the frames show."""
        if event.header is None or not event.cut_by_input_end(input_ended_at):
            return None
        type_name, header = event.header
        symptom = self.symptoms.of_exception(f"{type_name}:")
        if symptom is None:
            return None
        phase, source = event.phase_of_frames(self.engine())
        seen = Seen(header.line, header.text, phase, source, list(event.frames), header.origin, header.context_facts)
        return SymptomMatch(symptom.name, symptom.form, "the traceback's header names the exception, and the log ends "
                            "before its message"), seen

    def _uncatalogued(self, event: Event, input_ended_at: int | None, wrapped: bool) -> Incident | None:
        """The event's last exception, else its first native fatal statement, else (unless a
        wrapper already speaks for the event) its first error-level line, else an error's
        traceback that the input cut before its exception line."""
        cut = event.cut_by_input_end(input_ended_at)
        seen = event.exceptions[-1] if event.exceptions else event.fatals[0] if event.fatals else \
            (event.errors[0] if event.errors and not wrapped else None)
        if seen is None:
            bare = len(event.frames) >= 2 and not event.frames_logged  # a paste that starts below the header
            return self._cut_traceback(event, self.engine()) if cut and (event.traceback_error or bare) and not wrapped else None
        incident = _incident(seen, "exact", 1.0, "uncatalogued: no signature explains this error")
        if cut:
            incident.notes.append("A traceback after it is cut before its exception line.")
        return incident

    @staticmethod
    def _cut_traceback(event: Event, engine: str | None) -> Incident:
        """An error's traceback that the input cuts before its exception line, with nothing
        else in the event: the error is not in the log, but its frames say where it was raised."""
        phase, source = event.phase_of_frames(engine)
        named = ""
        if event.header is not None:  # IPython's header names the class: the line that stands for the lost one
            named, header = f"; its header names {event.header[0]}", event.header[1]
            seen = Seen(header.line, header.text, phase, source, list(event.frames), header.origin, {})
        else:
            seen = Seen(event.last_frame_line, event.frames[-1], phase, source, list(event.frames),
                        event.last_frame_origin, {})
        incident = _incident(seen, "partial", CUT_TRACEBACK_CONFIDENCE,
                             f"uncatalogued: a traceback cut before its exception line{named}{_shown_by(phase, source)}")
        incident.notes.append("The traceback ends before its exception line: find the error in the full log.")
        return incident


def _frames_decide(phase: str, phase_source: str, over_loading: bool) -> bool:
    """Whether the frames of a traceback logged after its error decide that error's phase:
    where nothing did, and, with ``over_loading``, over a weight-loading marker."""
    return phase_source == "unknown" or (over_loading and phase_source == "marker" and phase == WEIGHT_LOADING)


def _shown_by(phase: str, source: str) -> str:
    """The end of a cut traceback's basis: what placed it in its phase, if anything did."""
    return f"; the {'phase markers' if source == 'marker' else 'frames'} show {phase}" if phase != "unknown" else ""


def _incident(seen: Seen, tier: str, confidence: float, basis: str) -> Incident:
    return Incident(line=seen.line, text=seen.text, facts={}, tier=tier, confidence=confidence, phase=seen.phase,
                    phase_source=seen.phase_source, basis=basis, frames=seen.frames, origin=seen.origin,
                    context_facts=seen.context_facts, last_line=seen.line, lines=[seen.line])


def hit_incident(sig: ProblemSignature, values: dict[str, Any], seen: Seen, pattern: Pattern | None, tier: str,
                 confidence: float, basis: str, notes: list[str]) -> Incident:
    return Incident(line=seen.line, text=seen.text, facts=values, tier=tier, confidence=round(confidence, 3),
                    phase=seen.phase, phase_source=seen.phase_source, basis=basis, frames=seen.frames,
                    origin=seen.origin, context_facts=seen.context_facts, notes=notes,
                    wording_severity=pattern.severity if pattern else None, last_line=seen.line, lines=[seen.line])


def is_exception(text: str) -> bool:
    return exception_line(text) is not None


__all__ = ["Event", "FRAME_GAP", "Resolver", "Seen", "continues_event", "continues_traceback", "hit_incident",
           "is_exception", "is_fatal"]
