"""The README's exit-code table, for every subcommand: 0 nothing at or above --fail-on (or the
command succeeded), 1 findings (scan, watch, test), 2 usage, input or catalog error, always as
one line naming the file."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"
SIG_ID = "vllm.startup.free-memory-below-utilization"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """A one-sample corpus (failing when its sidecar expects the wrong signature), an empty
    directory, a broken overlay catalog and a path below a regular file (never writable)."""
    good, bad, empty = tmp_path / "good", tmp_path / "bad", tmp_path / "empty"
    for corpus, expected in ((good, SIG_ID), (bad, "pytorch.cuda.oom")):
        corpus.mkdir()
        (corpus / "x.log").write_bytes(FAILING.read_bytes())
        (corpus / "x.yaml").write_text(f"generated_by: tests\nkind: failure\nexpect: {{root_cause: {expected}}}\n")
    empty.mkdir()
    broken = tmp_path / "broken"
    (broken / "x").mkdir(parents=True)
    (broken / "x" / "bad.yaml").write_text("schema_version: 1\nid: x.y.z\ntitle: Broken\nkind: problem\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    return {"good": good, "bad": bad, "empty": empty, "broken": broken, "unwritable": blocker / "sub" / "out"}


CASES = {
    "scan": [(["scan", HEALTHY], 0), (["scan", FAILING], 1), (["scan", "missing.log"], 2),
             (["scan", "{empty}"], 2), (["scan", "-o", "{unwritable}", FAILING], 2),
             (["scan", "--catalog", "{broken}", HEALTHY], 2), (["scan", "--format", "html", HEALTHY], 2)],
    "watch": [(["watch"], 0, HEALTHY), (["watch"], 1, FAILING), (["watch", "--idle-exit", "1"], 2, HEALTHY),
              (["watch", "--catalog", "{broken}"], 2, HEALTHY)],
    "facts": [(["facts", FAILING], 0), (["facts", "missing.log"], 2), (["facts", "{empty}"], 2)],
    "compare": [(["compare", FAILING, HEALTHY], 0), (["compare", FAILING, "missing.log"], 2),
                (["compare", "{empty}", HEALTHY], 2)],
    "explain": [(["explain", SIG_ID], 0), (["explain", "no.such.signature.anywhere"], 2)],
    "test": [(["test", "{good}"], 0), (["test", "{bad}"], 1), (["test", "{empty}"], 2),
             (["test", "missing-dir"], 2)],
    "validate": [(["validate"], 0), (["validate", "{broken}"], 2), (["validate", "missing-dir"], 2)],
    "new": [(["new", "--from-log", "missing.log"], 2), (["new"], 2)],
    "docs": [(["docs", "--out", "{empty}"], 0), (["docs", "--out", "{unwritable}"], 2)],
    "export": [(["export", "-f", "patterns"], 0), (["export", "-f", "sigma", "--out", "{unwritable}"], 2),
               (["export"], 2)],
    "version": [(["version"], 0), (["version", "--no-such-option"], 2)],
}


def test_every_subcommand_has_cases():
    assert set(CASES) == set(COMMANDS)


@pytest.mark.parametrize(("args", "code", "stdin"), [
    (case[0], case[1], case[2] if len(case) > 2 else None) for cases in CASES.values() for case in cases
], ids=lambda value: str(value).replace(str(ROOT), "")[-48:] if isinstance(value, (list, Path)) else None)
def test_exit_code(places, args, code, stdin):
    args = [str(a).format(**places) for a in args]
    if stdin is not None:  # pipe mode copies file descriptors: a real process
        done = subprocess.run([sys.executable, "-m", "matcher", *args], stdin=stdin.open("rb"),
                              capture_output=True, text=True, timeout=120)
        status, stderr = done.returncode, done.stderr
    else:
        result = run(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        status, stderr = result.exit_code, result.stderr
    assert status == code, stderr
    if code == 2:
        assert stderr.strip(), "an error must say what went wrong"


def test_new_on_an_existing_signature_is_exit_2(tmp_path):
    first = run("new", "--from-log", f"{FAILING}:1", "--engine", "vllm", "--id", "vllm.test.thing",
                "--kb", tmp_path / "kb")
    assert first.exit_code == 0, first.output
    again = run("new", "--from-log", f"{FAILING}:1", "--engine", "vllm", "--id", "vllm.test.thing",
                "--kb", tmp_path / "kb")
    assert again.exit_code == 2 and "exists" in again.stderr


def test_errors_name_the_input(places):
    assert run("facts", "missing.log").stderr.strip() == "logkb: missing.log: cannot open: No such file or directory"
    assert "is a directory" in run("facts", places["empty"]).stderr
    assert f"{places['empty']}: no file to scan" in run("scan", places["empty"]).stderr
    assert f"{places['unwritable']}: cannot write" in run("scan", "-o", places["unwritable"], HEALTHY).stderr
    assert "no corpus sample" in run("test", places["empty"]).stderr


def test_gzip_on_stdin_is_decompressed():
    packed = gzip.compress(FAILING.read_bytes())
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-"], input=packed, capture_output=True)
    assert done.returncode == 1, done.stderr
    assert f"ROOT CAUSE  {SIG_ID}".encode() in done.stdout


def test_scan_without_paths_on_a_terminal_says_it_reads_stdin():
    pty = pytest.importorskip("pty")
    import os

    controller, terminal = pty.openpty()
    done = subprocess.Popen([sys.executable, "-m", "matcher", "scan"], stdin=terminal, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(controller, b"\x04")  # Ctrl-D: end of input
    out, err = done.communicate(timeout=30)
    os.close(controller)
    assert "reading a log from standard input" in err
    assert done.returncode == 0 and "no GPU-memory problem found" in out
