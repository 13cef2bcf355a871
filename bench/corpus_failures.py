"""The corpus logs that the damage benches (bench/wrapped.py, bench/cut.py) cut and scan
again: every real failure log whose whole log gets the root cause its sidecar expects, and the
healthy and non-memory logs, which a cut must not turn into a memory failure."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from matcher.api import diagnose_lines

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
SKIPPED = {"pairs", "generated"}  # fixed-log pairs and generated logs have their own measures


@dataclass(frozen=True)
class Failure:
    log: Path
    lines: list[str]
    expected: str  # expect.root_cause
    line: int | None  # expect.line, the decisive line (1-based), when the sidecar names it
    phase: str | None  # the phase the whole log gets


def _samples() -> Iterator[tuple[Path, dict[str, Any], list[str]]]:
    """Each real corpus log with its sidecar and its lines."""
    for sidecar in sorted(CORPUS.rglob("*.yaml")):
        log = sidecar.with_suffix(".log")
        if SKIPPED & set(sidecar.relative_to(CORPUS).parts) or not log.exists():
            continue
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
        if isinstance(meta, dict):
            # numbered as logkb numbers them (and the sidecar's expect.line), by newline only
            lines = log.read_bytes().decode("utf-8", "surrogateescape").split("\n")
            yield log, meta, lines[:-1] if lines[-1] == "" else lines


def quiet_logs() -> list[tuple[Path, list[str]]]:
    """The healthy and non-memory corpus logs (their lines), each as a sidecar files it."""
    return [(log, lines) for log, meta, lines in _samples() if meta.get("kind") in ("healthy", "non-memory")]


def failures() -> list[Failure]:
    found = []
    for log, meta, lines in _samples():
        expect = meta.get("expect") or {}
        expected, line = expect.get("root_cause"), expect.get("line")
        if meta.get("kind") != "failure" or not expected:
            continue
        whole = diagnose_lines([text + "\n" for text in lines], name=str(log))
        if whole["root_cause"] == expected:
            found.append(Failure(log, lines, expected, line if isinstance(line, int) else None, whole["phase"]))
    return found
