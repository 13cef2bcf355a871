"""From chunks of bytes to findings.

A :class:`Scanner` is built once per catalog (the anchor index, the symptom classes, the
fuzzy templates). :meth:`Scanner.run` reads one input through a :class:`RunScan`, which
walks the candidate lines the prefilter finds:

- ``lines``: a candidate line to its message and confirmed hits (memoised);
- ``context``: the phase in force (markers, traceback frames) and the engine;
- ``incidents``: error events assembled from the lines, each resolved when it ends;
- ``fuzzy``: the last-resort pass over an event's lines that nothing else explained;

and :func:`matcher.findings.group` turns the incidents into findings when the input ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import msgspec

from ..catalog import Catalog, FactEntry, FactExtractor, FrameMap, Pattern, PhaseMarker, ProblemSignature, Signature, SymptomClass
from ..findings import MAX_PROCESSES, Finding, Incident, Run, group
from ..normalize import Message, continues_record, parse_line
from ..prefilter import (
    FOLLOW_BYTES,
    FOLLOW_LINES,
    SMALL_INPUT,
    Candidate,
    Prefilter,
    engine_name,
    line_before,
    make_prefilter,
    message_window,
    prefiltered,
    small_input_engine,
)
from ..read import Chunk, ReadError, read_blocks
from .context import FRAME_GAP, EngineTracker, PhaseTracker, goes_back
from .fuzzy import MAX_FUZZY_LINES, Fuzzy
from .incidents import (OFF_RANGE_CONFIDENCE, PARTIAL_CONFIDENCE, Event, Resolver, Seen, continues_event, hit_incident,
                        is_exception, is_fatal)
from .lines import (CUT_FRAME, DIAGNOSING, ERROR_WORDS, FRAME_LINE, GATE, IPYTHON_CALL, IPYTHON_HEADER, NATIVE_FRAME,
                    TRACEBACK, AnchorIndex, MIN_CUT_ANCHOR, MIN_PARTIAL, Hit, LineMatcher, excluded_if_cut, is_ipython_frame,
                    partial_match, search)
from .symptoms import Symptoms

if TYPE_CHECKING:
    from ..split import Segment

__all__ = ["FRAME_GAP", "Finding", "Incident", "Run", "RunScan", "Scanner"]

REJOINED_CONFIDENCE = 0.9  # a message read whole from wrapped pieces
FOLLOWERS_GAP = 3  # lines after an event within which a phase marker still names its step
MIN_WRAPPED = 40  # a raw line shorter than this was not wrapped by a terminal
MAX_WRAPPED = 4096  # a line this long was not wrapped by a terminal
_FRAME_START = re.compile(r'\s*File "')  # CPython's frame line, whose end a terminal may have wrapped
_COMPLETE_FRAME = re.compile(r'\s*File "[^"]*", line \d+, in [\w<>.]+\s*$')
# A frame line broken after its path's comma, its line number and function on the next line: a
# chat box or an editor that wraps at spaces, whose soft wrap the copy kept.
_FRAME_PATH_ONLY = re.compile(r'\s*File "[^"]{1,400}",\s*$')
_FRAME_REST = re.compile(r'\s*line \d{1,7}, in [\w<>.]{1,120}\s*$')
# CPython's site module when importing sitecustomize or usercustomize raised; the exception
# follows on the next line, and the interpreter goes on.
_CUSTOMIZE_FAILED = re.compile(r"Error in (?:site|user)customize; set PYTHONVERBOSE for traceback:\s*$")
_PADDING = re.compile(r"(?<=\S) {4,}(?=\S)")  # spaces a terminal or a table cell put inside a message


NOT_A_LACK_OF_MEMORY = "gpu-fault"  # a symptom class that rules out a memory diagnosis on its line


def _provisional(phase: str | None, source: str) -> bool:
    """A phase that a marker after the error may replace: none was decided, it came from such
    markers or from fallback frames (a model's forward pass, whatever step ran it), or it is the
    device check's, whose markers (devices found, backends initialised) only say that the next
    step had not yet printed its own."""
    return source in ("unknown", "followers", "fallback") or (source == "marker" and phase == "device-check")


def _follows(phase: str | None, source: str, marker: str) -> bool:
    """Whether a marker after the error names its step (see :func:`_provisional`)."""
    return _provisional(phase, source) and not (source == "followers" and goes_back(phase, marker))


def _width(raw: bytes) -> int:
    """The characters of a raw line, as a terminal counts the columns it wrapped at."""
    return len(raw.rstrip(b"\r").decode("utf-8", "replace"))


def _message_at(data: bytes, position: int) -> tuple[Message, int]:
    """The line of ``data`` that starts at ``position``, parsed (its first FOLLOW_BYTES), and
    where it ends."""
    newline = data.find(b"\n", position)
    stop = len(data) if newline < 0 else newline
    return parse_line(data[position:min(stop, position + FOLLOW_BYTES)].decode("utf-8", "replace")), stop


def _may_be_wrapped(candidate: Candidate) -> bool:
    """A raw line as long as a terminal's width (its header counts: the terminal wrapped the
    whole line), whole within the regexes' window."""
    return MIN_WRAPPED <= candidate.end - candidate.start <= MAX_WRAPPED and message_window(candidate)[1] >= candidate.end


