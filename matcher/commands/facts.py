"""``logkb facts``: the run record of a log (engine, settings, memory budget, outcome)."""

from __future__ import annotations

import json

import click

from .. import pipeline
from .common import catalog_option, fail
from ..diagnose import diagnose
from ..output import echo
from ..read import InputError, open_input
from ..record import RunRecord, record
from ..report.record_text import render_record
from ..runlog import RunLog
from ..scan import Scanner


def read_record(scanner: Scanner, path: str) -> RunRecord:
    """Scan one log and read its run record on the same pass (stdin is read once)."""
    log = RunLog()
    try:
        with open_input(path) as stream:
            run = scanner.run(log.observe(stream), "<stdin>" if path == "-" else path)
    except InputError as exc:
        fail(str(exc))
    return record(diagnose(run), log.finish())


@click.command("facts")
@click.argument("path", type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@catalog_option
def command(path: str, fmt: str, catalogs: tuple[str, ...]) -> None:
    """Print the run record of one log: what ran, with which settings, how memory was split,
    which phase it reached and how it ended."""
    rec = read_record(pipeline.scanner(catalogs), path)
    if fmt == "json":
        echo(json.dumps(rec.as_dict(), indent=2))
    else:
        echo(render_record(rec), nl=False)
