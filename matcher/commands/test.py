"""``logkb test``: run every corpus sample against its sidecar; per-signature TP/FP/FN.

``--bless`` accepts what logkb finds now after a deliberate change: the ``expect`` block of
each failing failure sample is rewritten (root cause, phase, line, the root cause's facts), its
other keys, key order, comments and quoting kept, and a unified diff of each sidecar changed is
printed. Healthy samples and samples where nothing was found are never blessed.
"""

from __future__ import annotations

import difflib
import io
import sys
from pathlib import Path

import click

from ..catalog import data_dir
from ..corpus import Outcome, SidecarError, confusion, run_corpus
from .. import pipeline
from .common import EXIT_CLEAN, EXIT_FINDINGS, catalog_option, fail


def default_corpus() -> Path:
    """``corpus/`` in the working directory, else the corpus installed with the catalog."""
    here = Path("corpus")
    return here if here.is_dir() else data_dir("corpus")


@click.command("test")
@click.argument("roots", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--verbose", "-v", is_flag=True, help="List every sample, not only failures.")
@click.option("--bless", is_flag=True, help="Rewrite the expect block of failing samples to what is found now; "
              "print a diff of each sidecar changed.")
@catalog_option
def command(roots: tuple[str, ...], verbose: bool, bless: bool, catalogs: tuple[str, ...]) -> None:
    """Run every corpus sample against its sidecar and print a per-signature table
    (default ROOTS: ./corpus, else the corpus installed with the built-in catalog). Finding no
    sample is an error: a gate that tests nothing must not pass."""
    scanner = pipeline.scanner(catalogs)
    dirs = [Path(r) for r in roots] or [default_corpus()]
    try:
        outcomes = run_corpus(scanner, dirs)
    except SidecarError as exc:
        fail(str(exc))
    if not outcomes:
        fail(f"no corpus sample (a .log with a .yaml sidecar) under {', '.join(map(str, dirs))}")
    if bless:
        diffs = [diff for diff in (bless_sidecar(o) for o in outcomes if not o.ok) if diff]
        click.echo("".join(diffs), nl=False)
        click.echo(f"logkb test: blessed {len(diffs)} sidecar(s)", err=True)
        outcomes = run_corpus(scanner, dirs)
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
    gaps = [o for o in outcomes if o.gap_problems]
    if gaps:
        click.echo(f"{len(gaps)} of the passed are known gaps (sidecar 'gap'): "
                   + "; ".join(f"{o.sample.log.name}: {o.gap_problems[0]}" for o in gaps), err=True)
    sys.exit(EXIT_FINDINGS if failed else EXIT_CLEAN)


def bless_sidecar(outcome: Outcome) -> str:
    """Rewrite the sidecar's expect block to this outcome; the unified diff ('' if unchanged)."""
    root = outcome.diagnosis.root_cause
    if outcome.sample.healthy or root is None:
        return ""
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap
    except ImportError:
        raise click.UsageError("--bless needs ruamel.yaml: pip install 'logkb[contrib]'") from None

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.representer.add_representer(type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"))
    path = outcome.sample.sidecar
    old = path.read_text(encoding="utf-8")
    doc = yaml.load(old)
    expect = doc.get("expect")
    if not isinstance(expect, dict):
        expect = doc["expect"] = CommentedMap()
    expect["root_cause"] = root.id
    expect["phase"] = root.phase
    if expect.get("line") not in root.lines:
        expect["line"] = root.line
    found = root.all_facts(outcome.diagnosis.run.facts)
    facts = expect.get("facts")
    wanted = {**{k: found[k] for k in (facts or {}) if k in found}, **root.facts}
    if facts is None and wanted:
        facts = expect["facts"] = CommentedMap()
        facts.fa.set_flow_style()
    for name in [k for k in (facts or {}) if k not in wanted]:
        del facts[name]
    for name, value in wanted.items():
        facts[name] = value
    buffer = io.StringIO()
    yaml.dump(doc, buffer)
    new = buffer.getvalue()
    if new == old:
        return ""
    path.write_text(new, encoding="utf-8")
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=str(path), tofile=str(path)))
