"""The one way logkb writes what it prints: reports, records, watch's stderr, files it creates.

Everything passes :func:`matcher.redact.scrub` (unless the user asked for ``--no-redact``),
so a secret of a known shape never leaves logkb whatever path it took through the code. A
write that fails (a full disk, a missing directory, a closed pipe) is one line on stderr
and exit status 2, never a traceback, and never status 1, which means findings.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .redact import scrub

EXIT_ERROR = 2


def echo(text: str, *, err: bool = False, nl: bool = True, color: bool | None = None, redact: bool = True) -> None:
    """Print to stdout (or stderr) and flush, so that a failure shows here and not at exit."""
    if redact:
        text = scrub(text)
    stream = sys.stderr if err else sys.stdout
    try:
        click.echo(text, nl=nl, err=err, color=color)
        stream.flush()
    except OSError as exc:
        _fail("stderr" if err else "stdout", exc)


def write_file(path: str | Path, text: str, *, redact: bool = True) -> None:
    """Write a whole file (a report, a signature), or stop with one line naming it."""
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(scrub(text) if redact else text)
    except OSError as exc:
        _fail(str(path), exc)


def _fail(where: str, exc: OSError) -> None:
    if isinstance(exc, BrokenPipeError) and where == "stdout":
        _silence_stdout()
        sys.exit(EXIT_ERROR)  # the reader went away (| head): nothing to tell it
    if where == "stdout":
        _silence_stdout()
    try:
        click.echo(f"logkb: {where}: cannot write: {exc.strerror or exc}", err=True)
    except OSError:
        pass
    sys.exit(EXIT_ERROR)


def _silence_stdout() -> None:
    """Drop what stdout still buffers: the final flush at exit would fail on it again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
