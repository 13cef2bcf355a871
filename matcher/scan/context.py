"""What is in force at a line: the phase (from markers and traceback frames) and the engine.

Line order is the only order. A fact entry with ``enters_phase`` moves the run into a phase;
a ``Traceback (most recent call last):`` opens a traceback whose frames are kept until the
next one; the innermost frame that a frame map knows names the phase the traceback died in.
"""

from __future__ import annotations

import re

import msgspec

from ..catalog import FrameMap, Signature
from ..findings import ENGINE_AGNOSTIC, HOST_ENGINES, most_seen_engine
from .lines import CONFIRM_CACHE, canonical_frame, confirm

FRAME_GAP = 40  # lines between the last traceback frame and the error it explains
ORPHAN_GAP = 3  # lines between a code line that starts the input and the error it explains
MAX_FRAMES = 64  # innermost frames kept per traceback
MAX_PHASES = 256  # phase transitions kept per run (a restart loop can print millions)
MAX_ORIGINS = 256  # process tags looked at for the engine
# The order in which a start-up passes through the phases, as the schema lists them.
LIFECYCLE = ("device-check", "weight-loading", "memory-profiling", "kv-cache-allocation", "cudagraph-capture",
             "warmup", "serving")
WEIGHT_LOADING = LIFECYCLE[1]


def forward_is_workload(engine: str | None) -> bool:
    """Whether a model's forward pass in a traceback shows the program's own work (logkb's
    serving phase), even after a weight-loading marker: loading moves tensors and runs no
    model. A serving engine also runs its model during start-up, to profile memory, warm up or
    capture graphs, steps that its own markers and frames name; under one, a forward pass
    alone settles nothing (a paste of a traceback's tail keeps the model's frames and loses
    the engine's)."""
    return engine is None or engine in ENGINE_AGNOSTIC


def goes_back(phase: str | None, to: str) -> bool:
    """True when ``to`` is a step that comes before ``phase`` in a start-up."""
    return phase in LIFECYCLE and to in LIFECYCLE and LIFECYCLE.index(to) < LIFECYCLE.index(phase)

# Source paths (in traceback frames, or in an error message) that show which engine is running.
_FRAME_ENGINES = (
    ("vllm", re.compile(r"[/\\](?:site|dist)-packages[/\\]vllm(?:_omni)?[/\\]"
                        r"|[/\\]vllm[/\\](?:v1|engine|worker|model_executor|entrypoints|executor|distributed)[/\\]")),
    ("sglang", re.compile(r"[/\\]sglang[/\\]srt[/\\]")),
    ("tgi", re.compile(r"[/\\]text_generation_server[/\\]")),
    ("trtllm", re.compile(r"[/\\]tensorrt_llm[/\\]")),
    # Ollama's Go frames and the llama.cpp sources and libraries it builds and ships:
    # "github.com/jmorganca/ollama/llm/llama.cpp/ggml-cuda.cu", "/usr/local/lib/ollama/libggml-base.so"
    ("ollama", re.compile(r"\bgithub\.com/(?:ollama|jmorganca)/ollama/|[/\\]ollama[/\\](?:llm|ml|llama|runner)[/\\]"
                          r"|[/\\]lib[/\\]ollama[/\\]")),
)
# Process tags that only one engine gives its processes (normalize.py takes them off as a line's
# origin): vLLM's API server, engine core, workers by parallel rank and Ray actors; the
# journal's tag of Ollama's service.
_ORIGIN_ENGINES = (
    ("vllm", re.compile(r"\((?:APIServer|EngineCore(?:_DP\d+|_\d+)?|Worker(?:_(?:DP|TP|PP|EP)\d+)+|VllmWorker(?:Process)?"
                        r"|RayWorkerWrapper|StageEngineCoreProc\w*) ")),
    ("ollama", re.compile(r"ollama\[\d+\]$")),  # journalctl's tag for Ollama's service: "ollama[3010374]:"
)


