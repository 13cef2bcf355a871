"""The validated catalog on disk, so that a scan neither parses YAML nor imports jsonschema.

A catalog entry is keyed by a SHA-256 of everything a loaded catalog depends on: the logkb
version, the validating code, the schema files, and for each catalog root in order its
location and every YAML file's relative path and bytes. Any change is a different key, so a
stale entry is never read; while no file's stamp has changed the key is found without hashing
(catalog_key). The entry holds each signature's validated document with its patterns' anchors and leads:
:func:`matcher.catalog.load.build` re-creates the signatures from it without YAML, schema
validation or regex linting. This module depends on ``load``, never the reverse; the entries
live in logkb's cache folder (matcher/cache.py).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from .. import __version__
from .. import cache as store
from .errors import CatalogError
from .files import data_dir, read_catalog_bytes, yaml_entries
from .load import build, catalog_roots, load_roots
from .model import Catalog, PatternLiterals

FORMAT = 3  # bump when the entry layout changes
_CATALOG, _STAMP = "catalog", "stamp"

# The modules whose checks a cached catalog has passed: editing one (in a source checkout,
# where the version does not change) must not let an entry skip a new check.
_VALIDATING_MODULES = ("catalog/cache.py", "catalog/files.py", "catalog/fragments.py", "catalog/load.py", "catalog/model.py",
                       "expr.py", "regexlint.py", "upgrade.py", "versions.py")
# A file changed this close to the moment it was hashed is not trusted by its stamp: a
# second write within one tick of the file system's clock could leave the stamp unchanged.
RACY_NS = 2_000_000_000


def load_catalog(overlays: Iterable[str | Path] = (), builtin: bool = True, check_references: bool = True) -> Catalog:
    """The built-in catalog and any overlay directories, in that order, from the cache when
    it holds them. ``check_references`` False leaves
    :func:`~matcher.catalog.load.cross_reference_errors` to the caller (``logkb validate``
    lists them all); such a catalog is neither read from nor written to the cache."""
    roots = catalog_roots(overlays, builtin)
    key = _key(roots) if check_references else None
    if key is not None:
        cached = load_entry(key)
        if cached is not None:
            return cached
    catalog = load_roots(roots, builtin, check_references)
    if key is not None:
        store_entry(key, catalog)
    return catalog


def _key(roots: list[Path]) -> str | None:
    """The on-disk cache key of these roots, or None when there is no cache."""
    if not roots or store.directory() is None:
        return None
    try:
        return catalog_key(roots, data_dir("schema"))
    except (OSError, CatalogError):
        return None  # an unreadable file: the uncached load reports it


def catalog_key(roots: Sequence[Path], schema_dir: Path) -> str:
    """A hash of logkb's version and validating code, the schemas and every YAML file of
    every root, in order.

    Reading and hashing some 130 files costs more than the rest of a short scan, so the hash
    is also kept under the files' *stamp* (path, size, inode, mtime and ctime of each, as
    git's index keeps them): while no stamp changes, the stored hash is used without reading
    a file. Any write changes a file's ctime, so a changed file always means a fresh hash."""
    inputs = _inputs(roots, schema_dir)
    stamp = _stamp(inputs)
    key = _stamped_key(stamp)
    if key is None:
        hashed_at = time.time_ns()
        key = _content_key(inputs)
        _store_stamp(stamp, key, hashed_at)
    return key


def _inputs(roots: Sequence[Path], schema_dir: Path) -> list[tuple[str, str | None]]:
    """What the key covers, in order: (label, file), or (a root's label, None) before its files."""
    package = os.path.dirname(os.path.dirname(__file__))
    inputs: list[tuple[str, str | None]] = [(module, os.path.join(package, module)) for module in _VALIDATING_MODULES]
    inputs += [(name, os.path.join(schema_dir, name)) for name in sorted(os.listdir(schema_dir)) if name.endswith(".json")]
    for root in roots:
        inputs.append((f"root\0{os.path.abspath(root)}", None))
        inputs += yaml_entries(root)
    return inputs


