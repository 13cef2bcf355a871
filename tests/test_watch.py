"""``logkb watch``: bytes pass through untouched and live, the diagnosis comes before EOF."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matcher.cli import main
from matcher.commands.common import EXIT_ERROR, EXIT_FINDINGS
from matcher.pipe import Follow

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "vllm"
CUDAGRAPH = CORPUS / "vllm.cudagraph.oom-during-capture--vllm-project-vllm-19186.log"  # error on line 7 of 9
FREE_MEMORY = CORPUS / "vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"  # line 7 of 9
HANG_GUARD = 30.0  # seconds: a hang detector, not a performance assertion
WATCH = [sys.executable, "-m", "matcher", "watch", "--no-color"]


def start(*args: str, stdin: int = subprocess.PIPE) -> subprocess.Popen:
    """logkb watch as a terminal starts it: Ctrl-C reaches it even when the tests themselves
    run where SIGINT is ignored (a shell's background job passes that on to its children)."""
    return subprocess.Popen([*WATCH, *args], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=interruptible)


def interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_until(stream, done, what: str) -> bytes:
    """Read a child's pipe until ``done(bytes so far)``; fail if it stalls for HANG_GUARD."""
    data = b""
    while not done(data):
        ready, _, _ = select.select([stream], [], [], HANG_GUARD)
        assert ready, f"nothing more on the pipe while waiting for {what}; so far: {data[-2000:]!r}"
        piece = os.read(stream.fileno(), 1 << 16)
        assert piece, f"pipe closed while waiting for {what}; so far: {data[-2000:]!r}"
        data += piece
    return data


def wait_for(stream, needle: str) -> bytes:
    return read_until(stream, lambda data: needle.encode() in data, needle)


def no_python_error(stderr: bytes) -> bool:
    """No traceback of logkb itself (a frame in its package or in click) and none of the
    interpreter's complaints at exit. The report may quote the log's own tracebacks: the
    examples send 'Traceback (most recent call last):' lines, which an uncatalogued finding shows."""
    return not (_OWN_FRAME.search(stderr) or any(word in stderr for word in (b"KeyboardInterrupt", b"BrokenPipeError",
                                                                               b"Exception ignored")))


_OWN_FRAME = re.compile(rb'File "[^"\n]*[/\\](?:matcher|click)[/\\]')


_FRAGMENTS = [b"\n", b"\r\n", b"\r", b"\x00", b"\xff\xfe", b"\xe2\x82", b"\x1b[31m",
              b"Traceback (most recent call last):\n", b'  File "x.py", line 1, in f\n',
              b"RuntimeError: CUDA error: out of memory\n", b"torch.OutOfMemoryError: CUDA out of memory. ",
              b"x" * 5000, *CUDAGRAPH.read_bytes().splitlines(keepends=True)]
_PIECES = st.lists(st.one_of(st.binary(max_size=2048), st.sampled_from(_FRAGMENTS)), min_size=1, max_size=6)


def test_every_byte_comes_back_at_once_and_unchanged():
    """One live watch; each example's bytes must come back, identical, before more are sent."""
    proc = start()

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(pieces=_PIECES)
    def echoed(pieces: list[bytes]) -> None:
        for piece in pieces:
            proc.stdin.write(piece)
            proc.stdin.flush()
            assert read_until(proc.stdout, lambda data: len(data) >= len(piece), "the echo") == piece

    try:
        echoed()
    finally:
        rest, err = proc.communicate(timeout=HANG_GUARD)
    assert rest == b""
    assert b"<stdin>:" in err and no_python_error(err)


def test_awkward_input_passes_through_to_eof_and_is_diagnosed():
    data = (b"\x00NUL\r\nCR only\r\xff\xfe bad utf-8 \xc3\n" + b"y" * (3 << 20) + b"\n"
            + CUDAGRAPH.read_bytes() + b"last line without newline \xe2\x82")
    result = subprocess.run(WATCH, input=data, capture_output=True, timeout=HANG_GUARD)
    assert result.stdout == data
    assert b"ROOT CAUSE  vllm.cudagraph.oom-during-capture" in result.stderr
    assert result.returncode == EXIT_FINDINGS and no_python_error(result.stderr)


def test_diagnosis_comes_when_the_traceback_ends_not_at_eof():
    proc = start("--idle", "3600")  # time never announces here: only the line after the traceback can
    lines = CUDAGRAPH.read_bytes().splitlines(keepends=True)
    for line in lines[:8]:
        proc.stdin.write(line)
        proc.stdin.flush()
        time.sleep(0.02)
    early = wait_for(proc.stderr, "vllm.cudagraph.oom-during-capture")
    assert proc.poll() is None and b"ROOT CAUSE" not in early
    assert b"line 7: vllm.cudagraph.oom-during-capture (error, phase cudagraph-capture, root-cause; exact" in early
    proc.stdin.write(b"".join(lines[8:]))
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert out == b"".join(lines)
    assert b"ROOT CAUSE  vllm.cudagraph.oom-during-capture" in err and no_python_error(err)
    assert proc.returncode == EXIT_FINDINGS


def test_diagnosis_comes_idle_seconds_after_the_error_when_nothing_follows():
    proc = start("--idle", "0.2")
    lines = FREE_MEMORY.read_bytes().splitlines(keepends=True)
    proc.stdin.write(b"".join(lines[:7]))  # up to the error line, then the server says nothing more
    proc.stdin.flush()
    early = wait_for(proc.stderr, "vllm.startup.free-memory-below-utilization")
    assert proc.poll() is None and b"ROOT CAUSE" not in early
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert out == b"".join(lines[:7])
    assert b"ROOT CAUSE  vllm.startup.free-memory-below-utilization" in err
    assert proc.returncode == EXIT_FINDINGS


def test_diagnosis_comes_idle_seconds_after_the_error_while_a_progress_bar_redraws():
    proc = start("--idle", "0.2")
    lines = FREE_MEMORY.read_bytes().splitlines(keepends=True)
    proc.stdin.write(b"".join(lines[:7]))
    sent, err, percent = b"".join(lines[:7]), b"", 0
    while b"vllm.startup.free-memory-below-utilization" not in err:  # bytes flow, but no line ends
        assert percent < HANG_GUARD / 0.05, "no announcement while the input kept flowing"
        percent += 1
        redraw = b"\rLoading safetensors shards: %d%%" % percent
        proc.stdin.write(redraw)
        proc.stdin.flush()
        sent += redraw
        if select.select([proc.stderr], [], [], 0.05)[0]:
            err += os.read(proc.stderr.fileno(), 1 << 16)
    assert proc.poll() is None and b"ROOT CAUSE" not in err
    out, _ = proc.communicate(timeout=HANG_GUARD)
    assert out == sent


def test_closed_stdout_ends_the_watch_quietly(tmp_path):
    big = tmp_path / "big.log"
    big.write_bytes(b"".join(b"INFO 01-01 00:00:00 [api_server.py:1] request %d finished\n" % i
                             for i in range(200_000)))
    script = f"{' '.join(WATCH)} < {big} | head -1; echo \"status=${{PIPESTATUS[0]}}\" >&2"
    result = subprocess.run(["bash", "-c", script], capture_output=True, timeout=HANG_GUARD)
    assert result.stdout == b"INFO 01-01 00:00:00 [api_server.py:1] request 0 finished\n"
    assert result.stderr.splitlines()[-1] in (b"status=0", b"status=141")
    assert b"<stdin>: " in result.stderr and b"<stdin>: 200000 lines" not in result.stderr  # stopped early
    assert no_python_error(result.stderr)


def test_ctrl_c_with_the_server_still_running_ends_with_the_summary():
    proc = start()
    proc.stdin.write(CUDAGRAPH.read_bytes())
    proc.stdin.flush()
    wait_for(proc.stderr, "vllm.cudagraph.oom-during-capture")
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=HANG_GUARD)  # stdin stays open: the watch ends by itself once the input is quiet
    err = proc.stderr.read()
    assert proc.stdout.read() == CUDAGRAPH.read_bytes()
    assert b"ROOT CAUSE  vllm.cudagraph.oom-during-capture" in err and no_python_error(err)
    assert proc.returncode == EXIT_FINDINGS
    proc.stdin.close()