def _vetoed(sig: ProblemSignature, shown: set[str]) -> bool:
    """A kernel fault on a line that shows no out-of-memory is not diagnosed by a signature
    that does not own faults, whatever else of its wording matches there."""
    return NOT_A_LACK_OF_MEMORY in shown and "gpu-oom" not in shown and \
        not any(NOT_A_LACK_OF_MEMORY in rule.symptoms for rule in sig.owns)


def _shows_enough(match: Any, pattern: Pattern) -> bool:
    """Whether a line cut short shows enough of a wording to name it. Past the wording's
    opening literal (its lead, or an anchor the match starts with) a few characters must show.
    Inside it, the cut must fall within a word: the opening, or its words so far, may start many
    messages ('failed to allocate ', '[TensorRT-LLM][ERROR] '), and a cut between words hid
    which one this was; one that stops inside a word ('an illegal memory access wa') was
    writing this literal."""
    shown = match.group()
    if pattern.ignore_case:
        shown = shown.lower()
    openings = [pattern.lead or ""] + [a.lower() if pattern.ignore_case else a for a in pattern.anchors]
    opening = max((o for o in openings if o and shown.startswith(o[:len(shown)])), key=len, default="")
    if len(shown) >= len(opening) + MIN_CUT_ANCHOR:
        return True
    return len(shown) < len(opening) and shown[-1:].isalnum() and opening[len(shown)].isalnum()


class Scanner:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.signatures: list[Signature] = list(catalog.signatures.values())
        self.index = AnchorIndex(self.signatures)
        self.anchors = self.index.anchors
        self.frame_maps = [s for s in self.signatures if isinstance(s, FrameMap)]
        self.symptoms = Symptoms(self.signatures)
        self.generic = frozenset(target for s in catalog.problems for target in s.explains)

    @cached_property
    def prefilter(self) -> Prefilter:
        """The configured engine (prefilter.engine_name), built on first use."""
        return make_prefilter(self.anchors)

    @cached_property
    def small_prefilter(self) -> Prefilter:
        """The portable engine, which needs no set-up: for inputs of one small block."""
        return make_prefilter(self.anchors, "python")

    def prefilter_for(self, size: int | None) -> Prefilter:
        """The engine for an input that is one block of ``size`` bytes (None: several)."""
        return self.prefilter if small_input_engine(size) is None else self.small_prefilter

    def run(self, stream: BinaryIO, name: str) -> Run:
        """Scan one input to the end."""
        state = RunScan(self, name)
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

        from .. import split

        state = RunScan(self, name)
        line = 1
        try:
            for segment in split.scan_segments(path, self.anchors, engine_name(), jobs,
                                               segment_size or split.SEGMENT_SIZE):
                line += state.scan_segment(segment, line)
                if segment.error is not None:
                    raise ReadError(name, segment.error).at_line(line)
        except BrokenProcessPool as exc:
            raise ReadError(name, f"a worker process died ({exc}); try --jobs 1").at_line(line) from None
        state.last_line_is(split.last_line(path))  # the workers report candidate lines only
        return state.finish()

    def run_lines(self, lines: Iterable[str | bytes], name: str = "<lines>") -> Run:
        """Scan an iterator of lines (library use); a line without a newline gets one."""
        return self.run(_LineStream(lines), name)

    def stream(self, name: str, on_incident: Callable[[ProblemSignature, Incident], None] | None = None) -> RunScan:
        """An incremental scan (pipe mode): feed chunks, then finish()."""
        return RunScan(self, name, on_incident)


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


# A line as the end of the input is read again: its number, message text, the patterns its
# anchors lead to, and the line as parsed (its process tag and its level).
_LastLine = tuple[int, str, frozenset[tuple[int, int]], Message]


