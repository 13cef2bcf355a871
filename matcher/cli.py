"""The ``logkb`` command line. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage
or catalog error. Findings go to stdout (or --output), everything else to stderr."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import click

from . import __version__
from .catalog import Catalog, CatalogError, load_catalog
from .read import InputError, is_directory, open_input
from .report import SEVERITIES, FileReport, build_report, worst_severity
from .scan import Run, Scanner

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json")


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


def _load(catalogs: tuple[str, ...]) -> Catalog:
    return load_catalog(catalogs)


def _expand(paths: tuple[str, ...]) -> Iterator[str]:
    for path in paths or ("-",):
        if is_directory(path):
            for root, _, files in sorted(os.walk(path)):
                for name in sorted(files):
                    if name.endswith((".log", ".txt", ".gz")):
                        yield os.path.join(root, name)
        else:
            yield path


def scan_path(scanner: Scanner, path: str, redact: bool = True) -> FileReport:
    """Scan one path; an unreadable or corrupt input still yields what was read, plus the error."""
    name = "<stdin>" if path == "-" else path
    error = None
    stream = None
    try:
        stream = open_input(path)
        run = scanner.run(stream, name)
    except InputError as exc:
        error = str(exc)
        run = Run(name)
        partial = getattr(exc, "run", None)
        if partial is not None:
            run = partial
    finally:
        if stream is not None and path != "-":
            stream.close()
    return build_report(run, redact, error)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option("--color/--no-color", default=None, help="Colour the text report (default: on a terminal, unless NO_COLOR).")
@click.option("--no-redact", is_flag=True, help="Show secrets and prompt text in evidence lines.")
@click.option("--verbose", "-v", is_flag=True, help="Show every check's explanation and each fix's verification.")
@catalog_option
def scan(paths: tuple[str, ...], fmt: str, fail_on: str, output: str | None, color: bool | None,
         no_redact: bool, verbose: bool, catalogs: tuple[str, ...]) -> None:
    """Diagnose log files (PATH may be '-', a directory or a .gz file; default: stdin)."""
    catalog = _load(catalogs)
    scanner = Scanner(catalog)
    reports = [scan_path(scanner, path, redact=not no_redact) for path in _expand(paths)]
    if fmt == "json":
        from .report.json_report import render as render_json

        text = render_json(reports, catalog.version)
    else:
        from .report.text import render as render_text

        use_color = _use_color(color, output)
        text = render_text(reports, color=use_color, verbose=verbose)
    _emit(text, output)
    for report in reports:
        if report.error:
            click.echo(f"logkb: {report.error}", err=True)
    if any(r.error for r in reports):
        sys.exit(EXIT_ERROR)
    sys.exit(_exit_code(reports, fail_on))


def _use_color(flag: bool | None, output: str | None) -> bool:
    if flag is not None:
        return flag
    if output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def _emit(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


def _exit_code(reports: list[FileReport], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_CLEAN
    worst = worst_severity(reports)
    if worst is None:
        return EXIT_CLEAN
    return EXIT_FINDINGS if SEVERITIES.index(worst) <= SEVERITIES.index(fail_on) else EXIT_CLEAN
