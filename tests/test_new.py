"""`logkb new` (matcher/commands/new.py): the regex it proposes for a log line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.commands.new import propose
from matcher.regexlint import RegexLintError, lint
from overlays import parse_each_catalog_file_once, run  # noqa: F401 (the fixture is autouse)


@pytest.mark.parametrize(("message", "names"), [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
     "23.65 GiB of which 5.06 MiB is free.", {"allocate_mib", "capacity_gib", "value_mib"}),
    ("ValueError: No available memory for the cache blocks. See https://docs.vllm.ai/en/latest/ for more", set()),
    ("Loading weights from /models/llama-3-8b/model-00001.safetensors failed at 0x7ffd1234 with max_num_seqs=256",
     {"max_num_seqs"}),
    ("request cmpl-3f9a8b7c6d5e4f30 needs 4,096 tokens but only 1,024 bytes remain", {"only_bytes"}),
])
def test_propose_generalizes_numbers_paths_and_ids(message: str, names: set[str]) -> None:
    proposal = propose(message)
    lint(proposal.regex)
    assert set(re.compile(proposal.regex).groupindex) == names
    assert re.compile(proposal.regex).search(message)
    assert not [fragment for fragment in ("/models", "0x7ffd", "3f9a8b", "docs") if fragment in proposal.regex]


def test_propose_converts_units_in_the_facts() -> None:
    facts = propose("CUDA out of memory. Tried to allocate 512.00 MiB of 2 GiB").facts
    assert facts == {"allocate_mib": 512.0, "value_gib": 2.0}


_WORDS = st.sampled_from(["memory", "failed", "cache", "blocks", "GPU", "error:", "(rank", "=", "x", "of", "[0]"])
_PIECES = st.one_of(
    _WORDS,
    st.builds(lambda n, u: f"{n}{u}", st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.2f}"),
              st.sampled_from(["", " GiB", "MiB", " bytes", " KB"])),
    st.sampled_from(["/tmp/a/b.py", "0xdeadbeef", "req-12ab34cd56", "max_num_seqs=", "a|b", "f(x)*y+"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=12).map(" ".join))
def test_propose_always_lints_and_matches(message: str) -> None:
    try:
        proposal = propose(message)
    except RegexLintError as exc:
        assert "required literal" in str(exc)  # no fixed text to anchor on: the command says so
        return
    lint(proposal.regex)
    assert re.compile(proposal.regex).search(message)


def test_new_refuses_a_line_without_an_anchor(tmp_path: Path) -> None:
    log = tmp_path / "n.log"
    log.write_text("12 34 56\n", encoding="utf-8")
    result = run("new", "--from-log", f"{log}:1", "--engine", "vllm", "--kb", tmp_path / "kb")
    assert result.exit_code == 2
    assert "cannot propose a regex" in result.output and not (tmp_path / "kb").exists()


def test_new_numbers_lines_as_a_scan_reports_them(tmp_path: Path) -> None:
    """A progress bar redraws itself with carriage returns inside one line: FILE:LINE, copied
    from a scan's report, names the same line in `logkb new`."""
    log = tmp_path / "cr.log"
    log.write_bytes(b"Loading shards:  50%|#####     | 1/2\rLoading shards: 100%|##########| 2/2\n"
                    b"RuntimeError: widget pool exhausted after 3 retries\n")
    scanned = run("scan", "-f", "json", str(log))
    assert '"line": 2' in scanned.output
    result = run("new", "--from-log", f"{log}:2", "--engine", "vllm", "--kb", tmp_path / "kb")
    assert result.exit_code == 0, result.output
    regex = next((tmp_path / "kb" / "vllm").glob("*.yaml")).read_text(encoding="utf-8")
    assert "widget pool exhausted" in regex


def test_new_reads_a_utf16_log_as_a_scan_does(tmp_path: Path) -> None:
    """A log that Windows PowerShell wrote (UTF-16 with its byte-order mark): FILE:LINE names
    the line a scan names, and the proposal holds its words, not the encoding's bytes."""
    log = tmp_path / "wide.log"
    text = "INFO starting the widget server\nRuntimeError: widget pool exhausted after 3 retries\n"
    log.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    result = run("new", "--from-log", f"{log}:2", "--engine", "vllm", "--kb", tmp_path / "kb")
    assert result.exit_code == 0, result.output
    assert "widget pool exhausted" in next((tmp_path / "kb" / "vllm").glob("*.yaml")).read_text(encoding="utf-8")