class PhaseTracker(msgspec.Struct, eq=False):
    """The phase markers passed so far and the current traceback's frames."""

    frame_maps: list[FrameMap]
    phase: str | None = None  # the last marker's phase
    phases: list[tuple[str, int]] = msgspec.field(default_factory=list)
    frames: list[tuple[int, str]] = msgspec.field(default_factory=list)
    frame_phase: str | None = None  # the phase the current traceback's innermost mapped frame shows
    fallback_phase: str | None = None  # the same from fallback frame maps (a model's forward pass)
    native_phase: str | None = None  # the phase the innermost mapped frame of the last native stack shows
    native_line: int = 0  # that stack's last frame line seen
    native_explains_error: bool = False  # the stack followed an error line, which it belongs to
    orphan_line: int = 0  # the input's first line read as a frame's code line (add_orphan_source)
    _memo: dict[str, tuple[str, bool] | None] = msgspec.field(default_factory=dict)

    def enter(self, phase: str, line_no: int) -> bool:
        """A marker at ``line_no``; True when it changed the phase."""
        if phase == self.phase:
            return False
        self.phase = phase
        if len(self.phases) < MAX_PHASES:
            self.phases.append((phase, line_no))
        else:
            self.phases[-1] = (phase, line_no)
        return True

    def start_traceback(self) -> None:
        self.frames = []
        self.frame_phase = None
        self.fallback_phase = None

    def add_frame(self, line_no: int, text: str) -> None:
        if self.frames and line_no - self.frames[-1][0] > FRAME_GAP:
            self.start_traceback()
        frame = canonical_frame(text)
        self.frames.append((line_no, frame))
        del self.frames[:-MAX_FRAMES]
        self._note(self._phase_of_frame(frame))

    def add_native_frame(self, line_no: int, text: str, after_error: bool) -> str | None:
        """A native stack frame (lines.NATIVE_FRAME); returns the phase of its stack so far.
        Native stacks print the innermost frame first, so the first mapped frame decides. A
        stack printed after an error line (ggml's abort) belongs to that error; one printed
        before (Go's panic, then the server's report) speaks for the next error."""
        if not self.native_line or line_no - self.native_line > FRAME_GAP:
            self.native_phase = None  # another stack
            self.native_explains_error = after_error
        self.native_line = line_no
        if self.native_phase is None:
            found = self._phase_of_frame(text.strip())
            if found is not None and not found[1]:
                self.native_phase = found[0]
        return self.native_phase

    def phase_of(self, frame_line: str) -> str | None:
        """The phase a frame line shows, without adding it to the traceback (fallback maps
        aside)."""
        found = self._phase_of_frame(canonical_frame(frame_line))
        return found[0] if found is not None and not found[1] else None

    def add_source(self, text: str) -> None:
        """The code line a frame was executing: a call it names (``from_pretrained(``,
        ``.generate(``) shows the step even where the frame's own function is the user's."""
        self._note(self._phase_of_frame(text.strip()))

    def add_orphan_source(self, line_no: int, text: str) -> None:
        """The input's first line when it is the code line a frame was executing, the frame line
        above it cut off by the paste ('new_value = value.to(device)', then the exception): it
        names the step as it would under its frame, for an error that follows at once. Not a
        fallback map's (a model's forward pass): one code line is too little for that."""
        found = self._phase_of_frame(text.strip())
        if found is not None and not found[1]:
            self.start_traceback()
            self.frames.append((line_no, text.strip()))
            self.orphan_line = line_no
            self._note(found)

    def _note(self, found: tuple[str, bool] | None) -> None:
        if found is not None:
            phase, fallback = found
            if fallback:
                self.fallback_phase = phase
            else:
                self.frame_phase = phase

    def recent_frames(self, line_no: int) -> list[tuple[int, str]]:
        """The frames of the traceback that a line at ``line_no`` closes, if any."""
        if not self.frames:
            return []
        last = self.frames[-1][0]
        return self.frames if line_no - last <= (ORPHAN_GAP if last == self.orphan_line else FRAME_GAP) else []

    def in_force(self, line_no: int, engine: str | None = None) -> tuple[str, str]:
        """The phase at a line and where it comes from: the frames of the traceback it closes,
        the last marker, the traceback's fallback frames in a program of ``engine`` (which a
        marker after the error may still replace, and which decide over a weight-loading
        marker, see forward_is_workload), or nothing."""
        recent = bool(self.recent_frames(line_no))
        if self.frame_phase and recent:
            return self.frame_phase, "frames"
        if self.native_phase and not self.native_explains_error and line_no - self.native_line <= FRAME_GAP \
                and not (self.phases and self.phases[-1][1] > self.native_line):
            return self.native_phase, "frames"  # a native stack printed before the error it explains (Go's panic)
        fallback = self.fallback_phase if recent and forward_is_workload(engine) else None
        if self.phase and not (self.phase == WEIGHT_LOADING and fallback):
            return self.phase, "marker"
        if fallback:
            return fallback, "fallback"
        return "unknown", "unknown"

    def _phase_of_frame(self, frame: str) -> tuple[str, bool] | None:
        """The phase a frame names and whether only a fallback map names it (a map that is not
        one wins). Memoised: the same frames recur in every traceback of a crash loop."""
        if frame not in self._memo:
            if len(self._memo) >= CONFIRM_CACHE:
                self._memo.clear()
            lowered = frame.lower()
            named = [e for e in reversed(self.frame_maps)
                     if (wanted := anchored_patterns(e, frame, lowered)) and confirm(e, frame, wanted) is not None]
            chosen = next((e for e in named if not e.fallback), named[0] if named else None)
            self._memo[frame] = None if chosen is None else (chosen.enters_phase, chosen.fallback)
        return self._memo[frame]


