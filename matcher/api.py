"""logkb as a library: diagnose a path, a binary file object or an iterator of lines.

Each function returns the same per-file dictionary as one entry of the JSON report
(``logkb scan --format json``), so a batch job and the CLI agree byte for byte.

    from matcher.api import diagnose_path
    report = diagnose_path("server.log")
    report["root_cause"], report["phase"], report["findings"][0]["fixes"]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, BinaryIO

from .budget import BudgetError
from .read import InputError, holds_file_bytes, open_input
from .report import FileReport, build_report, file_dict
from . import pipeline
from .findings import Run
from .scan import Scanner


@lru_cache(maxsize=8)
def scanner(catalogs: tuple[str, ...] = ()) -> Scanner:
    """A scanner for the built-in catalog plus overlay directories, with the signatures
    ``logkb scan`` uses by default (every status but deprecated); cached per process."""
    return pipeline.scanner(catalogs)


def scan_path(engine: Scanner, path: str, redact: bool = True, jobs: int = 1, name: str | None = None,
              wrap: Callable[[BinaryIO], BinaryIO] | None = None) -> FileReport:
    """Scan one path ('-' is stdin); an unreadable or corrupt input yields a report with the
    error. The report and its errors call the input ``name`` (default: the path as given,
    ``<stdin>`` for '-'). With ``jobs`` > 1 (0: one per CPU) a large regular file is searched
    by worker processes (split.py). ``wrap`` wraps the stream read (progress counting). A failure
    of the matcher itself is that input's error too, so that one input never costs the reports of
    the others."""
    name = name or ("<stdin>" if path == "-" else path)
    stream = None
    try:
        stream = open_input(path, name)
        workers = _workers(engine, path, jobs) if holds_file_bytes(stream) else 1
        if workers > 1:
            return build_report(engine.run_split(path, name, workers), redact)
        return build_report(engine.run(wrap(stream) if wrap else stream, name), redact)
    except InputError as exc:
        return build_report(exc.partial or Run(name), redact, error=str(exc))
    except BudgetError:
        raise  # the catalog's fault, not this input's: a catalog error
    except Exception as exc:  # noqa: BLE001 - reported as this input's error, exit 2
        return build_report(Run(name), redact, error=f"{name}: internal matcher error ({type(exc).__name__}: {exc})")
    finally:
        if stream is not None and path != "-":
            stream.close()


def _workers(engine: Scanner, path: str, jobs: int) -> int:
    if jobs == 1:
        return 1
    from .split import candidates_dense, workers_for  # imported only where a scan may split

    workers = workers_for(path, jobs)
    return 1 if workers > 1 and candidates_dense(path, engine.prefilter) else workers


def diagnose_path(path: str, catalogs: tuple[str, ...] = (), redact: bool = True) -> dict[str, Any]:
    return file_dict(scan_path(scanner(catalogs), path, redact))


def diagnose_stream(stream: BinaryIO, name: str, catalogs: tuple[str, ...] = (), redact: bool = True) -> dict[str, Any]:
    return file_dict(build_report(scanner(catalogs).run(stream, name), redact))


def diagnose_lines(lines: Iterable[str | bytes], name: str = "<lines>", catalogs: tuple[str, ...] = (),
                   redact: bool = True) -> dict[str, Any]:
    return file_dict(build_report(scanner(catalogs).run_lines(lines, name), redact))
