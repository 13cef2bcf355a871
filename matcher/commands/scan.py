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
from ..read import InputError, is_directory
from ..report import SEVERITIES, FileReport, worst_severity
from ..pipeline import scanner_for
from ..progress import progress
from ..selection import selection_options
from .common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, catalog_option, fail, input_globs, load
from .outputs import ORDER, OrderedCommand, targets

FORMATS = ("text", "json", "markdown", "sarif", "junit", "github", "gitlab", "auto")
DEFAULT_INCLUDE = ("*.log", "*.txt", "*.gz")


def expand(paths: tuple[str, ...], include: Iterable[str] = DEFAULT_INCLUDE,
           exclude: Iterable[str] = ()) -> Iterator[str]:
    """Files to scan: '-' (stdin) when none is given; a file named is always scanned.

    Directories are walked recursively, in name order. A file found there is scanned when its
    name or its path below the directory matches an include glob and no exclude glob; a
    subdirectory matching an exclude glob is not entered. Anything there but a regular file
    (a FIFO would block the scan, a device never ends) is skipped with a note on stderr. A
    directory that contributes no file is an :class:`InputError`: a gate that scans nothing
    must not pass.
    """
    include, exclude = tuple(include), tuple(exclude)
    for path in paths or ("-",):
        if not is_directory(path):
            yield path
            continue
        found = False
        for root, dirs, files in os.walk(path):
            below = PurePath(os.path.relpath(root, path))
            dirs[:] = sorted(d for d in dirs if not matches(below / d, exclude))
            for name in sorted(files):
                if matches(below / name, include) and not matches(below / name, exclude):
                    candidate = os.path.join(root, name)
                    if os.path.isfile(candidate):
                        found = True
                        yield candidate
                    else:
                        echo(f"logkb: {candidate}: not a regular file, skipped", err=True)
        if not found:
            raise InputError(f"{path}: no file to scan in this directory (looked for {' '.join(include)}"
                             f"{'; excluded ' + ' '.join(exclude) if exclude else ''})")


def matches(relative: PurePath, globs: tuple[str, ...]) -> bool:
    return any(fnmatch(relative.name, glob) or fnmatch(relative.as_posix(), glob) for glob in globs)


@click.command("scan", cls=OrderedCommand)
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), multiple=True, default=("text",), show_default=True,
              help="Report format, repeatable with an --output each (see --output); 'auto' is 'github' inside "
                   "GitHub Actions and 'text' elsewhere.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even when findings reach --fail-on (input and catalog errors still exit 2).")
@input_globs
@click.option("--output", "-o", multiple=True, type=click.Path(dir_okay=False),
              help="Write the report of the --format before it to this file (default: stdout).")
@click.option("--quiet", "-q", is_flag=True, help="Text report: one line per log with its root cause, nothing else.")
@click.option("--statistics", is_flag=True, help="Text report: how often each signature was found, instead of checklists.")
@click.option("--stdin-filename", metavar="NAME", help="The name reports give the log read from stdin ('-').")
@click.option("--color/--no-color", default=None,
              help="Colour the text report (default: on a terminal, unless NO_COLOR; FORCE_COLOR forces it).")
@click.option("--no-redact", is_flag=True, help="Show secrets and prompt text in evidence lines.")
@click.option("--verbose", "-v", is_flag=True, help="Show every check's explanation and each fix's verification.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, envvar="LOGKB_JOBS", show_default=True,
              help="Worker processes for a file of 64 MiB or more (0: one per CPU, at most 8; 1: no workers).")
@catalog_option
@selection_options
@click.pass_context
def command(ctx: click.Context, paths: tuple[str, ...], fmt: tuple[str, ...], fail_on: str, exit_zero: bool,
            includes: tuple[str, ...], excludes: tuple[str, ...], output: tuple[str, ...], quiet: bool,
            statistics: bool, stdin_filename: str | None, color: bool | None, no_redact: bool, verbose: bool,
            jobs: int, catalogs: tuple[str, ...], statuses: tuple[str, ...], only: tuple[str, ...],
            ignore: tuple[str, ...]) -> None:
    """Diagnose log files (PATH may be '-', a directory or a .gz file; default: stdin)."""
    reports_to = targets(fmt, output, ctx.meta.get(ORDER, []))
    catalog = load(catalogs)
    scanner = scanner_for(catalog, statuses, only, ignore)
    try:
        files = list(expand(paths, includes or DEFAULT_INCLUDE, excludes))
    except InputError as exc:
        fail(str(exc))
    if not paths and sys.stdin.isatty():
        click.echo("logkb scan: reading a log from standard input (end it with Ctrl-D; "
                   "name files, or '-' for stdin, to skip this note)", err=True)
    with progress(files) as tracker:
        reports = [tracker.done(scan_path(scanner, path, redact=not no_redact, jobs=jobs,
                                          name=stdin_filename if path == "-" else None,
                                          wrap=tracker.reading(path)), path) for path in files]
    for target in reports_to:
        colored = use_color(color, target.path)
        content = render(resolve_format(target.fmt), reports, catalog.version, colored, verbose, quiet, statistics)
        emit(content, target.path, colored, not no_redact)
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


def render(fmt: str, reports: list[FileReport], catalog_version: str, color: bool, verbose: bool,
           quiet: bool = False, statistics: bool = False) -> str:
    """The report in one format; each format is a pure function of the reports (its module is
    imported only when asked for). ``quiet`` and ``statistics`` choose other text reports."""
    if fmt == "text" and (quiet or statistics):
        fmt = "statistics" if statistics else "concise"
    module = importlib.import_module(f"..report.{_MODULES[fmt]}", __package__)
    if fmt == "text":
        return module.render(reports, color=color, verbose=verbose)
    if fmt == "concise":
        return module.render(reports, color=color)
    if fmt == "statistics":
        return module.render(reports)
    if fmt in ("github", "gitlab"):
        return module.render(reports)
    return module.render(reports, catalog_version)


_MODULES = {"text": "text", "concise": "concise", "statistics": "statistics", "json": "json_report", "markdown": "markdown", "sarif": "sarif", "junit": "junit",
            "github": "github", "gitlab": "gitlab"}


def use_color(flag: bool | None, output: str | None) -> bool:
    """--color/--no-color, else never in a file, else FORCE_COLOR, else NO_COLOR, else a terminal."""
    if flag is not None:
        return flag
    if output:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def emit(content: str, output: str | None, colored: bool = False, redact: bool = True) -> None:
    """Write the report; ``colored`` keeps click from stripping colour off a pipe (``| less -R``)."""
    if output:
        write_file(output, content, redact=redact)
    else:
        echo(content, nl=False, color=colored or None, redact=redact)


def exit_code(reports: list[FileReport], fail_on: str) -> int:
    worst = worst_severity(reports)
    return status_for([worst] if worst else [], fail_on)


def status_for(severities: Iterable[str], fail_on: str) -> int:
    """1 when a finding of these severities reaches ``fail_on``, else 0."""
    if fail_on == "never":
        return EXIT_CLEAN
    limit = SEVERITIES.index(fail_on)
    return EXIT_FINDINGS if any(SEVERITIES.index(s) <= limit for s in severities) else EXIT_CLEAN
