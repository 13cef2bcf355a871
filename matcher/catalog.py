"""Load the YAML catalog: validate each file, compile its patterns and expressions.

The built-in catalog ships inside the package (``matcher/_data/kb`` in a wheel, ``kb/`` in a
source checkout), with the corpus its examples name (``matcher/_data/corpus``, ``corpus/``). Every file is checked against ``schema/signature.schema.json`` and then
semantically: regexes lint clean (RE2 syntax, linear-time shape, a literal anchor),
expressions parse and name only facts the catalog can produce, ids are unique and every
``explains`` target exists. Any failure is a :class:`CatalogError` whose message names the
file and the key path.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from . import budget, expr
from .upgrade import upgrade
from .versions import InvalidRange, VersionRange

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 256 * 1024
_PACKAGE_DIR = Path(__file__).resolve().parent


class CatalogError(Exception):
    """The catalog cannot be used; the message names the file and the key."""


def data_dir(name: str) -> Path:
    """``kb``, ``schema`` or ``corpus``: inside the installed wheel, else beside the source package."""
    packaged = _PACKAGE_DIR / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE_DIR.parent / name


def source_checkout() -> Path | None:
    """The source tree the package runs from (an editable install), or None for a wheel."""
    return None if (_PACKAGE_DIR / "_data").is_dir() else _PACKAGE_DIR.parent


# A compiled ``re`` or ``regex`` pattern: both have the search/groupdict/groupindex interface.
CompiledRegex = Any


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
    """A regex compiled on its first search: a catalog from the cache has dozens of exclusion
    and frame regexes that a short log never needs."""

    __slots__ = ("source", "reviewed", "_compiled")

    def __init__(self, source: str, reviewed: bool) -> None:
        self.source = source
        self.reviewed = reviewed
        self._compiled: CompiledRegex | None = None

    def search(self, text: str, **options: Any) -> Any:
        if self._compiled is None:
            self._compiled = compile_regex(self.source, reviewed=self.reviewed)
        return self._compiled.search(text, **options)


@dataclass(frozen=True)
class Pattern:
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

    @cached_property
    def compiled(self) -> CompiledRegex:
        """Compiled on first use: a scan confirms only the patterns whose anchors it meets."""
        return compile_regex(self.source, self.ignore_case, self.reviewed)


@dataclass(repr=False)
class OwnRule:
    """``match.owns``: a symptom class this signature diagnoses by context (class x context
    evidence), optionally only in some forms and phases, and optionally from a traceback cut
    before its exception line."""

    symptoms: frozenset[str]
    forms: frozenset[str]
    phases: frozenset[str]
    cut_traceback: bool
    cut_only: bool  # a rule for cut tracebacks alone, never for a symptom on a line
    innermost_frame: CompiledRegex | LazyRegex | None = None  # with cut_traceback: the allocation site
    requires: str | None = None  # key of the rule's condition in the signature's expressions

    def accepts(self, symptom: str, form: str | None, phase: str | None) -> bool:
        return (symptom in self.symptoms and (not self.forms or form in self.forms)
                and (not self.phases or phase in self.phases))

    @property
    def specificity(self) -> int:
        """Rules naming phases beat rules naming forms, which beat rules naming neither."""
        return 4 * bool(self.requires) + 2 * bool(self.phases) + bool(self.forms)


@dataclass(repr=False)
class SymptomSpec:
    """A symptom entry's evidence beyond its patterns (``symptom:`` in its file)."""

    name: str  # the id without "symptom.": what owner rules refer to
    prefixes: tuple[str, ...]
    exception_types: frozenset[str]


@dataclass
class Signature:
    """One catalog entry, validated and compiled. ``doc`` keeps the YAML as written."""

    id: str
    kind: str
    doc: dict[str, Any]
    path: Path
    patterns: list[Pattern]
    exclude: list[CompiledRegex | LazyRegex]
    frames: list[CompiledRegex | LazyRegex]
    context_phases: frozenset[str]
    context_requires: expr.Expression | None
    engines: dict[str, VersionRange | None]
    expressions: dict[str, expr.Expression] = field(default_factory=dict)
    reviewed: bool = False  # shipped in the built-in catalog (not an overlay): see compile_regex
    owns: tuple[OwnRule, ...] = ()
    symptom: SymptomSpec | None = None

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
        version_range = self.engines.get(engine)
        return None if version_range is None else version_range.contains(version)


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
    def symptoms(self) -> list[Signature]:
        return [s for s in self.signatures.values() if s.kind == "symptom"]

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
DERIVED_FACTS = frozenset({"engine", "engine_version", "phase_reached", "pipeline_stages"})


