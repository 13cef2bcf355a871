"""``logkb version``: the versions of logkb and its catalog, and the scanning engine in use."""

from __future__ import annotations

import click

from .. import __version__
from ..prefilter import engine_name
from .common import catalog_option, load


def describe(catalogs: tuple[str, ...]) -> list[str]:
    """``logkb X``, ``catalog Y (N signatures)``, ``engine Z``: what a bug report needs."""
    catalog = load(catalogs)
    engine = engine_name()
    if engine == "hyperscan":
        import hyperscan

        engine = f"hyperscan {hyperscan.__version__}"
    else:
        engine = "python (bytes.find; install hyperscan for the fast engine)"
    return [f"logkb {__version__}", f"catalog {catalog.version} ({len(catalog.signatures)} signatures)", f"engine {engine}"]


@click.command("version")
@catalog_option
def command(catalogs: tuple[str, ...]) -> None:
    """Print the logkb version, the catalog version and the scanning engine (env LOGKB_ENGINE)."""
    click.echo("\n".join(describe(catalogs)))
