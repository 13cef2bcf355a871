"""Shared catalog parts (``kb/_fragments/*.yaml``): regex fragments, referenced by name from
patterns and exclusions, and fixes that several signatures give word for word.

A pattern (or an exclusion) writes ``(?&name)`` where a fragment's text belongs; the loader
replaces the reference with the fragment, wrapped in a non-capturing group, before the pattern
is checked, so the regex that is linted (RE2 syntax, linear-time shape, a literal anchor),
compiled and cached is the whole one, and one wording change is one edit. A fragment cannot refer to
another, so resolution is one pass. A signature's fix list may hold ``{use: <id>}`` where a
shared fix belongs; the loader puts the whole fix there, so the signature that uses it is
validated, and its checks referred to, as if it had written the fix itself. Names are unique
across all catalog roots; an overlay may use the built-in parts and define its own in its
``_fragments/`` folder.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from .errors import CatalogError
from .files import FRAGMENTS_FOLDER as FOLDER
from .files import data_dir, located, read_catalog_bytes, read_yaml, yaml_files

REFERENCE = re.compile(r"\(\?&([a-z][a-z0-9_]{0,63})\)")
USE = re.compile(r"^\s*(?:-\s+)?use:\s*['\"]?([a-z0-9]+(?:-[a-z0-9]+)*)", re.M)
_SECTIONS = {"fragments", "fixes"}
_FRAGMENT_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_FIX_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class Fragment(msgspec.Struct, frozen=True):
    """One named piece of regex, and the file that defines it."""

    name: str
    regex: str
    meaning: str
    path: Path


class SharedFix(msgspec.Struct, frozen=True):
    """One fix, as the signatures that name it would write it (its id included), and the file
    that defines it."""

    id: str
    fix: dict[str, Any]
    path: Path


class SharedParts(msgspec.Struct, frozen=True):
    """Everything the ``_fragments/`` folders of a catalog's roots define, by name."""

    fragments: dict[str, Fragment] = msgspec.field(default_factory=dict)
    fixes: dict[str, SharedFix] = msgspec.field(default_factory=dict)


def fragment_files(root: Path) -> list[Path]:
    folder = root / FOLDER
    return yaml_files(folder) if folder.is_dir() else []


def load_shared(roots: Iterable[Path], known: SharedParts | None = None) -> SharedParts:
    """The parts each root's ``_fragments/`` folder defines, added to ``known``: each
    fragment's shape is linted (no anchor needed: the pattern that uses it has its own), each
    fix is checked against the schema's fix."""
    from ..regexlint import RegexLintError, lint_shape  # the linter runs only on a cache miss

    fragments = dict(known.fragments) if known else {}
    fixes = dict(known.fixes) if known else {}
    for root in roots:
        for path in fragment_files(root):
            doc = read_yaml(path)
            if (not isinstance(doc, dict) or not doc or not set(doc) <= _SECTIONS
                    or not all(isinstance(v, dict) for v in doc.values())):
                raise CatalogError(f"{path}: (top level): a mapping with 'fragments', 'fixes' or both, each a mapping")
            for name, entry in doc.get("fragments", {}).items():
                where = _new_name(path, "fragments", name, _FRAGMENT_NAME, "a fragment name (a-z, 0-9, '_')", fragments)
                if (not isinstance(entry, dict) or set(entry) != {"regex", "meaning"}
                        or not all(isinstance(v, str) and v for v in entry.values())):
                    raise CatalogError(f"{where}: fragments.{name}: needs exactly regex and meaning (strings)")
                if REFERENCE.search(entry["regex"]):
                    raise CatalogError(f"{where}: fragments.{name}.regex: a fragment cannot refer to another")
                try:
                    lint_shape(entry["regex"])
                except RegexLintError as exc:
                    raise CatalogError(f"{where}: fragments.{name}.regex: regex {exc}") from None
                fragments[name] = Fragment(name, entry["regex"], entry["meaning"], path)
            for fix_id, body in doc.get("fixes", {}).items():
                where = _new_name(path, "fixes", fix_id, _FIX_ID, "a fix id (a-z, 0-9, '-')", fixes)
                if not isinstance(body, dict) or "id" in body:
                    raise CatalogError(f"{where}: fixes.{fix_id}: a mapping of the fix's keys (its id is the name above it)")
                fix = {"id": fix_id, **body}
                for error in sorted(_fix_validator().iter_errors(fix), key=lambda e: list(map(str, e.absolute_path)))[:1]:
                    key = ".".join(str(part) for part in error.absolute_path)
                    raise CatalogError(f"{where}: fixes.{fix_id}{'.' + key if key else ''}: {error.message[:200]}")
                fixes[fix_id] = SharedFix(fix_id, fix, path)
    return SharedParts(fragments, fixes)


