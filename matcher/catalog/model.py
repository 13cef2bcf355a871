"""The catalog as typed objects: what every consumer reads instead of the YAML.

A :class:`Signature` is one validated catalog file: its texts (title, summary, cause,
verify), its checks, fixes, values and references as frozen records, and the compiled
matching parts the scanner uses (patterns, exclusions, frame regexes, owner rules). The
objects are built by :mod:`matcher.catalog.load`; nothing here reads a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import msgspec

from .. import expr
from ..versions import VersionRange

# A compiled ``re`` or ``regex`` pattern: both have the search/groupdict/groupindex interface.
CompiledRegex = Any

# Facts the scanner adds itself (see scan.py), usable in any expression.
DERIVED_FACTS = frozenset({"engine", "engine_version", "phase_reached", "pipeline_stages"})


def compile_regex(source: str, ignore_case: bool = False, reviewed: bool = False) -> CompiledRegex:
    """Compile a catalog regex with the engine its origin calls for.

    A reviewed regex (the built-in catalog) runs on the standard library's ``re``: linting
    keeps every catalog regex in the RE2 subset, where ``re`` and ``regex`` agree, and ``re``
    is already imported and compiles about three times faster. An overlay's regex, which
    nobody here reviewed, runs on ``regex``, whose searches take a time budget (scan.py)."""
    if reviewed:
        return re.compile(source, re.IGNORECASE if ignore_case else 0)
    import regex

    return regex.compile(source, regex.IGNORECASE if ignore_case else 0)


class LazyRegex:
    """A regex compiled on its first search: a catalog has dozens of exclusion and frame
    regexes that a short log never needs (loading has already proven that they compile)."""

    __slots__ = ("source", "reviewed", "_compiled")

    def __init__(self, source: str, reviewed: bool) -> None:
        self.source = source
        self.reviewed = reviewed
        self._compiled: CompiledRegex | None = None

    def search(self, text: str, **options: Any) -> Any:
        if self._compiled is None:
            self._compiled = compile_regex(self.source, reviewed=self.reviewed)
        return self._compiled.search(text, **options)


class PatternLiterals(msgspec.Struct, frozen=True):
    """What the scan looks for before it runs a pattern: its anchors (literals one of which
    every match contains) and its lead (the literal every match starts with, when it is long
    enough to stand for the wording: a line cut short after it still shows the wording)."""

    anchors: tuple[str, ...]
    lead: str | None = None


class Pattern(msgspec.Struct, frozen=True, dict=True):
    """One wording of ``match.patterns``, with the literals the prefilter looks for."""

    source: str
    anchors: tuple[str, ...]
    ignore_case: bool
    versions: VersionRange | None
    phase: str | None = None
    severity: str | None = None
    engine: str | None = None  # whose versions ``versions`` counts in (default: the signature's first engine)
    reviewed: bool = False  # from the built-in catalog: see compile_regex
    form: str | None = None  # symptom entries: whose wording this is (torch, nccl, ggml, ...)
    kill_report: bool = False  # only says that SIGKILL came, not who sent it
    requires: str | None = None  # key of the wording's own condition in the signature's expressions
    lead: str | None = None  # see PatternLiterals

    @cached_property
    def compiled(self) -> CompiledRegex:
        """Compiled on first use: a scan confirms only the patterns whose anchors it meets."""
        return compile_regex(self.source, self.ignore_case, self.reviewed)


class FuzzyTemplate(msgspec.Struct, frozen=True):
    """``match.fuzzy``: a message template scored against lines no pattern matched."""

    template: str
    threshold: float = 88.0


class OwnRule(msgspec.Struct):
    """``match.owns``: a symptom class this signature diagnoses by context (class x context
    evidence), optionally only in some forms and phases, and optionally from a traceback cut
    before its exception line."""

    symptoms: frozenset[str]
    forms: frozenset[str]
    phases: frozenset[str]
    cut_traceback: bool
    cut_only: bool  # a rule for cut tracebacks alone, never for a symptom on a line
    innermost_frame: LazyRegex | None = None  # with cut_traceback: the allocation site
    requires: str | None = None  # key of the rule's condition in the signature's expressions

    def accepts(self, symptom: str, form: str | None, phase: str | None) -> bool:
        return (symptom in self.symptoms and (not self.forms or form in self.forms)
                and (not self.phases or phase in self.phases))

    @property
    def specificity(self) -> int:
        """Rules naming phases beat rules naming forms, which beat rules naming neither."""
        return 4 * bool(self.requires) + 2 * bool(self.phases) + bool(self.forms)


class SymptomSpec(msgspec.Struct):
    """A symptom entry's evidence beyond its patterns (``symptom:`` in its file)."""

    name: str  # the id without "symptom.": what owner rules refer to
    prefixes: tuple[str, ...]
    exception_types: frozenset[str]
    exception_form: str = "torch"  # the form a bare exception of those types counts as


