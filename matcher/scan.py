"""From chunks of bytes to findings: prefilter, confirm, assemble events, track the phase.

A :class:`Scanner` is built once per catalog. :meth:`Scanner.run` reads one input and
returns a :class:`Run`: the facts the log states, the phases it went through, and one
:class:`Finding` per problem signature (the first occurrence, with a count of the rest).

Line order is the only order: a fact entry with ``enters_phase`` moves the run into a phase,
a ``Traceback (most recent call last):`` opens a traceback whose frames are kept until an
error closes it, and a problem hit is judged with the phase and frames in force at its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, BinaryIO

from . import budget
from . import facts as factlib
from .catalog import Catalog, CompiledRegex, LazyRegex, Pattern, Signature
from .normalize import normalize
from .prefilter import (
    Anchor,
    Candidate,
    Prefilter,
    engine_name,
    make_prefilter,
    message_window,
    prefiltered,
    small_input_engine,
)
from .read import Chunk, ReadError, read_blocks
from .redact import prompt_free

if TYPE_CHECKING:
    from .split import Segment

_ENGINE_AGNOSTIC = {"any", "pytorch", "cuda", "linux", "nccl"}
_EMBEDDED = {"ollama": {"llamacpp"}}  # engines whose output another one relays

FRAME_GAP = 40  # lines between the last traceback frame and the error it explains
MAX_FRAMES = 64  # innermost frames kept per traceback
MAX_PHASES = 256  # phase transitions kept per run (a restart loop can print millions)
CONFIRM_CACHE = 4096  # distinct (message, anchors) confirmations remembered per run
MEMO_LINE = 2048  # longer lines are not memoised: they rarely repeat, and memory stays bounded
MAX_LINES_KEPT = 32  # line numbers kept per finding (the count goes on)
MAX_FUZZY_LINES = 2000  # gated lines per run that the fuzzy fallback may score
FUZZY_TEXT = 400  # characters of a gated line that the fuzzy fallback scores
FUZZY_MIN_LENGTH = 0.6  # a gated line must be at least this fraction of the template's length
FUZZY_CONFIDENCE = 0.7  # a fuzzy hit's confidence is its score x this
OFF_RANGE_CONFIDENCE = 0.6  # multiplier when the log's engine version is outside the range

_TRACEBACK = "Traceback (most recent call last)"
_FRAME = 'File "'
_GATE_WORDS = (b"error", b"out of memory", b"failed", b"not enough", b"insufficient",
               b"cannot allocate", b"unable to allocate", b"killed")
_GATE = re.compile(r"(?i)error|out of memory|failed|not enough|insufficient|cannot allocate|unable to allocate|killed")
_FRAME_LINE = re.compile(r'^\s*File "[^"]*", line \d+')


@dataclass
class Finding:
    signature: Signature
    line: int
    text: str
    facts: dict[str, Any]
    match: str  # "regex" | "fuzzy"
    confidence: float
    phase: str | None
    frames: list[str] = field(default_factory=list)
    occurrences: int = 1
    last_line: int = 0
    lines: list[int] = field(default_factory=list)  # first MAX_LINES_KEPT lines it occurred on
    phase_source: str = "unknown"  # fixed | frames | marker | followers | unknown
    wording_severity: str | None = None  # the matched pattern's own severity, if it has one
    notes: list[str] = field(default_factory=list)
    context_facts: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def severity(self) -> str:
        return self.wording_severity or self.signature.severity

    def all_facts(self, run_facts: dict[str, Any]) -> dict[str, Any]:
        """Facts for this finding's expressions: the run's, then those in force here, then its own."""
        return {**run_facts, **self.context_facts, **self.facts}


@dataclass
class Run:
    name: str
    lines: int = 0
    facts: dict[str, Any] = field(default_factory=dict)
    fact_lines: dict[str, int] = field(default_factory=dict)
    phases: list[tuple[str, int]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    prompt_lines_skipped: int = 0
    fuzzy_lines_scored: int = 0
    fuzzy_lines_dropped: int = 0
    engine_counts: dict[str, int] = field(default_factory=dict)

    @property
    def phase_reached(self) -> str | None:
        return self.phases[-1][0] if self.phases else None

    @property
    def engine(self) -> str | None:
        if "engine" in self.facts:
            return self.facts["engine"]
        if not self.engine_counts:
            return None
        return max(self.engine_counts.items(), key=lambda kv: kv[1])[0]


@dataclass
class _Target:
    """What an anchor leads to: (signature, pattern) indices, or a structural marker."""

    patterns: set[tuple[int, int]] = field(default_factory=set)
    traceback: bool = False
    frame: bool = False
    gate: bool = False


class Scanner:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.signatures: list[Signature] = list(catalog.signatures.values())
        anchors: list[Anchor] = []
        targets: list[_Target] = []
        index_of: dict[tuple[bytes, bool], int] = {}

        def target_for(literal: bytes, caseless: bool) -> _Target:
            key = (literal.lower() if caseless else literal, caseless)
            if key not in index_of:
                index_of[key] = len(anchors)
                anchors.append(Anchor(key[0], caseless))
                targets.append(_Target())
            return targets[index_of[key]]

        self.frame_entries = [s for s in self.signatures if s.frame_scoped]
        self._frame_phases: dict[str, str | None] = {}
        # On one line, facts and phase markers apply before the problems they give context to.
        self.fact_first = lambda i: (self.signatures[i].kind != "fact", i)
        for i, sig in enumerate(self.signatures):
            if sig.frame_scoped:
                continue
            for j, pattern in enumerate(sig.patterns):
                for literal in pattern.anchors:
                    for form in (literal, *_json_forms(literal)):
                        target_for(form.encode("utf-8"), pattern.ignore_case).patterns.add((i, j))
        for form in (_TRACEBACK, *_json_forms(_TRACEBACK)):
            target_for(form.encode(), False).traceback = True
        for form in (_FRAME, *_json_forms(_FRAME)):
            target_for(form.encode(), False).frame = True
        for word in _GATE_WORDS:
            target_for(word, True).gate = True
        self.anchors = anchors
        self._targets = targets
        self._fuzzy = [
            (sig, item["template"], float(item.get("threshold", 88)))
            for sig in self.signatures if sig.kind == "problem" for item in sig.fuzzy
        ]

    @cached_property
    def prefilter(self) -> Prefilter:
        """The configured engine (prefilter.engine_name), built on first use."""
        return make_prefilter(self.anchors)

    def prefilter_for(self, size: int | None) -> Prefilter:
        """The engine for an input that is one block of ``size`` bytes (None: several)."""
        engine = small_input_engine(size)
        return self.prefilter if engine is None else make_prefilter(self.anchors, engine)

    def frame_phase(self, frame: str) -> str | None:
        """The phase a traceback frame line implies (innermost matching entry wins), memoised:
        the same frames recur in every traceback of a crash loop."""
        if frame not in self._frame_phases:
            if len(self._frame_phases) >= CONFIRM_CACHE:
                self._frame_phases.clear()
            self._frame_phases[frame] = next(
                (e.enters_phase for e in reversed(self.frame_entries)
                 if e.enters_phase and _confirm(e, frame) is not None), None)
        return self._frame_phases[frame]

    # -- public ---------------------------------------------------------------------------

    def run(self, stream: BinaryIO, name: str, on_finding: Callable[[Finding], None] | None = None) -> Run:
        """Scan one input to the end."""
        state = _RunState(self, Run(name), on_finding)
        line = 1
        try:
            for block, candidates in prefiltered(self.prefilter_for, read_blocks(stream, name)):
                line += state.scan_block(block, line, candidates)
        except ReadError as exc:
            error = exc.at_line(line)
            error.partial = state.finish()  # what was read is reported with the error
            raise error from None
        return state.finish()

    def run_split(self, path: str, name: str, jobs: int, segment_size: int | None = None) -> Run:
        """Scan a large regular file with ``jobs`` worker processes (see split.py): the same
        Run as :meth:`run`, with the reading and prefiltering spread over cores."""
        from concurrent.futures.process import BrokenProcessPool

        from . import split

        state = _RunState(self, Run(name), None)
        line = 1
        try:
            for segment in split.scan_segments(path, self.anchors, engine_name(), jobs,
                                               segment_size or split.SEGMENT_SIZE):
                line += state.scan_segment(segment, line)
                if segment.error is not None:
                    raise ReadError(name, segment.error).at_line(line)
        except BrokenProcessPool as exc:
            raise ReadError(name, f"a worker process died ({exc}); try --jobs 1").at_line(line) from None
        return state.finish()

    def run_lines(self, lines: Iterable[str | bytes], name: str = "<lines>") -> Run:
        """Scan an iterator of lines (library use); a line without a newline gets one."""
        return self.run(_LineStream(lines), name)

    def stream(self, name: str, on_finding: Callable[[Finding], None] | None = None) -> _RunState:
        """An incremental scan (pipe mode): feed chunks, then finish()."""
        return _RunState(self, Run(name), on_finding)


class _LineStream:
    """A readable stream over an iterator of lines, so that lines take the same path as files."""

    def __init__(self, lines: Iterable[str | bytes]) -> None:
        self._lines = iter(lines)
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        parts, length = [self._pending], len(self._pending)
        for line in self._lines:
            data = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
            data = data if data.endswith(b"\n") else data + b"\n"
            parts.append(data)
            length += len(data)
            if 0 <= size <= length:
                break
        joined = b"".join(parts)
        if size < 0:
            self._pending = b""
            return joined
        self._pending = joined[size:]
        return joined[:size]


class _RunState:
    def __init__(self, scanner: Scanner, run: Run, on_finding: Callable[[Finding], None] | None) -> None:
        self.scanner = scanner
        self.run = run
        self.on_finding = on_finding
        budget.REGEX.restart()  # the overlay regexes' time budget is per input
        self.phase: str | None = None
        self.frames: list[tuple[int, str]] = []
        self.frame_phase: str | None = None  # phase the current traceback's frames imply
        self.by_id: dict[str, Finding] = {}
        self.gated: list[tuple[int, str, str | None, dict[str, Any]]] = []
        self.last_line = 0
        self._confirmed: dict[tuple[str, frozenset[int]], list[tuple[int, Hit]]] = {}
        self._messages: dict[bytes, str | None] = {}

    def feed(self, chunk: Chunk) -> None:
        self.scan_block(chunk.data, chunk.first_line, self.scanner.prefilter.candidates(chunk.data))

    def scan_block(self, data: bytes, first_line: int, candidates: list[Candidate]) -> int:
        """Handle a block's candidate lines; the block's newlines are counted once, on the way."""
        line = first_line
        position = 0
        for candidate in candidates:
            line += data.count(b"\n", position, candidate.start)
            position = candidate.start
            self._line(data, candidate, line)
        newlines = line - first_line + data.count(b"\n", position)
        self._count_lines(first_line, newlines, data.endswith(b"\n"))
        return newlines

    def scan_segment(self, segment: Segment, first_line: int) -> int:
        """Handle the candidate lines a worker found in one segment (split.py)."""
        for candidate, offset in zip(segment.candidates, segment.line_offsets):
            self._line(segment.data, candidate, first_line + offset)
        if segment.size:
            self._count_lines(first_line, segment.newlines, segment.ends_with_newline)
        return segment.newlines

    def _count_lines(self, first_line: int, newlines: int, ends_with_newline: bool) -> None:
        """After a block (or segment) from ``first_line`` holding ``newlines`` newlines."""
        self.last_line = first_line + newlines - (1 if ends_with_newline else 0)
        self.run.lines = max(self.run.lines, self.last_line)

    def _line(self, data: bytes, candidate: Candidate, line_no: int) -> None:
        start, end = message_window(candidate)
        text = self._message(data[start:end])
        if text is None:
            self.run.prompt_lines_skipped += 1
            return
        targets = [self.scanner._targets[i] for i in candidate.anchors]
        if any(t.traceback for t in targets) and "Traceback (most recent call last)" in text:
            self.frames = []
            self.frame_phase = None
        if any(t.frame for t in targets) and _FRAME_LINE.match(text):
            if self.frames and line_no - self.frames[-1][0] > FRAME_GAP:
                self.frames = []
                self.frame_phase = None
            self.frames.append((line_no, text.strip()))
            del self.frames[:-MAX_FRAMES]
            phase = self.scanner.frame_phase(text)
            if phase is not None:
                self.frame_phase = phase
            return
        wanted = frozenset().union(*(t.patterns for t in targets))
        problem_hit = False
        for index, hit in self._confirmations(text, wanted):
            sig = self.scanner.signatures[index]
            if sig.kind == "fact":
                self._fact(sig, hit.values, line_no)
            else:
                self._problem(sig, hit.values, text, line_no, "regex", 1.0, self.run.facts, hit.pattern)
                problem_hit = True
        if not problem_hit and any(t.gate for t in targets) and _GATE.search(text):
            if len(self.gated) < MAX_FUZZY_LINES:
                self.gated.append((line_no, text, self.phase, dict(self.run.facts)))
            else:
                self.run.fuzzy_lines_dropped += 1

    def _message(self, raw: bytes) -> str | None:
        """The normalized message of a raw line, None for a request echo; memoised, since
        a failing server repeats the same line thousands of times."""
        if raw in self._messages:
            return self._messages[raw]
        text = prompt_free(normalize(raw.decode("utf-8", "replace")))
        if len(raw) <= MEMO_LINE:
            if len(self._messages) >= CONFIRM_CACHE:
                self._messages.clear()
            self._messages[raw] = text
        return text

    def _confirmations(self, text: str, wanted: frozenset[tuple[int, int]]) -> list[tuple[int, Hit]]:
        """Signatures whose full regex matches the line, memoised: servers repeat messages."""
        if len(text) > MEMO_LINE:
            return self._confirm_all(text, wanted)
        key = (text, wanted)
        hits = self._confirmed.get(key)
        if hits is None:
            hits = self._confirm_all(text, wanted)
            if len(self._confirmed) >= CONFIRM_CACHE:
                self._confirmed.clear()
            self._confirmed[key] = hits
        return hits

    def _confirm_all(self, text: str, wanted: frozenset[tuple[int, int]]) -> list[tuple[int, Hit]]:
        """Each signature tries, in catalog order, only its patterns whose anchor is on the
        line: the others cannot match, and a short log then compiles a few regexes, not all."""
        patterns: dict[int, set[int]] = {}
        for index, pattern in wanted:
            patterns.setdefault(index, set()).add(pattern)
        hits = []
        for index in sorted(patterns, key=self.scanner.fact_first):
            hit = _confirm(self.scanner.signatures[index], text, patterns[index])
            if hit is not None:
                hits.append((index, hit))
        return hits

    def _fact(self, sig: Signature, values: dict[str, Any], line_no: int) -> None:
        run = self.run
        engine = next(iter(sig.engines))
        if engine != "any":
            run.engine_counts[engine] = run.engine_counts.get(engine, 0) + 1
        for name, value in values.items():
            if name == "version" and engine != "any":
                run.facts["engine"] = engine
                run.facts["engine_version"] = value
                name = f"{engine}_version"
            run.facts[name] = value
            run.fact_lines[name] = line_no
        if sig.enters_phase:
            self._settle_unknown_phase(sig.enters_phase, line_no)
        if sig.enters_phase and sig.enters_phase != self.phase:
            self.phase = sig.enters_phase
            if len(run.phases) < MAX_PHASES:
                run.phases.append((sig.enters_phase, line_no))
            else:
                run.phases[-1] = (sig.enters_phase, line_no)

    def _settle_unknown_phase(self, phase: str, line_no: int) -> None:
        """Engines often name the step on the line after the error (llama.cpp prints the
        allocation failure, then which buffer it was for, then the caller): a finding whose
        phase nothing decided takes the phase of the markers that immediately follow it."""
        for finding in self.run.findings:
            if finding.last_line >= line_no - 1 and finding.phase_source in ("unknown", "followers"):
                finding.phase = phase  # the last marker of the burst names the outermost step
                finding.phase_source = "followers"

    def _problem(
        self, sig: Signature, values: dict[str, Any], text: str, line_no: int, how: str,
        confidence: float, context: dict[str, Any], pattern: Pattern | None = None,
    ) -> bool:
        """Record a confirmed hit unless its context fails; True when it counted."""
        frames = self._recent_frames(line_no)
        if sig.has_context and not (self._engine_fits(sig) and self._context_holds(sig, values, frames)):
            return False
        engine = next(iter(sig.engines))
        if engine not in ("any", "linux", "cuda"):
            self.run.engine_counts[engine] = self.run.engine_counts.get(engine, 0) + 1
        existing = self.by_id.get(sig.id)
        if existing is not None:
            if line_no <= existing.last_line + 1 and existing.phase_source in ("marker", "followers") \
                    and self.phase and self.phase != existing.phase:
                # The same failure goes on over the next line, which names a later step
                # (llama.cpp: cudaMalloc failed, then "failed to allocate compute pp buffers").
                existing.phase, existing.phase_source = self.phase, "followers"
            existing.occurrences += 1
            existing.last_line = line_no
            if len(existing.lines) < MAX_LINES_KEPT:
                existing.lines.append(line_no)
            return True
        notes = []
        version = self.run.facts.get("engine_version")
        engine_name = self.run.facts.get("engine", "")
        wording_engine = (pattern.engine if pattern else None) or engine
        in_range = sig.version_in_range(engine_name, str(version)) if version and wording_engine == engine_name else None
        if in_range is not False and version and pattern is not None and pattern.versions is not None \
                and wording_engine == engine_name:
            in_range = pattern.versions.contains(str(version))
        if in_range is False:
            confidence *= OFF_RANGE_CONFIDENCE
            notes.append(f"the log's {engine_name} {version} is outside the versions known to print this wording")
        phase, source = self._phase_of(sig, pattern, frames)
        finding = Finding(
            signature=sig, line=line_no, text=text, facts=values, match=how,
            confidence=round(confidence, 3),
            phase=phase, phase_source=source, wording_severity=pattern.severity if pattern else None,
            frames=[f for _, f in frames], last_line=line_no, lines=[line_no], notes=notes,
            context_facts=dict(context),
        )
        self.by_id[sig.id] = finding
        self.run.findings.append(finding)
        if self.on_finding is not None:
            self.on_finding(finding)
        return True

    def _phase_of(self, sig: Signature, pattern: Pattern | None, frames: list[tuple[int, str]]) -> tuple[str, str]:
        """The phase of a new finding and where it came from: the wording or the signature,
        the traceback's frames, the last phase marker, or nothing yet."""
        fixed = (pattern.phase if pattern else None) or sig.phase
        if fixed:
            return fixed, "fixed"
        if frames and self.frame_phase:
            return self.frame_phase, "frames"
        if self.phase:
            return self.phase, "marker"
        return "unknown", "unknown"

    def _engine_fits(self, sig: Signature) -> bool:
        """A signature that needs context belongs to its engines: an engine-specific capture
        or loading rule must not fire on another engine's log (TGI also captures CUDA graphs)."""
        run_engine = self.run.engine
        engines = set(sig.engines)
        return run_engine is None or bool(engines & {run_engine, *_ENGINE_AGNOSTIC}) or \
            bool(engines & _EMBEDDED.get(run_engine, set()))

    def _recent_frames(self, line_no: int) -> list[tuple[int, str]]:
        if self.frames and line_no - self.frames[-1][0] <= FRAME_GAP:
            return self.frames
        return []

    def _context_holds(self, sig: Signature, values: dict[str, Any], frames: list[tuple[int, str]]) -> bool:
        if sig.context_phases and self.phase in sig.context_phases:
            return True
        if sig.frames and any(_search(p, text, sig) for p in sig.frames for _, text in frames):
            return True
        if sig.context_requires is not None:
            from .expr import Unknown

            try:
                return bool(sig.context_requires.evaluate({**self.run.facts, **values}))
            except Unknown:
                return False
        return False

    def finish(self) -> Run:
        self._fuzzy()
        self._drop_foreign_context_findings()
        self.run.findings.sort(key=lambda f: f.line)
        return self.run

    def _drop_foreign_context_findings(self) -> None:
        """A signature that needs context may fire while the log has not yet named its
        engine; once the whole log has, a finding of another engine's context signature goes
        (a TGI shard's CUDA graph OOM printed before the router's lines is no vLLM capture)."""
        if self.run.engine is None:
            return
        kept = [f for f in self.run.findings if not f.signature.has_context or self._engine_fits(f.signature)]
        if len(kept) < len(self.run.findings):
            self.run.findings = kept
            self.by_id = {f.signature.id: f for f in kept}

    def _fuzzy(self) -> None:
        """Score gated lines that no problem signature matched against the fuzzy templates."""
        if not self.gated or not self.scanner._fuzzy:
            return
        from rapidfuzz import fuzz, process

        choices = [template for _, template, _ in self.scanner._fuzzy]
        floor = min(threshold for _, _, threshold in self.scanner._fuzzy)
        for line_no, text, phase, context in self.gated:
            self.run.fuzzy_lines_scored += 1
            best = process.extractOne(text[:FUZZY_TEXT], choices, scorer=fuzz.partial_ratio, score_cutoff=floor)
            if best is None:
                continue
            _, score, index = best
            sig, template, threshold = self.scanner._fuzzy[index]
            if score < threshold or sig.id in self.by_id or len(text) < FUZZY_MIN_LENGTH * len(template):
                continue  # partial_ratio scores a short line 100 against any template containing it
            if any(_search(ex, text, sig) for ex in sig.exclude):
                continue
            saved_phase, self.phase = self.phase, phase
            self._problem(sig, {}, text, line_no, "fuzzy", score / 100 * FUZZY_CONFIDENCE, context)
            self.phase = saved_phase


