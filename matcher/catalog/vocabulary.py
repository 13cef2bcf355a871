"""The fact vocabulary (``kb/facts.yaml``): every fact name with its unit, meaning and engines.

A fact is a named group of a pattern or a computed ``values:`` entry. Each catalog root may
hold a ``facts.yaml`` beside its ``catalog.yaml``; an overlay's file adds names to the
built-in ones and may not redeclare one. :func:`undeclared` finds the capture and value names
of a signature that no root declares, with the line of the file that writes them, for
``logkb validate``; the scan itself does not read the vocabulary, so an overlay written
before names were declared still loads.

The file is checked here rather than by a JSON schema: ``logkb facts`` and ``compare`` read
it, and importing jsonschema would cost them more than the rest of their work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path

import msgspec

from .errors import CatalogError
from .files import data_dir, located, read_yaml
from .model import ProblemSignature, Signature

FILE_NAME = "facts.yaml"

# A name with one of these suffixes has that unit.
SUFFIX_UNITS = {"_gib": "GiB", "_mib": "MiB", "_kib": "KiB", "_bytes": "bytes", "_tokens": "tokens",
                "_pct": "percent", "_seconds": "seconds", "_ms": "ms", "_tps": "tokens/s"}
# Captured sizes in these units are converted by their name's suffix (matcher/facts.py): a
# captured name with the unit and without the suffix would keep the number as printed.
CONVERTED_UNITS = {"GiB": "_gib", "MiB": "_mib", "bytes": "_bytes"}
UNITS = ("GiB", "MiB", "KiB", "MB", "GB", "bytes", "tokens", "blocks", "layers", "seconds", "ms", "tokens/s",
         "percent", "fraction", "ratio", "count", "number", "flag", "text")
RECORD_LISTS = ("settings", "hardware", "kv_cache")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def suffix_unit(name: str) -> str | None:
    """The unit a name's suffix says, if it has one of SUFFIX_UNITS."""
    return next((unit for suffix, unit in SUFFIX_UNITS.items() if name.endswith(suffix)), None)


class Fact(msgspec.Struct, frozen=True):
    """One declared fact name."""

    name: str
    unit: str
    meaning: str
    engines: tuple[str, ...]


class RecordFacts(msgspec.Struct, frozen=True):
    """The run record's lists of facts (matcher/record.py), in the order they are shown."""

    settings: tuple[str, ...] = ()
    hardware: tuple[str, ...] = ()
    kv_cache: tuple[str, ...] = ()


class Vocabulary(msgspec.Struct, frozen=True):
    """The declared facts of one or more catalog roots, by name."""

    facts: Mapping[str, Fact]
    record: RecordFacts

    def __contains__(self, name: object) -> bool:
        return name in self.facts


def load_vocabulary(roots: Iterable[Path]) -> Vocabulary:
    """The ``facts.yaml`` of each root that has one, in order; the first file's ``record``."""
    facts: dict[str, Fact] = {}
    record: RecordFacts | None = None
    for root in roots:
        path = root / FILE_NAME
        if not path.is_file():
            continue
        doc = read_yaml(path)
        if not isinstance(doc, dict) or not isinstance(doc.get("facts"), dict) or set(doc) - {"facts", "record"}:
            raise CatalogError(f"{path}: (top level): a mapping of 'facts' (and, in the built-in catalog, 'record')")
        for name, entry in doc["facts"].items():
            if name in facts:
                raise CatalogError(f"{path}: facts.{name}: already declared by a catalog loaded before")
            facts[name] = _fact(name, entry, path)
        if record is None:
            record = _record(doc.get("record") or {}, facts, path)
    return Vocabulary(facts, record or RecordFacts())


@lru_cache(maxsize=1)
def builtin_vocabulary() -> Vocabulary:
    """The built-in catalog's vocabulary, read once."""
    return load_vocabulary([data_dir("kb")])


def _record(lists: object, facts: Mapping[str, Fact], path: Path) -> RecordFacts:
    if not isinstance(lists, dict) or set(lists) - set(RECORD_LISTS):
        raise CatalogError(f"{path}: record: a mapping of {', '.join(RECORD_LISTS)}")
    for key, names in lists.items():
        if not isinstance(names, list):
            raise CatalogError(f"{path}: record.{key}: a list of fact names")
        for name in names:
            if name not in facts:
                raise CatalogError(f"{path}: record.{key}: {str(name)[:80]!r} is not a declared fact")
    return RecordFacts(*(tuple(lists.get(key, ())) for key in RECORD_LISTS))


def _fact(name: object, entry: object, path: Path) -> Fact:
    """One entry of ``facts:``: a name, a known unit that agrees with the name's suffix, a
    meaning and the engines whose logs give it."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise CatalogError(f"{path}: facts: {str(name)[:80]!r} is not a fact name (a-z, 0-9, '_')")
    key = f"{path}: facts.{name}"
    if not isinstance(entry, dict) or set(entry) != {"unit", "meaning", "engines"}:
        raise CatalogError(f"{key}: needs exactly unit, meaning and engines")
    unit, meaning, engines = entry["unit"], entry["meaning"], entry["engines"]
    if unit not in UNITS:
        raise CatalogError(f"{key}.unit: {str(unit)[:40]!r} is not one of {', '.join(UNITS)}")
    expected = suffix_unit(name)
    if expected is not None and unit != expected:
        raise CatalogError(f"{key}.unit: {unit}, but the name's suffix means {expected}")
    if not isinstance(meaning, str) or not meaning.strip():
        raise CatalogError(f"{key}.meaning: say what the fact is, in a few words")
    if not isinstance(engines, list) or not engines or not all(isinstance(e, str) for e in engines):
        raise CatalogError(f"{key}.engines: a list of the engines whose logs give it")
    return Fact(name, unit, meaning, tuple(engines))


def undeclared(sig: Signature, vocabulary: Vocabulary) -> Iterator[str]:
    """``file:line: key: ...`` for each capture or value name of ``sig`` that the vocabulary
    lacks, and for each captured size whose name lacks the suffix its unit needs."""
    seen: set[str] = set()
    for i, pattern in enumerate(sig.patterns):
        for name in pattern.compiled.groupindex:
            fact = vocabulary.facts.get(name)
            if name in seen or (fact is not None and fact.unit not in CONVERTED_UNITS):
                continue
            seen.add(name)
            if fact is None:
                yield (f"{located(sig.path, _capture(name))}: match.patterns[{i}].regex: capture '{name}' is not a declared "
                       f"fact (declare it with its unit, meaning and engines in {FILE_NAME})")
            elif not name.endswith(CONVERTED_UNITS[fact.unit]):
                yield (f"{located(sig.path, _capture(name))}: match.patterns[{i}].regex: capture '{name}' is in {fact.unit}, "
                       f"so its name must end in {CONVERTED_UNITS[fact.unit]}")
    values: list[tuple[str, str]] = []
    if isinstance(sig, ProblemSignature):
        values += [("values", value.name) for value in sig.values]
        values += [(f"fixes[{i}].values", value.name) for i, fix in enumerate(sig.fixes) for value in fix.values]
    for key, name in values:
        if name not in vocabulary and name not in seen:
            seen.add(name)
            yield (f"{located(sig.path, _key(name))}: {key}.{name}: value '{name}' is not a declared fact "
                   f"(declare it with its unit, meaning and engines in {FILE_NAME})")


def _capture(name: str) -> str:
    return r"\(\?P<" + name + ">"


def _key(name: str) -> str:
    return r"^\s*" + name + r"\s*:"