class Value(msgspec.Struct, frozen=True):
    """A named number computed from facts (``values:`` of a signature or of a fix)."""

    name: str
    expression: str


class Applicability(msgspec.Struct, frozen=True):
    """``applies_to`` of a fix or a check; an empty tuple means it does not restrict that aspect."""

    phases: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    leads_in: tuple[str, ...] = ()
    not_engines: tuple[str, ...] = ()
    not_phases: tuple[str, ...] = ()


class Check(msgspec.Struct, frozen=True):
    """A check of ``checks:``: what to look at, and the condition that makes it fail."""

    id: str
    title: str
    look: str  # what to look at and why it decides between fixes
    command: str | None = None  # shown to the operator, never run
    fails_when: str | None = None  # expression over facts: true = the check points at a problem
    when_passed: str | None = None  # ``pass:``, shown when it passes
    when_failed: str | None = None  # ``fail:``, shown when it fails
    applies_to: Applicability = Applicability()  # only its phases, engines and devices count
    when: str | None = None  # expression over facts: false = the check means nothing in this log

    def detail(self, status: str) -> str | None:
        """The text for a status of the checklist (``pass`` or ``fail``)."""
        return {"pass": self.when_passed, "fail": self.when_failed}.get(status)


# A fix's ``when`` may name one of its signature's checks instead of restating its arithmetic,
# alone or followed by ``and`` and an expression that must hold as well.
CHECK_REFERENCE = re.compile(r"checks\.(?P<check>[A-Za-z0-9_-]{1,64})\.(?P<state>failed|passed|unknown)"
                             r"(?:\s+and\s+(?P<rest>\S.*))?", re.DOTALL)


def check_reference(when: str) -> tuple[str, str] | None:
    """``checks.<id>.failed`` (or ``passed``, ``unknown``) as (id, state), else None."""
    match = CHECK_REFERENCE.fullmatch(when.strip())
    return (match.group("check"), match.group("state")) if match else None


def condition_expression(when: str) -> str | None:
    """The expression part of a ``when``: all of it, or what follows ``checks.<id>.<state> and``;
    None for a check reference alone."""
    match = CHECK_REFERENCE.fullmatch(when.strip())
    return when if match is None else match.group("rest")


class Fix(msgspec.Struct, frozen=True):
    """A fix of ``fixes:``, in the order the catalog gives."""

    id: str
    title: str
    change: str
    tradeoff: str
    change_fallback: tuple[str, ...] = ()  # wordings for logs that lack the numbers, in order
    when: str | None = None  # an expression, or checks.<id>.failed|passed|unknown [and an expression]
    leads_when: str | None = None  # the same forms: when true, the fix comes first
    applies_to: Applicability = Applicability()
    values: tuple[Value, ...] = ()
    verify: str | None = None

    @property
    def change_templates(self) -> tuple[str, ...]:
        """The change as written, then its fallbacks."""
        return (self.change, *self.change_fallback)

    @property
    def check_condition(self) -> tuple[str, str] | None:
        """(check id, state) when ``when`` names a check instead of an expression."""
        return None if self.when is None else check_reference(self.when)

    @property
    def lead_condition(self) -> tuple[str, str] | None:
        """(check id, state) when ``leads_when`` names a check instead of an expression."""
        return None if self.leads_when is None else check_reference(self.leads_when)


class Reference(msgspec.Struct, frozen=True):
    """A page that explains the message or the fix."""

    url: str
    title: str | None = None


