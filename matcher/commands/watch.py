"""``logkb watch``: diagnose a log while it is being written (pipe mode, or ``--follow``).

The bytes come from :mod:`matcher.pipe`, are cut into lines by :func:`matcher.read.read_chunks`
and go through the same incremental scan as ``logkb scan``. A problem is announced on stderr
when its event is complete: at the first later line that is no part of its traceback (or
FRAME_GAP lines on), or ``--idle`` seconds after its line, whichever comes first. The
checklist follows when the input ends.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..catalog import ProblemSignature
from ..diagnose import diagnose
from ..findings import Incident, Run
from ..normalize import normalize
from ..output import echo
from ..prefilter import MATCH_WINDOW
from ..pipe import Follow, Tee
from ..read import Chunk, InputError, grow_pipe, read_chunks
from ..report import FileReport, build_report
from ..scan import FRAME_GAP, Scanner
from ..scan.incidents import continues_traceback
from .. import pipeline
from .common import EXIT_ERROR, catalog_option
from .scan import exit_code

T = TypeVar("T")

def event_ended(chunk: Chunk, after: int) -> bool:
    """True when a line of ``chunk`` numbered above ``after`` is no part of its traceback
    (incidents.continues_traceback) or lies more than FRAME_GAP lines beyond it. Watch reads
    every line here, not only the scanner's candidates, so that an announcement is not held
    back by quiet lines; the checklist at the end is the scan's."""
    data, line, position = chunk.data, chunk.first_line, 0
    while position < len(data):
        if line > after + FRAME_GAP:
            return True
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline
        if line > after:
            text = normalize(data[position:min(end, position + MATCH_WINDOW)].decode("utf-8", "replace"))
            if not continues_traceback(text):
                return True
        position, line = end + 1, line + 1
    return False


class Session:
    """One live scan: announces each incident when its event is complete, and keeps the
    bytes flowing if the matcher itself fails (reported once, then off)."""

    def __init__(self, scanner: Scanner, name: str, idle: float, color: bool) -> None:
        self.state = scanner.stream(name, self._found)
        self.run: Run = self.state.run
        self.idle = idle
        self.color = color
        self.failure: str | None = None
        self._pending: list[tuple[ProblemSignature, Incident]] = []
        self._pending_since = 0.0
        self._announced: set[tuple[str, int]] = set()
        self._line = 0

    def feed(self, chunk: Chunk) -> None:
        self._line = chunk.first_line
        self._guard(self._feed, chunk)

    def tick(self) -> None:
        """After --idle seconds, what the open event shows so far is announced."""
        if self._pending and time.monotonic() - self._pending_since >= self.idle:
            self._guard(lambda: self._announce(self.state.open_incidents()))

    def report(self, input_error: str | None) -> FileReport | None:
        """The checklist of everything read, or None when the matcher failed on it."""
        if self.failure is None:
            self._guard(self.state.finish)
        return None if self.failure is not None else self._guard(lambda: build_report(self.run, error=input_error))

    def _found(self, sig: ProblemSignature, incident: Incident) -> None:
        if not self._pending:
            self._pending_since = time.monotonic()
        self._pending.append((sig, incident))

    def _feed(self, chunk: Chunk) -> None:
        self.state.feed(chunk)
        event = self.state.event
        if not self._pending:
            return
        last = max(i.line for _, i in self._pending)
        if event is None or event.first_line > last:
            self._announce([])  # the event that held them has ended
        elif event_ended(chunk, last):
            self._announce(self.state.open_incidents())

    def _announce(self, provisional: list[tuple[ProblemSignature, Incident]]) -> None:
        shown = [(sig, incident) for sig, incident in [*self._pending, *provisional]
                 if (sig.id, incident.line) not in self._announced]
        self._pending.clear()
        if not shown:
            return
        diagnosis = diagnose(self.state.so_far())
        root = diagnosis.root_cause.id if diagnosis.root_cause else None
        for sig, incident in sorted(shown, key=lambda pair: (pair[0].id != root, pair[1].line)):
            self._announced.add((sig.id, incident.line))
            role = diagnosis.roles.get(sig.id, "related")
            if sig.id in diagnosis.explained_by:
                role += f" of {diagnosis.explained_by[sig.id]}"
            head = sig.id
            severity = incident.wording_severity or sig.severity
            if self.color:
                head = click.style(head, fg="red" if severity == "error" else "yellow", bold=True)
            echo(
                f"logkb: line {incident.line}: {head} ({severity}, phase {incident.phase}, {role}; "
                f"{incident.basis}): {sig.title}",
                err=True,
            )

    def _guard(self, action: Callable[..., T], *args: Any) -> T | None:
        if self.failure is not None:
            return None
        try:
            return action(*args)
        except Exception as exc:  # noqa: BLE001 - the log must keep flowing whatever the matcher does
            self.failure = f"{type(exc).__name__}: {exc}"
            echo(f"logkb: internal matcher error near line {self._line} ({self.failure}); "
                       "diagnosis stopped, the input still passes through", err=True)
            return None