def test_a_failing_matcher_is_reported_once_and_the_bytes_keep_flowing():
    inject = (
        "import sys, matcher.scan as scan\n"
        "real = scan.Scanner.stream\n"
        "def stream(self, name, on_finding=None):\n"
        "    state = real(self, name, on_finding)\n"
        "    def feed(chunk): raise RuntimeError('injected failure')\n"
        "    state.feed = feed\n"
        "    return state\n"
        "scan.Scanner.stream = stream\n"
        "from matcher.cli import main\n"
        "main(['watch'])\n"
    )
    data = CUDAGRAPH.read_bytes() * 20_000 + b"\x00\xff no newline"
    result = subprocess.run([sys.executable, "-c", inject], input=data, capture_output=True, timeout=HANG_GUARD)
    assert result.stdout == data
    assert result.stderr.count(b"injected failure") == 1 and no_python_error(result.stderr)
    assert result.returncode == EXIT_ERROR


def test_follow_announces_what_the_new_file_says_after_rotation(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(CUDAGRAPH.read_bytes())
    proc = start("--follow", str(log), "--idle", "0.2", stdin=subprocess.DEVNULL)
    wait_for(proc.stderr, "vllm.cudagraph.oom-during-capture")
    log.rename(tmp_path / "server.log.1")
    log.write_bytes(FREE_MEMORY.read_bytes())
    wait_for(proc.stderr, "vllm.startup.free-memory-below-utilization")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert out == b""
    assert b"ROOT CAUSE  vllm.cudagraph.oom-during-capture" in err and no_python_error(err)
    assert b"vllm.startup.free-memory-below-utilization (related; line 16)" in err  # lines go on counting
    assert proc.returncode == EXIT_FINDINGS


def test_follow_reads_every_byte_across_rotation_and_truncation(tmp_path):
    log = tmp_path / "server.log"
    ticks = []

    def on_tick() -> None:
        ticks.append(None)
        assert len(ticks) < HANG_GUARD / 0.01, "Follow never saw the new data"

    source = Follow(str(log), on_tick, tick=0.01)
    log.write_bytes(b"old \xff\x00 partial")  # created after the Follow: it waits for the path
    assert source.read(1 << 20) == b"old \xff\x00 partial"
    with log.open("ab") as handle:
        handle.write(b" line\n")
    assert source.read(1 << 20) == b" line\n"
    log.rename(tmp_path / "server.log.1")
    log.write_bytes(b"rotated\n")
    assert source.read(1 << 20) == b"rotated\n"
    log.write_bytes(b"cut\n")  # the same file, truncated and shorter than before
    assert source.read(1 << 20) == b"cut\n"
    source.close()


def test_follow_ends_after_idle_exit_without_new_data(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(b"x\n")
    source = Follow(str(log), lambda: None, idle_exit=0.05, tick=0.01)
    assert source.read(1 << 20) == b"x\n"
    assert source.read(1 << 20) == b""
    source.close()


def test_follow_stops_after_idle_exit(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(FREE_MEMORY.read_bytes())
    result = subprocess.run([*WATCH, "--follow", str(log), "--idle-exit", "0.3"], capture_output=True,
                            timeout=HANG_GUARD)
    assert result.stdout == b""
    assert f"{log}: 9 lines".encode() in result.stderr
    assert b"ROOT CAUSE  vllm.startup.free-memory-below-utilization" in result.stderr
    assert result.returncode == EXIT_FINDINGS


def test_idle_exit_needs_follow():
    result = CliRunner().invoke(main, ["watch", "--idle-exit", "1"])
    assert result.exit_code == EXIT_ERROR and "--idle-exit needs --follow" in result.output
