"""``logkb scan``: diagnose logs and print the checklist (or a machine-readable report)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable, Iterator
from fnmatch import fnmatch
from pathlib import PurePath

import click

from ..api import scan_path
from ..output import echo, write_file
from ..read import is_directory
from ..report import SEVERITIES, FileReport, worst_severity
from ..scan import Scanner
from ..selection import select, selection_options
from .common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, catalog_option, input_globs, load

FORMATS = ("text", "json", "markdown", "sarif", "junit", "github", "gitlab", "auto")
DEFAULT_INCLUDE = ("*.log", "*.txt", "*.gz")


def expand(paths: tuple[str, ...], include: Iterable[str] = DEFAULT_INCLUDE,
           exclude: Iterable[str] = ()) -> Iterator[str]:
    """Files to scan: '-' (stdin) when none is given; a file named is always scanned.

    Directories are walked recursively, in name order. A file found there is scanned when its
    name or its path below the directory matches an include glob and no exclude glob; a
    subdirectory matching an exclude glob is not entered. Anything there but a regular file
    (a FIFO would block the scan, a device never ends) is skipped with a note on stderr.
    """
    include, exclude = tuple(include), tuple(exclude)
    for path in paths or ("-",):
        if not is_directory(path):
            yield path
            continue
        for root, dirs, files in os.walk(path):
            below = PurePath(os.path.relpath(root, path))
            dirs[:] = sorted(d for d in dirs if not matches(below / d, exclude))
            for name in sorted(files):
                if matches(below / name, include) and not matches(below / name, exclude):
                    found = os.path.join(root, name)
                    if os.path.isfile(found):
                        yield found
                    else:
                        echo(f"logkb: {found}: not a regular file, skipped", err=True)


def matches(relative: PurePath, globs: tuple[str, ...]) -> bool:
    return any(fnmatch(relative.name, glob) or fnmatch(relative.as_posix(), glob) for glob in globs)


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format; 'auto' is 'github' inside GitHub Actions and 'text' elsewhere.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even when findings reach --fail-on (input and catalog errors still exit 2).")
@input_globs
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option("--color/--no-color", default=None, help="Colour the text report (default: on a terminal, unless NO_COLOR).")
@click.option("--no-redact", is_flag=True, help="Show secrets and prompt text in evidence lines.")
@click.option("--verbose", "-v", is_flag=True, help="Show every check's explanation and each fix's verification.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, envvar="LOGKB_JOBS", show_default=True,
              help="Worker processes for a file of 64 MiB or more (0: one per CPU, at most 8; 1: no workers).")
@catalog_option
@selection_options
def command(paths: tuple[str, ...], fmt: str, fail_on: str, exit_zero: bool, includes: tuple[str, ...],
            excludes: tuple[str, ...], output: str | None, color: bool | None, no_redact: bool, verbose: bool,
            jobs: int, catalogs: tuple[str, ...], statuses: tuple[str, ...], only: tuple[str, ...],
            ignore: tuple[str, ...]) -> None:
    """Diagnose log files (PATH may be '-', a directory or a .gz file; default: stdin)."""
    catalog = load(catalogs)
    scanner = Scanner(select(catalog, statuses, only, ignore))
    files = expand(paths, includes or DEFAULT_INCLUDE, excludes)
    reports = [scan_path(scanner, path, redact=not no_redact, jobs=jobs) for path in files]
    colored = use_color(color, output)
    emit(render(resolve_format(fmt), reports, catalog.version, colored, verbose), output, colored, not no_redact)
    for report in reports:
        if report.error:
            echo(f"logkb: {report.error}", err=True, redact=not no_redact)
    if any(r.error for r in reports):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_CLEAN if exit_zero else exit_code(reports, fail_on))


def resolve_format(fmt: str) -> str:
    if fmt != "auto":
        return fmt
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def render(fmt: str, reports: list[FileReport], catalog_version: str, color: bool, verbose: bool) -> str:
    """The report in one format; each format is a pure function of the reports (its module is
    imported only when asked for)."""
    module = importlib.import_module(f"..report.{_MODULES[fmt]}", __package__)
    if fmt == "text":
        return module.render(reports, color=color, verbose=verbose)
    if fmt in ("github", "gitlab"):
        return module.render(reports)
    return module.render(reports, catalog_version)


_MODULES = {"text": "text", "json": "json_report", "markdown": "markdown", "sarif": "sarif", "junit": "junit",
            "github": "github", "gitlab": "gitlab"}


def use_color(flag: bool | None, output: str | None) -> bool:
    if flag is not None:
        return flag
    if output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def emit(content: str, output: str | None, colored: bool = False, redact: bool = True) -> None:
    """Write the report; ``colored`` keeps click from stripping colour off a pipe (``| less -R``)."""
    if output:
        write_file(output, content, redact=redact)
    else:
        echo(content, nl=False, color=colored or None, redact=redact)


def exit_code(reports: list[FileReport], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_CLEAN
    worst = worst_severity(reports)
    if worst is None:
        return EXIT_CLEAN
    return EXIT_FINDINGS if SEVERITIES.index(worst) <= SEVERITIES.index(fail_on) else EXIT_CLEAN
