"""Load the YAML catalog: validate each file, compile its patterns and expressions.

The built-in catalog ships inside the package (``matcher/_data/kb`` in a wheel, ``kb/`` in a
source checkout). Every file is checked against ``schema/signature.schema.json`` and then
semantically: regexes lint clean (RE2 syntax, linear-time shape, a literal anchor),
expressions parse and name only facts the catalog can produce, ids are unique and every
``explains`` target exists. Any failure is a :class:`CatalogError` whose message names the
file and the key path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import regex
import yaml
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from . import expr
from .regexlint import RegexLintError, lint

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 256 * 1024
_PACKAGE_DIR = Path(__file__).resolve().parent


class CatalogError(Exception):
    """The catalog cannot be used; the message names the file and the key."""


def data_dir(name: str) -> Path:
    """``kb`` or ``schema``: inside the installed wheel, else beside the source package."""
    packaged = _PACKAGE_DIR / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE_DIR.parent / name


@dataclass(frozen=True)
class Pattern:
    source: str
    compiled: regex.Pattern
    anchors: tuple[str, ...]
    ignore_case: bool
    versions: SpecifierSet | None


@dataclass
class Signature:
    """One catalog entry, validated and compiled. ``doc`` keeps the YAML as written."""

    id: str
    kind: str
    doc: dict[str, Any]
    path: Path
    patterns: list[Pattern]
    exclude: list[regex.Pattern]
    frames: list[regex.Pattern]
    context_phases: frozenset[str]
    context_requires: expr.Expression | None
    engines: dict[str, SpecifierSet | None]
    expressions: dict[str, expr.Expression] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.doc["title"]

    @property
    def severity(self) -> str:
        return self.doc.get("severity", "info")

    @property
    def phase(self) -> str | None:
        return self.doc.get("phase")

    @property
    def enters_phase(self) -> str | None:
        return self.doc.get("enters_phase")

    @property
    def frame_scoped(self) -> bool:
        return self.doc.get("scope") == "frame"

    @property
    def wrapper(self) -> bool:
        return bool(self.doc.get("wrapper"))

    @property
    def explains(self) -> list[str]:
        return self.doc.get("explains", [])

    @property
    def status(self) -> str:
        return self.doc["status"]

    @property
    def tags(self) -> list[str]:
        return self.doc.get("tags", [])

    @property
    def has_context(self) -> bool:
        return bool(self.frames or self.context_phases or self.context_requires)

    @property
    def fuzzy(self) -> list[dict[str, Any]]:
        return self.doc["match"].get("fuzzy", [])

    @cached_property
    def fact_names(self) -> frozenset[str]:
        names: set[str] = set()
        for pattern in self.patterns:
            names.update(pattern.compiled.groupindex)
        return frozenset(names)

    def version_in_range(self, engine: str, version: str) -> bool | None:
        """None when the signature says nothing about that engine or the version is unparsable."""
        if engine not in self.engines or self.engines[engine] is None:
            return None
        try:
            return Version(version) in self.engines[engine]  # type: ignore[operator]
        except InvalidVersion:
            return None


@dataclass
class Catalog:
    version: str
    schema_version: int
    signatures: dict[str, Signature]
    manifest: dict[str, Any]
    roots: list[Path]

    @property
    def problems(self) -> list[Signature]:
        return [s for s in self.signatures.values() if s.kind == "problem"]

    @property
    def facts(self) -> list[Signature]:
        return [s for s in self.signatures.values() if s.kind == "fact"]

    @cached_property
    def known_facts(self) -> frozenset[str]:
        names: set[str] = set()
        for sig in self.signatures.values():
            names |= sig.fact_names
        return frozenset(names) | DERIVED_FACTS


# Facts the scanner adds itself (see scan.py), usable in any expression.
DERIVED_FACTS = frozenset({"engine", "engine_version", "phase_reached"})


def load_catalog(overlays: Iterable[str | Path] = (), builtin: bool = True) -> Catalog:
    """Load the built-in catalog and any overlay directories, in that order."""
    roots = ([data_dir("kb")] if builtin else []) + [Path(p) for p in overlays]
    signatures: dict[str, Signature] = {}
    manifest: dict[str, Any] = {}
    validator = _validator("signature.schema.json")
    for index, root in enumerate(roots):
        root_manifest = _load_manifest(root) if (root / "catalog.yaml").exists() or index == 0 else {}
        if index == 0:
            manifest = root_manifest
        overrides = set(root_manifest.get("overrides", []))
        for path in sorted(root.rglob("*.yaml")):
            if path.name == "catalog.yaml" and path.parent == root:
                continue
            sig = load_signature(path, validator)
            if sig.id in signatures and sig.id not in overrides:
                raise CatalogError(
                    f"{path}: id: {sig.id!r} is already defined in {signatures[sig.id].path} "
                    "(list it under 'overrides' in the overlay's catalog.yaml to replace it)"
                )
            signatures[sig.id] = sig
    if not roots:
        raise CatalogError("no catalog to load")
    catalog = Catalog(
        version=str(manifest.get("catalog_version", "0")),
        schema_version=int(manifest.get("schema_version", SCHEMA_VERSION)),
        signatures=signatures,
        manifest=manifest,
        roots=roots,
    )
    _check_cross_references(catalog)
    return catalog


def read_yaml(path: Path) -> Any:
    """Safe-load one YAML file, refusing oversize files and alias expansion bombs."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise CatalogError(f"{path}: file is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for a catalog file")
    text = path.read_text(encoding="utf-8", errors="strict")
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CatalogError(f"{path}: {where}invalid YAML: {problem}") from None


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that rejects anchors/aliases (catalog files never need them, and alias
    expansion is the classic YAML bomb) and keeps dates as the strings the schema expects."""

    yaml_implicit_resolvers = {
        key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases are not allowed in catalog files", event.start_mark
            )
        return super().compose_node(parent, index)


def load_signature(path: Path, validator: Any | None = None) -> Signature:
    doc = read_yaml(path)
    validator = validator or _validator("signature.schema.json")
    _validate(doc, validator, path)
    return _compile(doc, path)


def _load_manifest(root: Path) -> dict[str, Any]:
    path = root / "catalog.yaml"
    if not path.exists():
        raise CatalogError(f"{root}: no catalog.yaml")
    doc = read_yaml(path)
    _validate(doc, _validator("catalog.schema.json"), path)
    if doc["schema_version"] != SCHEMA_VERSION:
        raise CatalogError(
            f"{path}: schema_version: {doc['schema_version']} is not supported (this logkb reads {SCHEMA_VERSION})"
        )
    return doc


def _validator(name: str) -> Any:
    import jsonschema

    schema = json.loads((data_dir("schema") / name).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _validate(doc: Any, validator: Any, path: Path) -> None:
    errors = sorted(validator.iter_errors(doc), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        error = errors[0]
        raise CatalogError(f"{path}: {_key_path(error.absolute_path)}: {_short(error.message)}")


def _key_path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "..."


def _spec(value: str | None, path: Path, key: str) -> SpecifierSet | None:
    if value is None:
        return None
    try:
        return SpecifierSet(value)
    except InvalidSpecifier:
        raise CatalogError(f"{path}: {key}: {value!r} is not a PEP 440 version specifier") from None


def _compile_regex(source: str, path: Path, key: str, ignore_case: bool = False, anchored: bool = True) -> tuple[regex.Pattern, tuple[str, ...]]:
    try:
        anchors = lint(source, ignore_case).literals if anchored else ()
        if not anchored:
            lint_shape_only(source)
        compiled = regex.compile(source, regex.IGNORECASE if ignore_case else 0)
    except RegexLintError as exc:
        raise CatalogError(f"{path}: {key}: regex {exc}") from None
    except regex.error as exc:
        raise CatalogError(f"{path}: {key}: regex does not compile: {exc}") from None
    return compiled, anchors


def lint_shape_only(source: str) -> None:
    """Syntax and backtracking checks without requiring an anchor (frames, exclusions)."""
    try:
        lint(source)
    except RegexLintError as exc:
        if "required literal" not in str(exc):
            raise


def _compile(doc: dict[str, Any], path: Path) -> Signature:
    match = doc["match"]
    patterns = []
    for i, item in enumerate(match["patterns"]):
        key = f"match.patterns[{i}].regex"
        compiled, anchors = _compile_regex(item["regex"], path, key, item.get("ignore_case", False))
        patterns.append(
            Pattern(item["regex"], compiled, anchors, item.get("ignore_case", False),
                    _spec(item.get("versions"), path, f"match.patterns[{i}].versions"))
        )
    exclude = [_compile_regex(s, path, f"match.exclude[{i}]", anchored=False)[0] for i, s in enumerate(match.get("exclude", []))]
    context = match.get("context", {})
    frames = [_compile_regex(s, path, f"match.context.frames[{i}]", anchored=False)[0] for i, s in enumerate(context.get("frames", []))]
    engines = {e["name"]: _spec(e.get("versions"), path, f"engines[{i}].versions") for i, e in enumerate(doc["engines"])}
    expressions: dict[str, expr.Expression] = {}

    def add(key: str, source: str) -> expr.Expression:
        try:
            parsed = expr.parse(source)
        except expr.ExpressionError as exc:
            raise CatalogError(f"{path}: {key}: {exc}") from None
        expressions[key] = parsed
        return parsed

    requires = add("match.context.requires", context["requires"]) if "requires" in context else None
    for name, source in doc.get("values", {}).items():
        add(f"values.{name}", source)
    for i, check in enumerate(doc.get("checks", [])):
        if "fails_when" in check:
            add(f"checks[{i}].fails_when", check["fails_when"])
    for i, fix in enumerate(doc.get("fixes", [])):
        if "when" in fix:
            add(f"fixes[{i}].when", fix["when"])
        for name, source in fix.get("values", {}).items():
            add(f"fixes[{i}].values.{name}", source)
    return Signature(
        id=doc["id"], kind=doc["kind"], doc=doc, path=path, patterns=patterns, exclude=exclude,
        frames=frames, context_phases=frozenset(context.get("phases", [])), context_requires=requires,
        engines=engines, expressions=expressions,
    )


def _check_cross_references(catalog: Catalog) -> None:
    known = catalog.known_facts
    for sig in catalog.signatures.values():
        for target in sig.explains:
            if target not in catalog.signatures:
                raise CatalogError(f"{sig.path}: explains: {target!r} is not a signature id in the catalog")
        local = set(sig.doc.get("values", {}))
        for key, parsed in sig.expressions.items():
            allowed = known | local | _fix_locals(sig, key)
            unknown = sorted(parsed.names - allowed)
            if unknown:
                raise CatalogError(
                    f"{sig.path}: {key}: unknown fact {unknown[0]!r} (no catalog pattern captures it; "
                    "named groups of patterns and entries' values define facts)"
                )


def _fix_locals(sig: Signature, key: str) -> set[str]:
    """Inside fixes[i], the fix's own values are names too."""
    if not key.startswith("fixes["):
        return set()
    index = int(key[len("fixes[") : key.index("]")])
    return set(sig.doc["fixes"][index].get("values", {}))


def signature_summary(sig: Signature) -> Mapping[str, Any]:
    return {"id": sig.id, "title": sig.title, "kind": sig.kind, "severity": sig.severity, "status": sig.status}
