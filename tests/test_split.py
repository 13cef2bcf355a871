"""Scanning one large file on several cores (split.py) gives the report a single process gives:
segments cut anywhere, even inside lines, partition the file's lines exactly, and the parent
handles them in order, so line numbers, phases, tracebacks and facts are unchanged."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matcher.api import scanner
from matcher.cli import main
from matcher import split
from matcher.split import SPLIT_MIN, segments

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
LOGS = sorted(p for p in CORPUS.rglob("*.log") if "generated" not in p.parts)
CORPUS_LINES = [line for log in LOGS[::7] for line in log.read_bytes().splitlines(keepends=True)]


def test_segments_cover_the_file() -> None:
    assert segments(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert segments(0, 4) == [(0, 0)]


@given(
    picks=st.lists(st.integers(min_value=0, max_value=len(CORPUS_LINES) - 1), min_size=1, max_size=120),
    cut_lines=st.lists(st.binary(min_size=0, max_size=40), max_size=5),
    final_newline=st.booleans(),
    segment_size=st.integers(min_value=1, max_value=3000),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_split_scan_equals_one_process(tmp_path: Path, picks: list[int], cut_lines: list[bytes],
                                       final_newline: bool, segment_size: int) -> None:
    data = b"".join(CORPUS_LINES[i] for i in picks) + b"\n".join(cut_lines)
    if not final_newline:
        data = data.rstrip(b"\n")
    log = tmp_path / "split.log"
    log.write_bytes(data)
    engine = scanner()
    with log.open("rb") as stream:
        whole = engine.run(stream, "x")
    split = engine.run_split(str(log), "x", jobs=2, segment_size=segment_size)
    assert split == whole  # every field of the run: lines, facts, phases, findings


def test_a_segment_that_starts_like_utf16_is_read_as_the_files_bytes(tmp_path: Path) -> None:
    """Only a whole input's first bytes say it is UTF-16: a worker whose segment starts at a
    line that opens with the same two bytes reads the file's bytes, as one process does."""
    prefix = (CORPUS / "vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log").read_bytes()
    log = tmp_path / "split.log"
    log.write_bytes(prefix + b"\xff\xfe a line of binary noise\n" + prefix)
    engine = scanner()
    with log.open("rb") as stream:
        whole = engine.run(stream, "x")
    assert engine.run_split(str(log), "x", jobs=2, segment_size=len(prefix)) == whole


@pytest.mark.parametrize("segment_size", [64, 150, 333, 1000, 4096])
def test_split_scan_reads_a_wrapped_message_back_across_segments(tmp_path: Path, segment_size: int) -> None:
    """Real logs wrapped at 80 columns, where the wrap cut an anchor in two: the line that
    holds its second half is read with the line before it, which a worker sends along even
    when a segment (or a block) starts between the two."""
    text = "".join((CORPUS / name).read_text(encoding="utf-8") for name in (
        "nccl/nccl.watchdog.timeout--NVIDIA-nccl-1409.log",
        "ollama/llamacpp.gpu.alloc-failed--ollama-ollama-8910.log"))
    wrapped = "".join(line[i:i + 80] + "\n" for line in text.splitlines() for i in range(0, max(len(line), 1), 80))
    log = tmp_path / "wrapped.log"
    log.write_text(wrapped, encoding="utf-8")
    engine = scanner()
    with log.open("rb") as stream:
        whole = engine.run(stream, "x")
    assert {"nccl.watchdog.timeout", "llamacpp.gpu.alloc-failed"} <= {f.id for f in whole.findings}
    assert engine.run_split(str(log), "x", jobs=2, segment_size=segment_size) == whole


def test_spawned_workers_build_their_own_prefilter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The path macOS and Windows take: workers are spawned, not forked."""
    log = tmp_path / "spawn.log"
    log.write_bytes(b"".join(CORPUS_LINES[:400]))
    engine = scanner()
    with log.open("rb") as stream:
        whole = engine.run(stream, "x")
    monkeypatch.setattr(split.sys, "platform", "darwin")
    assert engine.run_split(str(log), "x", jobs=2, segment_size=4096) == whole


def test_cli_jobs_give_the_same_json_report(tmp_path: Path) -> None:
    """A file past SPLIT_MIN, real failure logs at its start, middle and end with filler
    between them: -j 2 (workers) and -j 1 agree."""
    body = b"".join(log.read_bytes().rstrip(b"\n") + b"\n" for log in LOGS)
    filler = b"." * 99 + b"\n"
    log = tmp_path / "big.log"
    with log.open("wb") as out:
        for _ in range(3):
            out.write(body)
            out.write(filler * (SPLIT_MIN // len(filler) // 2))
    reports = []
    for jobs in ("1", "2"):
        result = CliRunner().invoke(main, ["scan", "-j", jobs, "-f", "json", "--fail-on", "never", str(log)])
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.output))
    assert reports[0] == reports[1]
    assert reports[0]["files"][0]["findings"], "the repeated corpus must give findings"


@pytest.mark.parametrize("jobs", ["-1", "x"])
def test_bad_jobs_is_a_usage_error(jobs: str) -> None:
    result = CliRunner().invoke(main, ["scan", "-j", jobs, "-"], input="")
    assert result.exit_code == 2


def _die(*_args: object) -> None:
    os._exit(3)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked (and inherit the patch) on Linux only")
def test_a_worker_that_dies_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "big.log"
    log.write_bytes(b"".join(log.read_bytes() for log in LOGS[:5]))
    monkeypatch.setattr(split, "SPLIT_MIN", 1)
    monkeypatch.setattr(split, "SEGMENT_SIZE", 4096)  # segments for both workers
    monkeypatch.setattr(split, "DENSE", 2.0)  # workers even for a log of nothing but failures
    monkeypatch.setattr(split, "search_segment", _die)  # forked workers inherit the patch
    result = CliRunner().invoke(main, ["scan", "-j", "2", str(log)])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert str(log) in line and "worker process died" in line and "--jobs 1" in line