class RunScan:
    """One input being scanned: the lines seen so far, the open event, the incidents."""

    def __init__(self, scanner: Scanner, name: str,
                 on_incident: Callable[[ProblemSignature, Incident], None] | None = None) -> None:
        from .. import budget

        budget.REGEX.restart()  # the overlay regexes' time budget is per input
        self.scanner = scanner
        self.run = Run(name)
        self.on_incident = on_incident
        self.lines = LineMatcher(scanner.index)
        self._large = False  # past one small block: rejoined texts are searched by the input's engine
        self.phases = PhaseTracker(scanner.frame_maps, phases=self.run.phases)
        self.engines = EngineTracker(counts=self.run.engine_counts, writers=self.run.engine_writers)
        self.fuzzy = Fuzzy(scanner.signatures)
        self.resolver = Resolver(scanner.symptoms, scanner.generic, lambda: self.engines.engine, self._fuzzy,
                                 lambda: self.run.facts)
        self.event: Event | None = None
        self.incidents: list[tuple[ProblemSignature, Incident]] = []
        self.found: set[str] = set()
        self.last_line = 0
        self._joined_until = 0  # lines up to here were read as part of a rejoined message
        self._candidate_line = 0  # the last candidate line handled
        self._block_tail = b""  # the last line of the block before (a wrapped message's first part)
        self._gated_seen = 0
        self._last_incident = 0
        self._last_candidate: _LastLine | None = None

    # -- feeding ------------------------------------------------------------------------

    def feed(self, chunk: Chunk) -> None:
        self.scan_block(chunk.data, chunk.first_line, self.scanner.prefilter.candidates(chunk.data))

    def scan_block(self, data: bytes, first_line: int, candidates: list[Candidate]) -> int:
        """Handle a block's candidate lines; the block's newlines are counted once, on the way."""
        self._large = self._large or len(data) > SMALL_INPUT
        line = first_line
        position = 0
        for candidate in candidates:
            line += data.count(b"\n", position, candidate.start)
            position = candidate.start
            self._line(data, candidate, line)
        newlines = line - first_line + data.count(b"\n", position)
        self._count_lines(first_line, newlines, data.endswith(b"\n"))
        self._block_tail = line_before(data)
        return newlines

    def scan_segment(self, segment: Segment, first_line: int) -> int:
        """Handle the candidate lines a worker found in one segment (split.py)."""
        self._large = True
        for candidate, offset in zip(segment.candidates, segment.line_offsets):
            self._line(segment.data, candidate, first_line + offset)
        if segment.size:
            self._count_lines(first_line, segment.newlines, segment.ends_with_newline)
        return segment.newlines

    def last_line_is(self, raw: bytes) -> None:
        """The input's last line, where the blocks read were not the input's (split.py)."""
        self._block_tail = raw

    def _count_lines(self, first_line: int, newlines: int, ends_with_newline: bool) -> None:
        """After a block (or segment) from ``first_line`` holding ``newlines`` newlines."""
        self.last_line = first_line + newlines - (1 if ends_with_newline else 0)
        self.run.lines = max(self.run.lines, self.last_line)

    # -- one candidate line ---------------------------------------------------------------

    def _line(self, data: bytes, candidate: Candidate, line_no: int, read_back: bool = True) -> None:
        if line_no <= self._joined_until:
            return
        after_candidate, self._candidate_line = self._candidate_line == line_no - 1, line_no
        kinds = self.lines.kinds(candidate.anchors)
        start, end = message_window(candidate)
        message = self.lines.message(data[start:end])
        rejoined = None
        if kinds.split_only:
            rejoined = None if message is None else self._rejoined(data, candidate, message.text, message, [])
            if rejoined is None:
                if read_back and not after_candidate:
                    self._line_before(data, candidate, line_no)
                return
        if message is None:
            self.run.prompt_lines_skipped += 1
            return
        text = message.text
        if message.origin is not None and message.origin.startswith("[Stage-") and len(self.run.stages) < MAX_PROCESSES:
            self.run.stages.add(message.origin)
        self.engines.note_origin(message.origin)
        self.engines.note_writer(message.writer)
        event = self.event
        native_frame = kinds.source and NATIVE_FRAME.match(text) is not None
        # The input's first line may be a frame line cut at its start, or a code line whose frame
        # line the paste cut off.
        cut_frame = line_no == 1 and CUT_FRAME.match(text) is not None
        orphan = line_no == 1 and kinds.source and '", line ' not in text and _FRAME_START.match(text) is None
        if kinds.source_only and not native_frame and not self._under_frame(line_no, text) and not orphan \
                and not cut_frame:
            return  # a frame map's words outside any frame or code line under one: not a candidate at all
        if event is not None and line_no > event.last_line + FRAME_GAP:
            self._close()
        # An event ends at the first candidate line after it that does not continue it. Only
        # candidate lines decide, so that every way of reading (blocks, workers, a pipe) agrees.
        closing = self.event is not None and line_no > self.event.last_line and not continues_event(text) \
            and line_no != self.event.last_frame_line + 1  # a frame's source line, its indent lost in a paste
        if kinds.traceback and TRACEBACK in text:
            if closing:
                self._close()
                closing = False
            self.phases.start_traceback()
            header = IPYTHON_HEADER.match(text)
            event = self._event(line_no)
            event.header = None if header is None else (header["type"], self._seen(text, line_no, message.origin))
            event.traceback_error = True
        frame_start = kinds.frame and _FRAME_START.match(text) is not None
        if frame_start:
            text, continuation_lines = self._frame_rejoined(data, candidate, text, message)
            self._joined_until = line_no + continuation_lines
        if (kinds.frame and FRAME_LINE.match(text)) or cut_frame:
            self.phases.add_frame(line_no, f'File "{text.lstrip()}' if cut_frame else text)  # frame maps' form
            self.engines.note_paths(text)
            event = self._event(line_no)
            event.frames = [f for _, f in self.phases.frames]
            event.frame_phase, event.fallback_phase = self.phases.frame_phase, self.phases.fallback_phase
            event.last_frame_line = max(line_no, self._joined_until)
            event.last_frame_origin = message.origin
            event.last_frame_ipython = is_ipython_frame(text)
            event.traceback_error = event.traceback_error or message.error_level
            event.frames_logged = event.frames_logged or (message.header and not message.error_level)
            if kinds.extracting:
                self._frame_facts(text, kinds.extracting, line_no, message.origin)
            return
        if frame_start and self.event is not None and self.event.frames and line_no <= self.event.last_line + FRAME_GAP:
            self.event.touch(line_no)  # the start of a frame line cut short: the traceback goes on to here
        if kinds.source and self.event is not None and self._under_frame(line_no, text):
            self.phases.add_source(text)
            self.event.frame_phase, self.event.fallback_phase = self.phases.frame_phase, self.phases.fallback_phase
        elif orphan and self.event is None:
            self.phases.add_orphan_source(line_no, text)
        if native_frame:
            owner = self.event if self.event is not None and line_no > self.event.first_line else None
            native = self.phases.add_native_frame(line_no, text, after_error=owner is not None)
            if owner is not None:  # the stack of the error before it (ggml's abort, a sanitizer's report)
                owner.touch(line_no)
                owner.native_phase = owner.native_phase or native
        if kinds.gate or native_frame:
            self.engines.note_paths(text)
        hits = self.lines.confirm(text, kinds.wanted)
        self._last_candidate = (line_no, text, kinds.wanted, message)
        joined = rejoined or self._rejoined(data, candidate, text, message, hits)
        if joined is not None:
            text, hits, continuation_lines = joined
            self._joined_until = line_no + continuation_lines
        harmless = False
        for index, hit in hits:
            fact = self.scanner.signatures[index]
            if isinstance(fact, FactEntry):
                self._fact(fact, hit.values, line_no, message.origin)
                if isinstance(fact, FactExtractor):
                    harmless = harmless or fact.harmless
                    if fact.continues_event and self.event is not None:
                        closing = False  # a detail line of the error before it (its values settle a requires)
                        self.event.touch(line_no)
            elif hit.pattern.kill_report:
                closing = False  # a kill after the error ends its event: the launcher's (see _problem)
        gated = not harmless and kinds.gate and GATE.search(text) is not None
        says_error = not harmless and (gated or message.error_level or kinds.gate and is_exception(text))
        if closing and not hits and not says_error:
            # A candidate that says nothing (no hit, no error) ends no event: it is a candidate
            # only because a catalog anchor shares a word with it, and a line that is no
            # candidate ends none either.
            closing = False
        if closing:
            self._close()
        problem = wrapper_only = False
        shown = {sig.symptom.name for sig in (self.scanner.signatures[i] for i, _ in hits)
                 if isinstance(sig, SymptomClass)}
        for index, hit in hits:
            sig = self.scanner.signatures[index]
            if isinstance(sig, SymptomClass):
                self._symptom(sig, hit, text, line_no, message.origin)
            elif isinstance(sig, ProblemSignature) and not _vetoed(sig, shown) \
                    and self._problem(sig, hit, text, line_no, message.origin, joined is not None):
                wrapper_only = sig.wrapper and (wrapper_only or not problem)
                problem = True
        if not (problem or says_error):
            return
        event = self._event(line_no)
        seen = self._seen(text, line_no, message.origin)
        if not problem:
            exception = is_exception(text)
            if exception:
                if not message.warning_header and not self._ignored_by_python(data, candidate):
                    # not a traceback logged as a warning, nor an error CPython reported and went on
                    event.keep(event.exceptions, seen)
                event.last_exception_line = line_no
                symptom = self.scanner.symptoms.of_exception(text)
                if symptom is not None:
                    event.keep(event.symptoms, (symptom, seen))
            elif is_fatal(text):
                event.keep(event.fatals, seen)
            elif message.error_level and not event.frames and event.last_exception_line == 0 \
                    and TRACEBACK not in text and not text[:1].isspace():
                event.keep(event.errors, seen)  # error-level lines outside a traceback
            if gated:
                if self._gated_seen < MAX_FUZZY_LINES:
                    event.keep(event.gated, seen)
                else:
                    self.run.fuzzy_lines_dropped += 1
                self._gated_seen += 1
        else:
            if is_exception(text):
                event.last_exception_line = line_no
            if wrapper_only and is_fatal(text):
                # A wrapper that quotes the native error it wraps ("runner process has terminated:
                # CUDA error: ..."): the error is still uncatalogued, and the wrapper points at it.
                event.keep(event.fatals, seen)

    def _under_frame(self, line_no: int, text: str) -> bool:
        """The code line a traceback frame of the open event was executing: the line right
        under the frame, or the one IPython marks with its arrow."""
        event = self.event
        return event is not None and event.last_frame_line > 0 \
            and (line_no == event.last_frame_line + 1 or IPYTHON_CALL.match(text) is not None)

    def _rejoined(self, data: bytes, candidate: Candidate, text: str, message: Message,
                  hits: list[tuple[int, Hit]]) -> tuple[str, list[tuple[int, Hit]], int] | None:
        """A message a terminal hard-wrapped (or an engine split) over the next lines, or padded
        with runs of spaces inside it, read whole (and squeezed) when that finds a problem the
        line alone does not show. Tried on a line long enough to have been wrapped (its
        header counts: the terminal wrapped the whole line); an engine's own line breaks are
        followed only from a line with an error word. Returns the text read, its hits and the
        number of continuation lines it took."""
        signatures = self.scanner.signatures
        if any(isinstance(sig, ProblemSignature) and sig.id not in self.scanner.generic and not sig.has_context
               and not sig.wrapper for sig in (signatures[i] for i, _ in hits)) or not _may_be_wrapped(candidate):
            return None
        pieces = self._continuation(data, candidate, message, wrapped_only=not GATE.search(text))
        if not pieces and _PADDING.search(text) is None:
            return None
        # Every shorter reading is a prefix of the longest one with the same glue, so the
        # anchors of the longest readings bound what any reading can match: the literals are
        # looked for once per glue, not once per reading.
        longest = [text + glue + glue.join(pieces) for glue in (("", " ") if pieces else ("",))]
        engine = self.scanner.prefilter_for(None if self._large else SMALL_INPUT)
        anchored = frozenset().union(*(self.lines.anchored(t, engine)
                                       for t in {*longest, *(_PADDING.sub(" ", t) for t in longest)}))
        if not any(isinstance(signatures[i], DIAGNOSING) for i, _ in anchored):
            return None
        alone = {i for i, _ in hits} | {i for piece in pieces for i, _ in self.lines.confirm_only(piece, anchored)}
        for count in range(len(pieces), -1, -1):
            for glue in ("", " ") if count else ("",):
                joined = text + glue + glue.join(pieces[:count])
                for candidate in dict.fromkeys((joined, _PADDING.sub(" ", joined))):
                    found = self.lines.confirm_only(candidate, anchored)
                    if any(isinstance(signatures[i], DIAGNOSING) and i not in alone for i, _ in found):
                        return candidate, found, count
        return None

    def _frame_facts(self, text: str, extracting: frozenset[tuple[int, int]], line_no: int, origin: str | None) -> None:
        """The facts a traceback frame gives: extractors that read a frame's path (the program
        it names, ComfyUI's folder, torch.compile's graph trees). Only extractors' patterns are
        tried: a frame's step is the frame maps' to say, and no frame is an error of its own."""
        for index, hit in self.lines.confirm(text, extracting):
            self._fact(cast(FactExtractor, self.scanner.signatures[index]), hit.values, line_no, origin)

    def _ignored_by_python(self, data: bytes, candidate: Candidate) -> bool:
        """Whether the line before this exception is CPython's note that importing
        sitecustomize (or usercustomize) failed: the interpreter printed the error and started
        the program all the same, so the error ended nothing."""
        before = self._raw_line_before(data, candidate)
        if not before or len(before) > MAX_WRAPPED:
            return False
        message = self.lines.message(before)
        return message is not None and _CUSTOMIZE_FAILED.match(message.text) is not None

    def _raw_line_before(self, data: bytes, candidate: Candidate) -> bytes:
        """The raw line before a candidate: in ``data``, or the last line of the block before
        (a worker's segment puts it before each candidate)."""
        return line_before(data, candidate.start) if candidate.start else self._block_tail

    def _line_before(self, data: bytes, candidate: Candidate, line_no: int) -> None:
        """A line that holds the second half of an anchor: a terminal's wrap may have cut the
        anchor after the line before, which was no candidate. That line is read (and read on
        through this one) as a candidate of its own. It is the line before in ``data``, or the
        last line of the block before; a worker's segment puts it before each candidate."""
        before = self._raw_line_before(data, candidate)
        if MIN_WRAPPED <= len(before) <= MAX_WRAPPED:
            text = before + b"\n" + data[candidate.start:candidate.start + FOLLOW_LINES * (FOLLOW_BYTES + 1)]
            self._line(text, Candidate(0, len(before), set(), 0), line_no - 1, read_back=False)
        self._candidate_line = line_no

    def _frame_rejoined(self, data: bytes, candidate: Candidate, text: str, message: Message) -> tuple[str, int]:
        """A CPython frame line a terminal hard-wrapped, with the number of continuation lines
        it took. It is read whole when only the whole is a frame (the wrap fell inside the
        path), or when the wrap fell inside the function's name and only the whole name maps to
        a step ('in fr' + 'om_pretrained'). A paste that lost its indentation puts the source
        line unindented after the frame: that is no name's end, and the frame stays as it is.
        A frame broken after its path's comma, whatever its width, is read with the next line
        when that line is the rest of a frame ('line N, in name')."""
        if _FRAME_PATH_ONLY.match(text):
            rest = _message_at(data, candidate.end + 1)[0].text
            if _FRAME_REST.match(rest):
                return text.rstrip() + " " + rest.strip(), 1
        if not _may_be_wrapped(candidate):
            return text, 0
        pieces = self._continuation(data, candidate, message, wrapped_only=True)
        whole = FRAME_LINE.match(text) is not None
        shown = self.phases.phase_of(text) if whole and pieces else None
        for count in range(1, len(pieces) + 1):
            joined = text + "".join(pieces[:count])
            if not whole and FRAME_LINE.match(joined):
                return joined, count
            if whole and _COMPLETE_FRAME.match(joined) and self.phases.phase_of(joined) not in (None, shown):
                return joined, count
        return text, 0

    def _continuation(self, data: bytes, candidate: Candidate, message: Message, wrapped_only: bool) -> list[str]:
        """The lines after a candidate that may continue it: a terminal's hard wrap (or an
        engine's own line breaks) leaves them without a header or process tag, unindented or
        led by the one space the wrap fell on. A header, another process's tag, an indented
        line, a frame or an exception starts a new record. ``wrapped_only``: only a terminal's
        wrap, whose every piece but the last is as wide as the first line, so a piece of
        another width is the last. When the candidate's raw line begins with its logging
        header, a line that begins with the same four bytes ('INFO', '2025') is known to be
        the next record without parsing it. A rich console record goes on by its own rule
        (:meth:`_hanging`)."""
        if message.hanging:
            return self._hanging(data, candidate, message.hanging)
        origin = message.origin
        pieces: list[str] = []
        position = candidate.end + 1
        start = data[candidate.start:candidate.start + 4] if message.header_first else b""
        width = _width(data[candidate.start:candidate.end]) if wrapped_only else 0
        for _ in range(FOLLOW_LINES):
            if position >= len(data) or data[position:position + 1] in b"\r\n\t" or data.startswith(b"  ", position) \
                    or start and data.startswith(start, position):
                break
            message, stop = _message_at(data, position)
            piece = message.text
            if not piece.strip() or piece[:2].isspace() or piece[:1] == "\t" or message.header \
                    or message.origin not in (None, origin) or is_exception(piece) or TRACEBACK in piece \
                    or FRAME_LINE.match(piece):
                break
            pieces.append(piece)
            if width and _width(data[position:stop]) != width:
                break
            position = stop + 1
        return pieces

    def _hanging(self, data: bytes, candidate: Candidate, hanging: int) -> list[str]:
        """The lines under a rich console record that go on with its message, each indented to
        the message's column (a transport prefix on each line is taken off first)."""
        pieces: list[str] = []
        position = candidate.end + 1
        for _ in range(FOLLOW_LINES):
            message, stop = _message_at(data, position)
            piece = continues_record(message.text, hanging)
            if piece is None or TRACEBACK in piece:  # a traceback logged with the record starts under it too
                break
            pieces.append(piece)
            position = stop + 1
        return pieces

    def _event(self, line_no: int) -> Event:
        if self.event is None:
            self.event = Event(line_no, line_no, marker_phase=self.phases.phase)
        self.event.touch(line_no)
        return self.event

    def _seen(self, text: str, line_no: int, origin: str | None, fixed: str | None = None) -> Seen:
        if fixed:
            phase, source = fixed, "fixed"
        else:
            phase, source = self.phases.in_force(line_no, self.engines.engine)
        frames = [f for _, f in self.phases.recent_frames(line_no)]
        return Seen(line_no, text, phase, source, frames, origin, dict(self.run.facts))

    def _fact(self, sig: FactEntry, values: dict, line_no: int, origin: str | None = None) -> None:
        run = self.run
        engine = next(iter(sig.engines))
        if engine != "any":
            self.engines.note(engine)
            if isinstance(sig, FactExtractor) and sig.names_engine and self.engines.named != engine:
                # A host engine (TGI) running another (vLLM) inside it: the inner engine's
                # banner named it and set its version, which is not the host's.
                run.facts.pop("engine_version", None)
                run.facts["engine"] = engine
                self.engines.named = engine
        for name, value in values.items():
            if name == "version" and engine != "any":
                run.facts["engine"] = engine
                run.facts["engine_version"] = value
                self.engines.named = engine
                name = f"{engine}_version"
            run.facts[name] = value
            run.fact_lines[name] = line_no
            run.fact_origins[name] = origin
            if origin is not None and (origin in run.origin_facts or len(run.origin_facts) < MAX_PROCESSES):
                run.origin_facts.setdefault(origin, {})[name] = value
        if not isinstance(sig, (PhaseMarker, FrameMap)):
            return
        phase = sig.enters_phase
        event = self.event
        if event is not None and line_no <= event.last_line + FOLLOWERS_GAP:
            # Engines often name the step on the line after the error (llama.cpp prints the
            # allocation failure, then which buffer it was for, then the caller): an incident
            # whose phase nothing decided takes the phase of the markers that follow it. A later
            # one may name a later step (ggml's reservation, then the KV-cache update that asked
            # for it), never an earlier one: that is a retry starting (Ollama's next load request).
            for _, incident in event.hits.values():
                if _follows(incident.phase, incident.phase_source, phase):
                    incident.phase, incident.phase_source = phase, "followers"
            for _, seen in event.symptoms:  # and so does a symptom, before its owner is chosen
                if _follows(seen.phase, seen.phase_source, phase):
                    seen.phase, seen.phase_source = phase, "followers"
        self.phases.enter(phase, line_no)

    def _symptom(self, sig: SymptomClass, hit: Hit, text: str, line_no: int, origin: str | None) -> None:
        from .symptoms import SymptomMatch

        if self._wording_state(sig, hit) is not True:  # a symptom's condition is settled at its line
            return
        event = self._event(line_no)
        event.keep(event.symptoms, (SymptomMatch(sig.symptom.name, hit.pattern.form),
                                    self._seen(text, line_no, origin)))

    def _cut_last_line(self) -> None:
        """The input's last line, cut short (a paste, a terminal, a killed process): a problem
        wording whose start it shows, when the line matched nothing whole. A line cut before
        the anchor the prefilter looks for was no candidate: it is read from the last block."""
        last = self._last_line()
        if last is None:
            return
        line_no, text, wanted, message = last
        if message.informational:
            return  # logged at info or debug level: its program called it information
        cut = self.lines.cut_in_anchor(text)
        wanted = frozenset(pair for pair in wanted if not self._ends_early(pair, text))
        if self.event is None and not (message.error_level or ERROR_WORDS.search(text)) and (wanted or any(
                not isinstance(self.scanner.signatures[index], DIAGNOSING) for index, _ in cut)):
            # A line the catalog knows that shows no error is a run's information, cut: a wording's,
            # a fact's or a marker's anchor is in it, or it ends inside a fact's or a marker's.
            # Cut before the value that would make it an error ('Available KV cache memory: '
            # before '-1.2 GiB', or 'Available KV cac'), it reads like one's start.
            return
        if self.event is not None and any(incident.line == line_no for _, incident in self.event.hits.values()):
            return
        wanted = wanted | cut | self.lines.cut_after_lead(text)
        for index, pattern in sorted(wanted, key=lambda pair: self._cut_rank(pair[0])):
            sig = self.scanner.signatures[index]
            if not isinstance(sig, ProblemSignature) or _vetoed(sig, set()):
                continue
            match = partial_match(sig.patterns[pattern], text)
            if match is not None and _shows_enough(match, sig.patterns[pattern]) and not excluded_if_cut(sig, text):
                # One reading: where its context fails, a second wording would be a guess.
                self._problem(sig, Hit({}, sig.patterns[pattern]), text, line_no, message.origin, False, cut=True)
                return

    def _ends_early(self, pair: tuple[int, int], text: str) -> bool:
        """Whether a fact's or a marker's pattern matches ``text`` whole and the line goes on for
        a wording's length after it: the cut is in what follows (a progress bar, then a rank's
        error glued to it), not in the fact."""
        index, pattern = pair
        sig = self.scanner.signatures[index]
        if isinstance(sig, DIAGNOSING):
            return False
        match = search(sig.patterns[pattern].compiled, text, sig)
        return match is not None and len(text.rstrip()) - match.end() >= MIN_PARTIAL

    def _cut_rank(self, index: int) -> tuple[bool, tuple[bool, int]]:
        """Where several wordings start the way a cut line does, the cut may have hidden what
        tells them apart: a wrapper first ('llama runner process has terminate', which
        'terminated: signal: killed' would make the OOM killer's), then the catalog's order."""
        sig = self.scanner.signatures[index]
        return (not (isinstance(sig, ProblemSignature) and sig.wrapper), self.scanner.index.order(index))

    def _last_line(self) -> _LastLine | None:
        """The input's last line: as the last candidate line it is, else as the last block ended."""
        if self._last_candidate is not None and self._last_candidate[0] == self.run.lines:
            return self._last_candidate
        if not self._block_tail.strip() or len(self._block_tail) > FOLLOW_BYTES:
            return None  # (a line longer than a wrapped one is not read back: split.py's workers do not)
        message = parse_line(self._block_tail.decode("utf-8", "replace"))
        return self.run.lines, message.text, frozenset(), message

    def _problem(self, sig: ProblemSignature, hit: Hit, text: str, line_no: int, origin: str | None, joined: bool,
                 cut: bool = False) -> bool:
        """Record a confirmed hit in the open event unless its context fails; True when it counted."""
        frames = self.phases.recent_frames(line_no)
        if sig.has_context and not (self.engines.fits(sig) and self._context_holds(sig, hit.values, frames)):
            return False
        if self._wording_state(sig, hit) is False:
            return False  # a condition that needs a later line's fact waits for the event's end
        if hit.pattern.kill_report and self.event is not None and (self.event.exceptions or self.event.fatals):
            return False  # the process failed on its own first: its launcher killed it
        if hit.pattern.requires is None:
            self._note_engine(sig)  # a conditional hit names its engine only if it stands (_close)
        event = self._event(line_no)
        existing = event.hits.get(sig.id)
        if existing is not None:
            incident = existing[1]
            if line_no <= incident.last_line + 1 and incident.phase_source in ("marker", "followers") \
                    and self.phases.phase and self.phases.phase != incident.phase \
                    and not goes_back(incident.phase, self.phases.phase):
                # The same failure goes on over the next line, which names a later step
                # (llama.cpp: cudaMalloc failed, then "failed to allocate compute pp buffers").
                # Never an earlier one: while serving, a request's larger graph (an image) is
                # reserved with the warmup's wording.
                incident.phase, incident.phase_source = self.phases.phase, "followers"
        notes: list[str] = []
        confidence = self._version_confidence(sig, hit.pattern, notes)
        fixed = hit.pattern.phase or sig.phase
        seen = self._seen(text, line_no, origin, fixed)
        if joined:
            confidence *= REJOINED_CONFIDENCE
        tier, basis = ("partial", "partial: its message is read whole from wrapped or padded lines") if joined else \
            ("partial", "partial: the last line is cut short; what it shows is the start of this wording") if cut else \
            ("exact", "exact: its wording matched")
        if cut:
            confidence *= PARTIAL_CONFIDENCE
        event.add_hit(sig, hit_incident(sig, hit.values, seen, hit.pattern, tier, confidence, basis, notes))
        if hit.pattern.requires is not None:
            if existing is None:
                event.conditional[sig.id] = (hit.pattern.requires, hit.values)  # announced when its event ends
        elif (existing is None or event.conditional.pop(sig.id, None) is not None) and self.on_incident is not None:
            # new, or held back until now: an unconditional wording makes it stand whatever the condition
            self.on_incident(sig, event.hits[sig.id][1])
        return True

    def _note_engine(self, sig: ProblemSignature) -> None:
        self.engines.note(next(iter(sig.engines)))

    def _version_confidence(self, sig: Signature, pattern: Pattern, notes: list[str]) -> float:
        version = self.run.facts.get("engine_version")
        engine_name = self.run.facts.get("engine", "")
        wording_engine = pattern.engine or next(iter(sig.engines))
        if not version or wording_engine != engine_name:
            return 1.0
        in_range = sig.version_in_range(engine_name, str(version))
        if in_range is not False and pattern.versions is not None:
            in_range = pattern.versions.contains(str(version))
        if in_range is False:
            notes.append(f"the log's {engine_name} {version} is outside the versions known to print this wording")
            return OFF_RANGE_CONFIDENCE
        return 1.0

    def _wording_state(self, sig: Signature, hit: Hit) -> bool | None:
        """A wording's own ``requires`` over the facts so far and its captures: None while it
        needs a fact no line has given yet."""
        if hit.pattern.requires is None:
            return True
        return sig.requirement_state(hit.pattern.requires, {**self.run.facts, **hit.values})

    def _context_holds(self, sig: ProblemSignature, values: dict, frames: list[tuple[int, str]]) -> bool:
        if sig.context_phases and self.phases.phase in sig.context_phases:
            return True
        if sig.frames and any(search(p, text, sig) for p in sig.frames for _, text in frames):
            return True
        if sig.context_requires is not None:
            return sig.requirement_holds("match.context.requires", {**self.run.facts, **values})
        return False

    # -- events and the end ---------------------------------------------------------------

    def _fuzzy(self, lines: list[Seen], found: set[str]) -> list[tuple[ProblemSignature, Incident]]:
        before = self.fuzzy.scored
        hits = self.fuzzy.score(lines, found)
        self.run.fuzzy_lines_scored += self.fuzzy.scored - before
        return hits

    def _close(self, input_ended_at: int | None = None) -> None:
        event, self.event = self.event, None
        if event is None:
            return
        event.settle_phase_from_frames(self.engines.engine)  # once its traceback is whole, not in a provisional look
        event.drop_unmet(self.run.facts)
        for sig, _ in (event.hits[sig_id] for sig_id in event.conditional):
            self._note_engine(sig)
        for sig, incident in self.resolver.resolve(event, input_ended_at, self.found, self._last_incident):
            self.found.add(sig.id)
            self._last_incident = max(self._last_incident, incident.last_line)
            self.incidents.append((sig, incident))
            if self.on_incident is not None and (sig.id not in event.hits or sig.id in event.conditional):
                self.on_incident(sig, incident)

    def open_incidents(self) -> list[tuple[ProblemSignature, Incident]]:
        """What the open event would resolve to now (pipe mode announces it after --idle)."""
        if self.event is None:
            return []
        self.event.drop_unmet(self.run.facts)
        return self.resolver.resolve(self.event, None, set(self.found), self._last_incident, provisional=True)

    def finish(self) -> Run:
        self._cut_last_line()
        self._close(input_ended_at=self.run.lines)
        self.run.findings = self._findings(self.incidents)
        return self.run

    def so_far(self) -> Run:
        """A copy of the run with the findings of everything read so far, the open event
        included (pipe mode names each announcement's role from it)."""
        return msgspec.structs.replace(self.run, findings=self._findings([*self.incidents, *self.open_incidents()]))

    def _findings(self, incidents: list[tuple[ProblemSignature, Incident]]) -> list[Finding]:
        engine = self.engines.engine
        # A signature may fire while the log has not yet named its engine; once the whole log
        # has, another engine's signature goes (a vLLM worker's relayed "CUDA error: out of
        # memory" is not ggml's).
        return group(incidents, keep=lambda sig: engine is None or self.engines.fits(sig))
