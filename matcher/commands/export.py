"""``logkb export``: the catalog as Sigma rules, a Loki stream pipeline, or a plain regex list."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import yaml

from ..catalog.model import FACT_KINDS
from ..export import DIALECTS, loki_pipeline, patterns, sigma_rules
from .common import EXIT_ERROR, catalog_option, fail, load

FORMATS = ("sigma", "loki-pipeline", "patterns")


@click.command("export")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), required=True,
              help="sigma: one rule per problem signature; loki-pipeline: pySigma pipeline mapping each "
                   "engine to a Loki stream selector; patterns: one regex a line for grep -E -f / rg -f.")
@click.option("--out", type=click.Path(file_okay=False), help="Directory for Sigma rules (default: print them).")
@click.option("--field", default=None,
              help="Bind Sigma regexes to this field (e.g. 'message' for Elasticsearch); default: keyword rules.")
@click.option("--dialect", type=click.Choice(DIALECTS), default="re2", show_default=True,
              help="Regex dialect of Sigma rules: re2 for Loki and PCRE/RE2 engines, lucene for Elasticsearch.")
@click.option("--label", default="app", show_default=True,
              help="loki-pipeline: the stream label whose value is the engine name.")
@click.option("--facts", is_flag=True, help="Patterns: include fact entries too.")
@catalog_option
def command(fmt: str, out: str | None, field: str | None, dialect: str, label: str, facts: bool,
            catalogs: tuple[str, ...]) -> None:
    """Export problem signatures for log platforms: Sigma rules (one file each, for sigma convert),
    the Loki stream pipeline for those rules, or a regex list for grep -E / rg."""
    if fmt == "loki-pipeline":
        click.echo(yaml.safe_dump(loki_pipeline(label), sort_keys=False), nl=False)
        return
    catalog = load(catalogs)
    if fmt == "patterns":
        click.echo("\n".join(patterns(catalog, ("problem", "symptom", *sorted(FACT_KINDS)) if facts else ("problem", "symptom"))))
        return
    try:
        rules = sigma_rules(catalog, field, dialect)
    except ValueError as exc:
        click.echo(f"logkb: cannot export: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if out is None:
        click.echo("\n---\n".join(rules.values()), nl=False)
        return
    target = Path(out)
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, text in rules.items():
            (target / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"{exc.filename or target}: cannot write: {exc.strerror or exc}")
    click.echo(f"wrote {len(rules)} Sigma rules to {target}", err=True)
