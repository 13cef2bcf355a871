"""The compiled catalog on disk, so that a scan neither parses YAML nor imports jsonschema.

A catalog entry is keyed by a SHA-256 of everything a loaded catalog depends on: the logkb
version, the schema files, and for each catalog root in order its location and every YAML
file's relative path and bytes. Any change is a different key, so a stale entry is never
read. The entry holds the validated documents with each pattern's anchors: loading it
re-creates the signatures without YAML, schema validation or regex linting. Compiled
Hyperscan databases are kept beside it, keyed by the anchors and the Hyperscan version.

Location: ``$LOGKB_CACHE_DIR``, else ``$XDG_CACHE_HOME/logkb``, else ``~/.cache/logkb``;
``LOGKB_NO_CACHE=1`` turns it off. The cache is an optimisation only: an entry that cannot
be read is ignored, and a cache that cannot be written is skipped without a word.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from .catalog import Catalog

FORMAT = 1  # bump when the entry layout changes
KEEP = 8  # entries of each kind kept; the least recently written go first
_CATALOG, _DATABASE = "catalog", "hyperscan"


def directory() -> Path | None:
    """Where entries live, or None when the cache is turned off."""
    if os.environ.get("LOGKB_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("LOGKB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "logkb"


# The modules whose checks a cached catalog has passed: editing one (in a source checkout,
# where the version does not change) must not let an entry skip a new check.
_VALIDATING_MODULES = ("cache.py", "catalog.py", "expr.py", "regexlint.py", "upgrade.py")


def catalog_key(roots: Sequence[Path], schema_dir: Path) -> str:
    """A hash of logkb's version and validating code, the schemas and every YAML file of
    every root, in order."""
    digest = hashlib.sha256(f"logkb {__version__} cache {FORMAT}\0".encode())
    package = Path(__file__).resolve().parent
    for module in _VALIDATING_MODULES:
        _add_file(digest, module, package / module)
    for schema in sorted(schema_dir.glob("*.json")):
        _add_file(digest, schema.name, schema)
    for root in roots:
        digest.update(f"root\0{root.resolve()}\0".encode())
        for path in sorted(root.rglob("*.yaml")):
            _add_file(digest, path.relative_to(root).as_posix(), path)
    return digest.hexdigest()


def _add_file(digest: Any, name: str, path: Path) -> None:
    data = path.read_bytes()
    digest.update(f"{name}\0{len(data)}\0".encode())
    digest.update(data)


def load_catalog_entry(key: str) -> Catalog | None:
    """The catalog stored under ``key``, or None on a miss (or an unreadable entry)."""
    raw = _read(_CATALOG, key, ".json")
    if raw is None:
        return None
    from .catalog import Catalog, compile_validated

    try:
        entry = json.loads(raw)
        if entry.get("format") != FORMAT:
            return None
        signatures = {}
        for item in entry["signatures"]:
            sig = compile_validated(item["doc"], Path(item["path"]), [tuple(a) for a in item["anchors"]])
            signatures[sig.id] = sig
        return Catalog(
            version=entry["version"], schema_version=entry["schema_version"], signatures=signatures,
            manifest=entry["manifest"], roots=[Path(r) for r in entry["roots"]],
        )
    except (ValueError, KeyError, TypeError):
        return None


def store_catalog_entry(key: str, catalog: Catalog) -> None:
    """Keep a fully validated catalog under ``key`` (skipped if its documents are not plain JSON)."""
    entry = {
        "format": FORMAT,
        "version": catalog.version,
        "schema_version": catalog.schema_version,
        "manifest": catalog.manifest,
        "roots": [str(r) for r in catalog.roots],
        "signatures": [
            {"path": str(sig.path), "doc": sig.doc, "anchors": [list(p.anchors) for p in sig.patterns]}
            for sig in catalog.signatures.values()
        ],
    }
    try:
        text = json.dumps(entry, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if json.loads(text) != entry:
        return  # something YAML can say and JSON cannot (non-string keys): never cache a changed doc
    _write(_CATALOG, key, ".json", text.encode("utf-8"))


def database_key(anchors: Iterable[tuple[bytes, bool]], engine_version: str) -> str:
    digest = hashlib.sha256(f"logkb {__version__} hyperscan {engine_version}\0".encode())
    for literal, caseless in anchors:
        digest.update(b"%d\0%d\0" % (caseless, len(literal)) + literal)
    return digest.hexdigest()


def load_database(key: str) -> bytes | None:
    return _read(_DATABASE, key, ".db")


def store_database(key: str, data: bytes) -> None:
    _write(_DATABASE, key, ".db", data)


def _read(kind: str, key: str, suffix: str) -> bytes | None:
    folder = directory()
    if folder is None:
        return None
    try:
        return (folder / f"{kind}-{key}{suffix}").read_bytes()
    except OSError:
        return None


def _write(kind: str, key: str, suffix: str, data: bytes) -> None:
    """Atomically (write a temporary file, then rename), then prune old entries of ``kind``."""
    folder = directory()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{kind}-", dir=folder)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, folder / f"{kind}-{key}{suffix}")
        except BaseException:
            os.unlink(temporary)
            raise
        entries = sorted(folder.glob(f"{kind}-*{suffix}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in entries[KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
