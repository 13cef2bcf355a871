"""``logkb test``: run every corpus sample against its sidecar; per-signature TP/FP/FN."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..cli import EXIT_CLEAN, EXIT_FINDINGS, catalog_option, load
from ..corpus import confusion, run_corpus
from ..scan import Scanner


@click.command("test")
@click.argument("roots", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--verbose", "-v", is_flag=True, help="List every sample, not only failures.")
@catalog_option
def command(roots: tuple[str, ...], verbose: bool, catalogs: tuple[str, ...]) -> None:
    """Run every corpus sample against its sidecar and print a per-signature table."""
    scanner = Scanner(load(catalogs))
    outcomes = run_corpus(scanner, [Path(r) for r in roots or ("corpus",)])
    failed = [o for o in outcomes if not o.ok]
    for outcome in outcomes:
        if verbose or not outcome.ok:
            status = "ok  " if outcome.ok else "FAIL"
            click.echo(f"{status} {outcome.sample.log}" + ("" if outcome.ok else f": {'; '.join(outcome.problems)}"))
    click.echo("")
    click.echo(f"{'signature':58} {'TP':>4} {'FP':>4} {'FN':>4}")
    for sig_id, tally in confusion(outcomes).items():
        click.echo(f"{sig_id:58} {tally.tp:>4} {tally.fp:>4} {tally.fn:>4}")
    click.echo("")
    click.echo(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
    sys.exit(EXIT_FINDINGS if failed else EXIT_CLEAN)
