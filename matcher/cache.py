"""logkb's on-disk cache: a folder of entries, each written atomically and pruned by age.

Two kinds of entry live there: the validated catalog (matcher/catalog/cache.py) and compiled
Hyperscan databases, keyed by the anchors and the Hyperscan version (matcher/prefilter.py).

Location: ``$LOGKB_CACHE_DIR``, else ``$XDG_CACHE_HOME/logkb``, else ``~/.cache/logkb``;
``LOGKB_NO_CACHE=1`` turns it off. The cache is an optimisation only: an entry that cannot
be read is ignored, and a cache that cannot be written is skipped without a word.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from . import __version__

KEEP = 8  # entries of each kind kept; the least recently written go first
_DATABASE = "hyperscan"


def directory() -> Path | None:
    """Where entries live, or None when the cache is turned off."""
    if os.environ.get("LOGKB_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("LOGKB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "logkb"


def database_key(anchors: Iterable[tuple[bytes, bool]], engine_version: str) -> str:
    import hashlib

    digest = hashlib.sha256(f"logkb {__version__} hyperscan {engine_version}\0".encode())
    for literal, caseless in anchors:
        digest.update(b"%d\0%d\0" % (caseless, len(literal)) + literal)
    return digest.hexdigest()


def load_database(key: str) -> bytes | None:
    return read(_DATABASE, key, ".db")


def store_database(key: str, data: bytes) -> None:
    write(_DATABASE, key, ".db", data)


def read(kind: str, key: str, suffix: str) -> bytes | None:
    folder = directory()
    if folder is None:
        return None
    try:
        return (folder / f"{kind}-{key}{suffix}").read_bytes()
    except OSError:
        return None


def write(kind: str, key: str, suffix: str, data: bytes) -> None:
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
