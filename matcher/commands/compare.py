"""``logkb compare``: two run records side by side."""

from __future__ import annotations

import json

import click

from .. import pipeline
from .common import catalog_option
from ..output import echo
from ..record import compare
from ..report.record_text import render_comparison
from .facts import read_record


@click.command("compare")
@click.argument("a", type=click.Path(allow_dash=True))
@click.argument("b", type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@catalog_option
def command(a: str, b: str, fmt: str, catalogs: tuple[str, ...]) -> None:
    """Compare two runs: settings that changed, outcome and phase of each, memory deltas, and
    a warning when more than one knob changed."""
    scanner = pipeline.scanner(catalogs)
    result = compare(read_record(scanner, a), read_record(scanner, b))
    if fmt == "json":
        echo(json.dumps({
            "a": result.a.as_dict(), "b": result.b.as_dict(),
            "changed": {k: list(v) for k, v in result.changed.items()},
            "memory_deltas": {k: list(v) for k, v in result.memory_deltas.items()},
            "knobs_changed": result.knobs_changed,
            "processes": [{"key": p.key, "changed": {k: list(v) for k, v in p.changed.items()},
                           "memory_deltas": {k: list(v) for k, v in p.memory_deltas.items()},
                           "knobs_changed": p.knobs_changed} for p in result.processes],
            "processes_only_in_a": result.only_in_a,
            "processes_only_in_b": result.only_in_b,
        }, indent=2))
    else:
        echo(render_comparison(result), nl=False)
