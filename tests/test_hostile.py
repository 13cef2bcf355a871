"""Hostile input: nothing crashes, nothing hangs, nothing leaks (inputs from tests/hostile/generate.py)."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logtext import as_read
from matcher.commands.scan import command as scan_command
from matcher.normalize import normalize
from matcher.read import read_chunks
from matcher.report import build_report

sys.path.insert(0, str(Path(__file__).parent / "hostile"))
from generate import SECRETS, generate  # noqa: E402

FORMATS = [f for f in scan_command.params if f.name == "fmt"][0].type.choices  # type: ignore[union-attr]
HANG_GUARD = 300  # seconds: a hang detector, not a performance assertion


def logkb(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], input=stdin, capture_output=True,
                          timeout=HANG_GUARD)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, Path]:
    return {p.name: p for p in generate(tmp_path_factory.mktemp("hostile"))}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_hostile_file_in_every_format(hostile, fmt):
    """All readable hostile files in one run per format: exit 0 with --fail-on never, no traceback."""
    paths = [str(p) for name, p in sorted(hostile.items()) if not name.endswith(".gz")]
    result = logkb("scan", "--format", fmt, "--fail-on", "never", *paths)
    stderr = result.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr
    assert result.returncode == 0, (result.returncode, stderr)
    assert result.stdout


def test_truncated_gzip_is_one_line_naming_the_file_and_keeps_what_was_read(hostile):
    result = logkb("scan", str(hostile["truncated.log.gz"]))
    stderr = result.stderr.decode()
    assert result.returncode == 2
    assert "truncated.log.gz: line " in stderr and "truncated or corrupt gzip" in stderr
    assert stderr.count("\n") == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_planted_secrets_never_leak(hostile, fmt):
    result = logkb("scan", "--format", fmt, "--verbose" if fmt == "text" else "--fail-on=never",
                   str(hostile["planted-secrets.log"]))
    output = result.stdout.decode() + result.stderr.decode()
    assert result.stdout, "the report must not be empty"
    for kind, secret in SECRETS.items():
        assert secret not in output, f"{kind} leaked in {fmt}"
    assert "[REDACTED]" in output or fmt in ("junit",)


def test_no_redact_opts_out(hostile):
    result = logkb("scan", "--no-redact", str(hostile["planted-secrets.log"]))
    assert SECRETS["hf"] in result.stdout.decode()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc (Linux)")
def test_big_inputs_stay_bounded(tmp_path):
    """The 100 MB single line and 10^6 identical errors: finish, fold, keep memory flat."""
    paths = {p.name: p for p in generate(tmp_path, big=True) if p.name in ("single-100mb-line.log", "million-errors.log")}
    # VmHWM (peak RSS of this address space) rather than ru_maxrss: Linux carries ru_maxrss
    # over execve, so a child of a big pytest process would report the parent's peak.
    code = (
        "import sys\n"
        "from matcher.cli import main\n"
        "sys.argv = ['logkb', 'scan', '--format', 'json', '--fail-on', 'never', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
        "print(hwm, file=sys.stderr)\n"
    )
    for name, path in paths.items():
        result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, timeout=HANG_GUARD)
        doc = json.loads(result.stdout)
        findings = doc["files"][0]["findings"]
        assert findings, name
        if name == "million-errors.log":  # one finding, the other 999,999 occurrences folded into it
            assert len(findings) == 1 and findings[0]["occurrences"] == 1_000_000
            assert doc["files"][0]["stats"]["occurrences_folded"] == 999_999
        peak_kib = int(result.stderr.decode().strip().splitlines()[-1])
        assert peak_kib < 200 * 1024, (name, peak_kib)  # input is 100 MB / 40 MB: memory must not scale with it


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096), st.integers(min_value=1, max_value=64))
def test_reader_chunks_reassemble_exactly(data, size):
    """Every byte comes back, at its line; an input that starts with a UTF-16 byte-order mark
    comes back as its text in UTF-8, whatever its bytes."""
    text = as_read(data)
    chunks = list(read_chunks(io.BytesIO(data), "x", size=size))
    assert b"".join(c.data for c in chunks) == text
    offset = 0
    for chunk in chunks:
        assert chunk.first_line == text[:offset].count(b"\n") + 1
        offset += len(chunk.data)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_normalize_never_raises(text):
    assert isinstance(normalize(text), str)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.binary(max_size=300), st.sampled_from([
    b"Traceback (most recent call last):", b'  File "/x/capture.py", line 1, in capture_model',
    b"Capturing CUDA graphs (decode, FULL):", b"RuntimeError: CUDA error: out of memory",
    b"Model loading took 14.99 GiB and 5.1 seconds", b"Available KV cache memory: -1.2 GiB"])), max_size=40))
def test_matcher_and_reports_never_raise_on_random_lines(scanner, lines):
    run = scanner.run_lines(lines)
    report = build_report(run)
    from matcher.report.json_report import render as render_json
    from matcher.report.text import render as render_text

    render_text([report])
    render_json([report], "test")


def test_gzip_round_trip_reads_the_same(tmp_path):
    data = b"line one\nRuntimeError: CUDA error: out of memory\n"
    plain, packed = tmp_path / "a.log", tmp_path / "a.log.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    out_plain = logkb("scan", "--format", "json", str(plain)).stdout.decode().replace(str(plain), "P")
    out_packed = logkb("scan", "--format", "json", str(packed)).stdout.decode().replace(str(packed), "P")
    assert out_plain == out_packed


def _overlay(tmp_path: Path, name: str, text: str | bytes) -> Path:
    root = tmp_path / name
    (root / "x").mkdir(parents=True)
    (root / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    target = root / "x" / "sig.yaml"
    target.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


HOSTILE_CATALOGS = {
    "catastrophic regex": (
        "schema_version: 1\nid: x.y.bad\ntitle: Catastrophic pattern\nkind: fact\nstatus: test\n"
        "engines: [{name: any}]\nmatch:\n  patterns:\n    - regex: '(a+)+ failure marker'\n",
        "match.patterns[0].regex: regex nests an unbounded repeat"),
    "yaml bomb": (
        "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
        "aliases are not allowed"),
    "50 MB file": (b"# " + b"x" * (50 * 2**20) + b"\n", "over the 262144-byte limit"),
}


@pytest.mark.parametrize("case", list(HOSTILE_CATALOGS))
def test_hostile_catalogs_fail_fast_with_exit_2(tmp_path, case):
    text, message = HOSTILE_CATALOGS[case]
    overlay = _overlay(tmp_path, "overlay", text)
    log = tmp_path / "a.log"
    log.write_text("hello\n")
    result = logkb("scan", "--catalog", str(overlay), str(log))
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert "sig.yaml" in stderr and message in stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr


def test_commands_in_checks_are_shown_never_run(tmp_path):
    marker = tmp_path / "ran"
    signature = f"""\
