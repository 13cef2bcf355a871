"""How well diagnoses survive a paste cut short: every corpus failure whose raw log gets its
expected root cause on its decisive line (``expect.line``) is cut the two ways a chat box, a
terminal's scrollback or a copy by hand cut real logs, and scanned again:

- inside its decisive line: the log ends with that line's first half (or three quarters), as in
  ``RuntimeError: CUDA out of``;
- before its decisive line: the log ends on the line above it, so a traceback loses its
  exception line. The root cause cannot be known then; what counts is that logkb names no other
  catalogued cause in its place, and that it keeps the phase the whole log showed (where the
  whole log's phase is known);
- and the other side: every healthy or non-memory log that the whole log keeps free of memory
  diagnoses, cut inside each line that shows a problem wording's anchor or lead (at the end of
  that literal, in its middle, at half and three quarters of the line). What counts is how
  many cuts, and logs, then get a memory diagnosis that the whole log does not have.

    python bench/cut.py [--fractions 0.5,0.75] [--details]

Markdown rows on stdout; ``--details`` lists each sample lost, with what was found instead. Like
``bench/wrapped.py`` this measures mechanisms (partial messages, cut tracebacks, phase from
frames), not a fit: no catalog entry names where a log was cut.
"""

from __future__ import annotations

import argparse
import sys

from corpus_failures import CORPUS, Failure, failures, quiet_logs
from first_seen import memory_diagnoses  # counted as the first-seen rows count them

from matcher.api import diagnose_lines, scanner
from matcher.catalog import ProblemSignature

NOT_A_CAUSE = (None, "uncatalogued")  # what a log cut before its error may honestly show


def samples() -> list[Failure]:
    """The corpus failures whose sidecar names the decisive line."""
    return [f for f in failures() if f.line is not None and 1 <= f.line <= len(f.lines)]


def cut_inside(sample: Failure, fraction: float) -> list[str]:
    kept = sample.lines[sample.line - 1]
    return [text + "\n" for text in sample.lines[:sample.line - 1]] + [kept[:max(1, int(len(kept) * fraction))] + "\n"]


def cut_before(sample: Failure) -> list[str]:
    return [text + "\n" for text in sample.lines[:sample.line - 1]]


def quiet_cut_points(line: str, literals: list[tuple[str, bool]]) -> list[int]:
    """Where a quiet log's line is cut: inside and at the end of each problem wording's anchor
    or lead it shows, at half and at three quarters of it."""
    lowered, points = line.lower(), set()
    for literal, caseless in literals:
        at = (lowered if caseless else line).find(literal)
        if at >= 0:
            points |= {at + len(literal), at + len(literal) // 2 + 3}
    if points:
        points |= {len(line) // 2, 3 * len(line) // 4}
    return sorted(p for p in points if 8 <= p < len(line))


def quiet_side(lost: list[str]) -> None:
    engine = scanner()
    index = engine.index
    literals = [(literal, caseless) for literal, caseless, patterns in index.pattern_literals() + index.pattern_leads()
                if any(isinstance(engine.signatures[i], ProblemSignature) for i, _ in patterns)]
    logs = cuts = loud_cuts = 0
    loud_logs = set()
    for log, lines in quiet_logs():
        if memory_diagnoses(diagnose_lines([text + "\n" for text in lines], name=str(log))):
            continue
        logs += 1
        for number, line in enumerate(lines):
            for point in quiet_cut_points(line, literals):
                cuts += 1
                report = diagnose_lines([text + "\n" for text in lines[:number]] + [line[:point] + "\n"], name=str(log))
                named = memory_diagnoses(report)
                if named:
                    loud_cuts += 1
                    loud_logs.add(log)
                    lost.append(f"quiet: {log.relative_to(CORPUS)}:{number + 1} cut at {point}: {named}")
    print("\n| healthy or non-memory logs cut inside a line that starts a wording | logs | cuts "
          "| cuts with a memory diagnosis | logs with one |\n|---|---:|---:|---:|---:|")
    print(f"| every such line of every quiet log | {logs} | {cuts} | {loud_cuts} ({loud_cuts / cuts:.1%}) "
          f"| {len(loud_logs)} ({len(loud_logs) / logs:.1%}) |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fractions", default="0.5,0.75", help="how much of the decisive line is kept (default 0.5,0.75)")
    parser.add_argument("--details", action="store_true", help="list every sample lost")
    args = parser.parse_args(argv)
    found = samples()
    total = len(found)
    lost: list[str] = []
    print(f"{total} corpus failures whose whole log gets its root cause on its decisive line\n")
    print("| cut inside the decisive line, kept | root cause kept | root cause and phase kept | another cause named |\n"
          "|---:|---:|---:|---:|")
    for fraction in (float(f) for f in args.fractions.split(",")):
        root = both = other = 0
        for sample in found:
            report = diagnose_lines(cut_inside(sample, fraction), name=str(sample.log))
            if report["root_cause"] == sample.expected:
                root += 1
                both += report["phase"] == sample.phase
            else:
                other += report["root_cause"] not in NOT_A_CAUSE
                lost.append(f"inside {fraction}: {sample.log.relative_to(CORPUS)}: {sample.expected} -> {report['root_cause']}")
        print(f"| {fraction:.0%} | {root}/{total} ({root / total:.0%}) | {both}/{total} ({both / total:.0%}) "
              f"| {other}/{total} ({other / total:.0%}) |")
    before = [s for s in found if s.line > 1]
    phased = [s for s in before if s.phase not in (None, "unknown")]
    other = same = kept_phase = 0
    for sample in before:
        report = diagnose_lines(cut_before(sample), name=str(sample.log))
        if report["root_cause"] == sample.expected:
            same += 1  # an earlier occurrence of the same error
        elif report["root_cause"] not in NOT_A_CAUSE:
            other += 1
            lost.append(f"before: {sample.log.relative_to(CORPUS)}: {sample.expected} -> {report['root_cause']}")
        if sample.phase not in (None, "unknown"):
            if report["phase"] == sample.phase:
                kept_phase += 1
            else:
                lost.append(f"before, phase: {sample.log.relative_to(CORPUS)}: {sample.phase} -> {report['phase']}")
    print("\n| cut before the decisive line | logs | the same cause from an earlier line | another cause named "
          "| the whole log's phase kept |\n|---|---:|---:|---:|---:|")
    print(f"| the line above it is the last | {len(before)} | {same} | {other} ({other / len(before):.0%}) "
          f"| {kept_phase}/{len(phased)} ({kept_phase / len(phased):.0%}) |")
    quiet_side(lost)
    if args.details:
        print("\n" + "\n".join(lost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
