"""``logkb version``: the versions of logkb and its catalog, and the scanning engine in use."""

from __future__ import annotations

import click

from .. import __version__
from ..prefilter import SMALL_INPUT, engine_name, small_input_engine
from ..split import SPLIT_MIN, default_jobs
from .common import catalog_option, load


def describe(catalogs: tuple[str, ...]) -> list[str]:
    """``logkb X``, ``catalog Y (N signatures)``, ``engine Z``, ``workers W``: what a bug
    report needs."""
    catalog = load(catalogs)
    engine = engine_name()
    if engine == "hyperscan":
        import hyperscan

        engine = f"hyperscan {hyperscan.__version__}"
        if small_input_engine(SMALL_INPUT) == "python":
            engine += f" (python for inputs up to {SMALL_INPUT >> 10} KiB)"
    else:
        engine = "python (bytes.find; install hyperscan for the fast engine)"
    return [f"logkb {__version__}", f"catalog {catalog.version} ({len(catalog.signatures)} signatures)",
            f"engine {engine}", f"workers {default_jobs()} for files of {SPLIT_MIN >> 20} MiB or more (--jobs)"]


@click.command("version")
@catalog_option
def command(catalogs: tuple[str, ...]) -> None:
    """Print the logkb version, the catalog version, the scanning engine (env LOGKB_ENGINE) and
    the worker processes a large file gets."""
    click.echo("\n".join(describe(catalogs)))
