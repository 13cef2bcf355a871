"""The failure families beside GPU memory, through the command line on their real corpus logs:
kernel faults and GPU hardware failures (never answered with a memory-size knob), Ray's memory
monitor, GPU selection (MIG instances, device lists), Ray placement groups, refused host allocations and compilers
killed during a build; Ollama's VRAM-recovery warning is a fact of the run, not a diagnosis. For each log: the root cause, the phase
its sidecar expects, and the first fix."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from matcher.catalog import ProblemSignature, load_catalog

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

# family -> first fix, by the engine logkb recognised (None: it could not tell)
FIRST_FIX = {
    "cuda.kernel.fault": {"vllm": "vllm-eager", "sglang": "sglang-graph-backend", "tgi": "tgi-graphs",
                          "ollama": "ggml-kernels", "llamacpp": "ggml-kernels", "pytorch": "pytorch-graphs",
                          "trtllm": "change-version",  # no other engine's graph flags for TensorRT-LLM
                          "ascend": "ascend-locate",  # a kernel that trapped on an Ascend NPU, under any engine
                          None: "unknown-engine-graphs"},
    "gpu.hardware.fault": "drain",
    "ray.memory-monitor.worker-killed": "reduce-host-memory",
    # the MIG instance's own fixes where the log names one; else the device list comes first
    "cuda.device.mig-visible-devices": {"mig": "container-device", "no-mig": "visible-devices"},
    "vllm.ray.placement-group-unsatisfiable": "fit-the-cluster",
    # Windows' commit limit has a first fix of its own (the paging file)
    "host.memory.alloc-failed": {"windows": "windows-paging-file", "other": "load-lean"},
    "host.build.compiler-killed": "max-jobs",
}
NOT_A_LACK_OF_MEMORY = ("cuda.kernel.fault", "gpu.hardware.fault")
# Signatures that only report that a process failed (vLLM's engine core, TGI's shard): the root
# cause of a known miss whose excerpt ends before the error they point at.
WRAPPERS = frozenset(sig.id for sig in load_catalog().signatures.values()
                     if isinstance(sig, ProblemSignature) and sig.wrapper)
KNOWN_MISS = (None, "uncatalogued", *WRAPPERS)
MEMORY_KNOB = re.compile(
    r"gpu[-_ ]memory[-_ ]utilization|mem[-_]fraction[-_]static|max[-_]model[-_]len|max[-_]num[-_](?:seqs|batched)"
    r"|cuda[-_]memory[-_]fraction|max[-_](?:total|batch)[-_]\w*tokens|num_ctx|n[-_]gpu[-_]layers|-ngl\b"
    r"|swap[-_]space|cpu[-_]offload|kv[-_]cache[-_](?:dtype|memory)|PYTORCH_CUDA_ALLOC_CONF|expandable_segments"
    r"|batch size|WIGGLE_ROOM", re.IGNORECASE)


def sidecar(log: Path) -> dict:
    return yaml.safe_load(log.with_name(log.name[: -len(".log")] + ".yaml").read_text(encoding="utf-8"))


def samples(family: str) -> list[Path]:
    return sorted(CORPUS.rglob(f"{family}--*.log"))


def scan(*args: str, stdin: bytes | None = None) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", *args],
                          input=stdin, capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()  # 0: only warnings (a wait, a timeout)
    return json.loads(done.stdout)["files"]


def root(report: dict) -> dict:
    return next(f for f in report["findings"] if f["id"] == report["root_cause"])


ALL = [log for family in FIRST_FIX for log in samples(family)]


def test_each_family_has_at_least_two_real_logs():
    for family in FIRST_FIX:
        real = [log for log in samples(family) if "source" in sidecar(log)]
        assert len(real) >= 2, family


@pytest.mark.parametrize("log", ALL, ids=lambda p: p.name)
def test_root_cause_phase_and_first_fix(log):
    family = log.name.split("--")[0]
    meta = sidecar(log)
    expect = meta["expect"]
    (report,) = scan(str(log))
    if "gap" in meta and report["root_cause"] != family:
        assert report["root_cause"] in KNOWN_MISS  # a known miss ('logkb test' lists it), never another diagnosis
        return
    assert report["root_cause"] == family
    finding = root(report)
    assert any(i["line"] <= expect["line"] <= i["last_line"] for i in finding["incidents"])  # the event holding it
    if "gap" not in meta:  # a known miss of the phase is listed by 'logkb test'
        assert report["phase"] == expect["phase"]
    first = FIRST_FIX[family]
    if family == "cuda.device.mig-visible-devices":
        first = first["mig" if "mig_uuid" in finding["facts"] else "no-mig"]
    elif family == "host.memory.alloc-failed":
        first = first["windows" if "windows_commit_limit" in finding["facts"] else "other"]
    elif isinstance(first, dict):
        first = first["ascend" if "npu_kernel_fault" in report["facts"] else report["engine"]]
    assert finding["fixes"][0]["id"] == first


@pytest.mark.parametrize("log", [log for family in NOT_A_LACK_OF_MEMORY for log in samples(family)],
                         ids=lambda p: p.name)
def test_faults_and_hardware_get_no_memory_size_advice(log):
    (report,) = scan(str(log))
    if "gap" in sidecar(log) and report["root_cause"] in KNOWN_MISS:
        return  # a known miss ('logkb test' lists it): no diagnosis of its own, so no advice either
    assert report["root_cause"] in NOT_A_LACK_OF_MEMORY
    for finding in report["findings"]:
        if finding["role"] == "wrapper":
            continue
        assert finding["id"] in (*NOT_A_LACK_OF_MEMORY, "uncatalogued"), finding["id"]
        for fix in finding["fixes"]:
            words = " ".join(str(fix.get(key) or "") for key in ("title", "change", "tradeoff"))
            assert not MEMORY_KNOB.search(words), (finding["id"], fix["id"], words)


def test_a_kernel_fault_is_never_diagnosed_as_graph_capture_oom():
    """'Capture cuda graph failed' on an illegal memory access: the capture signature's wording
    matches the line, but the kernel fault owns it."""
    (report,) = scan(str(CORPUS / "sglang/cuda.kernel.fault--shader-slang-slang-6738.log"))
    assert report["root_cause"] == "cuda.kernel.fault" and report["phase"] == "cudagraph-capture"
    assert not {"sglang.cudagraph.oom-during-capture", "pytorch.cuda.oom"} & {f["id"] for f in report["findings"]}


def test_the_gpu_hardware_explains_the_kernel_fault_it_causes():
    """A node's kernel log with Xid 48 next to the CUDA error the application printed: the
    hardware is the root cause and the launch failure its symptom."""
    driver = (CORPUS / "host/gpu.hardware.fault--NVIDIA-gpu-operator-1146.log").read_bytes()
    runtime = (CORPUS / "ollama/cuda.kernel.fault--ollama-ollama-9247.log").read_bytes()
    (report,) = scan("-", stdin=driver + runtime)
    assert report["root_cause"] == "gpu.hardware.fault"
    roles = {f["id"]: f["role"] for f in report["findings"]}
    assert roles["cuda.kernel.fault"] == "symptom"
    assert root(report)["facts"]["xid"] == 48


def test_ray_memory_monitor_numbers_decide_the_usage_check():
    (report,) = scan(str(CORPUS / "vllm/ray.memory-monitor.worker-killed--vllm-project-vllm-15102.log"))
    assert report["facts"]["host_total_gib"] == pytest.approx(2265.25)
    usage = next(c for c in root(report)["checks"] if c["id"] == "usage")
    assert usage["status"] == "fail" and "threshold of 0.95" in usage["detail"]


def test_the_vram_recovery_warning_is_a_fact_not_a_diagnosis():
    """Ollama prints it in healthy runs too: alone it raises nothing, its wait is recorded, and
    after a failed load the load's error stays the root cause."""
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json",
                           str(CORPUS / "ollama/nomatch-ollama--eleiton-ollama-intel-arc-17.log")],
                          capture_output=True, check=False)
    assert done.returncode == 0
    (alone,) = json.loads(done.stdout)["files"]
    assert alone["root_cause"] is None and alone["findings"] == []
    assert alone["facts"]["vram_recovery_wait_s"] == pytest.approx(5.26432203)
    (after_error,) = scan(str(CORPUS / "nonmemory/nonmemory-ollama--ollama-ollama-4427.log"))
    assert [(f["id"], f["line"]) for f in after_error["findings"]] == [("ollama.runner.terminated", 2)]


def test_a_device_side_assert_stays_outside_the_kernel_fault_signature():
    """Device-side assertions (an index out of range) are kernel faults too, but with other
    fixes: they stay uncatalogued, and still get no memory diagnosis."""
    text = (b"Traceback (most recent call last):\n"
            b'  File "/app/generate.py", line 12, in <module>\n'
            b"    out = model.generate(ids)\n"
            b"RuntimeError: CUDA error: device-side assert triggered\n"
            b"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            b"might be incorrect.\n")
    (report,) = scan("-", stdin=text)
    assert report["root_cause"] == "uncatalogued"
    assert [f["id"] for f in report["findings"]] == ["uncatalogued"]