def anchored_patterns(sig: Signature, text: str, lowered: str) -> set[int]:
    """The patterns of ``sig`` whose anchor is in ``text`` (``lowered``: the text in lower case,
    for caseless anchors): only they can match, so a frame is tried against a few regexes, and
    a short log compiles a few, not every frame map's. The frame's own text is searched, not
    the raw line, because canonical_frame rewrites Windows and IPython frames first."""
    return {i for i, pattern in enumerate(sig.patterns)
            if any(anchor in (lowered if pattern.ignore_case else text) for anchor in pattern.anchors)}


# Engines whose output mixes in one log: Ollama relays llama.cpp's, so a log whose lines are
# mostly llama.cpp's may be Ollama's, and the other way round.
_EMBEDDED = {engine: frozenset({other}) for inner, host in HOST_ENGINES.items()
             for engine, other in ((inner, host), (host, inner))}


class EngineTracker(msgspec.Struct, eq=False):
    """Which engine wrote the log: its version banner if seen, else the engine whose entries
    and frames were seen most."""

    counts: dict[str, int] = msgspec.field(default_factory=dict)
    writers: list[str] = msgspec.field(default_factory=list)
    named: str | None = None
    _origins: set[str] = msgspec.field(default_factory=set)

    def note(self, engine: str) -> None:
        if engine not in ("any", "linux", "cuda"):
            self.counts[engine] = self.counts.get(engine, 0) + 1

    def note_paths(self, text: str) -> None:
        """A traceback frame, or an error message that names the source file it was raised in
        (a C++ runtime's "(/app/tensorrt_llm/cpp/.../tllmBuffers.h:125)"): the engine's own path."""
        for engine, path in _FRAME_ENGINES:
            if path.search(text):
                self.note(engine)
                return

    def note_origin(self, origin: str | None) -> None:
        """A line's process tag, once per tag: '(EngineCore_DP0 pid=1)' is vLLM's."""
        if origin is None or origin in self._origins or len(self._origins) >= MAX_ORIGINS:
            return
        self._origins.add(origin)
        for engine, tag in _ORIGIN_ENGINES:
            if tag.match(origin):
                self.note(engine)
                return

    def note_writer(self, writer: str | None) -> None:
        """The engine whose logging header a line had: vLLM's header names vLLM where the log
        shows no serving engine otherwise (an error line pasted alone)."""
        if writer is not None and writer not in self.writers:
            self.writers.append(writer)

    @property
    def engine(self) -> str | None:
        return self.named if self.named is not None else most_seen_engine(self.counts, self.writers)

    def fits(self, sig: Signature) -> bool:
        """A signature belongs to its engines (and to the layers under every engine): once the
        log's engine is known, another engine's signature does not diagnose it."""
        return engine_fits(sig, self.engine)


def engine_fits(sig: Signature, engine: str | None) -> bool:
    engines = set(sig.engines)
    return engine is None or bool(engines & {engine, *ENGINE_AGNOSTIC}) or \
        bool(engines & _EMBEDDED.get(engine, frozenset()))
