"""A line to its confirmed hits: the anchor index the prefilter searches for, and the
memoised confirmation of a candidate line by the full regexes.

The :class:`AnchorIndex` is built once per catalog: every pattern's literal anchors (and
their JSON-escaped forms), plus the structural markers (traceback header, frame line, error
words). A :class:`LineMatcher` lives for one input and remembers what it already decided,
since a failing server repeats the same line thousands of times.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from .. import facts as factlib
from ..catalog import CompiledRegex, FactEntry, FactExtractor, FrameMap, LazyRegex, Pattern, ProblemSignature, Signature, SymptomClass
from ..normalize import ERRORISH_WORDS, Message, parse_line
from ..redact import prompt_free
from ..prefilter import Anchor, Prefilter

REGEX_TIMEOUT = 0.25  # seconds a partial match of a cut line may take
CONFIRM_CACHE = 4096  # distinct (message, anchors) confirmations remembered per run
MEMO_LINE = 2048  # longer lines are not memoised: they rarely repeat, and memory stays bounded

TRACEBACK = "Traceback (most recent call last)"
# CPython's frame lines; IPython's (a bare path, JupyterLab's link to one, a cell); older
# IPython's and Colab's, which name the file and the function without a line number
FRAMES = ('File "', "File ~", "File /", "File [", "Cell In[", ".py in ", ".py](", "<ipython-input-")
GATE_WORDS = tuple(word.encode() for word in ERRORISH_WORDS)
# Error words: they make a line error-ish (part of an event). The fuzzy fallback scores only
# lines with one besides a bare "exception" (those are read for uncatalogued errors, and no
# fuzzy template is about them).
ERROR_WORDS = re.compile("(?i)" + "|".join(map(re.escape, ERRORISH_WORDS)))
GATE = re.compile("(?i)" + "|".join(re.escape(w) for w in ERRORISH_WORDS if w != "exception"))
FRAME_LINE = re.compile(r'^\s*(?:File (?:"[^"]*", line \d+|\[?[~/]\S{0,400}?\.py:\d+(?:\]\([^)\s]{0,600}\))?, in )'
                        r'|Cell In\[\d+\], line \d+'
                        r'|\[?(?:[~/]\S{0,400}?\.py|<ipython-input-[\w-]{1,80}>)(?:\]\([^)\s]{0,600}\))? in <?[\w: ]{1,80}>?\()')
# A frame line whose start (File "/first/part/of/the/path) a paste cut off, as the input's first
# line shows it.
CUT_FRAME = re.compile(r'[^"\s]{1,400}\.py", line \d+, in [\w<>.]+\s*$')
# A frame of a native stack, which every native runtime prints innermost first: gdb's
# "#5  0x... in llama_decode ()", glibc's backtrace_symbols "lib.so(func+0x1e6)[0x7f...]", Go's
# "pkg.(*Server).run(0xc0...)", Rust's "  9: crate::module::Type::load", a bare C++ qualified
# name, compute-sanitizer's "Host Frame: func(...) in file:line", ggml's CUDA error report
# "current device: 0, in function ggml_x at file:line", and glog's check-failure stack
# "@     0x7f... caffe::Net<>::ForwardFromTo()".
NATIVE_FRAME = re.compile(
    r"^\s*(?:#\d{1,3}\s+(?:0x[0-9a-fA-F]{1,16}\s+in\s+[A-Za-z_~]|[A-Za-z_~][\w:~<>]{0,300}\s*\()"
    r"|\S{0,300}\([\w.$@]{1,400}\+0x[0-9a-fA-F]{1,16}\)\s*\[0x[0-9a-fA-F]{1,16}\]"
    r"|\d{1,3}:\s+(?:0x[0-9a-fA-F]{1,16}\s+-\s+)?<?[\w<>]{1,80}::\S"
    r"|(?:[\w.-]{1,100}/){1,12}[\w-]{1,100}(?:\.\(\*?\w{1,80}\))?(?:\.\w{1,80}){1,4}\([^()\n]{0,400}\)\s*$"
    r"|[\w-]{1,100}(?:\.\(\*?\w{1,80}\))?(?:\.\w{1,80}){1,4}\((?:0x[0-9a-fA-F]|\{|\.\.\.)[^()\n]{0,400}\)\s*$"
    r"|[A-Za-z_]\w{0,80}(?:::~?[A-Za-z_]\w{0,80}){1,8}\s*$"
    r"|(?:={3,}\s+)?Host Frame:\s*[A-Za-z_~]"
    r"|current device: \d{1,3}, in function \w{1,120}\b"
    r"|@\s{1,8}0x[0-9a-fA-F]{1,16}\s{1,8}[A-Za-z_~(])"
)
# The line a frame was executing, under its frame line: CPython prints it next; IPython prints a
# few lines of context and marks it with an arrow padded to the width of the line numbers
# ("----> 7", "---> 42", "-> 1298").
IPYTHON_CALL = re.compile(r"-{1,12}> ?\d")
# IPython's traceback header names the exception's class before the frames, so a paste cut
# before the exception line still says what was raised ("OutOfMemoryError    Traceback ...").
IPYTHON_HEADER = re.compile(r"^(?P<type>[A-Za-z_][\w.]{0,120})\s{2,}Traceback \(most recent call last\)")
# (JupyterLab renders the location as a link, which a copy gives as "File [path:N](url), in ...")
_IPYTHON_FRAME = re.compile(r'^\s*File \[?(?P<path>[~/]\S{0,400}?\.py):(?P<line>\d+)(?:\]\([^)\s]{0,600}\))?, in '
                            r'(?:[\w<>]+\.){0,8}(?P<func>[\w<>]+)')
# (older IPython and Colab: "/path/x.py in func(args)", the path also as a link "[/path/x.py](url)")
_OLD_IPYTHON_FRAME = re.compile(r'^\s*\[?(?P<path>[~/]\S{0,400}?\.py)(?:\]\([^)\s]{0,600}\))? in (?P<func>\w+)\(')
# IPython prints a frame's source under it: the line it was executing, marked with an arrow, and
# up to two lines of context on either side, then a blank line. A paste that ends inside that
# block ends within this many lines of the frame line.
IPYTHON_SOURCE_LINES = 6


def is_ipython_frame(text: str) -> bool:
    """A frame line in one of IPython's forms (a cell, a path with ``:N, in``, older IPython's
    ``path in func(``), whose source lines follow it (IPYTHON_SOURCE_LINES)."""
    stripped = text.lstrip()
    return stripped.startswith(("Cell In[", "<ipython-input-")) or _IPYTHON_FRAME.match(text) is not None \
        or _OLD_IPYTHON_FRAME.match(text) is not None


def canonical_frame(text: str) -> str:
    """A frame line as frame maps spell it: CPython's ``File "path", line N, in func`` with
    ``/`` in paths, from IPython's ``File path:N, in Class.func(args)``, older IPython's and
    Colab's ``path in func(args)`` or a Windows path."""
    text = text.strip()
    ipython = _IPYTHON_FRAME.match(text)
    if ipython is not None:
        text = f'File "{ipython["path"]}", line {ipython["line"]}, in {ipython["func"]}'
    elif (older := _OLD_IPYTHON_FRAME.match(text)) is not None:  # no line number: 0 stands for it
        text = f'File "{older["path"]}", line 0, in {older["func"]}'
    return text.replace("\\", "/")


