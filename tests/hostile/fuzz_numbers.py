"""Number fuzzing: corpus logs with their numbers, versions and lengths replaced by hostile
values, fed through the whole pipeline (scan, checklists, every report format, the run record).

Shared by the bounded property in tests/test_fuzz_numbers.py and the long run:

    python tests/hostile/fuzz_numbers.py 100000 [SEED [SAVE_DIR]]   # prints inputs, crashes, hangs

A crash is any exception; a hang is one input taking more than ``HANG_SECONDS`` of CPU time
(wall time on a shared machine counts the other processes too). The pipeline is warmed up on a
large input first, so that building the prefilter engine once is not charged to one input.
With SAVE_DIR, each crashing or hanging input is written there.
"""

from __future__ import annotations

import io
import random
import re
import sys
import time
import traceback
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
HANG_SECONDS = 10.0

NUMBER = re.compile(rb"\d+(?:\.\d+)*")
HOSTILE_NUMBERS = (
    b"0", b"-0", b"00000000000000000000017", b"0.0", b"1e999", b"-1e999", b"inf", b"nan",
    b"9" * 4400, b"1" + b"0" * 5000 + b".5", b"0." + b"0" * 400 + b"1", b"18446744073709551616",
    b"0.6." + b"9" * 4400, b"1." * 600 + b"1", b"3" * 310 + b".0", b"-" + b"7" * 4301,
)


def corpus_logs() -> list[bytes]:
    return [p.read_bytes() for p in sorted(CORPUS.rglob("*.log")) if p.stat().st_size < 64 << 10]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """Replace some numbers by hostile values; sometimes repeat a line or stretch a token."""
    def replace(match: re.Match[bytes]) -> bytes:
        if rng.random() < 0.35:
            return rng.choice(HOSTILE_NUMBERS) if rng.random() < 0.7 else match.group() * rng.randint(2, 600)
        return match.group()

    out = NUMBER.sub(replace, data)
    if rng.random() < 0.2:
        lines = out.split(b"\n")
        i = rng.randrange(len(lines))
        lines[i:i + 1] = [lines[i]] * rng.randint(2, 200)
        out = b"\n".join(lines)
    return out


def pipeline():
    """A function that runs one input through everything a report can come from."""
    from matcher.api import scanner
    from matcher.diagnose import diagnose
    from matcher.record import compare, record
    from matcher.report import build_report, file_dict
    from matcher.report import github, gitlab, json_report, junit, markdown, sarif, text
    from matcher.report.record_text import render_comparison, render_record

    engine = scanner()
    renderers = (lambda r: text.render(r, verbose=True), lambda r: json_report.render(r, "x"),
                 lambda r: markdown.render(r, "x"), lambda r: sarif.render(r, "x"),
                 lambda r: junit.render(r, "x"), github.render, gitlab.render)

    def one(data: bytes) -> None:
        run = engine.run(io.BytesIO(data), "fuzz.log")
        report = build_report(run)
        file_dict(report)
        for render in renderers:
            render([report])
        rec = record(diagnose(run))
        render_record(rec)
        render_comparison(compare(rec, rec))

    return one


def main(count: int, seed: int = 0, save: Path | None = None) -> int:
    logs, one, rng = corpus_logs(), pipeline(), random.Random(seed)
    one(b"\n".join(logs)[: 4 << 20])  # warm-up: several blocks, so the configured engine is built
    crashes = hangs = 0
    slowest = 0.0
    started = time.monotonic()
    for i in range(count):
        data = mutate(rng.choice(logs), rng)
        began = time.process_time()
        failed = False
        try:
            one(data)
        except Exception:  # noqa: BLE001 - counting crashes is the point
            crashes += 1
            failed = True
            if crashes <= 5:
                print(f"crash on input {i}:\n{traceback.format_exc()}", file=sys.stderr)
        took = time.process_time() - began
        slowest = max(slowest, took)
        if took > HANG_SECONDS:
            hangs += 1
            failed = True
            print(f"hang on input {i}: {took:.1f} s", file=sys.stderr)
        if failed and save is not None:
            save.mkdir(parents=True, exist_ok=True)
            (save / f"seed{seed}-input{i}.log").write_bytes(data)
    print(f"{count} inputs, {crashes} crashes, {hangs} hangs, slowest input {slowest:.2f} s of CPU, "
          f"{time.monotonic() - started:.0f} s in all")
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000,
                  int(sys.argv[2]) if len(sys.argv) > 2 else 0,
                  Path(sys.argv[3]) if len(sys.argv) > 3 else None))
