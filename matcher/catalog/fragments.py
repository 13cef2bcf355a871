"""Shared regex fragments (``kb/_fragments/*.yaml``), referenced by name from patterns and
exclusions.

A pattern (or an exclusion) writes ``(?&name)`` where a fragment's text belongs; the loader
replaces the reference with the fragment, wrapped in a non-capturing group, before the pattern
is checked, so the regex that is linted (RE2 syntax, linear-time shape, a literal anchor),
compiled and cached is the whole one, and one wording change is one edit. A fragment cannot refer to
another, so resolution is one pass. Fragment names are unique across all catalog roots; an
overlay may use the built-in fragments and define its own in its ``_fragments/`` folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from .errors import CatalogError
from .files import FRAGMENTS_FOLDER as FOLDER
from .files import located, read_catalog_bytes, read_yaml, yaml_files

REFERENCE = re.compile(r"\(\?&([a-z][a-z0-9_]{0,63})\)")


class Fragment(msgspec.Struct, frozen=True):
    """One named piece of regex, and the file that defines it."""

    name: str
    regex: str
    meaning: str
    path: Path


def fragment_files(root: Path) -> list[Path]:
    folder = root / FOLDER
    return yaml_files(folder) if folder.is_dir() else []


def load_fragments(roots: Iterable[Path], known: Mapping[str, Fragment] | None = None) -> dict[str, Fragment]:
    """The fragments of each root's ``_fragments/`` folder, added to ``known``; each one's
    shape is linted (no anchor needed: the pattern that uses it has its own)."""
    from ..regexlint import RegexLintError, lint_shape  # the linter runs only on a cache miss

    fragments = dict(known or {})
    for root in roots:
        for path in fragment_files(root):
            doc = read_yaml(path)
            if not isinstance(doc, dict) or set(doc) != {"fragments"} or not isinstance(doc["fragments"], dict):
                raise CatalogError(f"{path}: (top level): a mapping with one key, 'fragments'")
            for name, entry in doc["fragments"].items():
                where = located(path, r"^\s*" + re.escape(str(name)) + r"\s*:")
                if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name):
                    raise CatalogError(f"{where}: fragments: {str(name)[:80]!r} is not a fragment name (a-z, 0-9, '_')")
                if name in fragments:
                    raise CatalogError(f"{where}: fragments.{name}: already defined in {fragments[name].path}")
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
    return fragments


def resolve(doc: Any, fragments: Mapping[str, Fragment], path: Path) -> Any:
    """``doc`` with every ``(?&name)`` of its match patterns and exclusions replaced by the
    fragment; an unknown name is an error naming the file and line."""
    match = doc.get("match") if isinstance(doc, dict) else None
    if not isinstance(match, dict):
        return doc

    def replace(key: str, source: str) -> str:
        def one(reference: re.Match[str]) -> str:
            fragment = fragments.get(reference.group(1))
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
    return {**doc, "match": resolved}


def references(path: Path) -> set[str]:
    """The fragment names a signature file refers to, as written."""
    return set(REFERENCE.findall(read_catalog_bytes(path).decode("utf-8", "replace")))