def _new_name(path: Path, section: str, name: Any, rule: re.Pattern[str], what: str,
              known: dict[str, Fragment] | dict[str, SharedFix]) -> str:
    """``path:line`` of a part's name, once the name is checked to be well-formed and new."""
    where = located(path, r"^\s*" + re.escape(str(name)) + r"\s*:")
    if not isinstance(name, str) or not rule.fullmatch(name):
        raise CatalogError(f"{where}: {section}: {str(name)[:80]!r} is not {what}")
    if name in known:
        raise CatalogError(f"{where}: {section}.{name}: already defined in {known[name].path}")
    return where


@functools.lru_cache(maxsize=1)
def _fix_validator() -> Any:
    """The schema's fix definition, as a validator (built once)."""
    import jsonschema

    schema = json.loads((data_dir("schema") / "signature.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/fix"})


def resolve(doc: Any, shared: SharedParts, path: Path) -> Any:
    """``doc`` with every ``(?&name)`` of its match patterns and exclusions replaced by the
    fragment, and every ``{use: <id>}`` of its fixes by the shared fix; an unknown name is an
    error naming the file and line."""
    if not isinstance(doc, dict):
        return doc
    resolved = dict(doc)
    match = doc.get("match")
    if isinstance(match, dict):
        resolved["match"] = _resolved_match(match, shared, path)
    fixes = doc.get("fixes")
    if isinstance(fixes, list):
        resolved["fixes"] = [_resolved_fix(fix, i, shared, path) for i, fix in enumerate(fixes)]
    return resolved


def _resolved_match(match: dict[str, Any], shared: SharedParts, path: Path) -> dict[str, Any]:
    def replace(key: str, source: str) -> str:
        def one(reference: re.Match[str]) -> str:
            fragment = shared.fragments.get(reference.group(1))
            if fragment is None:
                raise CatalogError(f"{located(path, re.escape(reference.group(0)))}: {key}: "
                                   f"unknown fragment {reference.group(1)!r} (fragments live in kb/{FOLDER}/)")
            return f"(?:{fragment.regex})"

        return REFERENCE.sub(one, source)

    resolved = dict(match)
    patterns, exclude = match.get("patterns"), match.get("exclude")
    if isinstance(patterns, list):
        resolved["patterns"] = [({**p, "regex": replace(f"match.patterns[{i}].regex", p["regex"])}
                                 if isinstance(p, dict) and isinstance(p.get("regex"), str) else p)
                                for i, p in enumerate(patterns)]
    if isinstance(exclude, list):
        resolved["exclude"] = [replace(f"match.exclude[{i}]", e) if isinstance(e, str) else e
                               for i, e in enumerate(exclude)]
    return resolved


def _resolved_fix(fix: Any, index: int, shared: SharedParts, path: Path) -> Any:
    if not (isinstance(fix, dict) and set(fix) == {"use"} and isinstance(fix["use"], str)):
        return fix  # a fix written out (or a malformed entry, which the schema then names)
    found = shared.fixes.get(fix["use"])
    if found is None:
        where = located(path, r"^\s*(?:-\s+)?use:\s*['\"]?" + re.escape(fix["use"]) + r"\b")
        raise CatalogError(f"{where}: fixes[{index}].use: unknown shared fix {fix['use']!r} "
                           f"(shared fixes live under 'fixes' in kb/{FOLDER}/)")
    return copy.deepcopy(found.fix)  # each signature's document owns its copy


def names_used(path: Path) -> tuple[set[str], set[str]]:
    """The fragment names and the shared fix ids a signature file refers to, as written."""
    text = read_catalog_bytes(path).decode("utf-8", "replace")
    return set(REFERENCE.findall(text)), set(USE.findall(text))
