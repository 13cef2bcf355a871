"""The ``logkb`` command line: the group, shared options and exit codes.

Each subcommand lives in its own module under ``matcher/commands/``. Exit codes: 0 nothing
at or above --fail-on, 1 findings, 2 usage, input or catalog error. Findings go to stdout
(or --output); everything else goes to stderr.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import click

from .budget import BudgetError
from .catalog import CatalogError
from .commands.common import EXIT_ERROR


# Subcommand name -> module under matcher.commands; imported only when that command runs,
# so `logkb scan` does not pay for the imports of every other command.
COMMANDS = {
    "scan": "scan", "watch": "watch", "facts": "facts", "compare": "compare", "explain": "explain",
    "test": "test", "validate": "validate", "new": "new", "docs": "docs", "export": "export",
    "version": "version",
}


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return importlib.import_module(f".commands.{COMMANDS[name]}", __package__).command

    def main(self, *args, **kwargs):  # type: ignore[override]
        global _main_pid
        _main_pid = os.getpid()
        _received.clear()
        previous = _set_sigterm(_terminated)
        try:
            kwargs.setdefault("default_map", _settings())
            return super().main(*args, **kwargs)
        except (CatalogError, BudgetError) as exc:
            click.echo(f"logkb: catalog error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        finally:
            _set_sigterm(previous)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        """Ctrl-C or SIGTERM: one line and 130 or 143, as a shell reports a signal, never 1
        (which means findings); ``with`` blocks unwind on the way, so worker processes stop."""
        try:
            result = super().invoke(ctx)
        except KeyboardInterrupt as exc:
            click.echo("logkb: interrupted", err=True)
            sys.exit(128 + (exc.args[0] if exc.args and isinstance(exc.args[0], int) else signal.SIGINT))
        except SystemExit:
            if not _received:
                raise
            result = None  # a command ends with its exit status; the signal's status wins
        if _received:
            # The signal's KeyboardInterrupt was raised where Python only prints and ignores
            # exceptions (a fork handler, a finalizer), so the command ran on: still end as
            # the signal asks.
            click.echo("logkb: interrupted", err=True)
            sys.exit(128 + _received[-1])
        return result


_main_pid = 0
_received: list[int] = []  # SIGTERMs this process got


def _settings() -> dict[str, dict[str, object]]:
    """Defaults from the project's settings file (matcher/config.py); a broken one is a
    one-line error, exit 2."""
    from pathlib import Path

    from .config import ConfigError, default_map

    try:
        return default_map(Path.cwd())
    except ConfigError as exc:
        click.echo(f"logkb: {exc}", err=True)
        sys.exit(EXIT_ERROR)


def _set_sigterm(handler: object) -> object:
    """Install a SIGTERM handler (a library caller of ``main`` gets its own back afterwards);
    outside the main thread, where Python allows none, nothing changes."""
    if handler is None:  # installed from outside Python: leave it
        return None
    try:
        return signal.signal(signal.SIGTERM, handler)  # type: ignore[arg-type]
    except ValueError:
        return handler


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C (``logkb watch`` installs its own: it drains first); a
    worker process forked an instant ago, which inherited this handler, just ends."""
    if os.getpid() != _main_pid:
        os._exit(128 + signum)
    _received.append(signum)
    raise KeyboardInterrupt(signum)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """--version: logkb, the catalog and the scanning engine, as a bug report needs them."""
    if not value or ctx.resilient_parsing:
        return
    from .commands.version import describe

    click.echo("\n".join(describe(())))
    ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the logkb, catalog and engine versions and exit.")
def main() -> None:
    """Diagnose GPU-memory failures in LLM-serving logs (vLLM, TGI, SGLang, llama.cpp,
    Ollama, PyTorch) and print an ordered checklist of checks and fixes."""


def run() -> None:
    """The ``logkb`` console script: :func:`main`, then a quick exit.

    Once the report is written nothing needs the interpreter's teardown (freeing every
    module, the compiled catalog and the Hyperscan database), which costs about as much as
    scanning a short log. So the streams are flushed and the process ends with ``os._exit``,
    with the status ``sys.exit`` would have given (120 when stdout cannot be flushed)."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        status = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)
