"""Choose which problem signatures take part in a scan: by lifecycle status, id or tag.

Fact entries always stay: they only read numbers and phases, and the expressions of the
selected problem signatures rely on them. ``--only`` and ``--ignore`` take shell-style
globs (``vllm.*``, ``gpu-memory``) matched against a signature's id, each of its tags and the
ids it had before a rename.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import Any

import click
import msgspec

from .catalog import Catalog, Signature

STATUSES = ("experimental", "test", "stable", "deprecated")
DEFAULT_STATUSES = ("experimental", "test", "stable")


def select(catalog: Catalog, statuses: Iterable[str] = DEFAULT_STATUSES, only: Iterable[str] = (),
           ignore: Iterable[str] = ()) -> Catalog:
    """A copy of ``catalog`` keeping fact entries and the problem signatures selected."""
    statuses, only, ignore = set(statuses), tuple(only), tuple(ignore)

    def keep(sig: Signature) -> bool:
        if sig.kind != "problem":
            return True
        return (sig.status in statuses and (not only or _matches(sig, only))
                and not _matches(sig, ignore))

    kept = {sig_id: sig for sig_id, sig in catalog.signatures.items() if keep(sig)}
    return msgspec.structs.replace(catalog, signatures=kept)


def _matches(sig: Signature, globs: tuple[str, ...]) -> bool:
    """A glob names a signature by its id, a tag, or an id it had before it was renamed, so
    that settings written for the old id (``--only 'torch.*'``) keep selecting it."""
    former = (link.id for link in sig.related if link.type == "renamed")
    names = (sig.id, *sig.tags, *former)
    return any(fnmatchcase(name, glob) for glob in globs for name in names)


def selection_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--status``, ``--only`` and ``--ignore`` for a command that runs the catalog (``--ignore``,
    as in ruff: ``--exclude`` is about input files)."""
    function = click.option(
        "--ignore", "ignore", multiple=True, metavar="GLOB",
        help="Leave out problem signatures whose id or a tag matches (repeatable).")(function)
    function = click.option(
        "--only", "only", multiple=True, metavar="GLOB",
        help="Use only problem signatures whose id or a tag matches (repeatable).")(function)
    return click.option(
        "--status", "statuses", multiple=True, type=click.Choice(STATUSES), default=DEFAULT_STATUSES,
        show_default=True, help="Lifecycle statuses of the problem signatures to use (repeatable).")(function)
