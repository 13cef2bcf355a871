"""YAML catalog files to validated :mod:`~matcher.catalog.model` objects, without any cache.

Every file is checked against ``schema/signature.schema.json`` and then semantically
(:func:`check_document`): regexes lint clean (RE2 syntax, linear-time shape, a literal
anchor), version ranges parse, expressions parse, a fix's ``checks.<id>`` names a check of its
signature. :func:`build` turns a document that passed into a :class:`Signature`; it is the
only constructor, used for fresh files and for documents the cache kept. Across files, ids
are unique and :func:`cross_reference_errors` finds dangling ``explains`` targets, unknown
symptom classes and expressions naming facts no pattern captures. Any failure is a
:class:`CatalogError` whose message names the file and the key path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from .. import expr
from ..upgrade import upgrade
from ..versions import InvalidRange, VersionRange
from .errors import CatalogError
from .files import data_dir, located, read_yaml, signature_files
from .fragments import SharedParts, load_shared, resolve
from .model import (
    Applicability,
    Catalog,
    Check,
    Expressions,
    FactExtractor,
    Fix,
    FrameMap,
    FuzzyTemplate,
    LazyRegex,
    OwnRule,
    Pattern,
    PatternLiterals,
    PhaseMarker,
    ProblemSignature,
    Reference,
    Related,
    Signature,
    SymptomClass,
    SymptomSpec,
    Value,
    check_reference,
    condition_expression,
    compile_regex,
)

SCHEMA_VERSION = 2


def catalog_roots(overlays: Iterable[str | Path] = (), builtin: bool = True) -> list[Path]:
    """The directories a catalog loads from, in order: the built-in one, then the overlays."""
    return ([data_dir("kb")] if builtin else []) + [Path(p) for p in overlays]


def load_roots(roots: list[Path], builtin: bool = True, check_references: bool = True) -> Catalog:
    """Load catalog directories in order (the first is the built-in one when ``builtin``).
    ``check_references`` False leaves :func:`cross_reference_errors` to the caller."""
    if not roots:
        raise CatalogError("no catalog to load")
    signatures: dict[str, Signature] = {}
    manifest: dict[str, Any] = {}
    validator = _validator("signature.schema.json")
    shared = SharedParts()
    for index, root in enumerate(roots):
        shared = load_shared([root], shared)
        root_manifest = _load_manifest(root) if (root / "catalog.yaml").exists() or index == 0 else {}
        if index == 0:
            manifest = root_manifest
        renamed = renamed_ids(signatures.values())
        overrides = {renamed.get(o, o) for o in root_manifest.get("overrides", [])}
        for path in signature_files(root):
            sig = with_current_ids(load_signature(path, validator, reviewed=builtin and index == 0,
                                                  shared=shared), renamed)
            if sig.id in signatures and sig.id not in overrides:
                raise CatalogError(
                    f"{path}: id: {sig.id!r} is already defined in {signatures[sig.id].path} "
                    "(list it under 'overrides' in the overlay's catalog.yaml to replace it)"
                )
            signatures[sig.id] = sig
    catalog = Catalog(
        version=str(manifest.get("catalog_version", "0")),
        schema_version=int(manifest.get("schema_version", SCHEMA_VERSION)),
        signatures=signatures,
        manifest=manifest,
        roots=roots,
    )
    if check_references:
        for _, message in cross_reference_errors(catalog):
            raise CatalogError(message)
    return catalog


def renamed_ids(signatures: Iterable[Signature]) -> dict[str, str]:
    """Old id -> current id of every renamed signature (``related`` of type ``renamed``)."""
    return {link.id: sig.id for sig in signatures for link in sig.related if link.type == "renamed"}


def with_current_ids(sig: Signature, renamed: dict[str, str]) -> Signature:
    """An overlay's signature with the current id of any renamed one it names: its own id (an
    overlay that replaces a signature by its old id replaces the renamed one) and its
    ``explains`` targets. The document changes with it, so the cache rebuilds the same."""
    sig_id = renamed.get(sig.id, sig.id)
    if not isinstance(sig, ProblemSignature):
        return sig if sig_id == sig.id else msgspec.structs.replace(sig, id=sig_id, document={**sig.document, "id": sig_id})
    explains = tuple(renamed.get(target, target) for target in sig.explains)
    if sig_id == sig.id and explains == sig.explains:
        return sig
    document = {**sig.document, "id": sig_id, **({"explains": list(explains)} if sig.explains else {})}
    return msgspec.structs.replace(sig, id=sig_id, explains=explains, document=document)


def load_signature(path: Path, validator: Any | None = None, reviewed: bool = False,
                   shared: SharedParts | None = None) -> Signature:
    """One catalog file, validated; ``reviewed`` for the built-in catalog's files; its
    patterns' ``(?&name)`` references and its fixes' ``use`` resolved from ``shared`` (default:
    the built-in parts)."""
    if shared is None:
        shared = load_shared([data_dir("kb")])
    doc = resolve(upgrade(read_yaml(path), SCHEMA_VERSION), shared, path)
    _validate(doc, validator or _validator("signature.schema.json"), path)
    return build(doc, path, check_document(doc, path, reviewed), reviewed)


def _load_manifest(root: Path) -> dict[str, Any]:
    path = root / "catalog.yaml"
    if not path.exists():
        raise CatalogError(f"{root}: no catalog.yaml")
    doc = read_yaml(path)
    _validate(doc, _validator("catalog.schema.json"), path)
    if doc["schema_version"] > SCHEMA_VERSION:
        raise CatalogError(
            f"{path}: schema_version: {doc['schema_version']} is not supported (this logkb reads 1 to {SCHEMA_VERSION})"
        )
    return doc  # type: ignore[no-any-return]


def _validator(name: str) -> Any:
    import jsonschema

    schema = json.loads((data_dir("schema") / name).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _validate(doc: Any, validator: Any, path: Path) -> None:
    errors = sorted(validator.iter_errors(doc), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        error = errors[0]
        message = error.message
        if error.validator == "not" and error.validator_value == {}:  # the schema's per-kind keys
            kind = str(doc.get("kind"))
            message = f"{'an' if kind[:1] in tuple('aeiou') else 'a'} {kind} entry has no such key (only the kind that reads it may say it)"
        raise CatalogError(f"{path}: {_key_path(error.absolute_path)}: {_short(message)}")


def _key_path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "..."


def check_document(doc: dict[str, Any], path: Path, reviewed: bool) -> list[PatternLiterals]:
    """The semantic checks of a document that passed the schema; each pattern's literals (the
    anchors the prefilter searches for, and its lead), as the linter found them. Regexes
    compile with the engine they will run on (see compile_regex)."""
    match = doc["match"]
    anchors = []
    for i, item in enumerate(match["patterns"]):
        anchors.append(_pattern_anchors(item["regex"], path, f"match.patterns[{i}].regex", item.get("ignore_case", False)))
        _checked_range(item.get("versions"), path, f"match.patterns[{i}].versions")
    for i, source in enumerate(match.get("exclude", [])):
        _check_regex(source, path, f"match.exclude[{i}]", reviewed)
    for i, source in enumerate(match.get("context", {}).get("frames", [])):
        _check_regex(source, path, f"match.context.frames[{i}]", reviewed)
    for i, engine in enumerate(doc["engines"]):
        _checked_range(engine.get("versions"), path, f"engines[{i}].versions")
    _check_references(doc, path)
    for key, source in _expression_sources(doc).items():
        try:
            expr.parse(source)
        except expr.ExpressionError as exc:
            raise CatalogError(f"{path}: {key}: {exc}") from None
    for i, rule in enumerate(match.get("owns", [])):
        if "innermost_frame" in rule:
            _check_regex(rule["innermost_frame"], path, f"match.owns[{i}].innermost_frame", reviewed)
    return anchors


def _checked_range(value: str | None, path: Path, key: str) -> None:
    if value is not None:
        try:
            VersionRange.checked(value)
        except InvalidRange:
            raise CatalogError(f"{path}: {key}: {value!r} is not a PEP 440 version specifier") from None


def _pattern_anchors(source: str, path: Path, key: str, ignore_case: bool) -> PatternLiterals:
    """Lint a match pattern and return its literals. The pattern itself is compiled lazily
    (Pattern.compiled): the linter's parse already proved the syntax, and a scan compiles only
    the patterns whose anchors it meets."""
    from ..regexlint import RegexLintError, lint  # the linter runs only on a cache miss

    try:
        found = lint(source, ignore_case)
        return PatternLiterals(found.literals, found.lead)
    except RegexLintError as exc:
        raise CatalogError(f"{path}: {key}: regex {exc}") from None


def _check_regex(source: str, path: Path, key: str, reviewed: bool) -> None:
    """Lint (shape only: exclusions and frame patterns need no anchor) and compile once."""
    from ..regexlint import RegexLintError, lint_shape

    try:
        lint_shape(source)
        compile_regex(source, reviewed=reviewed)
    except RegexLintError as exc:
        raise CatalogError(f"{path}: {key}: regex {exc}") from None
    except (re.error, _regex_error()) as exc:
        raise CatalogError(f"{path}: {key}: regex does not compile: {exc}") from None


def _regex_error() -> type[Exception]:
    import regex

    return regex.error


def _check_references(doc: dict[str, Any], path: Path) -> None:
    checks = {check["id"] for check in doc.get("checks", [])}
    for i, fix in enumerate(doc.get("fixes", [])):
        for key in ("when", "leads_when"):
            reference = check_reference(fix[key]) if isinstance(fix.get(key), str) else None
            if reference is not None and reference[0] not in checks:
                where = located(path, rf"^\s*{key}:\s*['\"]?" + re.escape(fix[key].strip()))
                raise CatalogError(f"{where}: fixes[{i}].{key}: no check '{reference[0]}' in this signature "
                                   f"(checks: {', '.join(sorted(checks)) or 'none'})")


def _expression_sources(doc: dict[str, Any]) -> dict[str, str]:
    """Every expression of a signature by its key path (``fixes[0].when`` ...); of a ``when``
    or ``leads_when`` that names a check, only the expression after its ``and``."""
    sources: dict[str, str] = {}
    context = doc["match"].get("context", {})
    if "requires" in context:
        sources["match.context.requires"] = context["requires"]
    for i, pattern in enumerate(doc["match"].get("patterns", [])):
        if "requires" in pattern:
            sources[f"match.patterns[{i}].requires"] = pattern["requires"]
    for i, rule in enumerate(doc["match"].get("owns", [])):
        if "requires" in rule:
            sources[f"match.owns[{i}].requires"] = rule["requires"]
    for name, source in doc.get("values", {}).items():
        sources[f"values.{name}"] = source
    for i, check in enumerate(doc.get("checks", [])):
        for key in ("when", "fails_when"):
            if key in check:
                sources[f"checks[{i}].{key}"] = check[key]
    for i, fix in enumerate(doc.get("fixes", [])):
        for key in ("when", "leads_when"):
            expression = condition_expression(fix[key]) if key in fix else None
            if expression is not None:
                sources[f"fixes[{i}].{key}"] = expression
        for name, source in fix.get("values", {}).items():
            sources[f"fixes[{i}].values.{name}"] = source
    return sources


def build(doc: dict[str, Any], path: Path, literals: list[PatternLiterals], reviewed: bool) -> Signature:
    """The signature of a document that passed validation, with each pattern's literals;
    regexes compile and expressions parse on first use."""
    match = doc["match"]
    context = match.get("context", {})
    expressions = Expressions(_expression_sources(doc))
    patterns = tuple(
        Pattern(item["regex"], literals[i].anchors, item.get("ignore_case", False), _range(item.get("versions")),
                item.get("phase"), item.get("severity"), item.get("engine"), reviewed, item.get("form"),
                item.get("kill_report", False), f"match.patterns[{i}].requires" if "requires" in item else None,
                literals[i].lead)
        for i, item in enumerate(match["patterns"]))
    owns = tuple(
        OwnRule(frozenset(rule["symptoms"]), frozenset(rule.get("forms", ())), frozenset(rule.get("phases", ())),
                bool(rule.get("cut_traceback")), rule.get("cut_traceback") == "only",
                LazyRegex(rule["innermost_frame"], reviewed) if "innermost_frame" in rule else None,
                f"match.owns[{i}].requires" if "requires" in rule else None)
        for i, rule in enumerate(match.get("owns", [])))
    common: dict[str, Any] = dict(
        id=doc["id"], path=path, title=doc["title"], status=doc["status"],
        engines={e["name"]: _range(e.get("versions")) for e in doc["engines"]},
        patterns=patterns, expressions=expressions, document=doc,
        severity=doc.get("severity", "info"), summary=doc.get("summary"),
        date=doc.get("date"), modified=doc.get("modified"), tags=tuple(doc.get("tags", ())),
        related=tuple(Related(r["id"], r["type"]) for r in doc.get("related", ())),
        references=tuple(Reference(r["url"], r.get("title")) for r in doc.get("references", ())),
        examples=tuple(doc.get("examples", ())),
        exclude=tuple(LazyRegex(s, reviewed) for s in match.get("exclude", ())), reviewed=reviewed,
    )
    kind = doc["kind"]
    if kind == "problem":
        falsepositives = doc.get("falsepositives")
        return ProblemSignature(
            **common, cause=doc["cause"], verify=doc["verify"], phase=doc.get("phase"),
            wrapper=bool(doc.get("wrapper")), explains=tuple(doc.get("explains", ())),
            falsepositives=None if falsepositives is None else tuple(falsepositives),
            values=_values(doc.get("values", {})),
            checks=tuple(_check(item) for item in doc.get("checks", ())),
            fixes=tuple(_fix(item) for item in doc.get("fixes", ())),
            fuzzy=tuple(FuzzyTemplate(f["template"], float(f.get("threshold", 88))) for f in match.get("fuzzy", ())),
            frames=tuple(LazyRegex(s, reviewed) for s in context.get("frames", ())),
            context_phases=frozenset(context.get("phases", ())),
            context_requires=expressions["match.context.requires"] if "match.context.requires" in expressions else None,
            owns=owns,
        )
    if kind == "symptom":
        spec = doc["symptom"]
        return SymptomClass(**common, symptom=SymptomSpec(
            doc["id"].removeprefix("symptom."), tuple(spec.get("prefixes", [])),
            frozenset(spec.get("exception_types", [])), spec.get("exception_form", "torch")))
    if kind == "extractor":
        return FactExtractor(**common, names_engine=bool(doc.get("names_engine", False)),
                             continues_event=bool(doc.get("continues_event", False)),
                             harmless=bool(doc.get("harmless", False)))
    if kind == "phase-marker":
        return PhaseMarker(**common, enters_phase=doc["enters_phase"])
    return FrameMap(**common, enters_phase=doc["enters_phase"], fallback=bool(doc.get("fallback", False)))


def _range(value: str | None) -> VersionRange | None:
    return None if value is None else VersionRange(value)


def _values(sources: dict[str, str]) -> tuple[Value, ...]:
    return tuple(Value(name, source) for name, source in sources.items())


def _applicability(item: dict[str, Any]) -> Applicability:
    applies_to = item.get("applies_to") or {}
    return Applicability(*(tuple(applies_to.get(key, ())) for key in ("phases", "engines", "devices", "leads_in", "not_engines", "not_phases")))


def _check(item: dict[str, Any]) -> Check:
    return Check(item["id"], item["title"], item["look"], item.get("command"), item.get("fails_when"),
                 item.get("pass"), item.get("fail"), _applicability(item), item.get("when"))


def _fix(item: dict[str, Any]) -> Fix:
    fallback = item.get("change_fallback") or ()
    return Fix(
        id=item["id"], title=item["title"], change=item["change"], tradeoff=item["tradeoff"],
        change_fallback=(fallback,) if isinstance(fallback, str) else tuple(fallback),
        when=item.get("when"), leads_when=item.get("leads_when"),
        applies_to=_applicability(item),
        values=_values(item.get("values", {})), verify=item.get("verify"),
    )


def cross_reference_errors(catalog: Catalog) -> Iterator[tuple[Signature, str]]:
    """Each signature's dangling ``explains`` and each expression naming an unknown fact."""
    known = catalog.known_facts
    symptoms = {s.symptom.name for s in catalog.symptoms}
    for sig in catalog.signatures.values():
        local: set[str] = set()
        if isinstance(sig, ProblemSignature):
            for target in sig.explains:
                if target not in catalog.signatures:
                    yield sig, f"{sig.path}: explains: {target!r} is not a signature id in the catalog"
            for i, rule in enumerate(sig.owns):
                for name in sorted(rule.symptoms - symptoms):
                    yield sig, f"{sig.path}: match.owns[{i}].symptoms: {name!r} is not a symptom class in the catalog"
            local = {value.name for value in sig.values}
        for key, parsed in sig.expressions.items():
            allowed = known | local | _fix_locals(sig, key)
            unknown = sorted(parsed.names - allowed)
            if unknown:
                yield sig, (
                    f"{sig.path}: {key}: unknown fact {unknown[0]!r} (no catalog pattern captures it; "
                    "named groups of patterns and entries' values define facts)"
                )


def _fix_locals(sig: Signature, key: str) -> set[str]:
    """Inside fixes[i], the fix's own values are names too."""
    if not key.startswith("fixes[") or not isinstance(sig, ProblemSignature):
        return set()
    index = int(key[len("fixes[") : key.index("]")])
    return {value.name for value in sig.fixes[index].values}