class Related(msgspec.Struct, frozen=True):
    """A link to another signature (``related:``), e.g. the old id of a renamed one."""

    id: str
    type: str  # renamed | obsolete | derived | similar (Sigma's relation types)


class Expressions(Mapping[str, expr.Expression]):
    """A signature's expressions by key path (``fixes[0].when`` ...), parsed on first lookup:
    loading has already proven that each one parses."""

    def __init__(self, sources: dict[str, str]) -> None:
        self._sources = sources
        self._parsed: dict[str, expr.Expression] = {}

    def __getitem__(self, key: str) -> expr.Expression:
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = self._parsed[key] = expr.parse(self._sources[key])
        return parsed

    def __iter__(self) -> Iterator[str]:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)


class Signature(msgspec.Struct, frozen=True, eq=False, kw_only=True, dict=True):
    """What every catalog entry has, validated, with its regexes and expressions ready to
    compile. Each kind of entry is its own class below; a consumer that needs one kind's
    fields asks for that class (``isinstance``), never for ``kind``'s text."""

    KIND: ClassVar[str]

    id: str
    path: Path
    title: str
    status: str
    engines: dict[str, VersionRange | None]
    patterns: tuple[Pattern, ...]
    expressions: Mapping[str, expr.Expression]
    document: Mapping[str, Any]  # the validated YAML: for the cache and the catalog's own checks only
    severity: str = "info"
    summary: str | None = None
    date: str | None = None
    modified: str | None = None
    tags: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()
    references: tuple[Reference, ...] = ()
    examples: tuple[str, ...] = ()
    exclude: tuple[LazyRegex, ...] = ()
    reviewed: bool = False  # shipped in the built-in catalog (not an overlay): see compile_regex

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r}, {str(self.path)!r})"

    @property
    def kind(self) -> str:
        """The entry's ``kind:`` as the file says it."""
        return self.KIND

    @cached_property
    def fact_names(self) -> frozenset[str]:
        names: set[str] = set()
        for pattern in self.patterns:
            names.update(pattern.compiled.groupindex)
        return frozenset(names)

    def requirement_holds(self, key: str | None, facts: Mapping[str, Any]) -> bool:
        """The ``requires`` at ``key`` (a pattern's, an owner rule's, the context's) over
        ``facts``; no condition holds, and one that needs a fact the log lacks does not."""
        return self.requirement_state(key, facts) is True

    def requirement_state(self, key: str | None, facts: Mapping[str, Any]) -> bool | None:
        """Like :meth:`requirement_holds`, but None while the condition needs a fact that
        ``facts`` lack (a later line of the same event may still give it)."""
        if key is None:
            return True
        try:
            return bool(self.expressions[key].evaluate(facts))
        except expr.Unknown:
            return None

    def version_in_range(self, engine: str, version: str) -> bool | None:
        """None when the signature says nothing about that engine or the version is unparsable."""
        version_range = self.engines.get(engine)
        return None if version_range is None else version_range.contains(version)

    def todo_keys(self) -> Iterator[str]:
        """Key paths of the texts in the file that still say TODO."""
        return todo_keys(self.document)

    def regex_key(self, source: str) -> str:
        """Where in the signature file a regex is written (``match.exclude[1]`` ...)."""
        for i, pattern in enumerate(self.patterns):
            if pattern.source == source:
                return f"match.patterns[{i}].regex"
        regexes = {"match.exclude": self.exclude}
        if isinstance(self, ProblemSignature):
            regexes["match.context.frames"] = self.frames
        for name, listed in regexes.items():
            for i, regex in enumerate(listed):
                if regex.source == source:
                    return f"{name}[{i}]"
        return "match"


class ProblemSignature(Signature, frozen=True, eq=False, kw_only=True, dict=True):
    """``kind: problem``: a failure to diagnose, with its cause, checks and ordered fixes."""

    KIND: ClassVar[str] = "problem"

    cause: str
    verify: str
    phase: str | None = None
    wrapper: bool = False
    explains: tuple[str, ...] = ()
    falsepositives: tuple[str, ...] | None = None
    values: tuple[Value, ...] = ()
    checks: tuple[Check, ...] = ()
    fixes: tuple[Fix, ...] = ()
    fuzzy: tuple[FuzzyTemplate, ...] = ()
    frames: tuple[LazyRegex, ...] = ()
    context_phases: frozenset[str] = frozenset()
    context_requires: expr.Expression | None = None
    owns: tuple[OwnRule, ...] = ()

    @property
    def has_context(self) -> bool:
        return bool(self.frames or self.context_phases or self.context_requires)


