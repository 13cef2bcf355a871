"""Odd files, failing writes and signals: what was read is still reported, nothing hangs,
exit 2 is an error, 1 only ever means findings."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher import split
from matcher.cli import main
from matcher.pipe import Follow

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
KV = CORPUS / "vllm" / "vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
FREE = ("ValueError: Free memory on device (6.93/8.0 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 7.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n")
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc, FIFOs, /dev/full")


def logkb(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], capture_output=True, timeout=timeout)


def test_a_truncated_gzip_reports_what_was_read_and_the_error(tmp_path):
    packed = tmp_path / "cut.log.gz"
    packed.write_bytes(gzip.compress(FREE.encode() * 2000)[:-300])
    result = logkb("scan", "--format", "json", str(packed))
    assert result.returncode == 2
    (line,) = result.stderr.decode().splitlines()
    assert "cut.log.gz: line " in line and "truncated or corrupt gzip" in line
    (report,) = json.loads(result.stdout)["files"]
    assert report["error"] and report["lines"] > 1000
    assert report["findings"][0]["id"] == "vllm.startup.free-memory-below-utilization"
    assert report["findings"][0]["occurrences"] > 1000


@LINUX
def test_a_fifo_in_a_scanned_directory_is_skipped_with_a_note(tmp_path):
    (tmp_path / "a.log").write_bytes(KV.read_bytes())
    os.mkfifo(tmp_path / "b.log")
    result = logkb("scan", "--format", "json", str(tmp_path), timeout=60)
    assert result.returncode == 1, result.stderr.decode()
    assert [Path(f["path"]).name for f in json.loads(result.stdout)["files"]] == ["a.log"]
    assert "b.log: not a regular file, skipped" in result.stderr.decode()


def test_output_into_a_missing_directory_is_one_line_and_exit_2(tmp_path):
    result = logkb("scan", "--output", str(tmp_path / "missing" / "report.json"), str(KV))
    assert result.returncode == 2
    (line,) = result.stderr.decode().splitlines()
    assert "missing/report.json" in line and "Traceback" not in line


@LINUX
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["scan"], ["facts"]])
def test_stdout_on_a_full_disk_is_one_line_and_exit_2(command):
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "matcher", *command, str(KV)], stdout=full,
                                stderr=subprocess.PIPE, timeout=60)
    assert result.returncode == 2
    (line,) = result.stderr.decode().splitlines()
    assert "stdout: cannot write" in line


def _wait_for(predicate, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def interruptible() -> None:
    """In the child before it starts logkb: Ctrl-C reaches it even when the tests run where
    SIGINT is ignored (a shell's background job passes that on to its children)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@LINUX
def test_ctrl_c_on_scan_is_130_not_1():
    proc = subprocess.Popen([sys.executable, "-m", "matcher", "scan"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=interruptible)
    proc.stdin.write(KV.read_bytes())
    proc.stdin.flush()
    time.sleep(1.5)  # reading stdin, which stays open
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.decode().strip() == "logkb: interrupted"


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except (FileNotFoundError, IndexError):
        return False


@LINUX
def test_sigterm_on_a_split_scan_ends_its_workers(tmp_path):
    big = tmp_path / "big.log"
    block = (b"INFO 01-01 00:00:00 [core.py:1] serving requests, nothing to see\n" * 99
             + b"INFO 01-01 00:00:00 [core.py:1] RuntimeError: CUDA error: out of memory (retrying)\n")
    with big.open("wb") as out:
        for _ in range(split.SPLIT_MIN * 2 // (len(block) * 1_000) + 1):
            out.write(block * 1_000)
    proc = subprocess.Popen([sys.executable, "-m", "matcher", "scan", "-j", "2", str(big)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_for(lambda: len(_children(proc.pid)) >= 2 or proc.poll() is not None)
    workers = _children(proc.pid)
    assert len(workers) >= 2, "the scan ended before its workers could be seen"
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (proc.returncode, err)
    _wait_for(lambda: not any(_alive(w) for w in workers), timeout=10)


def test_dense_candidates_are_scanned_without_workers(tmp_path, scanner):
    """A log of nothing but error lines took 300 MB with two workers, 40 MB without."""
    dense, sparse = tmp_path / "dense.log", tmp_path / "sparse.log"
    failure = b"INFO 01-01 00:00:00 [core.py:1] RuntimeError: CUDA error: out of memory (retrying)\n"
    dense.write_bytes(failure * 20_000)
    sparse.write_bytes((b"INFO 01-01 00:00:00 [core.py:1] serving requests\n" * 99 + failure) * 200)
    assert split.candidates_dense(str(dense), scanner.prefilter)
    assert not split.candidates_dense(str(sparse), scanner.prefilter)


def test_workers_are_capped_at_the_segments_and_the_cpus(tmp_path):
    big = tmp_path / "big.log"
    with big.open("wb") as out:
        out.truncate(split.SPLIT_MIN + 1)  # a sparse file: three segments
    workers = split.workers_for(str(big), 100_000)
    assert 1 <= workers <= min(len(split.segments(split.SPLIT_MIN + 1)), os.cpu_count() or 1)


@LINUX
def test_sigterm_on_watch_passes_every_line_and_prints_the_checklist():
    proc = subprocess.Popen([sys.executable, "-m", "matcher", "watch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    data = KV.read_bytes()
    proc.stdin.write(data)
    proc.stdin.flush()
    received = b""
    while len(received) < len(data):
        received += os.read(proc.stdout.fileno(), 1 << 16)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    proc.stdin.write(b"last words after SIGTERM\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=30)
    assert received + out == data + b"last words after SIGTERM\n"
    assert proc.returncode == 1, (proc.returncode, err)
    assert b"ROOT CAUSE" in err


def test_new_refuses_an_id_or_a_sidecar_engine_that_leaves_the_catalog(tmp_path):
    logs = tmp_path / "logs" / "deep"
    logs.mkdir(parents=True)
    log = logs / "a.log"
    log.write_text("ERROR RuntimeError: CUDA error: out of memory\n")
    kb = tmp_path / "logs" / "deep" / "kb"
    runner = CliRunner()
    result = runner.invoke(main, ["new", "--from-log", str(log), "--engine", "vllm", "--kb", str(kb),
                                  "--id", "../../x"])
    assert result.exit_code == 2
    (logs / "a.yaml").write_text("engine: ../..\nexpect: {line: 1}\n")
    result = runner.invoke(main, ["new", "--from-log", str(log), "--kb", str(kb)])
    assert result.exit_code == 2
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["logs/deep/a.log", "logs/deep/a.yaml"]


def _follow(log: Path) -> Follow:
    ticks = []

    def on_tick() -> None:
        ticks.append(None)
        assert len(ticks) < 3000, "Follow never saw the new data"

    return Follow(str(log), on_tick, tick=0.01)


def _read_until(source: Follow, size: int) -> bytes:
    data = b""
    while len(data) < size:
        data += source.read(1 << 20)
    return data


def test_follow_keeps_every_line_after_a_copytruncate_rotation(tmp_path):
    """logrotate's copytruncate: the file is copied away and truncated in place, and the
    server, appending, writes more than had been read before the follower looks again."""
    log = tmp_path / "server.log"
    log.write_bytes(b"first generation line\n" * 5)
    source = _follow(log)
    assert _read_until(source, 110) == b"first generation line\n" * 5
    shutil.copy(log, tmp_path / "server.log.1")
    with log.open("r+b") as handle:
        handle.truncate(0)
    second = b"".join(b"second %03d\n" % i for i in range(40))
    with log.open("ab") as handle:
        handle.write(second)
    assert _read_until(source, len(second)) == second
    source.close()


def test_follow_reads_a_generation_that_was_rotated_away_before_it_was_read(tmp_path):
    """Two renames in quick succession (server.log -> .1 -> .2): the middle generation,
    now server.log.1, is read before the newest."""
    log = tmp_path / "server.log"
    log.write_bytes(b"one\n")
    source = _follow(log)
    assert _read_until(source, 4) == b"one\n"
    log.rename(tmp_path / "server.log.1")
    log.write_bytes(b"two\n")
    (tmp_path / "server.log.1").rename(tmp_path / "server.log.2")
    log.rename(tmp_path / "server.log.1")
    log.write_bytes(b"three\n")
    assert _read_until(source, 10) == b"two\nthree\n"
    source.close()
