"""Planted secrets (tests/hostile/planted_secrets.py: 54 kinds, fake values of the right
shape) through every command and every format: nothing leaks, and the failure on the line
is still found."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

sys.path.insert(0, str(Path(__file__).parent / "hostile"))
from planted_secrets import leaks, planted, write  # noqa: E402

FORMATS = ("text", "json", "markdown", "sarif", "junit", "github", "gitlab")
PLANTED = planted()
SECRETS = {kind: values for kind, (_, _, values) in PLANTED.items()}


def logkb(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], input=stdin, capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("planted")
    write(root)
    return root


def test_the_corpus_has_over_forty_kinds():
    assert len(PLANTED) >= 40


@pytest.mark.parametrize("fmt", FORMATS)
def test_scan_leaks_nothing_in_any_format(folder, fmt):
    extra = ["--verbose"] if fmt == "text" else []
    result = logkb("scan", "--format", fmt, *extra, "--exclude", "control", str(folder))
    output = result.stdout.decode() + result.stderr.decode()
    assert result.returncode == 1, result.stderr.decode()
    assert leaks(output, SECRETS) == []


def test_scan_finds_the_same_failures_as_without_the_secrets(folder):
    def findings(paths: list[Path]) -> list[list[tuple[str, int]]]:
        doc = json.loads(logkb("scan", "--format", "json", *map(str, paths)).stdout)
        return [sorted((f["id"], f["line"]) for f in file["findings"]) for file in doc["files"]]

    kinds = sorted(PLANTED)
    planted_findings = findings([folder / f"{k}.log" for k in kinds])
    assert planted_findings == findings([folder / "control" / f"{k}.log" for k in kinds])
    assert all(any(line == 2 for _, line in found) for found in planted_findings)  # the error line itself


def test_watch_passes_bytes_through_and_leaks_nothing_on_stderr(folder):
    procs = {kind: subprocess.Popen([sys.executable, "-m", "matcher", "watch", "--verbose"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE) for kind in PLANTED}
    for kind, proc in procs.items():
        data = (folder / f"{kind}.log").read_bytes()
        out, err = proc.communicate(data, timeout=300)
        assert out == data, kind
        assert leaks(err.decode(), {kind: SECRETS[kind]}) == [], kind
        assert b"line 2:" in err, (kind, err.decode()[-500:])


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_facts_and_compare_leak_nothing(folder, fmt):
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    for kind in PLANTED:
        log = str(folder / f"{kind}.log")
        for args in (["facts", "--format", fmt, log], ["compare", "--format", fmt, log, log]):
            result = runner.invoke(main, args)
            assert result.exit_code == 0, (kind, result.output)
            assert leaks(result.output, {kind: SECRETS[kind]}) == [], (kind, args[0])


def test_explain_of_a_pasted_line_leaks_nothing(folder):
    runner = CliRunner()
    for kind in PLANTED:
        line = (folder / f"{kind}.log").read_text().splitlines()[1]
        result = runner.invoke(main, ["explain", line])
        assert leaks(result.output, {kind: SECRETS[kind]}) == [], kind


def test_new_and_export_of_its_signature_leak_nothing(folder, tmp_path):
    runner = CliRunner()
    kb = tmp_path / "kb"
    logs = tmp_path / "vllm"
    logs.mkdir()
    for kind in PLANTED:
        log = logs / f"{kind}.log"
        log.write_bytes((folder / f"{kind}.log").read_bytes())
        result = runner.invoke(main, ["new", "--from-log", f"{log}:2", "--kb", str(kb), "--id", f"vllm.planted.{kind}"])
        assert result.exit_code == 0, (kind, result.output)
        written = [p.read_text() for p in (kb / "vllm" / f"{kind}.yaml", log.with_suffix(".yaml"))]
        assert leaks(result.output + "".join(written), {kind: SECRETS[kind]}) == [], kind
    (kb / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    for fmt in ("patterns", "sigma"):
        result = runner.invoke(main, ["export", "--format", fmt, "--catalog", str(kb)])
        assert result.exit_code == 0, result.output
        assert leaks(result.output, SECRETS) == [], fmt


def test_a_request_echo_whose_prompt_holds_a_quote_is_cut_whole(tmp_path):
    """vLLM's request log: everything between 'prompt: ' and the parameters is the prompt, even
    when the prompt's own apostrophe would end a quoted value early."""
    import json
    import subprocess
    import sys

    log = tmp_path / "echo.log"
    log.write_text("INFO 05-01 10:00:00 logger.py:39] Received request cmpl-1: prompt: 'Fix the user's "
                   "CUDA out of memory error report', params: SamplingParams(n=1, temperature=0.7), "
                   "prompt_token_ids: [1, 2, 3], lora_request: None.\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", str(log)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)["files"][0]
    assert report["findings"] == [] and report["stats"]["prompt_lines_skipped"] == 1
    assert "CUDA out of memory error report" not in done.stdout