class Target(msgspec.Struct, eq=False):
    """What an anchor leads to: (signature, pattern) indices, or a structural marker."""

    patterns: set[tuple[int, int]] = msgspec.field(default_factory=set)
    traceback: bool = False
    frame: bool = False
    source: bool = False  # a frame map's literal: on the code line under a frame, it may name the step
    gate: bool = False
    half: bool = False  # half of a long pattern anchor (see :func:`halves`)

    def half_only(self) -> bool:
        return self.half and not (self.patterns or self.traceback or self.frame or self.source or self.gate)


class Hit(msgspec.Struct, eq=False):
    values: dict[str, Any]
    pattern: Pattern  # the first pattern that matched


class AnchorIndex:
    """Every literal the prefilter looks for, and what each one leads to."""

    def __init__(self, signatures: list[Signature]) -> None:
        self.signatures = signatures
        self.anchors: list[Anchor] = []
        self.targets: list[Target] = []
        self._index: dict[tuple[bytes, bool], int] = {}
        for i, sig in enumerate(signatures):
            if isinstance(sig, FrameMap):
                for pattern in sig.patterns:
                    for literal in pattern.anchors:
                        self._target(literal.encode("utf-8"), pattern.ignore_case).source = True
                continue
            for j, pattern in enumerate(sig.patterns):
                for literal in pattern.anchors:
                    for form in (literal, *json_forms(literal)):
                        self._target(form.encode("utf-8"), pattern.ignore_case).patterns.add((i, j))
                    for half in halves(literal) if isinstance(sig, DIAGNOSING) else ():
                        self._target(half.encode("utf-8"), pattern.ignore_case).half = True
        for form in (TRACEBACK, *json_forms(TRACEBACK)):
            self._target(form.encode(), False).traceback = True
        for frame in FRAMES:
            for form in (frame, *json_forms(frame)):
                self._target(form.encode(), False).frame = True
        for word in GATE_WORDS:
            self._target(word, True).gate = True
        # On one line, facts and phase markers apply before the problems they give context to.
        self.order = lambda i: (not isinstance(signatures[i], FactEntry), i)
        self._texts: list[tuple[str, bool, set[tuple[int, int]]]] | None = None
        self._leads: list[tuple[str, bool, set[tuple[int, int]]]] | None = None

    def pattern_literals(self) -> list[tuple[str, bool, set[tuple[int, int]]]]:
        """The anchors that lead to patterns, decoded (lower-case when caseless), with their
        patterns: for the end of a line cut inside one."""
        if self._texts is None:
            self._texts = [(a.literal.decode("utf-8", "replace"), a.caseless, t.patterns)
                           for a, t in zip(self.anchors, self.targets) if t.patterns]
        return self._texts

    def pattern_leads(self) -> list[tuple[str, bool, set[tuple[int, int]]]]:
        """The leads of the problem signatures' patterns (see PatternLiterals), with their
        patterns: for a last line cut short after a wording's start, before its anchor."""
        if self._leads is None:
            grouped: dict[tuple[str, bool], set[tuple[int, int]]] = {}
            for i, sig in enumerate(self.signatures):
                if isinstance(sig, ProblemSignature):
                    for j, pattern in enumerate(sig.patterns):
                        if pattern.lead:
                            grouped.setdefault((pattern.lead, pattern.ignore_case), set()).add((i, j))
            self._leads = [(lead, caseless, patterns) for (lead, caseless), patterns in grouped.items()]
        return self._leads

    def _target(self, literal: bytes, caseless: bool) -> Target:
        key = (literal.lower() if caseless else literal, caseless)
        if key not in self._index:
            self._index[key] = len(self.anchors)
            self.anchors.append(Anchor(key[0], caseless))
            self.targets.append(Target())
        return self.targets[self._index[key]]


