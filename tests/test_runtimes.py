"""Runtimes beside the serving engines, through the command line on real corpus logs: ONNX
Runtime's arena and Huawei CANN's kernel exceptions get their own checks and fixes, never
PyTorch's or CUDA's knobs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
ORT_RUN = CORPUS / "pytorch" / "cuda.runtime.out-of-memory--C0untFloyd-roop-unleashed-182.log"
ORT_INIT = CORPUS / "pytorch" / "cuda.runtime.out-of-memory--iperov-DeepFaceLive-33.log"
ASCEND = CORPUS / "vllm" / "cuda.kernel.fault--vllm-project-vllm-ascend-2918.log"
PYTORCH_KNOBS = ("set_per_process_memory_fraction", "PYTORCH_CUDA_ALLOC_CONF", "from_pretrained", "gpu-memory-utilization")


def report(log: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", str(log)], capture_output=True,
                          text=True, check=False)
    (file_report,) = json.loads(done.stdout)["files"]
    return file_report


def test_onnx_runtime_arena_gets_its_provider_check_and_arena_fixes():
    for log in (ORT_RUN, ORT_INIT):
        found = report(log)
        root = found["findings"][0]
        assert root["id"] == "cuda.runtime.out-of-memory" and root["basis"].startswith("class: gpu-oom (onnxruntime)")
        checks = {c["id"]: c for c in root["checks"]}
        assert checks["ort-provider"]["status"] == "fail"
        size = re.search(r"could not grow by (\d+) bytes", checks["ort-provider"]["detail"])
        assert size is not None and f"requested buffer of size {size.group(1)}" in log.read_text(encoding="utf-8")
        assert [f["id"] for f in root["fixes"]][:2] == ["ort-arena-options", "ort-smaller-input"]
        advice = json.dumps(root["fixes"])
        assert "kSameAsRequested" in advice
        assert not any(knob in advice for knob in PYTORCH_KNOBS)


def test_onnx_runtime_phase_from_its_own_wording():
    assert report(ORT_RUN)["phase"] == "serving"  # a node failed while a session ran
    assert report(ORT_INIT)["phase"] == "weight-loading"  # the session was being built


def test_ascend_kernel_exception_is_a_fault_with_ascend_advice():
    found = report(ASCEND)
    root = found["findings"][0]
    assert found["root_cause"] == "cuda.kernel.fault" and found["engine"] == "vllm"
    fixes = [f["id"] for f in root["fixes"]]
    assert fixes[0] == "ascend-locate" and "ASCEND_LAUNCH_BLOCKING=1" in root["fixes"][0]["change"]
    assert "driver" not in fixes and "vllm-backend" not in fixes  # NVIDIA's driver, CUDA attention backends


def test_xla_out_of_memory_gets_jaxs_pool_and_computation_fixes():
    """JAX's RESOURCE_EXHAUSTED and the last try of XLA's BFC allocator on a GPU: the fixes size
    JAX's own memory pool and shrink the computation, never an unknown server's fraction or
    PyTorch's knobs."""
    for name in ("cuda.runtime.out-of-memory--flatironinstitute-nemos-345.log",
                 "cuda.runtime.out-of-memory--jax-ml-jax-27354.log"):
        root = report(CORPUS / "pytorch" / name)["findings"][0]
        assert root["id"] == "cuda.runtime.out-of-memory"
        ids = [f["id"] for f in root["fixes"]]
        assert ids[:2] == ["xla-memory-fraction", "xla-smaller-computation"], ids
        assert "unknown-engine" not in ids
        advice = json.dumps(root["fixes"])
        assert "XLA_PYTHON_CLIENT_MEM_FRACTION" in advice and "XLA_PYTHON_CLIENT_PREALLOCATE=false" in advice
        assert not any(knob in advice for knob in PYTORCH_KNOBS)
        # The checks are JAX's too: no server's memory fraction, ONNX Runtime provider, torch
        # command or CUDA_LAUNCH_BLOCKING rerun (XLA's message names the buffer already).
        assert [c["id"] for c in root["checks"]] == ["other-processes"]


def test_runtime_checks_follow_the_runtime_that_failed():
    """A check about another runtime is left out, not shown as passed: ONNX Runtime's provider
    question only on its arena's logs, a server's memory fraction only on a server's."""
    assert "engine-budget" not in {c["id"] for c in report(ORT_RUN)["findings"][0]["checks"]}
    comfy = report(CORPUS / "pytorch" / "cuda.runtime.out-of-memory--Comfy-Org-ComfyUI-10566.log")
    assert comfy["engine"] == "pytorch" and comfy["findings"][0]["id"] == "cuda.runtime.out-of-memory"
    assert [c["id"] for c in comfy["findings"][0]["checks"]] == ["other-processes", "library-install", "exact-call"]
    verl = report(CORPUS / "pytorch" / "cuda.runtime.out-of-memory--Chrisytz-verl-verl_no_vllm_full_seqlen.log")
    assert verl["engine"] == "vllm" and "engine-budget" in {c["id"] for c in verl["findings"][0]["checks"]}