def load_catalog(overlays: Iterable[str | Path] = (), builtin: bool = True, check_references: bool = True) -> Catalog:
    """Load the built-in catalog and any overlay directories, in that order. ``check_references``
    False leaves :func:`cross_reference_errors` to the caller (``logkb validate`` lists them all)."""
    roots = ([data_dir("kb")] if builtin else []) + [Path(p) for p in overlays]
    key = _cache_key(roots) if check_references else None
    if key is not None:
        from . import cache

        cached = cache.load_catalog_entry(key)
        if cached is not None:
            return cached
    signatures: dict[str, Signature] = {}
    manifest: dict[str, Any] = {}
    validator = _validator("signature.schema.json")
    for index, root in enumerate(roots):
        root_manifest = _load_manifest(root) if (root / "catalog.yaml").exists() or index == 0 else {}
        if index == 0:
            manifest = root_manifest
        overrides = set(root_manifest.get("overrides", []))
        for path in yaml_files(root):
            if path.name == "catalog.yaml" and path.parent == root:
                continue
            sig = load_signature(path, validator, reviewed=builtin and index == 0)
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
    if check_references:
        for _, message in cross_reference_errors(catalog):
            raise CatalogError(message)
    if key is not None:
        from . import cache

        cache.store_catalog_entry(key, catalog)
    return catalog


def yaml_files(root: Path) -> list[Path]:
    """The catalog files below ``root`` in load order (sorted by path components; symbolic
    links to directories are not entered)."""
    return [Path(path) for _, path in yaml_entries(root)]


def yaml_entries(root: str | Path) -> list[tuple[str, str]]:
    """(path relative to ``root`` with '/' separators, path) of each catalog file, in load order."""
    found: list[tuple[list[str], str]] = []
    top = os.fspath(root)
    for folder, _dirs, files in os.walk(top):
        below = os.path.relpath(folder, top).split(os.sep) if folder != top else []
        found += [(below + [name], os.path.join(folder, name)) for name in files if name.endswith(".yaml")]
    return [("/".join(parts), path) for parts, path in sorted(found)]


def _cache_key(roots: list[Path]) -> str | None:
    """The on-disk cache key of these roots (see cache.py), or None when there is no cache."""
    from . import cache

    if not roots or cache.directory() is None:
        return None
    try:
        return cache.catalog_key(roots, data_dir("schema"))
    except (OSError, CatalogError):
        return None  # an unreadable file: the uncached load reports it


def read_yaml(path: Path) -> Any:
    """Safe-load one YAML file, refusing oversize files, anything but a regular file (a FIFO
    would block, /dev/zero never ends), text that is not UTF-8, alias expansion bombs, and
    strings over the evaluation budget (matcher/budget.py)."""
    data = read_catalog_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    import yaml

    try:
        doc = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader (or CSafeLoader) subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CatalogError(f"{path}: {where}invalid YAML: {problem}") from None
    if _shares_nodes(doc):
        raise CatalogError(f"{path}: invalid YAML: aliases are not allowed in catalog files")
    for key, problem in budget.text_problems(doc):
        raise CatalogError(f"{path}: {key}: {problem}")
    return doc


