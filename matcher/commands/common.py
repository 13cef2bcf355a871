"""What every subcommand shares: exit codes, the --catalog option, loading the catalog."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from ..catalog import Catalog, load_catalog

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

catalog_option = click.option(
    "--catalog", "catalogs", multiple=True, type=click.Path(file_okay=False, exists=True),
    envvar="LOGKB_CATALOG", help="Extra signature directory (repeatable; env LOGKB_CATALOG).",
)


def input_globs(command: Callable[..., Any]) -> Callable[..., Any]:
    """--include / --exclude: which files a directory given as input contributes."""
    command = click.option("--exclude", "excludes", multiple=True, metavar="GLOB",
                           help="In directories, skip files and folders matching GLOB (repeatable).")(command)
    return click.option("--include", "includes", multiple=True, metavar="GLOB",
                        help="In directories, scan only files matching GLOB (repeatable; default: *.log *.txt *.gz).")(command)


def load(catalogs: tuple[str, ...]) -> Catalog:
    return load_catalog(catalogs)


def fail(message: str) -> NoReturn:
    """A usage or input error: one line on stderr, exit status 2."""
    click.echo(f"logkb: {message}", err=True)
    sys.exit(EXIT_ERROR)
