"""Issue acceptance for the families added from batch F2, through the command line: on their real
corpus logs the right root cause, phase and first fix come out, and the neighbouring failures
they must not swallow keep their own diagnosis."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def scan(path: Path | None = None, text: str | None = None) -> dict:
    args = ["scan", "-f", "json", str(path) if path else "-"]
    result = CliRunner().invoke(main, args, input=text, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]


def root_of(report: dict) -> dict:
    return next(f for f in report["findings"] if f["id"] == report["root_cause"])


# (log, root cause, phase, first fix, a piece of its change computed from the log or None)
CASES = [
    ("vllm/vllm.config.max-model-len-above-derived--xorbitsai-inference-1715.log",
     "vllm.config.max-model-len-above-derived", "device-check", "lower-max-model-len", "--max-model-len 2048"),
    ("vllm/vllm.config.max-model-len-above-derived--VectorInstitute-vector-inference-61.log",
     "vllm.config.max-model-len-above-derived", "device-check", "lower-max-model-len", "--max-model-len 4096"),
    ("vllm/vllm.lora.rank-exceeds-max--hiyouga-LlamaFactory-9512.log",
     "vllm.lora.rank-exceeds-max", "unknown", "raise-max-lora-rank", "--max-lora-rank 32"),
    ("vllm/vllm.lora.rank-exceeds-max--modelscope-ms-swift-4221.log",
     "vllm.lora.rank-exceeds-max", "unknown", "raise-max-lora-rank", "--max-lora-rank 32"),
    ("vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-17250.log",
     "vllm.multimodal.encoder-budget", "memory-profiling", "limit-mm-per-prompt", None),
    ("vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-27706.log",
     "vllm.multimodal.encoder-budget", "memory-profiling", "limit-mm-per-prompt", None),
    ("vllm/vllm.multimodal.encoder-budget--zai-org-GLM-OCR-67.log",
     "vllm.multimodal.encoder-budget", "request-validation", "raise-encoder-budget", "--max-num-batched-tokens 5120"),
    ("vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-34040.log",
     "vllm.multimodal.encoder-budget", "request-validation", "raise-encoder-budget", "--max-num-batched-tokens 6144"),
    ("pytorch/cuda.runtime.out-of-memory--seanie12-Info-HCVAE-7.log",
     "cuda.runtime.out-of-memory", "serving", None, None),  # the backward pass of a training step
    ("pytorch/cuda.runtime.out-of-memory--deepspeedai-DeepSpeedExamples-323.log",
     "cuda.runtime.out-of-memory", "serving", None, None),
]


@pytest.mark.parametrize("log,cause,phase,first_fix,change", CASES, ids=[c[0].split("/")[1] for c in CASES])
def test_root_cause_phase_and_first_fix(log, cause, phase, first_fix, change):
    report = scan(CORPUS / log)
    assert report["root_cause"] == cause
    assert report["phase"] == phase
    root = root_of(report)
    if first_fix is not None:
        assert root["fixes"][0]["id"] == first_fix
    if change is not None:
        assert change in root["fixes"][0]["change"]


def test_each_family_has_two_real_logs():
    for cause in ("vllm.config.max-model-len-above-derived", "vllm.lora.rank-exceeds-max",
                  "vllm.multimodal.encoder-budget"):
        assert len(list(CORPUS.rglob(f"{cause}--*.log"))) >= 2, cause


def test_max_model_len_fixes_keep_the_override_last_and_say_why_it_is_risky():
    root = root_of(scan(CORPUS / "vllm/vllm.config.max-model-len-above-derived--xorbitsai-inference-1715.log"))
    fixes = [f["id"] for f in root["fixes"]]
    assert fixes[-1] == "allow-long-max-model-len"
    override = root["fixes"][-1]
    assert "RoPE" in override["tradeoff"] and "device-side assert" in override["tradeoff"]
    assert "gpu-memory" not in root["checks"][0]["title"].lower()


def test_max_model_len_override_is_a_warning_when_the_env_var_is_set():
    line = ("WARNING 07-20 10:00:00 [config.py:3500] User-specified max_model_len (65536) is greater than the "
            "derived max_model_len (max_position_embeddings=32768.0 or model_max_length=None in model's "
            "config.json). VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses "
            "relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan.\n")
    report = scan(text=line)
    assert report["root_cause"] == "vllm.config.max-model-len-above-derived"
    root = root_of(report)
    assert root["severity"] == "warning"
    assert root["facts"]["derived_max_model_len"] == 32768


def test_capacity_check_is_not_the_derived_length_check():
    """The KV-capacity message keeps its own signature: different cause, different fixes."""
    log = CORPUS / "vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
    assert scan(log)["root_cause"] == "vllm.kv-cache.max-model-len-exceeds-capacity"


ENCODER_BUDGET = ("(EngineCore_DP0 pid=7) INFO 10-29 01:56:40 [gpu_model_runner.py:3700] Encoder cache will be "
                  "initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum "
                  "feature size.\n")
OOM = ("(EngineCore_DP0 pid=7) ERROR 10-29 01:56:59 [core.py:779] torch.OutOfMemoryError: CUDA out of memory. "
       "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.58 GiB of which 1.02 GiB is free.\n")


def test_encoder_budget_line_alone_is_not_a_problem():
    report = scan(text=ENCODER_BUDGET + "(EngineCore_DP0 pid=7) INFO 10-29 01:57:10 [kv_cache_utils.py:1000] "
                  "GPU KV cache size: 120,000 tokens\n")
    assert report["root_cause"] is None
    assert report["phase"] == "kv-cache-allocation"


def test_oom_in_the_multimodal_profiling_run_is_the_encoder_budget():
    report = scan(text=ENCODER_BUDGET + OOM)
    assert report["root_cause"] == "vllm.multimodal.encoder-budget"
    assert report["phase"] == "memory-profiling"
    root = root_of(report)
    check = next(c for c in root["checks"] if c["id"] == "profiled-items")
    assert check["status"] == "pass"  # one item of the maximum size: its size must shrink


def test_oom_after_profiling_of_a_multimodal_model_keeps_its_own_phase():
    """The budget line stays in the run's facts; a later capture OOM is still a capture OOM."""
    capture = ("(EngineCore_DP0 pid=7) INFO 10-29 01:57:20 [gpu_model_runner.py:4000] Capturing CUDA graphs "
               "(mixed prefill-decode, PIECEWISE): 10%\n")
    report = scan(text=ENCODER_BUDGET + capture + OOM)
    assert report["root_cause"] == "vllm.cudagraph.oom-during-capture"


def test_profiling_oom_of_a_text_model_stays_generic():
    profiling = ("Traceback (most recent call last):\n"
                 '  File "/usr/lib/python3/dist-packages/vllm/worker/worker.py", line 229, in determine_num_available_blocks\n'
                 "    self.model_runner.profile_run()\n"
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 800.00 MiB. GPU 0 has a total "
                 "capacity of 15.56 GiB of which 442.62 MiB is free.\n")
    report = scan(text=profiling)
    assert report["phase"] == "memory-profiling"
    assert report["root_cause"] == "pytorch.cuda.oom"


def test_cudnn_not_initialized_offers_the_install_check():
    root = root_of(scan(CORPUS / "pytorch/cuda.runtime.out-of-memory--seanie12-Info-HCVAE-7.log"))
    assert "library-install" in [c["id"] for c in root["checks"]]