class SymptomClass(Signature, frozen=True, eq=False, kw_only=True, dict=True):
    """``kind: symptom``: the wordings of one class of symptom that owner rules read."""

    KIND: ClassVar[str] = "symptom"

    symptom: SymptomSpec


class FactEntry(Signature, frozen=True, eq=False, kw_only=True, dict=True):
    """An entry that reads facts and phases and never diagnoses: the three kinds below, which
    a consumer can ask for together (``isinstance``); it adds no field."""


class FactExtractor(FactEntry, frozen=True, eq=False, kw_only=True, dict=True):
    """``kind: extractor``: reads values (facts) from a line."""

    KIND: ClassVar[str] = "extractor"

    names_engine: bool = False  # a match names the log's engine (its own)
    continues_event: bool = False  # its lines are details of the error event before them
    harmless: bool = False  # its lines are logged as errors by a program that carries on: no error event


class PhaseMarker(FactEntry, frozen=True, eq=False, kw_only=True, dict=True):
    """``kind: phase-marker``: a line after which the run is in ``enters_phase``."""

    KIND: ClassVar[str] = "phase-marker"

    enters_phase: str


class FrameMap(FactEntry, frozen=True, eq=False, kw_only=True, dict=True):
    """``kind: frame-map``: traceback frame lines (and the code line under a frame) that name
    the phase, ``enters_phase``, of the error the traceback ends in."""

    KIND: ClassVar[str] = "frame-map"

    enters_phase: str
    fallback: bool = False  # names the phase only where no other frame map or phase marker does, outside serving engines


# The class of each ``kind:``.
ENTRY_CLASSES: dict[str, type[Signature]] = {
    cls.KIND: cls for cls in (ProblemSignature, SymptomClass, FactExtractor, PhaseMarker, FrameMap)}
# The kinds that read facts and phases rather than diagnose.
FACT_KINDS = frozenset(kind for kind, cls in ENTRY_CLASSES.items() if issubclass(cls, FactEntry))


_TODO = re.compile(r"\bTODO\b")


def todo_keys(value: Any, key: str = "") -> Iterator[str]:
    """Key paths of the strings in a YAML document (a signature, a sidecar) that still say TODO."""
    if isinstance(value, str):
        if _TODO.search(value):
            yield key or "(top level)"
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from todo_keys(item, f"{key}.{name}" if key else str(name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from todo_keys(item, f"{key}[{i}]")


class Catalog(msgspec.Struct, dict=True):
    """Every signature loaded, by id, with the manifest of the first root."""

    version: str
    schema_version: int
    signatures: dict[str, Signature]
    manifest: dict[str, Any]
    roots: list[Path]

    @cached_property
    def renamed(self) -> dict[str, str]:
        """Old id -> current id, from each signature's ``related: [{id: <old>, type: renamed}]``."""
        return {link.id: sig.id for sig in self.signatures.values() for link in sig.related
                if link.type == "renamed" and link.id not in self.signatures}

    def current_id(self, sig_id: str) -> str:
        """The id a signature has now (``sig_id`` itself unless it is a renamed one's old id)."""
        return self.renamed.get(sig_id, sig_id)

    def resolve(self, sig_id: str) -> Signature | None:
        """The signature with this id, or with this as its old id."""
        return self.signatures.get(self.current_id(sig_id))

    @property
    def problems(self) -> list[ProblemSignature]:
        return [s for s in self.signatures.values() if isinstance(s, ProblemSignature)]

    @property
    def symptoms(self) -> list[SymptomClass]:
        return [s for s in self.signatures.values() if isinstance(s, SymptomClass)]

    @property
    def facts(self) -> list[FactEntry]:
        return [s for s in self.signatures.values() if isinstance(s, FactEntry)]

    @cached_property
    def known_facts(self) -> frozenset[str]:
        names: set[str] = set()
        for sig in self.signatures.values():
            names |= sig.fact_names
        return frozenset(names) | DERIVED_FACTS
