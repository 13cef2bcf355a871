"""The ``logkb`` command line: the group, shared options and exit codes.

Each subcommand lives in its own module under ``matcher/commands/``. Exit codes: 0 nothing
at or above --fail-on, 1 findings, 2 usage, input or catalog error. Findings go to stdout
(or --output); everything else goes to stderr.
"""

from __future__ import annotations

import sys

import click

from . import __version__
from .catalog import Catalog, CatalogError, load_catalog

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Group(click.Group):
    def main(self, *args, **kwargs):  # type: ignore[override]
        try:
            return super().main(*args, **kwargs)
        except CatalogError as exc:
            click.echo(f"logkb: catalog error: {exc}", err=True)
            sys.exit(EXIT_ERROR)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="logkb")
def main() -> None:
    """Diagnose GPU-memory failures in LLM-serving logs (vLLM, TGI, SGLang, llama.cpp,
    Ollama, PyTorch) and print an ordered checklist of checks and fixes."""


catalog_option = click.option(
    "--catalog", "catalogs", multiple=True, type=click.Path(file_okay=False, exists=True),
    envvar="LOGKB_CATALOG", help="Extra signature directory (repeatable; env LOGKB_CATALOG).",
)


def load(catalogs: tuple[str, ...]) -> Catalog:
    return load_catalog(catalogs)


def _register() -> None:
    from .commands import compare, facts, scan, test

    for module in (scan, test, facts, compare):
        main.add_command(module.command)


_register()