class LineKinds(msgspec.Struct, eq=False):
    traceback: bool
    frame: bool
    source: bool
    gate: bool
    wanted: frozenset[tuple[int, int]]
    # Only halves of anchors: the line is read when a terminal's wrap cut an anchor there and
    # the rest follows on the next lines, and is otherwise no candidate at all.
    split_only: bool
    extracting: frozenset[tuple[int, int]]  # the wanted patterns of value extractors (read on frame lines too)

    @property
    def source_only(self) -> bool:
        """Only a frame map's literals: the line matters as a frame or a frame's code line."""
        return self.source and not (self.traceback or self.frame or self.gate or self.wanted)


class LineMatcher:
    """Messages and confirmations of one input's candidate lines, memoised and bounded."""

    def __init__(self, index: AnchorIndex) -> None:
        self.index = index
        self._messages: dict[bytes, Message | None] = {}
        self._confirmed: dict[tuple[str, frozenset[tuple[int, int]]], list[tuple[int, Hit]]] = {}
        self._kinds: dict[frozenset[int], LineKinds] = {}

    def kinds(self, anchors: set[int]) -> LineKinds:
        """What a candidate's anchors lead to, memoised: the same few sets recur on every line."""
        key = frozenset(anchors)
        kinds = self._kinds.get(key)
        if kinds is None:
            targets = [self.index.targets[i] for i in key]
            wanted: frozenset[tuple[int, int]] = frozenset().union(*(t.patterns for t in targets))
            kinds = LineKinds(any(t.traceback for t in targets), any(t.frame for t in targets),
                              any(t.source for t in targets), any(t.gate for t in targets),
                              wanted, all(t.half_only() for t in targets),
                              frozenset(p for p in wanted if isinstance(self.index.signatures[p[0]], FactExtractor)))
            if len(self._kinds) >= CONFIRM_CACHE:
                self._kinds.clear()
            self._kinds[key] = kinds
        return kinds

    def message(self, raw: bytes) -> Message | None:
        """The parsed message of a raw line with any prompt text cut out; None for a request
        echo with nothing else on it."""
        if raw in self._messages:
            return self._messages[raw]
        message: Message | None = parse_line(raw.decode("utf-8", "replace"))
        text = prompt_free(message.text)  # type: ignore[union-attr]
        if text is None:
            message = None
        elif text != message.text:  # type: ignore[union-attr]
            message = msgspec.structs.replace(message, text=text)  # type: ignore[arg-type]
        if len(raw) <= MEMO_LINE:
            if len(self._messages) >= CONFIRM_CACHE:
                self._messages.clear()
            self._messages[raw] = message
        return message

    def confirm(self, text: str, wanted: frozenset[tuple[int, int]]) -> list[tuple[int, Hit]]:
        """Signatures whose full regex matches the line, facts first."""
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
        for index in sorted(patterns, key=self.index.order):
            hit = confirm(self.index.signatures[index], text, patterns[index])
            if hit is not None:
                hits.append((index, hit))
        return hits

    def cut_in_anchor(self, text: str) -> frozenset[tuple[int, int]]:
        """Patterns whose anchor the text ends in the middle of: a line cut short there shows
        only the start of the literal the prefilter looks for."""
        return _cut_in(text, self.index.pattern_literals(), whole=False)

    def cut_after_lead(self, text: str) -> frozenset[tuple[int, int]]:
        """Patterns whose lead the text shows, whole or cut at its end: a line cut short
        after a wording's start, before the anchor the prefilter looks for."""
        return _cut_in(text, self.index.pattern_leads(), whole=True)

    def anchored(self, text: str, engine: Prefilter) -> frozenset[tuple[int, int]]:
        """The patterns whose anchors ``engine`` finds in a text the prefilter never saw whole
        (a line rejoined from wrapped pieces)."""
        found = engine.candidates(text.encode("utf-8", "replace"))
        targets = self.index.targets
        return frozenset().union(*(targets[a].patterns for c in found for a in c.anchors))

    def confirm_only(self, text: str, wanted: frozenset[tuple[int, int]]) -> list[tuple[int, Hit]]:
        """The hits of ``wanted`` patterns on a text, not memoised (rejoined texts rarely repeat)."""
        return self._confirm_all(text, wanted) if wanted else []


