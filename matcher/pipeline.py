"""The one way every command builds its scanner: the built-in catalog plus overlays, with
the signatures selected by lifecycle status, id or tag (deprecated ones left out by default).

``scan``, ``watch``, ``facts``, ``compare``, ``test``, the library API and the batch job all
call :func:`scanner`, so a log gives the same findings whichever of them reads it.
"""

from __future__ import annotations

from collections.abc import Iterable

from .catalog import Catalog, load_catalog
from .scan import Scanner
from .selection import DEFAULT_STATUSES, select


def scanner(catalogs: Iterable[str] = (), statuses: Iterable[str] = DEFAULT_STATUSES, only: Iterable[str] = (),
            ignore: Iterable[str] = ()) -> Scanner:
    return scanner_for(load_catalog(tuple(catalogs)), statuses, only, ignore)


def scanner_for(catalog: Catalog, statuses: Iterable[str] = DEFAULT_STATUSES, only: Iterable[str] = (),
                ignore: Iterable[str] = ()) -> Scanner:
    """A scanner over a catalog already loaded (a command that also reads its version)."""
    return Scanner(select(catalog, statuses, only, ignore))
