"""What every subcommand shares: exit codes, the --catalog option, loading the catalog."""

from __future__ import annotations

import click

from ..catalog import Catalog, load_catalog

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

catalog_option = click.option(
    "--catalog", "catalogs", multiple=True, type=click.Path(file_okay=False, exists=True),
    envvar="LOGKB_CATALOG", help="Extra signature directory (repeatable; env LOGKB_CATALOG).",
)


def load(catalogs: tuple[str, ...]) -> Catalog:
    return load_catalog(catalogs)
