"""What ``logkb watch`` costs in a pipe: ``cat LOG | logkb watch > /dev/null`` against
``cat LOG | cat > /dev/null``, medians over several runs, in MiB/s and as a ratio.
``cat LOG | logkb scan`` (the same diagnosis without the pass-through) is shown beside them,
and the CPU seconds of each, because wall time on a busy machine says little on its own.

Without ``--log`` the input is generated: the healthy corpus logs repeated up to ``--mib``
(what a busy server mostly prints), with every failure sample of the corpus spread through
it so that the diagnosis path runs too.

    python bench/pipe_overhead.py --mib 200 --runs 5
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from matcher.corpus import discover  # noqa: E402

LOGKB = Path(sys.executable).parent / "logkb"


def generate(path: Path, mib: int) -> None:
    samples = discover([ROOT / "corpus"])
    healthy = b"".join(_text(s.log) for s in samples if s.healthy)
    failures = [_text(s.log) for s in samples if not s.healthy]
    target = mib << 20
    written = 0
    with path.open("wb") as out:
        index = 0
        while written < target:
            block = healthy + (failures[index % len(failures)] if failures else b"")
            out.write(block)
            written += len(block)
            index += 1


def _text(log: Path) -> bytes:
    data = log.read_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def timed(command: list[str], log: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``cat LOG | COMMAND > /dev/null``."""
    cpu_before = _children_cpu()
    start = time.perf_counter()
    with log.open("rb") as source:
        cat = subprocess.Popen(["cat"], stdin=source, stdout=subprocess.PIPE)
        assert cat.stdout is not None
        sink = subprocess.run(command, stdin=cat.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cat.stdout.close()
        cat.wait()
    elapsed = time.perf_counter() - start
    if sink.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {sink.returncode}")
    return elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, help="Log to pipe (default: generate one).")
    parser.add_argument("--mib", type=int, default=200, help="Size of the generated log.")
    parser.add_argument("--runs", type=int, default=5, help="Runs per command; the median counts.")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        log = args.log
        if log is None:
            log = Path(scratch) / "big.log"
            generate(log, args.mib)
        size_mib = log.stat().st_size / (1 << 20)
        print(f"input: {size_mib:.1f} MiB, {args.runs} runs each")
        commands = {"cat": ["cat"], "logkb scan": [str(LOGKB), "scan", "-"],
                    "logkb watch": [str(LOGKB), "watch", "--no-color"]}
        wall = {}
        for label, command in commands.items():
            runs = [timed(command, log) for _ in range(args.runs)]
            wall[label] = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"{label:12} median {wall[label]:8.3f} s wall {size_mib / wall[label]:9.1f} MiB/s  {cpu:8.3f} s cpu")
        print(f"ratio logkb watch / cat: {wall['logkb watch'] / wall['cat']:.1f}x; "
              f"logkb watch / logkb scan: {wall['logkb watch'] / wall['logkb scan']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
