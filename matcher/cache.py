"""The compiled catalog on disk, so that a scan neither parses YAML nor imports jsonschema.

A catalog entry is keyed by a SHA-256 of everything a loaded catalog depends on: the logkb
version, the schema files, and for each catalog root in order its location and every YAML
file's relative path and bytes. Any change is a different key, so a stale entry is never
read; while no file's stamp has changed the key is found without hashing (catalog_key). The
entry holds the validated documents with each pattern's anchors: loading it re-creates the
signatures without YAML, schema validation or regex linting. Compiled Hyperscan databases
are kept beside it, keyed by the anchors and the Hyperscan version.

Location: ``$LOGKB_CACHE_DIR``, else ``$XDG_CACHE_HOME/logkb``, else ``~/.cache/logkb``;
``LOGKB_NO_CACHE=1`` turns it off. The cache is an optimisation only: an entry that cannot
be read is ignored, and a cache that cannot be written is skipped without a word.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from .catalog import Catalog

FORMAT = 2  # bump when the entry layout changes
KEEP = 8  # entries of each kind kept; the least recently written go first
_CATALOG, _DATABASE, _STAMP = "catalog", "hyperscan", "stamp"


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
_VALIDATING_MODULES = ("cache.py", "catalog.py", "expr.py", "regexlint.py", "upgrade.py", "versions.py")
# A file changed this close to the moment it was hashed is not trusted by its stamp: a
# second write within one tick of the file system's clock could leave the stamp unchanged.
RACY_NS = 2_000_000_000


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
    from .catalog import yaml_entries

    package = os.path.dirname(__file__)
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
    raw = _read(_STAMP, _stamp_name(stamp), ".json")
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
    _write(_STAMP, _stamp_name(stamp), ".json", json.dumps(entry).encode())


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
    from .catalog import read_catalog_bytes

    return read_catalog_bytes(Path(path))


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
            sig = compile_validated(item["doc"], Path(item["path"]), [tuple(a) for a in item["anchors"]],
                                    item["reviewed"])
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
            {"path": str(sig.path), "doc": sig.doc, "anchors": [list(p.anchors) for p in sig.patterns],
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
    _write(_CATALOG, key, ".json", text.encode("utf-8"))


def database_key(anchors: Iterable[tuple[bytes, bool]], engine_version: str) -> str:
    import hashlib

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
    import tempfile

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
