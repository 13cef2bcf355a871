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

from corpus_failures import CORPUS, failures

from matcher.api import diagnose_lines


def hard_wrapped(lines: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += [line[i:i + width] + "\n" for i in range(0, len(line), width)] or ["\n"]
    return out


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
        for sample in samples:
            report = diagnose_lines(hard_wrapped(sample.lines, width), name=str(sample.log))
            if report["root_cause"] == sample.expected:
                root += 1
                both += report["phase"] == sample.phase
            else:
                lost.append(f"{width}: {sample.log.relative_to(CORPUS)}: {sample.expected} -> {report['root_cause']}")
        total = len(samples)
        print(f"| {width} | {root}/{total} ({root / total:.0%}) | {both}/{total} ({both / total:.0%}) |")
    if args.details:
        print("\n" + "\n".join(lost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
