"""One SHA-256 per corpus log of its JSON report, so that a refactor can prove it changed nothing.

Each digest covers the exact bytes that ``logkb scan --format json corpus/<path>.log`` prints
when run from the repository root (the path is in the report). The scans run in this process
through the library API, with one scanner for the whole corpus, so the check takes seconds
rather than one start-up per log:

    python bench/report_digests.py            # list the logs whose report changed; exit 1 if any
    python bench/report_digests.py --update   # rewrite tests/data/report-digests.txt

Regenerate the file (``--update``) after a change that is meant to change reports: a catalog
edit, a rebase onto such changes. tests/test_report_digests.py runs the check.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DIGESTS = ROOT / "tests" / "data" / "report-digests.txt"
UPDATE_COMMAND = "python bench/report_digests.py --update"


def corpus_logs() -> list[str]:
    """Every corpus log, as the repository-relative POSIX path a scan from the root is given."""
    return sorted(path.relative_to(ROOT).as_posix() for path in CORPUS.rglob("*.log"))


def reports() -> Iterator[tuple[str, bytes]]:
    """(log path, bytes of its JSON report) for every corpus log, in path order."""
    from matcher.api import scan_path, scanner
    from matcher.catalog import load_catalog
    from matcher.report import json_report

    version = load_catalog().version
    engine = scanner()
    for log in corpus_logs():
        report = scan_path(engine, str(ROOT / log), name=log)
        yield log, json_report.render([report], version).encode("utf-8")


def current() -> dict[str, str]:
    return {log: hashlib.sha256(data).hexdigest() for log, data in reports()}


def stored(path: Path = DIGESTS) -> dict[str, str]:
    """The digests file as {log: sha256}; lines starting with '#' are comments."""
    digests = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            digest, log = line.split("  ", 1)
            digests[log] = digest
    return digests


def differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """One line per log whose report changed, appeared or disappeared."""
    lines = [f"changed: {log}" for log in sorted(expected.keys() & actual.keys()) if expected[log] != actual[log]]
    lines += [f"new log, no digest: {log}" for log in sorted(actual.keys() - expected.keys())]
    lines += [f"digest of a log that is gone: {log}" for log in sorted(expected.keys() - actual.keys())]
    return lines


def write(digests: dict[str, str], path: Path = DIGESTS) -> None:
    header = ("# SHA-256 of `logkb scan --format json PATH` for every corpus log, run from the repository root.\n"
              f"# Regenerate after a change meant to change reports: {UPDATE_COMMAND}\n")
    path.write_text(header + "".join(f"{digests[log]}  {log}\n" for log in sorted(digests)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {DIGESTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    actual = current()
    if args.update:
        write(actual)
        print(f"{DIGESTS.relative_to(ROOT)}: {len(actual)} logs")
        return 0
    problems = differences(stored(), actual)
    print("\n".join(problems) or f"all {len(actual)} reports unchanged")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