@click.command("watch")
@click.option("--follow", "follow", metavar="FILE", type=click.Path(dir_okay=False),
              help="Follow a log file being written (like tail -F) instead of reading stdin.")
@click.option("--idle", type=click.FloatRange(min=0), metavar="SECONDS", default=0.5, show_default=True,
              help="Announce a problem at most this many seconds after its line, even if its traceback has not "
                   "visibly ended.")
@click.option("--idle-exit", type=click.FloatRange(min=0), metavar="SECONDS",
              help="With --follow: stop after this many seconds without new data.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--color/--no-color", default=None, help="Colour stderr (default: on a terminal, unless NO_COLOR).")
@click.option("--verbose", "-v", is_flag=True, help="Show every check's explanation and each fix's verification.")
@catalog_option
def command(follow: str | None, idle: float, idle_exit: float | None, fail_on: str, color: bool | None,
            verbose: bool, catalogs: tuple[str, ...]) -> None:
    """Diagnose a log while it is written; the diagnosis goes to stderr.

    \b
      vllm serve MODEL 2>&1 | logkb watch
      logkb watch --follow server.log

    Pipe mode copies stdin to stdout byte for byte as it arrives. Each problem is announced
    in one line as soon as its event is complete (a later line shows its traceback has
    ended, or --idle seconds passed); the full checklist follows when the input ends. A closed stdout (| head) ends
    the watch. The first Ctrl-C lets the rest through until the input ends or stays quiet
    for a second; a second one stops at once.

    --follow FILE copies nothing to stdout: it reads FILE from its start and follows it like
    tail -F (a renamed-and-recreated or truncated file is read from its new start; line
    numbers go on counting) until Ctrl-C, or --idle-exit seconds without new data.

    Python servers block-buffer what they print into a pipe: set PYTHONUNBUFFERED=1 on the
    server to see its lines, and the diagnosis, as they happen.
    """
    if idle_exit is not None and follow is None:
        raise click.UsageError("--idle-exit needs --follow")
    scanner = pipeline.scanner(catalogs)
    if color is None:
        color = not os.environ.get("NO_COLOR") and sys.stderr.isatty()
    session = Session(scanner, follow or "<stdin>", idle, color)
    source: Tee | Follow
    if follow is not None:
        source = Follow(follow, session.tick, idle_exit)
    else:
        grow_pipe(sys.stdin.buffer)
        source = Tee(sys.stdin.fileno(), sys.stdout.fileno(), session.tick)
        signal.signal(signal.SIGINT, _drain_on_interrupt(source))
        signal.signal(signal.SIGTERM, _drain_on_interrupt(source))
    input_error = None
    try:
        for chunk in read_chunks(source, session.run.name):
            session.feed(chunk)
    except InputError as exc:
        input_error = str(exc)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        source.close()
    report = session.report(input_error)
    if report is not None:
        from ..report.text import render

        echo(render([report], color=color, verbose=verbose), err=True, nl=False)
    if input_error or report is None:
        sys.exit(EXIT_ERROR)
    sys.exit(exit_code([report], fail_on))


def _drain_on_interrupt(tee: Tee) -> Callable[[int, Any], None]:
    def handler(signum: int, frame: Any) -> None:
        tee.drain()
        signal.signal(signum, signal.default_int_handler)  # a second one stops at once

    return handler