def _json_forms(literal: str) -> list[str]:
    """An anchor as it appears inside a JSON string, where a log shipper wrapped the line
    (Docker's json-file driver, Fluent Bit, Vector): quotes and backslashes escaped, and with
    Go's encoder also <, > and & as \\u003c, \\u003e and \\u0026. The full regex then runs on
    the unwrapped message (normalize.py)."""
    plain = literal.replace("\\", "\\\\").replace('"', '\\"')
    go = plain.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return [form for form in dict.fromkeys((plain, go)) if form != literal]


def _search(pattern: CompiledRegex | LazyRegex, text: str, sig: Signature) -> Any:
    """Search with one of ``sig``'s regexes. Linting rules out catastrophic patterns; an
    overlay's regexes, which nobody here reviewed, also search under the time budget of
    matcher/budget.py as defence in depth (it costs several times the search itself, so the
    built-in catalog runs without it, on ``re``)."""
    if sig.reviewed:
        return pattern.search(text)
    return budget.REGEX.search(pattern, text, sig.path, sig.doc)


@dataclass(frozen=True)
class Hit:
    values: dict[str, Any]
    pattern: Pattern  # the first pattern that matched


def _confirm(sig: Signature, text: str, only: set[int] | None = None) -> Hit | None:
    """The facts of a confirmed hit, or None. A problem takes its first matching pattern;
    a fact entry merges every pattern that matches (one line can state several settings).
    ``only``: the indices of the patterns to try (default: all)."""
    values: dict[str, Any] | None = None
    first: Pattern | None = None
    for index, pattern in enumerate(sig.patterns):
        if only is not None and index not in only:
            continue
        match = _search(pattern.compiled, text, sig)
        if match is None:
            continue
        if first is None:
            if any(_search(ex, text, sig) for ex in sig.exclude):
                return None
            first, values = pattern, {}
        values.update(factlib.from_match(match.groupdict()))  # type: ignore[union-attr]
        if sig.kind == "problem":
            break
    return None if first is None else Hit(values or {}, first)
