"""``logkb scan`` options users know from linters: --quiet, --statistics, --stdin-filename,
several reports in one run, FORCE_COLOR, and a progress bar only on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
WITH_SYMPTOM = ROOT / "corpus/vllm/vllm.cudagraph.oom-during-capture--vllm-project-vllm-19186.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"


@pytest.fixture(autouse=True)
def catalog_loaded_once(monkeypatch, catalog):
    monkeypatch.setattr("matcher.commands.scan.load", lambda catalogs: catalog)


def scan(*args, env=None, input=None):
    return CliRunner().invoke(main, ["scan", *map(str, args)], env=env, input=input, catch_exceptions=False)


def report(*paths):
    return json.loads(scan("-f", "json", "--exit-zero", *paths).stdout)["files"]


def test_quiet_prints_one_line_per_root_cause_and_nothing_for_healthy_logs():
    files = report(FAILING, WITH_SYMPTOM, HEALTHY)
    result = scan("-q", FAILING, WITH_SYMPTOM, HEALTHY)
    assert result.exit_code == 1
    expected = [f"{f['path']}:{next(x['line'] for x in f['findings'] if x['id'] == f['root_cause'])}: error: "
                f"{f['root_cause']}: " for f in files if f["root_cause"]]
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and [line[:len(want)] for line, want in zip(lines, expected)] == expected
    assert scan("-q", HEALTHY).stdout == ""


def test_statistics_counts_logs_occurrences_and_root_causes_per_signature():
    files = report(FAILING, WITH_SYMPTOM, FAILING)
    rows = scan("--statistics", FAILING, WITH_SYMPTOM, FAILING).stdout.splitlines()
    assert rows[0].split()[:4] == ["logs", "times", "root", "signature"]
    counted = {row.split()[3]: tuple(map(int, row.split()[:3])) for row in rows[1:]}
    for sig_id in {x["id"] for f in files for x in f["findings"]}:
        logs = sum(1 for f in files if any(x["id"] == sig_id for x in f["findings"]))
        times = sum(x["occurrences"] for f in files for x in f["findings"] if x["id"] == sig_id)
        roots = sum(1 for f in files if f["root_cause"] == sig_id)
        assert counted[sig_id] == (logs, times, roots)


def test_stdin_filename_names_the_log_in_every_report():
    result = scan("-f", "json", "--stdin-filename", "logs/server.log", "-", input=FAILING.read_bytes())
    assert json.loads(result.stdout)["files"][0]["path"] == "logs/server.log"
    sarif = json.loads(scan("-f", "sarif", "--stdin-filename", "logs/server.log", "-",
                            input=FAILING.read_bytes()).stdout)
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] \
        == "logs/server.log"


@pytest.mark.parametrize("order", [
    ["--format", "sarif", "--output", "{dir}/a.sarif", "--format", "json", "-o", "{dir}/a.json", "--format", "text"],
    ["-o", "{dir}/a.sarif", "-f", "sarif", "-f", "text", "-f", "json", "-o", "{dir}/a.json"],
])
def test_several_reports_in_one_run(tmp_path, order):
    args = [a.format(dir=tmp_path) for a in order]
    result = scan(*args, FAILING)
    assert result.exit_code == 1
    assert result.stdout == scan(FAILING).stdout
    assert (tmp_path / "a.sarif").read_text() == scan("-f", "sarif", FAILING).stdout
    assert (tmp_path / "a.json").read_text() == scan("-f", "json", FAILING).stdout


@pytest.mark.parametrize("args", [["-f", "json", "-f", "text"], ["-f", "json", "-o", "a", "-o", "b"],
                                  ["-o", "a", "-o", "b"]])
def test_ambiguous_outputs_are_usage_errors(args):
    result = scan(*args, FAILING)
    assert result.exit_code == 2 and "--output" in result.stderr


@pytest.mark.parametrize(("env", "args", "coloured"), [
    ({"FORCE_COLOR": "1"}, [], True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, [], True),
    ({"FORCE_COLOR": "1"}, ["--no-color"], False), ({"FORCE_COLOR": ""}, [], False),
])
def test_force_color(env, args, coloured):
    assert ("\x1b[" in scan(*args, FAILING, env=env).stdout) is coloured


def scan_slow_stdin_with_stderr_on_a_terminal(env: dict[str, str], seconds: float = 1.5) -> str:
    """Feed a log through stdin for ``seconds`` (a long scan) while stderr is a terminal."""
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # rows, columns
    done = subprocess.Popen([sys.executable, "-m", "matcher", "scan", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=terminal, env=env)
    os.close(terminal)

    def feed() -> None:
        for _ in range(int(seconds / 0.05)):
            done.stdin.write(HEALTHY.read_bytes() * 50)
            done.stdin.flush()
            time.sleep(0.05)
        done.stdin.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    feeder.join()
    done.wait(timeout=60)
    os.close(controller)
    return seen.decode("utf-8", "replace")


def test_progress_on_a_terminal_only():
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS", "GITLAB_CI")}
    shown = scan_slow_stdin_with_stderr_on_a_terminal(env)
    assert "logkb scan" in shown and "0/1 files" in shown and "1/1 files" in shown and "MiB/s" in shown, shown[-500:]
    assert "logkb scan" not in scan_slow_stdin_with_stderr_on_a_terminal({**env, "CI": "true"})
    piped = subprocess.run([sys.executable, "-m", "matcher", "scan", str(FAILING)], capture_output=True, env=env)
    assert piped.stderr == b""
