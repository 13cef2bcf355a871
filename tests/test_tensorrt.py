"""TensorRT's own lines, through the command line on real corpus logs: the builder's out-of-memory
errors before a tactic it skipped are a note, not a failure; TensorRT's allocator lines name
TensorRT, so TensorRT-LLM's knobs are given only when the log shows TensorRT-LLM."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
TACTICS = CORPUS / "healthy" / "healthy-pytorch--VoltaML-voltaML-fast-stable-diffusion-15.log"
TORCH_TENSORRT = CORPUS / "pytorch" / "cuda.runtime.out-of-memory--pytorch-TensorRT-4227.log"
TRTLLM_RUNTIME = CORPUS / "trtllm" / "trtllm.executor.insufficient-memory--guidance-ai-llgtrt-7.log"


def logkb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "matcher", *args], capture_output=True, text=True, check=False)


def test_skipped_tactics_explain_the_builder_errors_and_the_scan_passes():
    text = logkb("scan", str(TACTICS))
    assert text.returncode == 0, text.stdout
    assert "no GPU-memory problem found" in text.stdout
    assert "note: TensorRT's builder skipped tactics" in text.stdout
    assert "it explains: cuda.runtime.out-of-memory (line 1)" in text.stdout
    (report,) = json.loads(logkb("scan", "-f", "json", str(TACTICS)).stdout)["files"]
    assert report["root_cause"] is None and report["engine"] is None  # the builder names no engine
    by_id = {f["id"]: f for f in report["findings"]}
    assert by_id["trtllm.builder.tactics-skipped"]["severity"] == "info"
    assert by_id["cuda.runtime.out-of-memory"]["severity"] == "error"
    assert by_id["cuda.runtime.out-of-memory"]["explained_by"] == "trtllm.builder.tactics-skipped"


def test_the_exit_status_counts_an_explained_error_at_the_severity_that_explains_it(tmp_path):
    assert logkb("scan", "--fail-on", "warning", str(TACTICS)).returncode == 0
    errors_only = tmp_path / "build.log"  # the same lines without the skip that explains them
    errors_only.write_text("".join(TACTICS.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    assert logkb("scan", str(errors_only)).returncode == 1


def test_torch_tensorrt_gets_no_tensorrt_llm_knobs():
    (report,) = json.loads(logkb("scan", "-f", "json", str(TORCH_TENSORRT)).stdout)["files"]
    assert report["root_cause"] == "cuda.runtime.out-of-memory"
    assert report["findings"][0]["tier"] == "class"
    advice = json.dumps(report["findings"][0]["fixes"])
    for knob in ("free_gpu_memory_fraction", "max_batch_size", "trtllm-build", "kv_cache_config"):
        assert knob not in advice


def test_tensorrt_llm_still_owns_tensorrts_allocator_lines_in_its_own_logs():
    (report,) = json.loads(logkb("scan", "-f", "json", str(TRTLLM_RUNTIME)).stdout)["files"]
    assert report["engine"] == "trtllm"
    assert report["root_cause"] == "trtllm.executor.insufficient-memory"
