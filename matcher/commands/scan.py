"""``logkb scan``: diagnose logs and print the checklist (or a machine-readable report)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import click

from ..cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, catalog_option, load
from ..read import InputError, is_directory, open_input
from ..report import SEVERITIES, FileReport, build_report, worst_severity
from ..scan import Run, Scanner

FORMATS = ("text", "json")


def expand(paths: tuple[str, ...]) -> Iterator[str]:
    """Files to scan: '-' (stdin) when none is given; directories are walked."""
    for path in paths or ("-",):
        if is_directory(path):
            for root, _, files in sorted(os.walk(path)):
                for name in sorted(files):
                    if name.endswith((".log", ".txt", ".gz")):
                        yield os.path.join(root, name)
        else:
            yield path


def scan_path(scanner: Scanner, path: str, redact: bool = True) -> FileReport:
    """Scan one path; an unreadable or corrupt input still yields a report, with the error."""
    name = "<stdin>" if path == "-" else path
    stream = None
    try:
        stream = open_input(path)
        return build_report(scanner.run(stream, name), redact)
    except InputError as exc:
        return build_report(Run(name), redact, error=str(exc))
    finally:
        if stream is not None and path != "-":
            stream.close()


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option("--color/--no-color", default=None, help="Colour the text report (default: on a terminal, unless NO_COLOR).")
@click.option("--no-redact", is_flag=True, help="Show secrets and prompt text in evidence lines.")
@click.option("--verbose", "-v", is_flag=True, help="Show every check's explanation and each fix's verification.")
@catalog_option
def command(paths: tuple[str, ...], fmt: str, fail_on: str, output: str | None, color: bool | None,
            no_redact: bool, verbose: bool, catalogs: tuple[str, ...]) -> None:
    """Diagnose log files (PATH may be '-', a directory or a .gz file; default: stdin)."""
    catalog = load(catalogs)
    scanner = Scanner(catalog)
    reports = [scan_path(scanner, path, redact=not no_redact) for path in expand(paths)]
    if fmt == "json":
        from ..report.json_report import render as render_json

        text = render_json(reports, catalog.version)
    else:
        from ..report.text import render as render_text

        text = render_text(reports, color=use_color(color, output), verbose=verbose)
    emit(text, output)
    for report in reports:
        if report.error:
            click.echo(f"logkb: {report.error}", err=True)
    if any(r.error for r in reports):
        sys.exit(EXIT_ERROR)
    sys.exit(exit_code(reports, fail_on))


def use_color(flag: bool | None, output: str | None) -> bool:
    if flag is not None:
        return flag
    if output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def emit(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


def exit_code(reports: list[FileReport], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_CLEAN
    worst = worst_severity(reports)
    if worst is None:
        return EXIT_CLEAN
    return EXIT_FINDINGS if SEVERITIES.index(worst) <= SEVERITIES.index(fail_on) else EXIT_CLEAN
