"""Hostile numbers in real logs: huge, infinite, padded and overlong values (the attack of
tests/hostile/fuzz_numbers.py) never crash a scan, and one bad file never costs the others."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "hostile"))
from fuzz_numbers import corpus_logs, mutate, pipeline  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
KV = CORPUS / "vllm" / "vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
MMAP = CORPUS / "host" / "host.memory.mmap-failed--vllm-project-vllm-759.log"
FREE = CORPUS / "vllm" / "vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
TGI = CORPUS / "generated" / "tgi-warmup-prefill-oom.log"
WATCHDOG = CORPUS / "nccl" / "nccl.watchdog.timeout--NVIDIA-nccl-1409.log"

# (log, text in it, hostile replacement): the four crash sites the number fuzzer found.
CASES = {
    "int fact over 4300 digits": (KV, "max seq len (29000)", "max seq len (" + "9" * 4400 + ")"),
    "bytes fact that overflows to infinity": (MMAP, "mmap 16933256392 bytes", "mmap " + "9" * 400 + " bytes"),
    "infinite GiB fact filled into a check": (FREE, "(3.22/4.0 GiB)", "(3.22/" + "4" * 310 + ".0 GiB)"),
    "version of 4400 digits": (TGI, "text-generation-inference:3.0.1", "text-generation-inference:3.0." + "9" * 4400),
    # found by the long run: two such numbers filled into one check's text passed its size budget
    "two long numbers in one filled text": (WATCHDOG, "Timeout(ms)=600000) ran for 600026 milliseconds",
                                            "Timeout(ms)=" + "6" * 4200 + ") ran for " + "7" * 4200 + " milliseconds"),
}


def logkb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], capture_output=True, text=True, timeout=120)


def _hostile_copy(tmp_path: Path, case: str) -> Path:
    source, old, new = CASES[case]
    text = source.read_text()
    assert old in text
    target = tmp_path / f"{source.stem}.log"
    target.write_text(text.replace(old, new))
    return target


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_number_is_scanned_in_every_format(tmp_path, case):
    log = _hostile_copy(tmp_path, case)
    for fmt in ("text", "json", "sarif", "markdown"):
        result = logkb("scan", "--format", fmt, "--verbose" if fmt == "text" else "--fail-on=error", str(log))
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 1, (fmt, result.stderr)  # the failure on the line is still found
    for args in (["facts", str(log)], ["compare", str(log), str(log)]):
        result = logkb(*args)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args[0], result.stderr)


def test_one_hostile_file_does_not_cost_the_reports_of_the_others(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    for case in CASES:
        _hostile_copy(folder, case)
    good = folder / "zz-good.log"
    good.write_bytes(KV.read_bytes())
    result = logkb("scan", "--format", "json", str(folder))
    assert "Traceback" not in result.stderr, result.stderr
    files = {Path(f["path"]).name: f for f in json.loads(result.stdout)["files"]}
    assert len(files) == len(CASES) + 1
    assert files["zz-good.log"]["root_cause"] == "vllm.kv-cache.max-model-len-exceeds-capacity"


LOGS = corpus_logs()
ONE = pipeline()


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(LOGS))), st.integers(min_value=0, max_value=2**32))
def test_number_fuzzing_of_corpus_logs_never_crashes(index, seed):
    """The bounded CI part of tests/hostile/fuzz_numbers.py (the long run takes a count)."""
    ONE(mutate(LOGS[index], random.Random(seed)))


def test_a_memory_fact_that_stays_text_does_not_break_the_run_record(tmp_path):
    """Found by the long run: a GiB fact too long to be a number stays text, and the memory
    picture of `facts` and `compare` leaves it out instead of subtracting it."""
    healthy = CORPUS / "vllm" / "vllm.healthy--vllm-project-vllm-10517.log"
    log = tmp_path / "healthy.log"
    log.write_text(healthy.read_text().replace("peak_torch_memory=", "peak_torch_memory=" + "9" * 70, 1))
    for args in (["facts", str(log)], ["facts", "--format", "json", str(log)], ["compare", str(healthy), str(log)]):
        result = logkb(*args)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