schema_version: 1
id: x.y.shown
title: A check whose command must not run
kind: problem
severity: error
status: test
engines: [{{name: any}}]
match:
  patterns:
    - regex: 'widget pool exhausted'
summary: s
cause: c
checks:
  - id: c
    title: t
    look: l
    command: "touch {marker}"
fixes:
  - id: f
    title: t
    change: "do {{nothing}}"
    change_fallback: "do nothing"
    tradeoff: none
verify: v
references: [{{url: "https://example.org"}}]
"""
    overlay = _overlay(tmp_path, "overlay", signature)
    log = tmp_path / "a.log"
    log.write_text("ERROR widget pool exhausted\n")
    for fmt in FORMATS:
        extra = ["--verbose"] if fmt == "text" else []
        result = logkb("scan", "--catalog", str(overlay), "--format", fmt, *extra, str(log))
        assert result.returncode == 1, result.stderr.decode()
    assert f"touch {marker}" in logkb("scan", "--catalog", str(overlay), str(log)).stdout.decode()
    assert not marker.exists()


def test_malformed_numbers_stay_text_found_by_fuzzing(scanner):
    """atheris found '98.66.00 GiB' crashing the unit conversion of a *_gib fact."""
    from matcher.facts import convert

    assert convert("free_gib", "98.66.00") == "98.66.00"
    line = ("ValueError: Free memory on device (98.66.00/8.0 GiB) on startup is less than desired GPU memory "
            "utilization (0.9, 7.2 GiB).")
    run = scanner.run_lines([line])
    assert [f.id for f in run.findings] == ["vllm.startup.free-memory-below-utilization"]
    assert run.findings[0].facts["free_gib"] == "98.66.00"
    build_report(run)  # checks and fixes treat the text as unknown, they do not crash