def _stamp(inputs: list[tuple[str, str | None]]) -> list[Any]:
    stamp: list[Any] = [__version__, FORMAT]
    for label, path in inputs:
        if path is None:
            stamp.append(label)
        else:
            info = os.stat(path)
            stamp.append([label, info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns])
    return stamp


def _stamp_name(stamp: list[Any]) -> str:
    import zlib

    return f"{zlib.crc32(json.dumps(stamp).encode()):08x}"


def _stamped_key(stamp: list[Any]) -> str | None:
    """The hash stored under this exact stamp, if every file was older than RACY_NS when hashed."""
    raw = store.read(_STAMP, _stamp_name(stamp), ".json")
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
        newest = max((max(item[3], item[4]) for item in stamp if isinstance(item, list)), default=0)
        if entry["stamp"] == stamp and newest < entry["hashed_at"] - RACY_NS:
            return str(entry["key"])
    except (ValueError, KeyError, TypeError, IndexError):
        pass
    return None


def _store_stamp(stamp: list[Any], key: str, hashed_at: int) -> None:
    entry = {"stamp": stamp, "key": key, "hashed_at": hashed_at}
    store.write(_STAMP, _stamp_name(stamp), ".json", json.dumps(entry).encode())


def _content_key(inputs: list[tuple[str, str | None]]) -> str:
    import hashlib

    digest = hashlib.sha256(f"logkb {__version__} cache {FORMAT}\0".encode())
    for label, path in inputs:
        if path is None:
            digest.update(label.encode() + b"\0")
        else:
            data = _file_bytes(path)
            digest.update(f"{label}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def _file_bytes(path: str) -> bytes:
    """A catalog file through the catalog's bounded reader (a FIFO or /dev/zero named *.yaml
    is refused there); logkb's own modules and schemas as they are."""
    if not path.endswith(".yaml"):
        with open(path, "rb") as handle:
            return handle.read()
    return read_catalog_bytes(Path(path))


def load_entry(key: str) -> Catalog | None:
    """The catalog stored under ``key``, or None on a miss (or an unreadable entry)."""
    raw = store.read(_CATALOG, key, ".json")
    if raw is None:
        return None
    try:
        entry = msgspec.json.decode(raw)  # twice as fast as the json module on this entry's size
        if entry.get("format") != FORMAT:
            return None
        signatures = {}
        for item in entry["signatures"]:
            literals = [PatternLiterals(tuple(a), lead) for a, lead in zip(item["anchors"], item["leads"], strict=True)]
            sig = build(item["doc"], Path(item["path"]), literals, item["reviewed"])
            signatures[sig.id] = sig
        return Catalog(
            version=entry["version"], schema_version=entry["schema_version"], signatures=signatures,
            manifest=entry["manifest"], roots=[Path(r) for r in entry["roots"]],
        )
    except (ValueError, KeyError, TypeError):
        return None


def store_entry(key: str, catalog: Catalog) -> None:
    """Keep a fully validated catalog under ``key`` (skipped if its documents are not plain JSON)."""
    entry = {
        "format": FORMAT,
        "version": catalog.version,
        "schema_version": catalog.schema_version,
        "manifest": catalog.manifest,
        "roots": [str(r) for r in catalog.roots],
        "signatures": [
            {"path": str(sig.path), "doc": sig.document, "anchors": [list(p.anchors) for p in sig.patterns],
             "leads": [p.lead for p in sig.patterns],
             "reviewed": sig.reviewed}
            for sig in catalog.signatures.values()
        ],
    }
    try:
        text = json.dumps(entry, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if json.loads(text) != entry:
        return  # something YAML can say and JSON cannot (non-string keys): never cache a changed doc
    store.write(_CATALOG, key, ".json", text.encode("utf-8"))