def test_neuron_device_memory_gets_neurons_own_advice():
    """The Neuron runtime's refusals, in libnrt 2.x's and the Inf1 daemon's words and the
    compiler's estimate, are one diagnosis whose fixes name Neuron's knobs, never CUDA's."""
    names = ("pytorch/neuron.device.out-of-memory--aws-neuron-transformers-neuronx-92.log",
             "pytorch/neuron.device.out-of-memory--aws-neuron-aws-neuron-sdk-302.log",
             "tgi/neuron.device.out-of-memory--philschmid-huggingface-inferentia2-samples-12.log")
    for name in names:
        found = report(CORPUS / name)
        root = found["findings"][0]
        assert found["root_cause"] == "neuron.device.out-of-memory", name
        assert [f["id"] for f in root["fixes"]][0] == "more-cores"
        advice = json.dumps(root["fixes"])
        assert "tp_degree" in advice and "NEURON_RT_VISIBLE_CORES" in advice
        assert "CUDA" not in advice and not any(knob in advice for knob in PYTORCH_KNOBS)
    # The Inf1 daemon names the request that failed: loading the compiled model.
    assert report(CORPUS / names[1])["phase"] == "weight-loading"


def test_gaudi_fixes_follow_the_phase_and_the_size_of_the_request():
    """A Gaudi card's refusal while the weights move to it is met by sharding first; a single
    request of tens of gigabytes during generation points at the operation that asked for it."""
    loading = report(CORPUS / "pytorch" / "gaudi.hpu.out-of-memory--huggingface-optimum-habana-2214.log")
    assert loading["phase"] == "weight-loading"
    root = loading["findings"][0]
    assert [f["id"] for f in root["fixes"]][0] == "shard-over-cards"
    assert {c["id"]: c["status"] for c in root["checks"]}["request-size"] == "pass"
    generating = report(CORPUS / "pytorch" / "gaudi.hpu.out-of-memory--huggingface-optimum-habana-1708.log")
    assert generating["phase"] == "serving"
    root = generating["findings"][0]
    size = {c["id"]: c for c in root["checks"]}["request-size"]
    assert size["status"] == "fail" and "52.93 GiB" in size["detail"]
    assert [f["id"] for f in root["fixes"]][:2] == ["shrink-oversized-operation", "smaller-batch-or-length"]
    assert "hl-smi" in json.dumps(root) and not any(knob in json.dumps(root["fixes"]) for knob in PYTORCH_KNOBS)


def test_a_servers_budget_is_not_lowered_before_the_runtime_starts(tmp_path):
    """The CUDA runtime refusing memory at the device check (PyTorch's cudaGetDeviceCount
    warning, a real log) under a vLLM banner (a real vLLM log's first line): vLLM has taken no
    share yet, so freeing the card leads and lowering its utilization is not offered."""
    banner = next(line for line in (CORPUS / "vllm" / "pytorch.cuda.oom--Kelsidavis-rusteze-vllm.log")
                  .read_text(encoding="utf-8").splitlines(keepends=True) if "vLLM API server version" in line)
    device_check = (CORPUS / "pytorch" / "cuda.runtime.out-of-memory--pytorch-pytorch-150048.log").read_text(encoding="utf-8")
    log = tmp_path / "vllm-device-check.log"
    log.write_text(banner + device_check, encoding="utf-8")
    found = report(log)
    assert found["engine"] == "vllm" and found["phase"] == "device-check"
    fixes = [f["id"] for f in found["findings"][0]["fixes"]]
    assert fixes[0] == "free-gpu" and "leave-headroom" not in fixes


def test_marian_gets_its_workspace_fix_not_a_servers_budget():
    """Marian NMT's cudaMalloc failure, at its start-up reserve and during validation: its own
    --workspace leads, and the unknown server's memory fraction is not offered."""
    for name in ("cuda.runtime.out-of-memory--marian-nmt-marian-270.log",
                 "cuda.runtime.out-of-memory--marian-nmt-marian-dev-439.log"):
        root = report(CORPUS / "pytorch" / name)["findings"][0]
        assert root["id"] == "cuda.runtime.out-of-memory"
        ids = [f["id"] for f in root["fixes"]]
        assert ids[0] == "marian-workspace" and "unknown-engine" not in ids, ids
        assert "--workspace" in root["fixes"][0]["change"]
        assert "engine-budget" not in {c["id"] for c in root["checks"]}
