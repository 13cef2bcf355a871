"""Scan a tree of logs on a Dask cluster: one task per file, the same JSON report as the CLI.

    python -m matcher.batch /srv/logs --scheduler tcp://dask-scheduler:8786 -o report.json
    python -m matcher.batch /srv/logs --scheduler local --workers 8

Each task scans one file and returns that file's entry of ``logkb scan --format json``; the
job assembles the report in the CLI's order, so both outputs are the same document. Workers
read the files themselves: every worker must see the paths (a shared file system or the same
mount). Relative paths are resolved against the folder the job runs in before they are sent, so
a worker started elsewhere opens the same files; the report keeps the paths as given. Each
worker process loads the catalog once and keeps it for the following tasks. The exit status
is the CLI's: 1 when a finding reaches --fail-on, 2 when a file could not be read.

Dask rather than Ray Data: the work is a plain map of a function over file paths, which is
what ``Client.map`` is; Dask is a pure-Python install that runs in-process for tests, on a
laptop, or on an existing cluster (Kubernetes, SLURM via dask-jobqueue), while Ray Data is
built for columnar blocks, needs Ray's runtime with its own object store and native wheels
that trail new Python releases.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import click
import msgspec

try:
    from distributed import Client, LocalCluster
except ImportError as exc:  # the optional extra is missing
    raise ImportError("matcher.batch needs Dask: pip install 'logkb[cluster]'") from exc

from .api import scan_path
from .catalog import load_catalog
from .commands.common import EXIT_CLEAN, EXIT_ERROR, catalog_option, fail, input_globs
from .commands.scan import DEFAULT_INCLUDE, emit, expand, status_for
from .diagnose import exit_severities
from .read import InputError
from .report import file_dict
from .report.json_report import render_files
from .pipeline import scanner_for
from .scan import Scanner
from .selection import DEFAULT_STATUSES, selection_options


class Selection(msgspec.Struct, frozen=True):
    """The catalog a scan uses: overlay directories and the ``--status/--only/--ignore`` choice."""

    catalogs: tuple[str, ...] = ()
    statuses: tuple[str, ...] = DEFAULT_STATUSES
    only: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@lru_cache(maxsize=8)
def _scanner(selection: Selection) -> Scanner:
    catalog = load_catalog(selection.catalogs)
    return scanner_for(catalog, selection.statuses, selection.only, selection.ignore)


def scan_file(path: str, selection: Selection = Selection(), redact: bool = True,
              name: str | None = None) -> dict[str, Any]:
    """One task: the file's entry of the JSON report, calling the file ``name`` (default: path)."""
    return file_dict(scan_path(_scanner(selection), path, redact, name=name))


def _scan_as(path: str, name: str, selection: Selection, redact: bool) -> dict[str, Any]:
    """The task ``scan_files`` maps: :func:`scan_file` of ``path``, reported as ``name``."""
    return scan_file(path, selection, redact, name)


def scan_files(client: Client, files: Iterable[str], selection: Selection = Selection(),
               redact: bool = True) -> dict[str, dict[str, Any]]:
    """Path -> entry of the JSON report, one task per file, in the order given. Workers get
    absolute paths (they may run in another folder); entries keep the paths as given."""
    files = list(files)
    # pure=False: a log file may have changed since an earlier task read it.
    futures = client.map(_scan_as, [os.path.abspath(f) for f in files], files, selection=selection, redact=redact,
                         pure=False)
    return dict(zip(files, client.gather(futures)))


def scan_tree(client: Client, paths: Iterable[str], selection: Selection = Selection(), redact: bool = True,
              include: Iterable[str] = DEFAULT_INCLUDE, exclude: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
    """Walk directories as ``logkb scan`` does (same include/exclude globs and order) and scan
    every file found on the cluster."""
    return scan_files(client, expand(tuple(paths), include, exclude), selection, redact)


@contextmanager
def connect(scheduler: str, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler at ADDRESS, or of a local cluster of worker processes."""
    if scheduler != "local":
        with Client(scheduler) as client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client


@click.command("logkb-batch")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--scheduler", required=True, metavar="ADDRESS|local",
              help="Dask scheduler address (tcp://host:8786), or 'local' for a cluster on this machine.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="With --scheduler local: worker processes (default: one per CPU core).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error", show_default=True,
              help="Lowest severity that makes the exit status 1.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings reach --fail-on.")
@input_globs
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option("--no-redact", is_flag=True, help="Show secrets and prompt text in evidence lines.")
@catalog_option
@selection_options
def main(paths: tuple[str, ...], scheduler: str, workers: int | None, fail_on: str, exit_zero: bool,
         includes: tuple[str, ...], excludes: tuple[str, ...], output: str | None, no_redact: bool,
         catalogs: tuple[str, ...], statuses: tuple[str, ...], only: tuple[str, ...], ignore: tuple[str, ...]) -> None:
    """Diagnose every log under PATHS on a Dask cluster; print the JSON report of `logkb scan -f json`.

    Exit status as `logkb scan`: 0, 1 when a finding reaches --fail-on, 2 when a file could not
    be read (its entry carries the error)."""
    selection = Selection(tuple(catalogs), tuple(statuses), tuple(only), tuple(ignore))
    catalog_version = load_catalog(selection.catalogs).version
    try:
        files = list(expand(paths, includes or DEFAULT_INCLUDE, excludes))
    except InputError as exc:
        fail(str(exc))
    with connect(scheduler, workers) as client:
        results = scan_files(client, files, selection, not no_redact)
    emit(render_files(list(results.values()), catalog_version), output)
    errors = [entry["error"] for entry in results.values() if entry["error"]]
    for error in errors:
        click.echo(f"logkb: {error}", err=True)
    if errors:
        sys.exit(EXIT_ERROR)
    severities = [severity for entry in results.values() for severity in exit_severities(
        {f["id"]: f["severity"] for f in entry["findings"]},
        {f["id"]: f["explained_by"] for f in entry["findings"] if f["explained_by"]}).values()]
    sys.exit(EXIT_CLEAN if exit_zero else status_for(severities, fail_on))


if __name__ == "__main__":
    # Run the command of the importable module: tasks then name matcher.batch._scan_as, which
    # workers import (and whose catalog cache they keep), not a function of __main__.
    from matcher.batch import main as batch_main

    batch_main()