def read_catalog_bytes(path: Path) -> bytes:
    """The bytes of a catalog file, at most MAX_FILE_BYTES of them; opened without blocking,
    so that a FIFO named *.yaml is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CatalogError(f"{path}: not a regular file")
        try:
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        size = max(len(data), os.path.getsize(path))
        raise CatalogError(f"{path}: file is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for a catalog file")
    return data


@lru_cache(maxsize=1)
def _loader() -> type:
    """Safe loading (libyaml's parser when present: catalogs load several times faster) with
    dates kept as the strings the schema expects, and a key written twice in one mapping
    refused (YAML would keep the last silently, so a second ``note:`` or ``phase:`` would
    replace the first). Built on first use: a scan that finds the compiled catalog in the
    cache never imports yaml."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    resolvers = {
        key: [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:timestamp"]
        for key, entries in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = key_node.value if key_node.tag == "tag:yaml.org,2002:str" else key_node.start_mark
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark)
            seen.add(key)
        return base.construct_mapping(loader, node, deep)

    return type("CatalogLoader", (base,),
                {"yaml_implicit_resolvers": resolvers, "construct_mapping": construct_mapping})


def _shares_nodes(doc: Any) -> bool:
    """True when one mapping or list appears twice: that is what an alias builds. Catalog
    files never need aliases, and alias expansion is the classic YAML bomb; the walk stops at
    the first shared node, so it stays linear even on a bomb."""
    seen: set[int] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False


def load_signature(path: Path, validator: Any | None = None, reviewed: bool = False) -> Signature:
    """One catalog file, validated and compiled; ``reviewed`` for the built-in catalog's files."""
    doc = upgrade(read_yaml(path), SCHEMA_VERSION)
    validator = validator or _validator("signature.schema.json")
    _validate(doc, validator, path)
    return _compile(doc, path, reviewed)


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


def _spec(value: str | None, path: Path, key: str, checked: bool = True) -> VersionRange | None:
    """The range at ``key``; parsed now when ``checked`` (a cached document already passed)."""
    if value is None:
        return None
    if not checked:
        return VersionRange(value)
    try:
        return VersionRange.checked(value)
    except InvalidRange:
        raise CatalogError(f"{path}: {key}: {value!r} is not a PEP 440 version specifier") from None


def _pattern_anchors(source: str, path: Path, key: str, ignore_case: bool) -> tuple[str, ...]:
    """Lint a match pattern and return its anchors. The pattern itself is compiled lazily
    (Pattern.compiled): the linter's parse already proved the syntax, and a scan compiles only
    the patterns whose anchors it meets."""
    from .regexlint import RegexLintError, lint

    try:
        return lint(source, ignore_case).literals
    except RegexLintError as exc:
        raise CatalogError(f"{path}: {key}: regex {exc}") from None


def _compile_regex(source: str, path: Path, key: str, reviewed: bool) -> CompiledRegex:
    """Lint (shape only: exclusions and frame patterns need no anchor) and compile."""
    from .regexlint import RegexLintError

    try:
        lint_shape_only(source)
        return compile_regex(source, reviewed=reviewed)
    except RegexLintError as exc:
        raise CatalogError(f"{path}: {key}: regex {exc}") from None
    except (re.error, _regex_error()) as exc:
        raise CatalogError(f"{path}: {key}: regex does not compile: {exc}") from None


def _regex_error() -> type[Exception]:
    import regex

    return regex.error


def lint_shape_only(source: str) -> None:
    """Syntax and backtracking checks without requiring an anchor (frames, exclusions)."""
    from .regexlint import RegexLintError, lint

    try:
        lint(source)
    except RegexLintError as exc:
        if "required literal" not in str(exc) and "alternative anchors" not in str(exc):
            raise


def compile_validated(doc: dict[str, Any], path: Path, anchors: list[tuple[str, ...]], reviewed: bool) -> Signature:
    """A signature from a document that already passed validation (the cache), with each
    pattern's anchors as the linter found them: no schema, no lint, regexes compiled lazily."""
    return _compile(doc, path, reviewed, anchors)


def _compile(doc: dict[str, Any], path: Path, reviewed: bool, anchors: list[tuple[str, ...]] | None = None) -> Signature:
    match = doc["match"]
    patterns = []
    for i, item in enumerate(match["patterns"]):
        ignore_case = item.get("ignore_case", False)
        if anchors is None:
            pattern_anchors = _pattern_anchors(item["regex"], path, f"match.patterns[{i}].regex", ignore_case)
        else:
            pattern_anchors = anchors[i]
        patterns.append(
            Pattern(item["regex"], pattern_anchors, ignore_case, _spec(item.get("versions"), path, f"match.patterns[{i}].versions", anchors is None),
                    item.get("phase"), item.get("severity"), item.get("engine"), reviewed, item.get("form"),
                    item.get("kill_report", False))
        )
    context = match.get("context", {})
    if anchors is None:
        exclude = [_compile_regex(s, path, f"match.exclude[{i}]", reviewed) for i, s in enumerate(match.get("exclude", []))]
        frames = [_compile_regex(s, path, f"match.context.frames[{i}]", reviewed)
                  for i, s in enumerate(context.get("frames", []))]
    else:  # from the cache: already proven to compile; compiled on first use
        exclude = [LazyRegex(s, reviewed) for s in match.get("exclude", [])]
        frames = [LazyRegex(s, reviewed) for s in context.get("frames", [])]
    engines = {e["name"]: _spec(e.get("versions"), path, f"engines[{i}].versions", anchors is None) for i, e in enumerate(doc["engines"])}
    sources = _expression_sources(doc)
    if anchors is None:
        _check_references(doc, path)
        expressions: dict[str, expr.Expression] = {}
        for key, source in sources.items():
            try:
                expressions[key] = expr.parse(source)
            except expr.ExpressionError as exc:
                raise CatalogError(f"{path}: {key}: {exc}") from None
    else:  # from the cache: already checked; parsed when a checklist first needs them
        expressions = LazyExpressions(sources)
    requires = expressions["match.context.requires"] if "match.context.requires" in sources else None
    owns = tuple(
        OwnRule(frozenset(rule["symptoms"]), frozenset(rule.get("forms", ())), frozenset(rule.get("phases", ())),
                bool(rule.get("cut_traceback")), rule.get("cut_traceback") == "only",
                None if "innermost_frame" not in rule else
                _compile_regex(rule["innermost_frame"], path, f"match.owns[{i}].innermost_frame", reviewed)
                if anchors is None else LazyRegex(rule["innermost_frame"], reviewed),
                f"match.owns[{i}].requires" if "requires" in rule else None)
        for i, rule in enumerate(match.get("owns", [])))
    symptom = None
    if doc["kind"] == "symptom":
        spec = doc["symptom"]
        symptom = SymptomSpec(doc["id"].removeprefix("symptom."), tuple(spec.get("prefixes", [])),
                              frozenset(spec.get("exception_types", [])))
    return Signature(
        id=doc["id"], kind=doc["kind"], doc=doc, path=path, patterns=patterns, exclude=exclude,
        frames=frames, context_phases=frozenset(context.get("phases", [])), context_requires=requires,
        engines=engines, expressions=expressions, reviewed=reviewed, owns=owns, symptom=symptom,
    )


# A fix's ``when`` may name one of its signature's checks instead of restating its arithmetic.
CHECK_REFERENCE = re.compile(r"checks\.(?P<check>[A-Za-z0-9_-]{1,64})\.(?P<state>failed|passed|unknown)")


def check_reference(when: str) -> tuple[str, str] | None:
    """``checks.<id>.failed`` (or ``passed``, ``unknown``) as (id, state), else None."""
    match = CHECK_REFERENCE.fullmatch(when.strip())
    return (match.group("check"), match.group("state")) if match else None


def _check_references(doc: dict[str, Any], path: str) -> None:
    checks = {check["id"] for check in doc.get("checks", [])}
    for i, fix in enumerate(doc.get("fixes", [])):
        reference = check_reference(fix["when"]) if isinstance(fix.get("when"), str) else None
        if reference is not None and reference[0] not in checks:
            raise CatalogError(f"{path}: fixes[{i}].when: no check '{reference[0]}' in this signature "
                               f"(checks: {', '.join(sorted(checks)) or 'none'})")


def _expression_sources(doc: dict[str, Any]) -> dict[str, str]:
    """Every expression of a signature by its key path (``fixes[0].when`` ...); a ``when``
    that names a check is not an expression."""
    sources: dict[str, str] = {}
    context = doc["match"].get("context", {})
    if "requires" in context:
        sources["match.context.requires"] = context["requires"]
    for i, rule in enumerate(doc["match"].get("owns", [])):
        if "requires" in rule:
            sources[f"match.owns[{i}].requires"] = rule["requires"]
    for name, source in doc.get("values", {}).items():
        sources[f"values.{name}"] = source
    for i, check in enumerate(doc.get("checks", [])):
        if "fails_when" in check:
            sources[f"checks[{i}].fails_when"] = check["fails_when"]
    for i, fix in enumerate(doc.get("fixes", [])):
        if "when" in fix and check_reference(fix["when"]) is None:
            sources[f"fixes[{i}].when"] = fix["when"]
        for name, source in fix.get("values", {}).items():
            sources[f"fixes[{i}].values.{name}"] = source
    return sources


class LazyExpressions(dict):  # type: ignore[type-arg]
    """Expressions of a cached signature, parsed on first lookup."""

    def __init__(self, sources: dict[str, str]) -> None:
        super().__init__()
        self._sources = sources

    def __missing__(self, key: str) -> expr.Expression:
        parsed = self[key] = expr.parse(self._sources[key])
        return parsed

    def __contains__(self, key: object) -> bool:
        return key in self._sources

    def items(self):  # type: ignore[override]
        return ((key, self[key]) for key in self._sources)


def cross_reference_errors(catalog: Catalog) -> Iterator[tuple[Signature, str]]:
    """Each signature's dangling ``explains`` and each expression naming an unknown fact."""
    known = catalog.known_facts
    symptoms = {s.symptom.name for s in catalog.symptoms if s.symptom is not None}
    for sig in catalog.signatures.values():
        for target in sig.explains:
            if target not in catalog.signatures:
                yield sig, f"{sig.path}: explains: {target!r} is not a signature id in the catalog"
        for i, rule in enumerate(sig.owns):
            for name in sorted(rule.symptoms - symptoms):
                yield sig, f"{sig.path}: match.owns[{i}].symptoms: {name!r} is not a symptom class in the catalog"
        local = set(sig.doc.get("values", {}))
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
    if not key.startswith("fixes["):
        return set()
    index = int(key[len("fixes[") : key.index("]")])
    return set(sig.doc["fixes"][index].get("values", {}))