# An anchor this long is also looked for by its halves (shorter halves occur on healthy lines);
# only the anchors of entries that diagnose: each literal costs the prefilter some speed.
MIN_SPLIT_ANCHOR = 24
DIAGNOSING = (ProblemSignature, SymptomClass)  # entries that diagnose (a rejoined message is read for them)


def halves(literal: str) -> tuple[str, ...]:
    """The two halves of a long anchor, overlapping by a character when its length is odd:
    wherever a terminal's wrap cuts the anchor in two, one of its pieces holds a half whole,
    so the line is still a candidate (and read on, or back, for the rest)."""
    if len(literal) < MIN_SPLIT_ANCHOR:
        return ()
    return literal[:(len(literal) + 1) // 2], literal[len(literal) // 2:]


def json_forms(literal: str) -> list[str]:
    """An anchor as it appears inside a JSON string, where a log shipper wrapped the line
    (Docker's json-file driver, Fluent Bit, Vector): quotes and backslashes escaped, and with
    Go's encoder also <, > and & as \\u003c, \\u003e and \\u0026. The full regex then runs on
    the unwrapped message (normalize.py)."""
    plain = literal.replace("\\", "\\\\").replace('"', '\\"')
    go = plain.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return [form for form in dict.fromkeys((plain, go)) if form != literal]


def search(pattern: CompiledRegex | LazyRegex, text: str, sig: Signature) -> Any:
    """Search with one of ``sig``'s regexes. Linting rules out catastrophic patterns; an
    overlay's regexes, which nobody here reviewed, also search under the time budget of
    matcher/budget.py as defence in depth (it costs several times the search itself, so the
    built-in catalog runs without it, on ``re``)."""
    if sig.reviewed:
        return pattern.search(text)
    from .. import budget

    return budget.REGEX.search(pattern, text, sig)


def confirm(sig: Signature, text: str, only: set[int] | None = None) -> Hit | None:
    """The facts of a confirmed hit, or None. A problem or symptom takes its first matching
    pattern; a fact entry merges every pattern that matches (one line can state several
    settings). ``only``: the indices of the patterns to try (default: all)."""
    values: dict[str, Any] | None = None
    first: Pattern | None = None
    for index, pattern in enumerate(sig.patterns):
        if only is not None and index not in only:
            continue
        match = search(pattern.compiled, text, sig)
        if match is None:
            continue
        if first is None:
            if any(search(ex, text, sig) for ex in sig.exclude):
                return None
            first, values = pattern, {}
        values.update(factlib.from_match(match.groupdict()))  # type: ignore[union-attr]
        if not isinstance(sig, FactEntry):
            break
    return None if first is None else Hit(values or {}, first)


MIN_PARTIAL = 16  # characters of a wording a cut line must show
MIN_CUT_ANCHOR = 6  # characters of an anchor a line cut inside it must show
CUT_TAIL = 256  # a line cut short is looked at in its last characters only


def _cut_in(text: str, literals: list[tuple[str, bool, set[tuple[int, int]]]], whole: bool) -> frozenset[tuple[int, int]]:
    """The patterns of the ``literals`` that the end of ``text`` cuts (at least MIN_CUT_ANCHOR
    characters of one shown), or, with ``whole``, that it shows whole."""
    tail = text[-CUT_TAIL:]
    lowered = tail.lower()
    ends = {caseless: subject[-MIN_CUT_ANCHOR:] for caseless, subject in ((False, tail), (True, lowered))}
    wanted: set[tuple[int, int]] = set()
    for literal, caseless, patterns in literals:
        subject = lowered if caseless else tail
        # The last MIN_CUT_ANCHOR characters must occur in the literal before anything longer is tried.
        if whole and literal in subject or ends[caseless] in literal[:-1] and any(
                subject.endswith(literal[:k]) for k in range(len(literal) - 1, MIN_CUT_ANCHOR - 1, -1)):
            wanted |= patterns
    return frozenset(wanted)


def partial_match(pattern: Pattern, text: str) -> Any:
    """A match of ``pattern`` that ``text`` ends in the middle of (the line was cut short), or
    None. The ``regex`` module's partial matching, under the overlay time budget.

    The cut must fall in the wording's own words or numbers: where the text ends inside a
    span that takes any text (the call in 'CUDA runtime error in <call>: out of memory'),
    every error of the same shape starts the same way, and the words that would make it this
    one are not shown. Such a span still accepts a character no wording spells (NUL), so the
    match stays partial with one appended."""
    import regex

    compiled = regex.compile(pattern.source, regex.IGNORECASE if pattern.ignore_case else 0)
    try:
        match = compiled.search(text, partial=True, timeout=REGEX_TIMEOUT)
        if match is None or not match.partial or match.end() - match.start() < MIN_PARTIAL:
            return None
        probe = compiled.match(text + "\0", match.start(), partial=True, timeout=REGEX_TIMEOUT)
    except TimeoutError:
        return None
    return None if probe is not None and probe.partial else match


def excluded_if_cut(sig: ProblemSignature, text: str) -> bool:
    """Whether one of ``sig``'s exclusions rules out a line cut short: it matches the text, or
    the text ends in the middle of it (at least MIN_CUT_ANCHOR characters shown), where the cut
    may have hidden what rules the wording out ('buffer of size ' before a size no machine
    has). One partial search per exclusion finds both, under the overlay time budget."""
    import regex

    for exclusion in sig.exclude:
        try:
            match = regex.compile(exclusion.source).search(text, partial=True, timeout=REGEX_TIMEOUT)
        except TimeoutError:
            return True
        if match is not None and (not match.partial or match.end() - match.start() >= MIN_CUT_ANCHOR):
            return True
    return False
