"""How well diagnoses survive a terminal's hard wrap: every corpus failure whose raw log gets
its expected root cause is cut into pieces of W characters, as a terminal W columns wide
prints it (broken mid-word, the continuation without the log's prefix), and scanned again.

    python bench/wrapped.py [--widths 80,100,120] [--details]

One Markdown row per width: the failures that keep their root cause, and those that also keep
their phase. ``--details`` lists each one lost, with what was found instead. The figure
measures a mechanism (rejoining wrapped lines), not a fit: no catalog entry names a width.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from matcher.api import diagnose_lines

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
SKIPPED = {"pairs", "generated"}  # fixed-log pairs and generated logs have their own measures


def hard_wrapped(lines: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += [line[i:i + width] + "\n" for i in range(0, len(line), width)] or ["\n"]
    return out


def failures() -> list[tuple[Path, list[str], str, str]]:
    """(log, its lines, expected root cause, the phase the raw log gets) for each corpus
    failure whose raw log gets its expected root cause."""
    found = []
    for sidecar in sorted(CORPUS.rglob("*.yaml")):
        log = sidecar.with_suffix(".log")
        if SKIPPED & set(sidecar.relative_to(CORPUS).parts) or not log.exists():
            continue
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
        expected = (meta.get("expect") or {}).get("root_cause") if isinstance(meta, dict) else None
        if meta.get("kind") != "failure" or not expected:
            continue
        lines = log.read_bytes().decode("utf-8", "surrogateescape").splitlines()
        raw = diagnose_lines([line + "\n" for line in lines], name=str(log))
        if raw["root_cause"] == expected:
            found.append((log, lines, expected, raw["phase"]))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", default="80,100,120", help="terminal widths (default 80,100,120)")
    parser.add_argument("--details", action="store_true", help="list every failure whose root cause is lost")
    args = parser.parse_args(argv)
    samples = failures()
    print("| terminal width | root cause kept | root cause and phase kept |\n|---:|---:|---:|")
    lost: list[str] = []
    for width in (int(w) for w in args.widths.split(",")):
        root = both = 0
        for log, lines, expected, phase in samples:
            report = diagnose_lines(hard_wrapped(lines, width), name=str(log))
            if report["root_cause"] == expected:
                root += 1
                both += report["phase"] == phase
            else:
                lost.append(f"{width}: {log.relative_to(CORPUS)}: {expected} -> {report['root_cause']}")
        total = len(samples)
        print(f"| {width} | {root}/{total} ({root / total:.0%}) | {both}/{total} ({both / total:.0%}) |")
    if args.details:
        print("\n" + "\n".join(lost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
