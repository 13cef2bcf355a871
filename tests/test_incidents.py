"""Incidents and evidence tiers through the command line, on real corpus logs: the six kinds of
log the catalog's exact wordings miss (wrapped, cut, cut before the exception, other layers'
out-of-memory, generic OOM in phase frames, a wrapper next to a real non-memory error), a
crash loop that keeps every incident, and watch agreeing with scan on every corpus log."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from matcher.api import diagnose_path, scanner
from matcher.commands.watch import Session
from matcher.diagnose import exit_severities
from matcher.read import read_chunks
from matcher.report import file_dict

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
LOGS = sorted(CORPUS.rglob("*.log"))


def scan(*paths: Path | str, stdin: bytes | None = None) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", *map(str, paths)],
                          input=stdin, capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)["files"]


def root(report: dict) -> dict:
    assert report["root_cause"] is not None, report["findings"]
    return next(f for f in report["findings"] if f["id"] == report["root_cause"])


# (log, root cause, phase, tier, words the basis must contain)
CLASSES = [
    # 1. a message hard-wrapped by a terminal, and an engine's own multi-line report
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--SergiioB-intel-arc-pro-b70-inference-cookbook-4.log",
     "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", "partial", "wrapped"),
    ("trtllm/trtllm.executor.insufficient-memory--NVIDIA-TensorRT-LLM-5872.log",
     "trtllm.executor.insufficient-memory", "kv-cache-allocation", "exact", "wording"),
    # 2. cut short at the end of the input (this one inside its errno, after the decisive
    # strerror, so the wording itself matches); a message cut inside its words
    ("vllm/host.memory.mmap-failed--vllm-project-vllm-9753.log",
     "host.memory.mmap-failed", "weight-loading", "exact", "wording"),
    ("vllm/vllm.sampler.oom-warmup--vllm-project-vllm-27508.log",
     "vllm.sampler.oom-warmup", "warmup", "partial", "cut short"),
    # 3. a traceback cut before its exception line
    ("vllm/torch.cuda.oom-weight-loading--vllm-project-vllm-omni-807.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", "partial", "exception line is not in this log"),
    ("sglang/sglang.runtime.kv-pool-exhausted--sgl-project-sglang-26265.log",
     "sglang.runtime.kv-pool-exhausted", "serving", "partial", "exception line is not in this log"),
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--OpenRLHF-OpenRLHF-336.log",
     "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", "partial", "phase markers"),
    # ... whose frames no signature owns: the error is uncatalogued, where the frames (a paste
    # that starts below the header, its frames logged at error level) or the markers place it
    ("nonmemory/nonmemory-vllm--vllm-project-vllm-22606.log", "uncatalogued", "memory-profiling", "partial",
     "a traceback cut before its exception line; the frames show memory-profiling"),
    ("nonmemory/nonmemory-llamacpp--getumbrel-llama-gpt-119.log", "uncatalogued", "weight-loading", "partial",
     "a traceback cut before its exception line; the phase markers show weight-loading"),
    # 4. out-of-memory in other layers' words: NCCL, cuBLAS, old THC
    ("nccl/cuda.runtime.out-of-memory--nvidia-nccl-962.log", "cuda.runtime.out-of-memory", None, "class", "nccl"),
    ("pytorch/cuda.runtime.out-of-memory--qwenlm-qwen3-873.log", "cuda.runtime.out-of-memory", None, "class", "cublas"),
    ("pytorch/cuda.runtime.out-of-memory--cadene-vqa.pytorch-47.log", "cuda.runtime.out-of-memory", None, "class",
     "cuda-runtime"),
    # 5. a generic OOM inside layer-construction frames is the weight-loading family
    ("pytorch/torch.cuda.oom-weight-loading--amdegroot-ssd.pytorch-447.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", "class", "frames"),
]


@pytest.mark.parametrize(("log", "root_cause", "phase", "tier", "words"), CLASSES, ids=lambda v: str(v)[:48])
def test_each_kind_of_partial_log_is_diagnosed_and_says_what_it_rests_on(log, root_cause, phase, tier, words):
    (report,) = scan(CORPUS / log)
    finding = root(report)
    assert (report["root_cause"], finding["tier"]) == (root_cause, tier)
    if phase:
        assert report["phase"] == phase
    assert words in finding["basis"]
    if tier != "exact":
        assert finding["confidence"] < 1.0


def test_frames_that_no_error_announces_are_not_an_error():
    """Frames without a traceback header, logged at info level (a stack that a warning or a
    debug dump prints), at the end of the input: nothing failed that logkb could point at."""
    frames = b"".join(b'INFO 08-10 16:16:12 [core.py:683]   File "/usr/lib/python3.12/site-packages/vllm/v1/worker/'
                      b'gpu_worker.py", line %d, in determine_available_memory\n' % n for n in (1, 2))
    (report,) = scan("-", stdin=frames)
    assert report["findings"] == []


def test_text_report_says_what_the_diagnosis_rests_on():
    log = CORPUS / "vllm/torch.cuda.oom-weight-loading--vllm-project-vllm-omni-807.log"
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "--no-color", str(log)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 1
    assert "rests on: partial: the exception line is not in this log; the frames show weight-loading" in done.stdout
    assert "The traceback ends before its exception line" in done.stdout


@pytest.mark.parametrize("log", [
    "nonmemory/nonmemory-tgi--huggingface-text-generation-inference-1354.log",  # ValueError, then Shard 0 failed
    "generated/tgi-wrappers-1.log",
])
def test_a_wrapper_never_hides_the_real_non_memory_error(log):
    (report,) = scan(CORPUS / log)
    assert report["root_cause"] == "uncatalogued"
    uncatalogued = root(report)
    assert "Error" in uncatalogued["evidence"] and uncatalogued["fixes"] == []
    roles = {f["id"]: f["role"] for f in report["findings"]}
    assert roles.get("tgi.shard.failed") == "wrapper"


@pytest.mark.parametrize("log", [
    "nonmemory/nonmemory-nccl--NVIDIA-nccl-1589.log",  # a /dev/shm segment that does not exist
    "nonmemory/nonmemory-nccl--NVIDIA-nccl-1410.log",  # NCCL 'unhandled cuda error', not out of memory
])
def test_non_memory_failures_get_no_memory_diagnosis(log):
    (report,) = scan(CORPUS / log)
    memory = [f["id"] for f in report["findings"] if f["id"] != "uncatalogued" and f["role"] != "wrapper"
              and f["severity"] in ("error", "warning")]
    assert memory == []


def test_an_illegal_memory_access_during_capture_is_a_kernel_fault_not_capture_oom():
    (report,) = scan(CORPUS / "sglang/cuda.kernel.fault--shader-slang-slang-6738.log")
    assert report["root_cause"] == "cuda.kernel.fault"
    assert "illegal memory access" in root(report)["evidence"]
    assert "sglang.cudagraph.oom-during-capture" not in {f["id"] for f in report["findings"]}


def test_healthy_logs_stay_silent():
    sidecars = {p: p.with_suffix(".yaml").read_text(encoding="utf-8") for p in LOGS if p.parent.name == "healthy"}
    # A known gap (a sidecar 'gap:' line, listed by 'logkb test') is a documented miss, not silence.
    healthy = [p for p, text in sidecars.items() if "kind: healthy" in text and "\ngap:" not in text]
    assert len(healthy) >= 25
    for report in scan(*healthy):
        # an error another finding explains counts at that one's severity (TensorRT's builder
        # errors before a tactic it skipped, explained by an info note)
        severities = exit_severities({f["id"]: f["severity"] for f in report["findings"]},
                                     {f["id"]: f["explained_by"] for f in report["findings"] if f["explained_by"]})
        assert not {"error", "warning"} & set(severities.values()), report["path"]


def test_a_crash_loop_keeps_every_incident_with_its_own_line():
    one = (CORPUS / "vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log").read_bytes()
    lines = one.count(b"\n")
    (report,) = scan("-", stdin=one * 3)  # the same failing start, three times over
    finding = root(report)
    assert [i["line"] for i in finding["incidents"]] == [finding["line"] + k * lines for k in range(3)]
    assert all(i["phase"] == "kv-cache-allocation" and i["tier"] == "exact" for i in finding["incidents"])
    assert finding["occurrences"] == 3 and report["stats"]["incidents"] == 3


def test_incidents_carry_their_process_tag():
    (report,) = scan(CORPUS / "vllm/vllm.cudagraph.oom-during-capture--vllm-project-vllm-19186.log")
    assert root(report)["incidents"][0]["origin"] == "(VllmWorker rank=3 pid=1090)"


def test_a_ray_actors_repr_in_its_process_tag_is_taken_off_its_traceback():
    """Ray tags an actor's lines with the actor's repr where it has one: '(ActorWorker(reference-0)
    pid=7034, ip=...)'. Under that tag the frames are still read: a traceback cut inside
    Megatron's schedules is an error cut before its exception, in a training step."""
    (report,) = scan(CORPUS / "pytorch/pytorch.cuda.oom--alibaba-ROLL-159.log")
    finding = root(report)
    assert (finding["id"], report["phase"]) == ("uncatalogued", "serving")
    assert finding["incidents"][0]["origin"] == "(ActorWorker(reference-0) pid=7034, ip=22.1.34.130)"


def test_numpys_refused_array_is_host_memory():
    """NumPy's _ArrayMemoryError (the last line of corpus log nnUNet-2912, which also holds the
    GPU out-of-memory nnU-Net caught before it) is host RAM refusing an array."""
    line = (CORPUS / "pytorch/pytorch.cuda.oom--MIC-DKFZ-nnUNet-2912.log").read_bytes().splitlines()[-1]
    assert line.startswith(b"numpy.")
    (report,) = scan("-", stdin=line + b"\n")
    assert root(report)["id"] == "host.memory.alloc-failed"


def test_ray_1s_process_tag_is_taken_off_its_lines():
    """Ray before 2.0 tagged a worker's lines '(pid=3047)' and the raylet's '(pid=raylet)'."""
    (report,) = scan(CORPUS / "nonmemory/nonmemory-other--RLinf-RLinf-624.log")
    assert root(report)["id"] == "uncatalogued"
    assert root(report)["incidents"][0]["origin"].startswith("(pid=")


def _watched(log: Path) -> dict:
    """The checklist ``logkb watch`` prints at the end, as a report dictionary, fed in small
    chunks; the scanner (pipeline.scanner's, as watch builds it) is built once, not per log."""
    session = Session(scanner(), str(log), idle=3600, color=False)
    for chunk in read_chunks(io.BufferedReader(io.BytesIO(log.read_bytes()), buffer_size=4096), str(log)):
        session.feed(chunk)
    report = session.report(None)
    assert report is not None, session.failure
    return file_dict(report)


def test_watch_and_scan_agree_on_every_corpus_log(capsys):
    assert len(LOGS) > 500
    for log in LOGS:
        assert _watched(log) == diagnose_path(str(log)), log
    capsys.readouterr()  # the announcements watch printed on the way


def test_a_native_fatal_statement_is_the_uncatalogued_root_before_the_runner_wrapper() -> None:
    """Ollama's runner aborts on a ggml assertion (no log level, no Python exception); the
    'llama runner terminated' wrapper must point at it, not stand in for it."""
    report = scan(CORPUS / "nonmemory" / "nonmemory-ollama--ollama-ollama-13325.log")[0]
    assert report["root_cause"] == "uncatalogued"
    assert "GGML_ASSERT" in root(report)["evidence"]
    roles = {f["id"]: f["role"] for f in report["findings"]}
    assert roles["ollama.runner.terminated"] == "wrapper"


def test_a_bare_nccl_system_error_is_not_called_a_full_dev_shm() -> None:
    """'NCCL error: unhandled system error' alone has many causes (sockets, InfiniBand,
    /dev/shm): no memory diagnosis, while a log that names the segment still gets one."""
    bare = scan(CORPUS / "nonmemory" / "nonmemory-sglang--sgl-project-sglang-4289.log")[0]
    assert bare["root_cause"] == "uncatalogued"
    assert not [f for f in bare["findings"] if f["id"] == "nccl.shm.insufficient"]
    named = scan(CORPUS / "nccl" / "nccl.shm.insufficient--pytorch-torchtitan-853.log")[0]
    assert named["root_cause"] == "nccl.shm.insufficient"


def test_trtllm_kv_pool_too_small_for_one_sequence_gets_computed_limits() -> None:
    report = scan(CORPUS / "trtllm" / "trtllm.executor.insufficient-memory--triton-inference-server-tensorrtllm_backend-366.log")[0]
    assert (report["root_cause"], report["phase"]) == ("trtllm.executor.insufficient-memory", "kv-cache-allocation")
    first = root(report)["fixes"][0]
    assert first["id"] == "fit-one-sequence"
    # 1 x 128 x 272 tokens for one sequence; the pool's 29184 tokens floored to whole blocks.
    assert "needs 34816" in first["change"] and "max_seq_len at most 29184" in first["change"]


def test_torchrun_sigkill_while_loading_is_the_host_oom_killer() -> None:
    report = scan(CORPUS / "pytorch" / "host.oom-killed--OpenBMB-MiniCPM-V-312.log")[0]
    assert (report["root_cause"], report["phase"]) == ("host.oom-killed", "weight-loading")


@pytest.mark.parametrize("log", [
    "tgi/torch.cuda.oom--huggingface-text-generation-inference-653.log",  # the router's batch span
    "sglang/cuda.runtime.out-of-memory--sgl-project-sglang-4547.log",  # the overlap worker thread's frames
])
def test_serving_is_read_from_request_spans_and_worker_frames(log: str) -> None:
    assert scan(CORPUS / log)[0]["phase"] == "serving"


def test_a_wrapper_quoting_a_kernel_fault_points_at_it() -> None:
    """Ollama's client line 'llama runner process has terminated: CUDA error: an illegal memory
    access ...' wraps a kernel fault: the fault is the root cause, never a memory diagnosis."""
    report = scan(CORPUS / "ollama" / "cuda.kernel.fault--ollama-ollama-9018.log")[0]
    assert report["root_cause"] == "cuda.kernel.fault"
    assert "illegal memory access" in root(report)["evidence"]
    assert [f["id"] for f in report["findings"] if f["role"] != "wrapper"] == ["cuda.kernel.fault"]


def test_a_phase_named_after_the_error_chooses_the_symptoms_owner() -> None:
    """A vLLM worker's OOM line comes before another worker's 'while processing method
    load_model': the phase that follows the error decides the family (weight loading)."""
    report = scan(CORPUS / "vllm" / "torch.cuda.oom-weight-loading--vllm-project-vllm-14095.log")[0]
    assert (report["root_cause"], report["phase"]) == ("pytorch.cuda.oom-weight-loading", "weight-loading")
    assert root(report)["tier"] == "class"


def test_vllms_sleep_mode_allocator_out_of_memory_on_wake_up() -> None:
    """'CUDA Error: out of memory at .../cumem_allocator.cpp:62' (vLLM's sleep-mode allocator, as
    RL trainers wake it) is a CUDA runtime out-of-memory, in the serving phase of its frames."""
    for log in ("vllm/cuda.runtime.out-of-memory--vllm-project-vllm-13941.log",
                "vllm/cuda.runtime.out-of-memory--TideDra-lmm-r1-43.log"):
        report = scan(CORPUS / log)[0]
        assert (report["root_cause"], report["phase"]) == ("cuda.runtime.out-of-memory", "serving"), log


def test_an_nccl_segment_it_may_not_open_is_not_a_full_dev_shm() -> None:
    """'Call to shm_open failed : Permission denied' before the segment error: permissions, not size."""
    report = scan(CORPUS / "nonmemory" / "nonmemory-nccl--NVIDIA-nccl-328.log")[0]
    assert not [f for f in report["findings"] if f["id"] == "nccl.shm.insufficient"]


# (log, root cause, phase, what decides the phase): context that comes from elsewhere than
# the error line itself
PHASE_FROM_CONTEXT = [
    # the error is logged before its traceback (vLLM), or pasted above it: the frames after it
    ("vllm/torch.cuda.oom-weight-loading--vllm-project-vllm-28143.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", "frames"),
    ("pytorch/torch.cuda.oom-fragmentation--huggingface-trl-3436.log", "pytorch.cuda.oom-fragmentation",
     "serving", "frames"),
    # a training step's frames (the backward pass) and a training loop's progress line
    ("pytorch/cuda.runtime.out-of-memory--seanie12-Info-HCVAE-7.log", "cuda.runtime.out-of-memory", "serving", "frames"),
    ("pytorch/torch.cuda.oom-fragmentation--Lightning-AI-litgpt-303.log", "pytorch.cuda.oom-fragmentation",
     "serving", "marker"),
    # other layers' out-of-memory: an Ascend allocator's RuntimeError in SGLang's KV pool frames,
    # the CUDA driver API while Marlin repacks weights, the kernel driver after a draft model load
    ("sglang/torch.cuda.oom--gpustack-gpustack-4761.log", "pytorch.cuda.oom", "kv-cache-allocation", "frames"),
    ("vllm/torch.cuda.oom-weight-loading--noonghunna-club-3090-60.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", "frames"),
    ("vllm/torch.cuda.oom-weight-loading--eugr-spark-vllm-docker-336.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", "marker"),
    # the code line under a user's own frame names the call: load_model(, .generate(, and the
    # arrowed line of a notebook cell
    ("pytorch/torch.cuda.oom-weight-loading--hiyouga-llamafactory-9510.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", "frames"),
    ("pytorch/torch.cuda.oom--thushv89-tutorials_deeplearninghero-1.log", "pytorch.cuda.oom", "serving", "frames"),
    # a line the program prints right after the error names the step: text-generation-webui's
    # 'Output generated in' (its frames below, generate_with_callback, agree)
    ("pytorch/torch.cuda.oom--oobabooga-textgen-963.log", "pytorch.cuda.oom", "serving", "followers"),
]


@pytest.mark.parametrize(("log", "root_cause", "phase", "source"), PHASE_FROM_CONTEXT, ids=lambda v: str(v)[:48])
def test_the_phase_comes_from_the_context_around_the_error(log, root_cause, phase, source):
    (report,) = scan(CORPUS / log)
    assert (report["root_cause"], report["phase"]) == (root_cause, phase)
    assert root(report)["incidents"][0]["phase_source"] == source


def test_setting_up_a_model_inside_trainer_train_is_not_a_training_step():
    """accelerate's prepare wraps the model in DDP inside Trainer.train, before the first step:
    train() itself does not mean the job was running its workload."""
    (report,) = scan(CORPUS / "pytorch/torch.cuda.oom--deepspeedai-deepspeed-4715.log")
    assert report["root_cause"] == "pytorch.cuda.oom" and report["phase"] == "unknown"


def test_the_caching_allocator_warning_alone_is_a_gpu_oom():
    (report,) = scan(CORPUS / "vllm/torch.cuda.oom--vllm-project-vllm-omni-6843.log")
    finding = root(report)
    assert (report["root_cause"], finding["tier"]) == ("pytorch.cuda.oom", "class")
    assert "CUDACachingAllocator" in finding["evidence"]


def test_ggml_init_failing_its_memory_assertion_is_a_host_allocation_failure():
    (report,) = scan(CORPUS / "llamacpp/llamacpp.host.alloc-failed--ggml-org-llama.cpp-1813.log")
    assert report["root_cause"] == "llamacpp.host.alloc-failed"


def test_frames_with_windows_paths_show_the_same_phase():
    """The same traceback with its paths written the Windows way (a transformation of a real
    log made here, not a corpus sample) reads the same phase from its frames."""
    log = CORPUS / "vllm/torch.cuda.oom-weight-loading--vllm-project-vllm-28143.log"
    posix = log.read_text(encoding="utf-8")
    windows = "\n".join(line.replace("/", "\\") if 'File "' in line else line for line in posix.splitlines()) + "\n"
    assert windows != posix
    (report,) = scan("-", stdin=windows.encode())
    assert (report["root_cause"], report["phase"]) == ("pytorch.cuda.oom-weight-loading", "weight-loading")


# Batches I to M: what their logs showed, each on its real log
# (log, root cause, phase or None, engine or None)
FROM_NEW_BATCHES = [
    # batch ET
    # Transformer Engine's make_graphed_callables under Megatron-Core's create_cudagraphs, the
    # traceback cut before its error
    ("pytorch/pytorch.cuda.oom--NVIDIA-TransformerEngine-2543.log", "uncatalogued", "cudagraph-capture", None),
    # batch ES
    # ggml's assertion on a context buffer without the path before 'ggml.c' (starcoder.cpp)
    ("pytorch/llamacpp.host.alloc-failed--bigcode-project-starcoder.cpp-16.log", "llamacpp.host.alloc-failed",
     "weight-loading", None),
    # ROCm's HIP runtime log of a failed hipMalloc ('Allocation failed : Device memory : required')
    ("pytorch/cuda.runtime.out-of-memory--ROCm-legacy-rocm-build-2480.log", "cuda.runtime.out-of-memory", None, None),
    # HIP's early error number for a failed allocation (hipError_t(1002)), TensorFlow on ROCm
    ("pytorch/cuda.runtime.out-of-memory--ROCm-tensorflow-upstream-82.log", "cuda.runtime.out-of-memory", None, None),
    # clang's driver reporting its front end killed ('unable to execute command: Killed')
    ("host/host.build.compiler-killed--ROCm-TheRock-997.log", "host.build.compiler-killed", None, None),
    # batch ER
    # a Metal command buffer's NSError for MTLCommandBufferErrorOutOfMemory (code 8)
    ("pytorch/metal.gpu.out-of-memory--safx-waifu2x-metal-3.log", "metal.gpu.out-of-memory", None, None),
    # Ollama's MLX runner refusing a model larger than the unified memory left (v0.18.2 on)
    ("ollama/ollama.host.insufficient-memory--ollama-ollama-17246.log", "ollama.host.insufficient-memory",
     "device-check", None),
    # TensorRT 7's allocator ('Requested amount of memory (N bytes) could not be allocated')
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-AI-IOT-torch2trt-661.log", "cuda.runtime.out-of-memory", None, None),
    # a DataLoader forking its workers at the start of an epoch (ENOMEM from fork)
    ("host/host.memory.alloc-failed--dusty-nv-jetson-inference-1026.log", "host.memory.alloc-failed", "serving", None),
    # batches EP and EQ
    # the RAPIDS Accelerator for Spark giving up on a GPU allocation ('GPU OutOfMemory: could
    # not split inputs and retry'), Dask-CUDA's spill-on-demand finding nothing to spill,
    # Thrust's 'parallel_for failed: out of memory' and DALI's pipeline on one line
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-cudf-spark-9208.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--rapidsai-cugraph-2694.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-cudf-2667.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-DALI-2084.log", "cuda.runtime.out-of-memory", "serving", None),
    # ONNX Runtime's arena at the memory it may use ('Available memory of 0 is smaller than
    # requested bytes of N')
    ("pytorch/cuda.runtime.out-of-memory--infiniflow-ragflow-4826.log", "cuda.runtime.out-of-memory", "serving", None),
    # runc's 'container init was OOM-killed (memory limit too low?)'
    ("host/host.oom-killed--kubeflow-trainer-1661.log", "host.oom-killed", None, None),
    # Rust's io::Error for ENOMEM ('Cannot allocate memory (os error 12)')
    ("host/host.memory.alloc-failed--qdrant-qdrant-2350.log", "host.memory.alloc-failed", None, None),
    # ComfyUI's dialog naming a node whose type has a colon in it ('LayerMask: BiRefNetUltra')
    ("host/host.memory.alloc-failed--chflame163-ComfyUI_LayerStyle-94.log", "host.memory.alloc-failed", "serving", None),
    # PyTorch Lightning 1.0's Trainer.fit handing the model to its accelerator (model.cuda)
    ("pytorch/pytorch.cuda.oom-weight-loading--Lightning-AI-pytorch-lightning-4442.log", "uncatalogued",
     "weight-loading", None),
    # batch EO
    # the code line of PyTorch's Module.to (convert's 'return t.to(device, ...)') as the paste's
    # first line, its frame cut off: the weights were being moved
    ("pytorch/pytorch.cuda.oom-weight-loading--haoheliu-AudioLDM2-17.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # a Gaussian-splatting rasterizer's code line (2D Gaussian splatting's fork)
    ("pytorch/pytorch.cuda.oom--hbb1-2d-gaussian-splatting-97.log", "pytorch.cuda.oom", "serving", None),
    # a paste whose first line is the rasterizer's frame line, its path cut at the start
    ("pytorch/pytorch.cuda.oom--microsoft-TRELLIS-3.log", "pytorch.cuda.oom", "serving", None),
    # Ollama's API answer when its runner died during a request (v0.9.1 on)
    ("ollama/ollama.runner.terminated--continuedev-continue-11241.log", "ollama.runner.terminated", "serving", None),
    # batch EN
    # macOS's malloc refused a region ('malloc: can't allocate region'): host memory
    ("host/host.memory.alloc-failed--Ma-Dan-Yolact-CoreML-2.log", "host.memory.alloc-failed", None, None),
    # MediaPipe's model mapping with ENOMEM ('Unable to map file to memory buffer, errno=12')
    ("host/host.memory.mmap-failed--google-ai-edge-mediapipe-5930.log", "host.memory.mmap-failed", None, None),
    # Xcode's 'Terminated due to memory issue' (the jetsam limit)
    ("host/host.oom-killed--ynagatomo-ImgGenSD2-6.log", "host.oom-killed", None, None),
    # OpenNMT-py's Translator.translate_batch
    ("pytorch/cuda.runtime.out-of-memory--OpenNMT-OpenNMT-py-743.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch EM
    # AUTOMATIC1111's interrogator (BLIP and CLIP describing an image for a request)
    ("pytorch/pytorch.cuda.oom-fragmentation--AUTOMATIC1111-stable-diffusion-webui-7330.log",
     "pytorch.cuda.oom-fragmentation", "serving", None),
    # batches EK and EL
    # a paste that starts at the code line of the frame it cut off (accelerate moving a weight;
    # autograd's backward), right before the exception
    ("pytorch/pytorch.cuda.oom-weight-loading--Ucas-HaoranWei-GOT-OCR2.0-8.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    ("pytorch/cuda.kernel.fault--OpenGVLab-Vision-RWKV-13.log", "cuda.kernel.fault", "serving", None),
    # Caffe's CUDA_CHECK, and glog's check-failure stack through the network's forward pass
    ("pytorch/cuda.runtime.out-of-memory--CMU-Perceptual-Computing-Lab-caffe_rtpose-44.log",
     "cuda.runtime.out-of-memory", "serving", None),
    # 'Loading checkpoint from <path>' before a rank killed by SIGKILL
    ("host/host.oom-killed--ByteDance-Seed-Bagel-121.log", "host.oom-killed", "weight-loading", None),
    # a request of 16 EiB (warp-ctc's size computed below zero) is no lack of memory
    ("pytorch/nomatch-pytorch--SeanNaren-warp-ctc-151.log", "uncatalogued", None, None),
    # batch EJ
    # OpenCV's host allocator ('(-4:Insufficient memory) Failed to allocate N bytes')
    ("host/host.memory.alloc-failed--Arthurzhangsheng-CodeFormer_GUI-5.log", "host.memory.alloc-failed", None, None),
    # ... but not a request of hundreds of TiB, a size computed from bad data
    ("pytorch/nomatch-other--HKUST-Aerial-Robotics-VINS-Fusion-252.log", None, None, None),
    # RAPIDS Memory Manager's CNMEM pool throwing rmm::bad_alloc: GPU memory
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-Merlin-HugeCTR-131.log", "cuda.runtime.out-of-memory", None, None),
    # TensorFlow 2's eager op on a GPU ('failed to allocate memory [Op:Mul]') while Keras creates a
    # layer's weights
    ("pytorch/cuda.runtime.out-of-memory--flwrlabs-flower-3159.log", "cuda.runtime.out-of-memory", "weight-loading", None),
    # PyTorch Lightning's test_step
    ("pytorch/pytorch.cuda.oom--dhkdnduq-PatchCore_anomaly_detection-7.log", "pytorch.cuda.oom", "serving", None),
    # batch EI
    # TorchInductor's autotuner re-raising Triton's 'out of resource' (shared memory) under the
    # class name OutOfMemoryError: a kernel's limit, not device memory
    ("nonmemory/nonmemory-pytorch--pytorch-pytorch-175250.log", "uncatalogued", None, None),
    # XLA's 'Out of memory allocating N bytes' on a CPU-only host: not the GPU's wording
    ("pytorch/nomatch-other--google-deepmind-weathernext-44.log", "uncatalogued", None, None),
    # older TensorRT's check of a CUDA call in its builder ('Cuda Error in allocate: 2 (out of memory)')
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-TensorRT-840.log", "cuda.runtime.out-of-memory", None, None),
    # TensorFlow naming the Keras train_function whose op failed
    ("pytorch/cuda.runtime.out-of-memory--tensorflow-tensorflow-60607.log", "cuda.runtime.out-of-memory", "serving", None),
    # TorchInductor's cudagraphify_impl (torch.compile's CUDA graphs)
    ("pytorch/cuda.kernel.fault--pytorch-torchdynamo-1821.log", "cuda.kernel.fault", "cudagraph-capture", None),
    # batch EH
    # bash's report of a SIGKILLed job, without the script's name, and its interactive job-control
    # report ('[1]+  Killed  cmd')
    ("host/host.oom-killed--stanford-crfm-helm-655.log", "host.oom-killed", None, None),
    # mmcv's training runner (Runner.run -> train) under an illegal memory access: a training step
    ("pytorch/cuda.kernel.fault--open-mmlab-mmdetection-659.log", "cuda.kernel.fault", "serving", None),
    # ExLlamaV2's dynamic generator producing tokens (iterate -> iterate_gen)
    ("pytorch/cuda.runtime.out-of-memory--turboderp-org-exllamav2-521.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch EG
    # ComfyUI's error report naming a wrapper's loader node ('DownloadAndLoadHyVideoTextEncoder')
    ("pytorch/pytorch.cuda.oom-weight-loading--Comfy-Org-ComfyUI-6435.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # batch EF
    # RAPIDS Memory Manager's pool at its maximum size, raised as std::bad_alloc (Python's
    # MemoryError): GPU memory, not the host's
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-cudf-9232.log", "cuda.runtime.out-of-memory", None, None),
    # CatBoost's GPU memory pool
    ("pytorch/cuda.runtime.out-of-memory--catboost-catboost-302.log", "cuda.runtime.out-of-memory", None, None),
    # llama.cpp's RPC device named with its index ('RPC0[host:port]')
    ("llamacpp/llamacpp.gpu.alloc-failed--ggml-org-llama.cpp-23858.log", "llamacpp.gpu.alloc-failed", "weight-loading", None),
    # LightGBM's 'Start training from score' before a kernel fault
    ("pytorch/cuda.kernel.fault--lightgbm-org-LightGBM-6512.log", "cuda.kernel.fault", "serving", None),
    # batch EE
    # Marian NMT's CUDA_CHECK ("CUDA error 2 'out of memory' - ...: cudaMalloc(&data_, size)"), after
    # its training log's "Ep. N : Up. N" lines and at its start-up workspace reserve
    ("pytorch/cuda.runtime.out-of-memory--marian-nmt-marian-dev-439.log", "cuda.runtime.out-of-memory", "serving", None),
    ("pytorch/cuda.runtime.out-of-memory--marian-nmt-marian-270.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.kernel.fault--marian-nmt-marian-120.log", "cuda.kernel.fault", "serving", None),
    # the Neuron runtime out of pages for a model's DMA rings
    ("pytorch/neuron.device.out-of-memory--aws-neuron-aws-neuron-sdk-369.log", "neuron.device.out-of-memory", None, None),
    # batch ED
    # FastChat's worker relays vLLM's stderr as "<time> | ERROR | stderr | "; the traceback under it
    # is cut after vLLM counted too few GPU blocks, in FastChat's vLLM worker
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--lm-sys-FastChat-3177.log",
     "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", None),
    # Tabby's own summary of llama-server's cudaMalloc failure
    ("llamacpp/llamacpp.gpu.alloc-failed--TabbyML-tabby-4293.log", "llamacpp.gpu.alloc-failed", None, None),
    # a kill right after transformers downloaded a sharded checkpoint, and after InstructorEmbedding
    # announced its model's load
    ("host/host.oom-killed--PromtEngineer-localGPT-99.log", "host.oom-killed", "weight-loading", None),
    ("host/host.oom-killed--PromtEngineer-localGPT-45.log", "host.oom-killed", "weight-loading", None),
    # AUTOMATIC1111's one-line summary ('loading stable diffusion model: OutOfMemoryError') before
    # a traceback cut inside Module.to
    ("pytorch/pytorch.cuda.oom-weight-loading--serpotapov-stable-diffusion-portable-5.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # batch EC
    # Paddle's allocator refusing memory under PaddleOCR's recognizer, whose code line runs a
    # Paddle Inference predictor on a batch
    ("pytorch/cuda.runtime.out-of-memory--PaddlePaddle-PaddleOCR-1470.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch EB
    # a traceback cut inside Megatron-LM's training loop (train, checkpoint_and_decide_exit)
    ("pytorch/nomatch-pytorch--modelscope-ms-swift-5966.log", "uncatalogued", "serving", None),
    # batch DZ
    # PyTorch's warning that the CUDA runtime could not count the devices, error 2 (out of memory)
    ("pytorch/cuda.runtime.out-of-memory--pytorch-pytorch-150048.log", "cuda.runtime.out-of-memory", "device-check", None),
    # a paste that keeps only the last frame, a convolution's _conv_forward
    ("pytorch/pytorch.cuda.oom--ultralytics-yolov5-1698.log", "pytorch.cuda.oom", "serving", None),
    # batch DY
    # Windows' error 1455 in its Chinese text ('[WinError 1455] 页面文件太小'), read by its number
    ("host/host.memory.alloc-failed--zbf1991-WeCLIP-5.log", "host.memory.alloc-failed", None, None),
    # batch DX
    # a Chinese shell's 'Killed' ('已杀死') after qwen-vl-utils read a video
    ("host/host.oom-killed--QwenLM-Qwen3-VL-1938.log", "host.oom-killed", None, None),
    # batch DW
    # older JAX's TPU compiler without 'XLA:TPU compile permanent error.', and the TPU runtime
    # refusing one buffer ('Attempting to allocate N. That was not possible.') in a train_step
    ("pytorch/cuda.runtime.out-of-memory--sokrypton-ColabFold-62.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--google-trax-431.log", "cuda.runtime.out-of-memory", "serving", None),
    # vllm-omni's stage worker printing 'Available KV cache memory: 0.0 GiB', its traceback cut
    ("vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-omni-2865.log", "vllm.kv-cache.no-available-memory",
     "kv-cache-allocation", None),
    # DJL Serving's 'WARN  PyProcess W-252-model-stderr: ' before each line of a vLLM worker
    ("vllm/vllm.cudagraph.oom-during-capture--vllm-project-vllm-2856.log", "uncatalogued", None, "vllm"),
    # batch DV
    # torch.compile's CUDA graph trees in HQQ's code: the runtime's out-of-memory at capture,
    # not vLLM's start-up capture
    ("pytorch/cuda.runtime.out-of-memory--dropbox-hqq-129.log", "cuda.runtime.out-of-memory", "cudagraph-capture", None),
    # Wan's 'INFO: Generating video ...', then the OOM killer
    ("host/host.oom-killed--Wan-Video-Wan2.1-132.log", "host.oom-killed", "serving", None),
    # batch DU
    # the TPU runtime refusing to reserve HBM, under PyTorch/XLA's RuntimeError and in glog lines
    ("pytorch/cuda.runtime.out-of-memory--pytorch-xla-1735.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--pytorch-xla-3470.log", "cuda.runtime.out-of-memory", None, None),
    # vllm-metal's KV-cache budget below zero
    ("vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-metal-585.log", "vllm.kv-cache.no-available-memory",
     "kv-cache-allocation", "vllm"),
    # GPT4All's GPT-J loader lines before ggml's host allocation failed
    ("llamacpp/llamacpp.host.alloc-failed--zylon-ai-private-gpt-767.log", "llamacpp.host.alloc-failed", "weight-loading",
     None),
    # batch DS
    # PaddleDetection's epoch line, loss terms first, then the OOM killer: a step of the workload,
    # written by no engine the line names
    ("host/host.oom-killed--PaddlePaddle-PaddleDetection-8283.log", "host.oom-killed", "serving", None),
    # vLLM's FlashAttention fallback logged at ERROR level, and a sitecustomize that failed to
    # import: a healthy start-up stays silent
    ("healthy/healthy-vllm--eslam-ahmed43-llm-lab-vllm_server.log", None, None, None),
    # batch DT
    # a ROCm page fault under Ollama's runner
    ("ollama/cuda.kernel.fault--ollama-ollama-11697.log", "cuda.kernel.fault", "serving", None),
    # kohya-ss's trainer loading a checkpoint to the GPU, the message cut by the store
    ("pytorch/pytorch.cuda.oom-weight-loading--kohya-ss-sd-scripts-648.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # batch DQ
    # a bare 'Killed' while CMake's make builds CUDA objects: a compiler's kill, not a program's
    ("host/host.build.compiler-killed--dusty-nv-jetson-containers-1295.log", "host.build.compiler-killed", None, None),
    # nvcc's front end cudafe++ killed by signal 9
    ("host/host.build.compiler-killed--NVlabs-curobo-109.log", "host.build.compiler-killed", None, None),
    # a bare 'Killed' among ninja's nvcc command lines (PyTorch's extension builder)
    ("host/host.build.compiler-killed--NVIDIA-apex-1367.log", "host.build.compiler-killed", None, None),
    # Windows' commit limit ('The paging file is too small', error 1455), from Python and from Rust
    ("host/host.memory.alloc-failed--thu-ml-tianshou-527.log", "host.memory.alloc-failed", None, None),
    ("host/host.memory.alloc-failed--Comfy-Org-ComfyUI-8065.log", "host.memory.alloc-failed", None, None),
    # the tail of PyTorch's out-of-memory message, its start cut off by the paste
    ("pytorch/pytorch.cuda.oom--Intellindust-AI-Lab-DEIMv2-131.log", "pytorch.cuda.oom", None, None),
    # the shell's 'Killed' glued to a progress message without its newline
    ("host/host.oom-killed--berylliumsec-nebula-33.log", "host.oom-killed", None, None),
    # batch DP
    # NVIDIA Warp's 'Warp CUDA error 2: out of memory'
    ("pytorch/cuda.runtime.out-of-memory--google-deepmind-mujoco_warp-926.log", "cuda.runtime.out-of-memory", None, None),
    # batch DO
    # MXNet's storage manager words its cudaMalloc failure as ggml does: not llama.cpp's
    ("pytorch/cuda.runtime.out-of-memory--zackchase-mxnet-the-straight-dope-361.log", "cuda.runtime.out-of-memory",
     None, None),
    # pinned host memory refused (MindSpore's cudaHostAlloc)
    ("host/host.memory.alloc-failed--mindspore-ai-mindspore-172.log", "host.memory.alloc-failed", None, None),
    # batch DN
    # ncnn's Vulkan allocator ('vkAllocateMemory failed -2'): the Vulkan family, not ggml's
    ("pytorch/vulkan.gpu.out-of-memory--nihui-zimage-ncnn-vulkan-24.log", "vulkan.gpu.out-of-memory", None, None),
    # MSVC's 'bad allocation' on its own line under OpenVINO's allocator: host memory
    ("host/host.memory.alloc-failed--openvinotoolkit-openvino-34345.log", "host.memory.alloc-failed", None, None),
    # an example script's 'Generating response...' before the kill: the model was answering
    ("host/host.oom-killed--microsoft-onnxruntime-genai-1146.log", "host.oom-killed", "serving", None),
    # EasyDiffusion's 'Could not load the ... model! Reason:' around PyTorch's out-of-memory
    ("pytorch/pytorch.cuda.oom-weight-loading--easydiffusion-easydiffusion-1790.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # batch DM
    # hipBLASLt's client check 'error: out of memory (2) at <file>:<line>'
    ("pytorch/cuda.runtime.out-of-memory--ROCm-TheRock-1750.log", "cuda.runtime.out-of-memory", None, None),
    # TensorRT's allocateAsync line under Triton in a NIM: TensorRT's line names no TensorRT-LLM
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-AI-Blueprints-rag-51.log", "cuda.runtime.out-of-memory", None, None),
    # a VITS-style trainer's train_and_evaluate frame: a training step
    ("pytorch/pytorch.cuda.oom-fragmentation--RVC-Project-Retrieval-based-Voice-Conversion-WebUI-678.log",
     "pytorch.cuda.oom", "serving", None),
    # batch DL
    # Colossal-AI's lazy init materializing a model's parameters on the GPU: weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--hpcaitech-ColossalAI-5068.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # torchtitan's 'Training starts at step N' before a rank's kernel fault relayed by NCCL's watchdog
    ("pytorch/cuda.kernel.fault--pytorch-torchtitan-810.log", "cuda.kernel.fault", "serving", None),
    # TensorRT 8.6's allocator line with its namespaced function name is the decisive line
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-TensorRT-3017.log", "cuda.runtime.out-of-memory", None, None),
    # batch DK
    # a Go server relaying its worker's 'exit status 137'
    ("host/host.oom-killed--rishikanthc-Scriberr-149.log", "host.oom-killed", None, None),
    # cuML's RMM out-of-memory inside an estimator's fit: the workload
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-cuml-4067.log", "cuda.runtime.out-of-memory", "serving", None),
    # CatBoost's own GPU memory pool refusing a request
    ("pytorch/cuda.runtime.out-of-memory--catboost-catboost-2750.log", "cuda.runtime.out-of-memory", None, None),
    # text-generation-webui's chat prompt that did not fit its truncation length
    ("pytorch/request.context-length-exceeded--oobabooga-textgen-6534.log", "request.context-length-exceeded",
     "request-validation", None),
    # TVM's Vulkan check under MLC LLM after its 'Loading model...': the Vulkan family, while loading
    ("pytorch/vulkan.gpu.out-of-memory--mlc-ai-mlc-llm-1584.log", "vulkan.gpu.out-of-memory", "weight-loading", None),
    # batch DI
    # SPECFEM's own check: 'CUDA error' and the runtime's 'out of memory' with separators of its own
    ("pytorch/cuda.runtime.out-of-memory--SPECFEM-specfem3d-1344.log", "cuda.runtime.out-of-memory", None, None),
    # ONNX Runtime's CUDA provider ('CUDA failure 2: out of memory'), glued to a progress bar
    ("pytorch/cuda.runtime.out-of-memory--hacksider-Deep-Live-Cam-584.log", "cuda.runtime.out-of-memory", None, None),
    # TensorRT deserializing an engine under a PyTorch program's loader: TensorRT's out-of-memory, not
    # PyTorch's weight-loading family, whose knobs do not reach TensorRT's allocator
    ("pytorch/cuda.runtime.out-of-memory--open-mmlab-Live2Diff-9.log", "cuda.runtime.out-of-memory", None, None),
    # batch DH
    # DALI's 'CUDA allocation failed' under its PyTorch iterator: the runtime's out-of-memory, in a training loop
    ("pytorch/cuda.runtime.out-of-memory--NVIDIA-DALI-2836.log", "cuda.runtime.out-of-memory", "serving", None),
    # CuPy's memory pool ('Out of memory allocating N bytes (allocated so far: M bytes)'), relayed by Chainer
    ("pytorch/cuda.runtime.out-of-memory--cupy-cupy-2537.log", "cuda.runtime.out-of-memory", None, None),
    # PyTorch's 'Tried to allocate more than 1EB memory': a garbage size, no memory diagnosis
    ("pytorch/nomatch-pytorch--open-mmlab-mmdetection-11096.log", "uncatalogued", None, None),
    # batch DG
    # bash's report of a child killed by SIGKILL, its padding collapsed by a paste outside a code block
    ("host/host.oom-killed--Naver-AI-Hackathon-AI-Vision-200.log", "host.oom-killed", None, None),
    # batch DF
    # fairseq's trainer logging the out-of-memory of a batch it skips: a step of the workload
    ("pytorch/pytorch.cuda.oom-fragmentation--pytorch-pytorch-93378.log", "pytorch.cuda.oom", "serving", None),
    # batch DE
    # llama-server ending a request whose context filled with context shift off, in GPUStack's
    # llama-box access log: a request over its context, with llama.cpp's knobs
    ("llamacpp/request.context-length-exceeded--gpustack-gpustack-1241.log", "request.context-length-exceeded",
     "request-validation", "llamacpp"),
    # a loader named after the part it loads (musubi-tuner's load_<model>_text_encoder), in a
    # Windows paste whose frames lost their indentation
    ("pytorch/pytorch.cuda.oom-weight-loading--kohya-ss-musubi-tuner-978.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # batch DD
    # llama-perplexity's run over its chunks, before ggml's CUDA pool runs out in its backtrace
    ("llamacpp/llamacpp.gpu.alloc-failed--ggml-org-llama.cpp-14939.log", "llamacpp.gpu.alloc-failed", "serving", None),
    # batch DC
    # a shell's kill report copied from GitHub's web view of an Actions log, its pid split by a line link
    ("host/host.oom-killed--Azure-azureml-assets-149.log", "host.oom-killed", None, None),
    # batch DB
    # PhysX's GPU allocator under Isaac Gym, in a job log with timestamps and a '[job]' tag
    ("pytorch/cuda.runtime.out-of-memory--isaac-sim-IsaacGymEnvs-256.log", "cuda.runtime.out-of-memory", None, None),
    # batch DA
    # cuBLAS failing while ONNX Runtime builds a session (VOICEVOX): the runtime's, not PyTorch's, weight loading
    ("pytorch/cuda.runtime.out-of-memory--VOICEVOX-voicevox_engine-513.log", "cuda.runtime.out-of-memory",
     "weight-loading", None),
    # batch CZ
    # Slurm's task label ('0: ', srun --label) before every line of an FSDP job's traceback
    ("pytorch/pytorch.cuda.oom--awslabs-awsome-distributed-ai-220.log", "pytorch.cuda.oom", "serving", None),
    # batch CY
    # fairseq's 'WARNING: ran out of memory, skipping batch' (Boltz) on Lightning's predict bar
    ("pytorch/pytorch.cuda.oom--jwohlwend-boltz-167.log", "pytorch.cuda.oom", "serving", None),
    # XLA's stream-executor allocator under JAX (ColabFold), after the program's own words
    ("pytorch/cuda.runtime.out-of-memory--YoshitakaMo-localcolabfold-155.log", "cuda.runtime.out-of-memory", None, None),
    # batch CX
    # ComfyUI's dialog copied with the loader node's name above the out-of-memory: weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--Comfy-Org-ComfyUI-5886.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", "pytorch"),
    # batch CW
    # the Trainer's call of its training step, where the paste ends: a cut traceback in a step
    ("pytorch/pytorch.cuda.oom--modelscope-ms-swift-5292.log", "uncatalogued", "serving", None),
    # batch CV
    # a bare 'CUDA error: out of memory' under Wan2GP's load_models frame: the weight-loading family
    ("pytorch/pytorch.cuda.oom-weight-loading--deepbeepmeep-Wan2GP-1277.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # batch CS
    # PyTorch's device-index assertion in a Ray actor of a cluster without MIG: a device list, not MIG
    ("vllm/cuda.device.mig-visible-devices--OpenRLHF-OpenRLHF-866.log", "cuda.device.mig-visible-devices",
     "device-check", "vllm"),
    # batch CR
    # a shell's 'Killed' closing a Markdown code span, after llama.cpp's converter's per-tensor lines
    ("host/host.oom-killed--ggml-org-llama.cpp-5156.log", "host.oom-killed", "weight-loading", "llamacpp"),
    # batch CQ
    # torch_npu's legacy layout, read: reserved minus allocated (10.26 GiB) above the 9.05 GiB request
    ("vllm/pytorch.cuda.oom-fragmentation--vllm-project-vllm-omni-2128.log", "pytorch.cuda.oom-fragmentation", None,
     "vllm"),
    # verl's 'Training Progress' bar at step 116 before Ray's memory monitor killed a worker
    ("host/ray.memory-monitor.worker-killed--verl-project-verl-4995.log", "ray.memory-monitor.worker-killed",
     "serving", None),
    # batch CO
    # the BFC allocator of XLA (JAX) on a GPU, its last try failed: the log ends at its warning
    ("pytorch/cuda.runtime.out-of-memory--jax-ml-jax-27354.log", "cuda.runtime.out-of-memory", None, None),
    # PyTorch's out-of-memory under vLLM's own logging header, below the command that started it
    ("vllm/torch.cuda.oom-weight-loading--vllm-project-aibrix-1054.log", "pytorch.cuda.oom", None, "vllm"),
    # batch CN
    # IPython's arrow padded to one digit ('----> 7') under a notebook cell calling transformers.pipeline(
    ("pytorch/pytorch.cuda.oom-weight-loading--fixie-ai-ultravox-293.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # faster-whisper's WhisperModel constructor ('__init__' rendered as 'init' by Markdown)
    ("pytorch/cuda.runtime.out-of-memory--Purfview-whisper-standalone-win-50.log", "cuda.runtime.out-of-memory",
     "weight-loading", None),
    # Forge's '[Memory Management] Target: KModel' on the line of the CUDA runtime's out-of-memory
    ("pytorch/pytorch.cuda.oom-weight-loading--lllyasviel-stable-diffusion-webui-forge-1926.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # batch CL
    # vllm-ascend's _process_reqs runs a scheduled batch (called only from execute_model)
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-ascend-3965.log", "pytorch.cuda.oom", "serving", None),
    # a DataLoader fetching the next batch: the job was iterating over its data
    ("host/host.oom-killed--Visual-AI-3DRS-7.log", "host.oom-killed", "serving", None),
    # llama.cpp's fitter projecting more than is free and stopping at the user's tensor placements
    ("llamacpp/llamacpp.fit.projected-over-free--ggml-org-llama.cpp-27872.log", "llamacpp.fit.projected-over-free",
     "weight-loading", "llamacpp"),
    # batch CK
    # KoboldAI's API answers a generation request that ran out of memory with HTTP 507 and an
    # 'out_of_memory.*' error type: the error a client relays came while serving
    ("pytorch/cuda.runtime.out-of-memory--henk717-KoboldAI-381.log", "cuda.runtime.out-of-memory", "serving", None),
    # vLLM V1's input dump, logged when a scheduled batch fails: the traceback after it is the serving loop's
    ("nonmemory/nonmemory-vllm--vllm-project-vllm-metal-111.log", "uncatalogued", "serving", "vllm"),
    # batch CJ
    # Megatron-Core's build_module and Transformer Engine's GroupedLinear constructor: the model was being built
    ("pytorch/pytorch.cuda.oom-weight-loading--modelscope-ms-swift-9191.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # batch CI
    # AUTOMATIC1111's 'Model loaded in 2.7s (...)': the fault after the sampling steps is the UI's generation
    ("pytorch/cuda.kernel.fault--ROCm-legacy-rocm-build-3452.log", "cuda.kernel.fault", "serving", None),
    # TorchScript's '<backward op>' frame: a backward pass, a training step's
    ("pytorch/pytorch.cuda.oom-fragmentation--huggingface-accelerate-1864.log", "pytorch.cuda.oom-fragmentation",
     "serving", None),
    # the model patcher's 'ERROR <weight key> <exception>' while Fooocus makes the model resident
    ("pytorch/pytorch.mps.oom--lllyasviel-Fooocus-1341.log", "pytorch.mps.oom", "weight-loading", None),
    # batch CH
    # Python logging's '[INFO] ' prefix, and ComfyUI's dynamic VRAM loader ending the load that
    # 'Requested to load' opened: the out-of-memory at the first sampling step is the workflow's
    ("pytorch/cuda.runtime.out-of-memory--Comfy-Org-ComfyUI-14165.log", "cuda.runtime.out-of-memory", "serving", None),
    ("pytorch/cuda.kernel.fault--Comfy-Org-ComfyUI-15271.log", "cuda.kernel.fault", "serving", None),
    # ComfyUI's '!!! Exception during processing !!!' under an '[ERROR] ' prefix
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-14672.log", "pytorch.cuda.oom", "serving", None),
    # batch CG
    # MLX's own Metal errors: a command buffer out of memory, with or without macOS's code in brackets
    ("pytorch/metal.gpu.out-of-memory--ml-explore-mlx-lm-236.log", "metal.gpu.out-of-memory", "serving", None),
    ("pytorch/metal.gpu.out-of-memory--jjang-ai-vmlx-58.log", "metal.gpu.out-of-memory", None, None),
    # ... and one array longer than Metal's largest buffer (the older wording, without '[metal::malloc]'),
    # in mlx-vlm's generation frames as Python's faulthandler prints them
    ("pytorch/metal.gpu.out-of-memory--Blaizzy-mlx-vlm-79.log", "metal.gpu.out-of-memory", "serving", None),
    ("vllm/metal.gpu.out-of-memory--vllm-project-vllm-metal-274.log", "metal.gpu.out-of-memory", "serving", "vllm"),
    # macOS's description alone: no engine named, so not llama.cpp's diagnosis
    ("pytorch/metal.gpu.out-of-memory--ddalcu-mlx-serve-321.log", "metal.gpu.out-of-memory", None, None),
    # ... and in a llama.cpp log, where ggml's 'command buffer N failed with status 5' names the engine
    ("llamacpp/llamacpp.metal.out-of-memory--ggml-org-llama.cpp-4406.log", "llamacpp.metal.out-of-memory", None,
     "llamacpp"),
    # ComfyUI's 'Got an OOM, unloading all loaded models.' without the exception's own line
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-12920.log", "pytorch.cuda.oom", "serving", None),
    # a traceback vLLM logged as a warning (an optional kernel library that did not import) is no error
    ("healthy/healthy-vllm--Ning-Guo-hotpotqa-agent-exp1.log", None, None, "vllm"),
    # batch CE
    # verl's per-step metrics lines: a DataLoader worker killed at the end of training is in the run
    ("host/host.oom-killed--2215860382-VedioSifter-train_run_20260421.log", "host.oom-killed", "serving", None),
    # batch CD
    # PyTorch/XLA's TPU compiler out of HBM, raised without JAX's RESOURCE_EXHAUSTED status
    ("pytorch/cuda.runtime.out-of-memory--Chrisytz-verl-verl_no_vllm_full_seqlen.log", "cuda.runtime.out-of-memory",
     "serving", None),
    # batches CA and CB
    # llama-server's own 'request (N tokens) exceeds the available context size (M tokens)'
    ("llamacpp/request.context-length-exceeded--harrier77-nim_llamaserver_chatbot-llama_server.log",
     "request.context-length-exceeded", "request-validation", "llamacpp"),
    # Ollama refusing an embedding input longer than the model's context
    ("ollama/request.context-length-exceeded--CryZenXs-Projeto_Angela_6.0-ollama-server-log.log",
     "request.context-length-exceeded", "request-validation", "ollama"),
    # PyTorch's NVML assertion in place of its out-of-memory message, while vLLM builds the layers
    ("vllm/pytorch.cuda.oom-weight-loading--baodangtrandev-RAG--vllm_output-log.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", "vllm"),
    # a UTF-16 log (what PowerShell's '>' writes)
    ("vllm/vllm.kv-cache.no-available-memory--Kartikeya2046-Invoice-Processor_VLM-vllm_log-txt.log",
     "vllm.kv-cache.no-available-memory", "kv-cache-allocation", "vllm"),
    # LM Studio's server starting a chat completion: the crash after it is serving
    ("llamacpp/llamacpp.gpu.alloc-failed--Nemeca99-AIOS-cursor_issues_with_pytest.log", "llamacpp.gpu.alloc-failed",
     "serving", "llamacpp"),
    # batch BY
    # TorchInductor's codegen calls wrapper_code.generate() inside vLLM's profiling run: not a
    # model generating
    ("vllm/pytorch.cuda.oom--mobambas-Agentic-Healthcare-Maps-vllm-server.log", "pytorch.cuda.oom", "memory-profiling",
     "vllm"),
    # a program's own training() loop, no marker naming a step: the model was computing
    ("pytorch/pytorch.cuda.oom--elbuho12Jesus-2d-gaussian-splatting-modificate-train_error-log.log", "pytorch.cuda.oom",
     "serving", None),
    # batch BW
    # FSDP wrapping a model flattens each unit's parameters on the GPU: weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--Lottotpk-graphRAG_multimodal-LaViC-fsdp-oom.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # the program prints the out-of-memory, then its traceback through a transformers model's
    # forward: the model was computing, so 'Loading checkpoint shards' a hundred lines above is
    # no longer the step
    ("pytorch/pytorch.cuda.oom--sungwon-chae-arxiv_confi-etu_logging-train-oom.log", "pytorch.cuda.oom", "serving", None),
    # batch BT
    # AUTOMATIC1111's 'Stable diffusion model failed to load, exiting' after the out-of-memory
    # names the step that failed: the weights' move to a 2 GB GPU
    ("pytorch/pytorch.cuda.oom-weight-loading--AUTOMATIC1111-stable-diffusion-webui-10185.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # batch BS
    # frames without their traceback header, cut before the exception: an uncatalogued error
    # in the step the frames show (vLLM's LLM.wake_up, which an RL trainer calls between steps)
    ("vllm/cuda.runtime.out-of-memory--verl-project-verl-575.log", "uncatalogued", "serving", None),
    # the paste ends inside a frame line ('File "/home/.../lib/pyt'), two lines under the last
    # whole frame: the traceback still reaches the end of the input
    ("pytorch/pytorch.cuda.oom--Wan-Video-Wan2.2-134.log", "uncatalogued", "serving", None),
    # a cut traceback after vLLM sized its KV cache is not max_model_len's check when the log
    # says one request of that length fits ('Maximum concurrency ... 4.87x')
    ("vllm/pytorch.cuda.oom--huggingface-trl-2688.log", "uncatalogued", "kv-cache-allocation", "vllm"),
    # an application's own from_pretrained, building a diffusers pipeline: weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--Tencent-Hunyuan-HunyuanWorld-Voyager-17.log", "uncatalogued",
     "weight-loading", None),
    # batch BQ
    # IPython's header names OutOfMemoryError above frames whose source lines run to the end of
    # the paste: the traceback is cut there, and the header speaks for the lost exception line
    ("pytorch/pytorch.cuda.oom--unslothai-unsloth-1667.log", "pytorch.cuda.oom", None, None),
    # a scheduler's traceback under Ray's '(Actor pid=N, ip=A)' prefix, cut before its exception
    ("sglang/cuda.kernel.fault--sgl-project-sglang-6309.log", "uncatalogued", "serving", "sglang"),
    # Buildkite's timestamps pasted in front of each line of a cut traceback
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-omni-3430.log", "uncatalogued", None, None),
    # TurboMind creating its weights on each GPU is weight loading
    ("pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-3154.log", "uncatalogued", "weight-loading", None),
    # batch BP
    # torchrun's failure summary pasted with its line breaks lost and 'signal 9' in lower case
    ("host/host.oom-killed--ZhehengJiangLancaster-AMVUR-2.log", "host.oom-killed", None, None),
    # batch BM
    # a LoRA patch that runs out while ComfyUI's model manager loads Flux2: weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--Comfy-Org-ComfyUI-11144.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # ROCm's memory access fault, cut by the paste inside its line
    ("llamacpp/cuda.kernel.fault--ggml-org-llama.cpp-22052.log", "cuda.kernel.fault", "serving", None),
    # batch BL
    # AMD's debugger stopping a GPU wave on a memory violation: a kernel fault, not memory
    ("vllm/cuda.kernel.fault--vllm-project-vllm-10381.log", "cuda.kernel.fault", None, None),
    # vLLM-Omni's video request handler in a traceback cut before its exception: serving
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-omni-1671.log", "uncatalogued", "serving", "vllm"),
    # batch BJ
    # TurboMind's check of a CUDA call pasted without its level, named by its source file
    ("pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-1943.log", "cuda.runtime.out-of-memory", None, None),
    # batch BI
    # torch_npu's workspace allocator out of memory, on a line that begins with a progress bar
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-ascend-4678.log", "pytorch.cuda.oom", None, None),
    # AdamW allocating its state on the first optimizer step: a training step
    ("pytorch/pytorch.cuda.oom--QwenLM-Qwen3-VL-1351.log", "pytorch.cuda.oom", "serving", None),
    # torch.load's FutureWarning before a rank is killed: the checkpoint was being read
    ("host/host.oom-killed--Tencent-Hunyuan-HunyuanVideo-102.log", "host.oom-killed", "weight-loading", None),
    # a transformers layer's forward under a cut nn.Module frame: a model computing
    ("pytorch/pytorch.cuda.oom--modelscope-ms-swift-9112.log", "pytorch.cuda.oom", "serving", None),
    # batch BH
    # a small engine's own words that its KV cache does not fit the memory left: that step
    ("pytorch/nomatch-other--FlashML-org-FreeToken-419.log", None, "kv-cache-allocation", None),
    ("pytorch/nomatch-other--guoqingbao-xinfer-195.log", "uncatalogued", "kv-cache-allocation", None),
    # an INFO line between an error and the traceback that re-raises it ends nothing: the
    # traceback's training-step frames still give the error its phase
    ("pytorch/cuda.kernel.fault--k2-fsa-icefall-1764.log", "cuda.kernel.fault", "serving", None),
    # batch BG
    # an application relaying that its training child ended with exit code -9 (SIGKILL)
    ("host/host.oom-killed--mattmireles-gemma-tuner-multimodal-19.log", "host.oom-killed", None, None),
    # stable-diffusion.cpp's weight buffer that Vulkan could not allocate
    ("llamacpp/llamacpp.gpu.alloc-failed--leejet-stable-diffusion.cpp-558.log", "llamacpp.gpu.alloc-failed",
     "weight-loading", None),
    # a kernel fault inside PyTorch's replay of a captured CUDA graph: serving
    ("vllm/cuda.kernel.fault--vllm-project-vllm-41257.log", "cuda.kernel.fault", "serving", None),
    # batch BF
    # a small engine's own device allocation failure ending in the runtime's 'out of memory' (ds4)
    ("pytorch/cuda.runtime.out-of-memory--antirez-ds4-410.log", "cuda.runtime.out-of-memory", None, None),
    # CTranslate2's own allocation while faster-whisper loads: its settings, not PyTorch's weight-loading knobs
    ("pytorch/cuda.runtime.out-of-memory--heimoshuiyu-whisper-fastapi-1.log", "cuda.runtime.out-of-memory",
     "weight-loading", None),
    # TurboMind's '[TM][ERROR] [Engine] Warm-up for N tokens failed': an error logged while warming up
    ("pytorch/nomatch-other--InternLM-lmdeploy-4366.log", "uncatalogued", "warmup", None),
    # batch BE
    # Ray's RayTaskError header names the remote task: NeMo-RL's get_logprobs is a step of the job
    ("pytorch/pytorch.cuda.oom--NVIDIA-NeMo-RL-3793.log", "pytorch.cuda.oom", "serving", None),
    # ... and an RL worker's init_model loads the weights
    ("pytorch/pytorch.cuda.oom-weight-loading--NovaSky-AI-SkyRL-1221.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # Ray's '[repeated 3x across cluster]' after each line no longer hides vLLM's sleep-mode wake-up frames
    ("vllm/cuda.runtime.out-of-memory--OpenRLHF-OpenRLHF-1050.log", "cuda.runtime.out-of-memory", "serving", None),
    # llama.cpp's own 'failed to find KV cache slot for ubatch' in an application on its library
    ("llamacpp/llamacpp.kv-cache.no-free-space--LostRuins-koboldcpp-1535.log", "llamacpp.kv-cache.no-slot-for-batch",
     "serving", None),
    # PyTorch on an Intel GPU raising Level Zero's out-of-device-memory code
    ("pytorch/cuda.runtime.out-of-memory--intel-torch-xpu-ops-5432.log", "cuda.runtime.out-of-memory", None, None),
    # the amdgpu kernel driver's page-fault report in dmesg
    ("host/cuda.kernel.fault--ROCm-legacy-rocm-build-5616.log", "cuda.kernel.fault", None, None),
    # native stacks, innermost frame first: the mapped frame names the phase
    # ggml's CUDA error report, then a speculative draft's frame while generating
    ("llamacpp/llamacpp.gpu.alloc-failed--airelien.dev-qwen36-27b-mtp-oom-fix-q2kxl.log", "llamacpp.gpu.alloc-failed",
     "serving", None),
    # Go's panic stack before Ollama's report: the runner reserving its worst-case graph
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-10553.log", "llamacpp.gpu.alloc-failed", "warmup", None),
    # Go's panic stack: Ollama's engine creating the model's backend for its weights
    ("ollama/llamacpp.gpu.alloc-failed--ollama-ollama-9791.log", "llamacpp.gpu.alloc-failed", "weight-loading", None),
    # compute-sanitizer's host frames: a K-shift of a cache that requests filled
    ("llamacpp/cuda.kernel.fault--LostRuins-koboldcpp-1469.log", "cuda.kernel.fault", "serving", None),
    # batch BD
    # Docker's inspect output of a container the OOM killer did not end ('"OOMKilled": false')
    ("nonmemory/nonmemory-llamacpp--ggml-org-llama.cpp-17060.log", None, None, None),
    # a Kubernetes pod's terminated state, exitCode 137 (SIGKILL from its memory limit)
    ("host/host.oom-killed--kserve-kserve-2290.log", "host.oom-killed", None, None),
    # Slurm's current wording of a step's cgroup OOM kills ('Detected 2 oom_kill events in StepId=...')
    ("host/host.oom-killed--snakemake-snakemake-executor-plugin-slurm-371.log", "host.oom-killed", None, None),
    # fairseq's and metaseq's 'begin training epoch N': the out-of-memory after it is a training step
    ("pytorch/pytorch.cuda.oom--facebookresearch-metaseq-314.log", "pytorch.cuda.oom", "serving", None),
    # batch BC
    # Python's bare MemoryError while a checkpoint is read into host RAM
    ("host/host.memory.alloc-failed--KawaiiKraken-GLaDOS-GPT-14.log", "host.memory.alloc-failed", "weight-loading", None),
    # earlyoom, a userspace OOM daemon, ending the process with the most memory
    ("host/host.oom-killed--Comfy-Org-ComfyUI-15276.log", "host.oom-killed", None, None),
    # an exception line a chat reply set in bold: the markers split PyTorch's message
    ("pytorch/pytorch.cuda.oom-fragmentation--facebookresearch-detectron2-1563.log", "pytorch.cuda.oom-fragmentation",
     "serving", None),
    # batch BB
    # an IPython traceback cut before its exception: the header names OutOfMemoryError, the frames the warmup
    ("vllm/vllm.sampler.oom-warmup--unslothai-unsloth-3542.log", "vllm.sampler.oom-warmup", "warmup", "vllm"),
    # verl's actor computing log-probabilities on a rollout batch: a step of the running job
    ("pytorch/pytorch.cuda.oom--verl-project-verl-2828.log", "pytorch.cuda.oom", "serving", None),
    # ExLlamaV2 placing modules over an automatic split: an out-of-memory there is the weights not fitting
    ("pytorch/pytorch.cuda.oom-weight-loading--turboderp-org-exllamav2-166.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # vLLM's 'Loading weights took N seconds': the weights' post-processing after it is still loading
    ("vllm/vllm.engine.core-failed--syv-ai-qwen38-27b-rtx3090-1.log", "vllm.engine.core-failed", "weight-loading", "vllm"),
    # llama.cpp's loader error cut right after its colon, logged after the allocation it reports
    ("llamacpp/llamacpp.gpu.alloc-failed--oobabooga-textgen-5987.log", "llamacpp.gpu.alloc-failed", "weight-loading",
     "llamacpp"),
    # Ray's memory monitor with the node's IP taken out of its report
    ("host/ray.memory-monitor.worker-killed--OpenRLHF-OpenRLHF-171.log", "ray.memory-monitor.worker-killed", None, None),
    # batch BA
    # ComfyUI's browser dialog for a node that raised while a queued workflow ran
    ("pytorch/pytorch.cuda.oom--JettHu-ComfyUI_TGate-10.log", "pytorch.cuda.oom", "serving", None),
    # a launcher's CalledProcessError for a child killed by SIGKILL while checkpoint shards loaded
    ("host/host.oom-killed--huggingface-autotrain-advanced-456.log", "host.oom-killed", "weight-loading", None),
    # allocation lines glued together: the KV-cache step's own failure line places it
    ("llamacpp/llamacpp.gpu.alloc-failed--kyuz0-amd-strix-halo-toolboxes-65.log", "llamacpp.gpu.alloc-failed",
     "kv-cache-allocation", "llamacpp"),
    # batch AY
    # a ComfyUI custom node's own frames: the node was running for a queued workflow
    ("pytorch/pytorch.cuda.oom--Enemyx-net-VibeVoice-ComfyUI-17.log", "pytorch.cuda.oom", "serving", None),
    # batch AX
    # a frame line broken after its path's comma; SGLang's hybrid request pool allocating its Mamba states
    ("sglang/pytorch.cuda.oom--sgl-project-sglang-24364.log", "pytorch.cuda.oom", "kv-cache-allocation", None),
    # ONNX Runtime's arena: while a session ran a node, and while a session was built
    ("pytorch/cuda.runtime.out-of-memory--C0untFloyd-roop-unleashed-182.log", "cuda.runtime.out-of-memory", "serving", None),
    ("pytorch/cuda.runtime.out-of-memory--iperov-DeepFaceLive-33.log", "cuda.runtime.out-of-memory", "weight-loading", None),
    # ... and in a node only ONNX Runtime's CPU provider runs (an NCHWc node): host RAM
    ("pytorch/host.memory.alloc-failed--DayBreak-u-chineseocr_lite-355.log", "host.memory.alloc-failed", "serving", None),
    # a request of 10 PB or more is a size computed wrongly, not a lack of memory
    ("pytorch/nomatch-other--microsoft-onnxruntime-22702.log", "uncatalogued", None, None),
    # an Ascend vector core's kernel exception under vLLM-Ascend
    ("vllm/cuda.kernel.fault--vllm-project-vllm-ascend-2918.log", "cuda.kernel.fault", "serving", "vllm"),
    # DeepSpeed: the engine's optimizer step, the hybrid engine's generation, the engine's set-up broadcast
    ("pytorch/cuda.kernel.fault--deepspeedai-DeepSpeed-308.log", "cuda.kernel.fault", "serving", None),
    ("pytorch/cuda.kernel.fault--deepspeedai-DeepSpeed-4945.log", "cuda.kernel.fault", "serving", None),
    ("nccl/nccl.shm.insufficient--WangRongsheng-XrayGLM-83.log", "nccl.shm.insufficient", "weight-loading", None),
    # batch AW
    # vLLM's placement-group wait that gives up after 1800 s, in its multi-GPU wording
    ("vllm/vllm.ray.placement-group-unsatisfiable--gpustack-gpustack-5181.log", "vllm.ray.placement-group-unsatisfiable",
     "device-check", "vllm"),
    # batch AV
    # torchrun's failure summary (ChildFailedError) names a rank ended by SIGKILL: its traceback field, or
    # its exitcode field where the paste ends before it
    ("pytorch/host.oom-killed--lzhxmu-CPPO-6.log", "host.oom-killed", None, None),
    ("pytorch/host.oom-killed--apple-ml-recurrent-drafter-5.log", "host.oom-killed", None, None),
    # Torch-TensorRT's execution context: TensorRT's allocator lines, not TensorRT-LLM's signature
    ("pytorch/cuda.runtime.out-of-memory--pytorch-TensorRT-4227.log", "cuda.runtime.out-of-memory", None, None),
    # batch AU
    # DeepSpeed ZeRO-3's zero.Init frames (wrapped_fn): the model is being built on the GPU
    ("pytorch/pytorch.cuda.oom-weight-loading--modelscope-ms-swift-3404.log", "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # vLLM-Ascend's 'Available memory: 0, total memory: N' on every rank, the traceback cut short
    ("vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-ascend-3843.log", "vllm.kv-cache.no-available-memory", "kv-cache-allocation", "vllm"),
    # batch AT
    # infinity's rich console record: the allocator's message goes on under the message column
    ("pytorch/pytorch.cuda.oom--michaelfeil-infinity-483.log", "pytorch.cuda.oom", None, "pytorch"),
    # Forge's tiled-VAE fallback after an out-of-memory: a warning, while a generation runs
    ("pytorch/pytorch.cuda.oom--Haoming02-sd-webui-forge-classic-395.log", "pytorch.cuda.oom", "serving", None),
    # ComfyUI's wording of the same fallback (in Fooocus), before a traceback cut short
    ("pytorch/torch.cuda.oom--lllyasviel-Fooocus-1032.log", "pytorch.cuda.oom", "serving", None),
    # batch AS
    # Mesa RADV's 'radv/amdgpu: Failed to allocate a buffer:' block: a Vulkan device allocation refused
    ("llamacpp/llamacpp.gpu.alloc-failed--Nathanw1014-strix-halo-llamacpp-8.log", "llamacpp.gpu.alloc-failed", None, None),
    # Megatron's 'Training ...' (rank 0, after setup): NCCL's out-of-memory after it is in the workload
    ("nccl/cuda.runtime.out-of-memory--NVIDIA-NeMo-Megatron-Bridge-771.log", "cuda.runtime.out-of-memory", "serving", None),
    # vLLM's MQEngineDeadError relayed by an API client: the engine loop died while serving
    ("vllm/pytorch.cuda.oom--RooCodeInc-Roo-Code-6541.log", "pytorch.cuda.oom", "serving", "vllm"),
    # batch AR
    # TGI's interceptor names the call: a failed Warmup is the warmup step, even with the traceback cut
    ("tgi/tgi.prefill.not-enough-memory--huggingface-text-generation-inference-1769.log", "tgi.shard.failed", "warmup", "tgi"),
    # ComfyUI's error report with its labels machine-translated (Portuguese): the exception type still reads
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-8465.log", "pytorch.cuda.oom", None, None),
    # ComfyUI's execute frame (one node) places the bare 'Allocation on device' while serving
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-6073.log", "pytorch.cuda.oom", "serving", None),
    # batch AQ
    # PaddlePaddle's allocator: 'Out of memory error on GPU N. Cannot allocate ... memory on GPU N'
    ("pytorch/cuda.runtime.out-of-memory--PaddlePaddle-PaddleNLP-4574.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--PaddlePaddle-PaddleNLP-7312.log", "cuda.runtime.out-of-memory", None, None),
    # ROCm's HSA runtime: a kernel addressing memory outside every aperture is a fault
    ("llamacpp/cuda.kernel.fault--iacopPBK-llama.cpp-gfx906-17.log", "cuda.kernel.fault", None, None),
    # NVIDIA's Kubernetes device plugin marking a GPU unhealthy for a hardware Xid
    ("host/gpu.hardware.fault--akash-network-support-244.log", "gpu.hardware.fault", None, None),
    # the code line calling a training step (a JAX trainer's sharded_train_step_fn) places XLA's out-of-memory
    ("pytorch/cuda.runtime.out-of-memory--erfanzar-EasyDeL-78.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch AP
    # the CUDA project template's CUDA_CHECK_RETURN ('Error out of memory at line N in file ...'), here bitsandbytes'
    ("pytorch/cuda.runtime.out-of-memory--InternLM-xtuner-319.log", "cuda.runtime.out-of-memory", None, None),
    # batch AO
    # ggml-backend.c's CPU buffer asserting that malloc returned memory (whisper.cpp 1.5)
    ("llamacpp/llamacpp.host.alloc-failed--ggml-org-whisper.cpp-1915.log", "llamacpp.host.alloc-failed", "weight-loading",
     None),
    # the cudaMallocAsync backend's out-of-memory text cut at the device index's NUL byte, as ComfyUI prints it
    ("pytorch/pytorch.cuda.oom--kijai-ComfyUI-WanVideoWrapper-653.log", "pytorch.cuda.oom", "serving", None),
    # mistral.rs's throughput line places a panic after it in serving
    ("pytorch/cuda.kernel.fault--EricLBuehler-mistral-rs-1503.log", "cuda.kernel.fault", "serving", None),
    ("pytorch/cuda.runtime.out-of-memory--EricLBuehler-mistral.rs-1446.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch AN
    # the amdgpu driver refusing a Vulkan command submission for want of memory (RADV's relay)
    ("ollama/llamacpp.gpu.alloc-failed--ollama-ollama-18272.log", "llamacpp.gpu.alloc-failed", "weight-loading", None),
    ("llamacpp/llamacpp.gpu.alloc-failed--ggml-org-llama.cpp-25080.log", "llamacpp.gpu.alloc-failed", None, None),
    # Ascend CANN's EL0004 through ggml-cann
    ("llamacpp/llamacpp.gpu.alloc-failed--gpustack-gpustack-1446.log", "llamacpp.gpu.alloc-failed", None, None),
    # ROCm's 'Memory access fault by GPU node-N'
    ("vllm/cuda.kernel.fault--vllm-project-vllm-43605.log", "cuda.kernel.fault", None, None),
    # LMDeploy's 'run out of tokens. session=N' past session_len
    ("pytorch/request.context-length-exceeded--InternLM-lmdeploy-4147.log", "request.context-length-exceeded", "request-validation", None),
    # batch AM
    # Gunicorn's 'Worker (pid:N) was sent SIGKILL! Perhaps out of memory?'
    ("host/host.oom-killed--ahmetoner-whisper-asr-webservice-195.log", "host.oom-killed", None, None),
    # NVSHMEM's cuMemCreate returning CUDA's out-of-memory code, before the illegal accesses it caused
    ("nccl/cuda.runtime.out-of-memory--deepseek-ai-DeepEP-157.log", "cuda.runtime.out-of-memory", None, None),
    # an application's decoding step and request handler name serving
    ("pytorch/pytorch.cuda.oom--RVC-Boss-GPT-SoVITS-1516.log", "pytorch.cuda.oom", "serving", None),
    ("pytorch/cuda.kernel.fault--w-okada-voice-changer-1451.log", "cuda.kernel.fault", "serving", None),
    # batch AL
    # CTranslate2's CPU allocator (mkl_malloc) under faster-whisper: host memory, in the
    # model's constructor and in a transcription
    ("host/host.memory.alloc-failed--Purfview-whisper-standalone-win-511.log", "host.memory.alloc-failed", "weight-loading", None),
    ("host/host.memory.alloc-failed--WEIFENG2333-VideoCaptioner-428.log", "host.memory.alloc-failed", "serving", None),
    # whisper.cpp's weights buffer, in JSON lines of a Rust tracing subscriber
    ("llamacpp/llamacpp.gpu.alloc-failed--thewh1teagle-vibe-422.log", "llamacpp.gpu.alloc-failed", "weight-loading", None),
    # Xinference's 'Failed to launch model' around PyTorch's out-of-memory
    ("pytorch/pytorch.cuda.oom-weight-loading--xorbitsai-inference-3303.log", "pytorch.cuda.oom-weight-loading", "weight-loading", None),
    # batch AK
    # ComfyUI's frontend error report instead of the console
    ("pytorch/pytorch.cuda.oom--kijai-ComfyUI-FluxTrainer-184.log", "pytorch.cuda.oom", None, None),
    # text-generation-webui's 'Output generated in' after the traceback: serving
    ("pytorch/pytorch.cuda.oom--oobabooga-textgen-1041.log", "pytorch.cuda.oom", "serving", None),
    # XLA out of a TPU core's VMEM while compiling: not a lack of device memory
    ("vllm/nomatch-vllm--vllm-project-tpu-inference-2803-2.log", "uncatalogued", None, None),
    # batch AJ
    # HAMi's vGPU cap ('Device 0 OOM <needed> / <limit>') before PyTorch's 'unrecognized error code'
    ("pytorch/cuda.runtime.out-of-memory--Project-HAMi-HAMi-662.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch AI
    # three bindings raising llama_decode's 'no KV slot' return in their own words (Python, C#, Node)
    ("llamacpp/llamacpp.kv-cache.no-slot-for-batch--JamePeng-llama-cpp-python-70.log",
     "llamacpp.kv-cache.no-slot-for-batch", "serving", None),
    ("llamacpp/llamacpp.kv-cache.no-slot-for-batch--SciSharp-LLamaSharp-660.log",
     "llamacpp.kv-cache.no-slot-for-batch", "serving", None),
    ("llamacpp/llamacpp.kv-cache.no-slot-for-batch--langchain-ai-langchainjs-5481.log",
     "llamacpp.kv-cache.no-slot-for-batch", "serving", None),
    # Triton's launcher: 'Triton Error [CUDA]: out of memory' inside an asyncio task's repr
    ("pytorch/cuda.runtime.out-of-memory--ModelTC-LightLLM-171.log", "cuda.runtime.out-of-memory", "serving", None),
    # LocalAI's 'could not load model (no success): ...OutOfMemoryError' in its API's error object
    ("pytorch/pytorch.cuda.oom-weight-loading--mudler-LocalAI-2126.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # latent diffusion's 'DiffusionWrapper has N M params.' before a bare 'Killed'
    ("host/host.oom-killed--AUTOMATIC1111-stable-diffusion-webui-1863.log", "host.oom-killed", "weight-loading", None),
    # DeepSpeed's 'rank: 0 loading checkpoint:' before the CPU allocator's refusal
    ("pytorch/host.memory.alloc-failed--Xirider-finetune-gpt2xl-4.log", "host.memory.alloc-failed", "weight-loading",
     None),
    # batch I
    # llama-server's per-request slot lines: the kill came while it served
    ("llamacpp/host.oom-killed--ggml-org-llama.cpp-20509.log", "host.oom-killed", "serving", None),
    # older transformers' generation_utils.py decoding loop
    ("pytorch/cuda.kernel.fault--deepspeedai-DeepSpeed-2132.log", "cuda.kernel.fault", "serving", None),
    # DeepSpeed-Inference sharding the weights in init_inference
    ("pytorch/torch.cuda.oom-weight-loading--deepspeedai-DeepSpeed-2933.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # the DeepSpeed launcher reporting a rank ended by SIGKILL
    ("pytorch/host.oom-killed--huggingface-transformers-15399.log", "host.oom-killed", None, None),
    # lines pasted with a visible carriage return ('^M') after them
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-2752.log", "llamacpp.gpu.alloc-failed", "warmup", None),
    # batch J
    # the allocator's message wrapped so that the excerpt starts on its second line
    ("vllm/vllm.cudagraph.oom-during-capture--vllm-project-vllm-57595.log", "pytorch.cuda.oom", None, None),
    # LMDeploy's TurboMind out-of-memory, alone and inside its weight creation
    ("pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-2236.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/torch.cuda.oom-weight-loading--InternLM-lmdeploy-1593.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # vLLM V0's multimodal profile run
    ("vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-10034.log", "vllm.multimodal.encoder-budget",
     "memory-profiling", None),
    # a quantization method's weight repacking, an ExLlamaV2 cache, Module.to's convert
    ("vllm/torch.cuda.oom-weight-loading--wtdcode-vllm-backport-34.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    ("pytorch/torch.cuda.oom--turboderp-org-exllamav2-761.log", "pytorch.cuda.oom", "kv-cache-allocation", None),
    ("pytorch/torch.cuda.oom-weight-loading--oobabooga-one-click-installers-15.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # torchrun's -9 report as rich wraps it, its 'binary' on the next line
    ("pytorch/host.oom-killed--huggingface-accelerate-1214.log", "host.oom-killed", None, None),
    # batch K
    # a supervisor's "date time" before vLLM's header, and vLLM counted before PyTorch
    ("vllm/vllm.cudagraph.oom-during-capture--xorbitsai-inference-1847.log", "vllm.cudagraph.oom-during-capture",
     "cudagraph-capture", "vllm"),
    # ANSI colours pasted in caret notation (^[[36m), the end of Ray's memory-monitor message
    ("vllm/ray.memory-monitor.worker-killed--TideDra-lmm-r1-71.log", "ray.memory-monitor.worker-killed", None, None),
    # a log quoted in a Markdown reply ("> "), Vulkan's out-of-memory, the loader giving up
    ("llamacpp/llamacpp.cuda.alloc-failed--nomic-ai-gpt4all-1690.log", "llamacpp.gpu.alloc-failed",
     "weight-loading", None),
    # batch L
    # the allocator's message wrapped over three lines, each with the rank's "[rank3]: " tag
    ("pytorch/torch.cuda.oom-fragmentation--zai-org-GLM-4-785.log", "pytorch.cuda.oom-fragmentation", None, None),
    # Ray re-raising a task's OutOfMemoryError as RayTaskError(OutOfMemoryError)
    ("sglang/torch.cuda.oom--verl-project-verl-647.log", "pytorch.cuda.oom", None, None),
    # torch_memory_saver's CUresult 2 from the driver API, in its old and current wording
    ("sglang/cuda.runtime.out-of-memory--fzyzcjy-torch_memory_saver-4.log", "cuda.runtime.out-of-memory", None, None),
    ("sglang/cuda.runtime.out-of-memory--sgl-project-sglang-14092.log", "cuda.runtime.out-of-memory", None, None),
    # zsh's job report glued to a progress bar
    ("host/host.oom-killed--baichuan-inc-Baichuan2-138.log", "host.oom-killed", "weight-loading", None),
    # ggml's CPU buffer line without its first characters
    ("llamacpp/llamacpp.host.alloc-failed--mozilla-ai-llamafile-541.log", "llamacpp.host.alloc-failed",
     "kv-cache-allocation", None),
    # TurboMind creating its model instances; an OpenAI-style error body; koboldcpp's prompt progress
    ("pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-1459.log", "cuda.runtime.out-of-memory",
     "kv-cache-allocation", None),
    ("pytorch/torch.cuda.oom--lm-sys-FastChat-2198.log", "pytorch.cuda.oom", "serving", None),
    ("llamacpp/llamacpp.cuda.alloc-failed--LostRuins-koboldcpp-612.log", "llamacpp.gpu.alloc-failed", "serving", None),
    # batch M
    # JupyterLab's frames, whose location is a link ("File [path:N](url), in ...")
    ("vllm/torch.cuda.oom--QwenLM-Qwen3-458.log", "pytorch.cuda.oom", "kv-cache-allocation", None),
    # a vLLM layer's constructor building the model
    ("vllm/torch.cuda.oom-weight-loading--xorbitsai-inference-1361.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # TVM's CUDA check, under MLC-LLM's ChatModule loading the model
    ("pytorch/cuda.runtime.out-of-memory--mlc-ai-mlc-llm-1462.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # FasterTransformer's runtime error, the wording TurboMind inherited
    ("trtllm/cuda.runtime.out-of-memory--triton-inference-server-fastertransformer_backend-157.log",
     "cuda.runtime.out-of-memory", None, None),
    # MMEngine's training progress before a kernel fault relayed by NCCL
    ("nccl/cuda.kernel.fault--open-mmlab-mmengine-1557.log", "cuda.kernel.fault", "serving", None),
    # batch N
    # Colab's frames ("[path](url) in func(args)", no line number) under from_pretrained
    ("pytorch/torch.cuda.oom-weight-loading--mshumer-gpt-llm-trainer-15.log", "pytorch.cuda.oom-weight-loading",
     "weight-loading", None),
    # ggml_vulkan's report of a buffer it could not create
    ("llamacpp/llamacpp.cuda.alloc-failed--janhq-jan-6038.log", "llamacpp.gpu.alloc-failed", None, None),
    # the loader's failure after the error replaces the device check that the last marker named
    ("llamacpp/llamacpp.cuda.alloc-failed--TabbyML-tabby-1498.log", "llamacpp.gpu.alloc-failed",
     "weight-loading", None),
    # batch O
    # TVM's Vulkan check (MLC-LLM): a Vulkan out-of-memory that is not ggml's
    ("pytorch/vulkan.gpu.out-of-memory--mlc-ai-mlc-llm-974.log", "vulkan.gpu.out-of-memory", None, None),
    # tinygrad's driver-call check, inside its cuMemAlloc frames
    ("pytorch/cuda.runtime.out-of-memory--exo-explore-exo-101.log", "cuda.runtime.out-of-memory", None, None),
    # an error message naming TensorRT-LLM's own source file names the engine
    ("trtllm/trtllm.executor.insufficient-memory--NVIDIA-TensorRT-LLM-2857.log", "trtllm.executor.insufficient-memory",
     None, "trtllm"),
    # the KV cache manager's check in the form without numbers (late-2023 releases)
    ("trtllm/trtllm.executor.insufficient-memory--NVIDIA-TensorRT-LLM-494.log", "trtllm.executor.insufficient-memory",
     "kv-cache-allocation", None),
    # llama.cpp's timestamped log header after a supervisor's process-id tag
    ("llamacpp/llamacpp.gpu.alloc-failed--ggml-org-llama.cpp-24232.log", "llamacpp.gpu.alloc-failed", "serving", None),
    # journalctl's prefix before llama-server's slot lines
    ("ollama/cuda.kernel.fault--ollama-ollama-16771.log", "cuda.kernel.fault", "serving", None),
    # batch P
    # a custom kernel's launch check, then the TGI router's warmup span reporting it
    ("tgi/cuda.kernel.fault--huggingface-text-generation-inference-2613.log", "cuda.kernel.fault", "warmup", None),
    # Xinference's model actor reporting the OOM it caught, inside its request wrapper
    ("pytorch/pytorch.cuda.oom--xorbitsai-inference-912.log", "pytorch.cuda.oom", "serving", None),
    # an embedding request through Xinference's REST API
    ("pytorch/pytorch.cuda.oom--xorbitsai-inference-2162.log", "pytorch.cuda.oom", "serving", None),
    # TurboMind taking a request into its batch before a kernel fault
    ("pytorch/cuda.kernel.fault--InternLM-lmdeploy-2195.log", "cuda.kernel.fault", "serving", None),
    # an OpenAI-style request in uvicorn's access log right after the error
    ("sglang/cuda.runtime.out-of-memory--gpustack-gpustack-4002.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch Q
    # FlashInfer's CUDA check, wrapped, then the frames of SGLang's 2024 model server stepping a batch
    ("sglang/cuda.runtime.out-of-memory--sgl-project-sglang-109.log", "cuda.runtime.out-of-memory", "serving", None),
    # an exception line under uvicorn's padded level prefix ('ERROR:    ')
    ("pytorch/pytorch.cuda.oom--turboderp-org-exllamav2-732.log", "pytorch.cuda.oom", None, None),
    # batch R
    # NCCL's failed cudaMalloc as the 'Last error' of PyTorch's DistBackendError (a TGI shard)
    ("tgi/cuda.runtime.out-of-memory--huggingface-text-generation-inference-1969.log", "cuda.runtime.out-of-memory",
     None, None),
    # PyTorch's CUDA error in a notebook's JSON error output is not ggml's bare report
    ("pytorch/cuda.runtime.out-of-memory--unslothai-unsloth-1797.log", "cuda.runtime.out-of-memory", None, None),
    # batch S
    # a quote bar ("▎ ") on every line, the message re-wrapped over three of them
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--eugr-spark-vllm-docker-396.log",
     "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", "vllm"),
    # the encoder-cache rejection quoted without its start ("ValueError: ... exceeds the ...")
    ("vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-41936.log", "vllm.multimodal.encoder-budget",
     "request-validation", None),
    # TensorRT's builder: 'Error Code 2: OutOfMemory', no engine named in the excerpt
    ("trtllm/cuda.runtime.out-of-memory--NVIDIA-TensorRT-LLM-1609.log", "cuda.runtime.out-of-memory", None, None),
    # vLLM on Ray: no free GPU on the engine's own node for the first bundle (its GPUs are in
    # another placement group)
    ("vllm/vllm.ray.placement-group-unsatisfiable--EleutherAI-lm-evaluation-harness-2410.log",
     "vllm.ray.placement-group-unsatisfiable", "device-check", None),
    # vLLM's worker wrapper ('Error executing method ...') before a traceback cut in KV-cache sizing
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--OpenRLHF-OpenRLHF-336.log",
     "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", None),
    # batch T
    # CTranslate2's CUDA check, bare, and as Tabby's C++ runtime aborts with it
    ("pytorch/cuda.runtime.out-of-memory--OpenNMT-CTranslate2-1458.log", "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--TabbyML-tabby-587.log", "cuda.runtime.out-of-memory", None, None),
    # an allocation of about 17.6 million TB (a size computed below zero) is not a lack of memory
    ("nonmemory/nonmemory-llamacpp--ggml-org-llama.cpp-15535.log", None, None, None),
    # batch V
    # a bare 'CUDA error: out of memory' after PyTorch's 'CUDA kernel errors might be
    # asynchronously reported' hint is PyTorch's message, not ggml's
    ("pytorch/cuda.runtime.out-of-memory--lllyasviel-stable-diffusion-webui-forge-2524.log",
     "cuda.runtime.out-of-memory", None, None),
    ("pytorch/cuda.runtime.out-of-memory--starik222-BooruDatasetTagManager-112.log", "cuda.runtime.out-of-memory",
     None, None),
    # batch W
    # a last line that ends inside a wording's free-text span ('CUDA runtime error in <call>')
    # shows no words of this wording: a peer-access error is not a cut-off out-of-memory
    ("nonmemory/nonmemory-trtllm--NVIDIA-TensorRT-LLM-1625.log", "uncatalogued", None, None),
    # Slurm's cgroup reports the kill of a job step that outgrew its --mem
    ("host/host.oom-killed--IST-DASLab-sparsegpt-14.log", "host.oom-killed", "weight-loading", None),
    # torch_npu's out-of-memory cut after its first sentence, at the end of a paste that lost
    # its line breaks
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-ascend-1617.log", "pytorch.cuda.oom", None, "vllm"),
    # V0 AsyncLLMEngine's done-callback of its background loop runs only while serving
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-3407.log", "pytorch.cuda.oom", "serving", "vllm"),
    # batch X
    # an error line logged before its traceback takes the phase of the traceback's frames even
    # when no signature explains it: the OpenAI server's stream generator is a request
    ("vllm/nomatch-vllm--LMCache-LMCache-391.log", "uncatalogued", "serving", "vllm"),
    # batch Y
    # a bare 'CUDA error: out of memory' with PyTorch's asynchronous-error hint on the next
    # line: the hint, read after the hit, still rules out ggml's wording when the event ends
    ("pytorch/cuda.runtime.out-of-memory--GRAPH-0-GraphGDP-1.log", "cuda.runtime.out-of-memory", None, None),
    # macOS's shell names SIGKILL 'Killed: 9'; PyTorch's DataLoader reports a worker's SIGKILL
    ("host/host.oom-killed--gensyn-ai-rl-swarm-369.log", "host.oom-killed", None, None),
    ("host/host.oom-killed--ymoslem-OpenNMT-Tutorial-6-2.log", "host.oom-killed", None, None),
    # a quoted traceback ('> ' before every line, indented frames too) keeps its frames' phase
    ("sglang/cuda.kernel.fault--sgl-project-sglang-6081.log", "cuda.kernel.fault", "cudagraph-capture", None),
    # TensorRT-LLM's PyTorch backend announcing its CUDA graph capture
    ("trtllm/cuda.kernel.fault--NVIDIA-TensorRT-LLM-4708.log", "cuda.kernel.fault", "cudagraph-capture", "trtllm"),
    # the ordinary PyTorch out-of-memory naming a cap ('1.05 GiB allowed;') far below the card
    ("pytorch/pytorch.cuda.oom-memory-cap--ROCm-TheRock-2118.log", "pytorch.cuda.oom-memory-cap", None, None),
    # Apple's MPS allocator and Intel's XPU single-allocation limit
    ("pytorch/pytorch.mps.oom--gensyn-ai-rl-swarm-341.log", "pytorch.mps.oom", None, None),
    ("pytorch/pytorch.xpu.allocation-size-limit--intel-intel-xpu-backend-for-triton-7477.log",
     "pytorch.xpu.allocation-size-limit", None, None),
    # Metal's status-5 command buffer after llama.cpp warned the working set was exceeded
    ("ollama/llamacpp.metal.out-of-memory--ollama-ollama-352.log", "llamacpp.metal.out-of-memory", None, None),
    # batch Z
    # Intel Extension for PyTorch refusing a block above 4 GB in its own words
    ("pytorch/pytorch.xpu.allocation-size-limit--intel-intel-extension-for-pytorch-629.log",
     "pytorch.xpu.allocation-size-limit", None, None),
    # ComfyUI's model management (here Fooocus's fork) and faster-whisper's model constructor load weights
    ("host/host.memory.alloc-failed--lllyasviel-Fooocus-2342.log", "host.memory.alloc-failed", "weight-loading", None),
    ("pytorch/pytorch.cuda.oom-weight-loading--chidiwilliams-buzz-439.log", "cuda.runtime.out-of-memory",
     "weight-loading", None),  # CTranslate2's own allocation: the runtime id, with CTranslate2's settings
    # batch AA
    # a V1 traceback cut at run_engine_core's code line 'engine_core.run_busy_loop()'
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-27466.log", "pytorch.cuda.oom", "serving", "vllm"),
    # ComfyUI's error report: a node of a running workflow raised
    ("pytorch/pytorch.mps.oom--Comfy-Org-ComfyUI-7171.log", "pytorch.mps.oom", "serving", None),
    # cudaMallocAsync's wording with no fraction set (PyTorch limit 2^64 bytes): the plain OOM, not the cap
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-3278.log", "pytorch.cuda.oom", None, None),
    # the same wording under TGI with an unset fraction, in the shard's weight loading
    ("tgi/torch.cuda.oom-weight-loading--huggingface-text-generation-inference-574.log",
     "pytorch.cuda.oom-weight-loading", "weight-loading", "tgi"),
    # batch AB
    # a trainer's 'Epoch:[1/1](9300/70838) loss:1.703' progress line before the kill
    ("pytorch/host.oom-killed--jingyaogong-minimind-208.log", "host.oom-killed", "serving", None),
    # an RL trainer's 'Epoch:[1/1](2/19994), Reward:..., Loss:-0.0551' and PyTorch's newer allocator warning
    ("pytorch/pytorch.cuda.oom--jingyaogong-minimind-845.log", "pytorch.cuda.oom", "serving", None),
    # InvokeAI's model cache in _load_model, the host allocator refusing
    ("pytorch/host.memory.alloc-failed--invoke-ai-InvokeAI-2182.log", "host.memory.alloc-failed", "weight-loading", None),
    # batch AC
    # Ollama's runner gave a request its cache slot, then an image's larger graph failed to reserve
    ("ollama/llamacpp.gpu.alloc-failed--ollama-ollama-10753.log", "llamacpp.gpu.alloc-failed", "serving", None),
    # batch AD
    # ComfyUI's '!!! Exception during processing!!!' banner over PyTorch's bare CUDA error: not ggml's
    ("pytorch/cuda.runtime.out-of-memory--Comfy-Org-ComfyUI-2829.log", "cuda.runtime.out-of-memory", "serving", None),
    # XPU's message with a memory fraction in force ('8.27 GiB allowed;') is the cap, not the 4 GiB limit
    ("pytorch/pytorch.cuda.oom-memory-cap--intel-torch-xpu-ops-2392.log", "pytorch.cuda.oom-memory-cap", None, None),
    # a 16 GiB request with 16.07 GiB free is the plain out-of-memory, not the per-allocation limit
    ("pytorch/pytorch.cuda.oom--intel-torch-xpu-ops-5046.log", "pytorch.cuda.oom", None, None),
    # batch AE
    # faster-whisper transcribing with its loaded model (generate_segments), CTranslate2's own OOM wording
    ("pytorch/cuda.runtime.out-of-memory--jhj0517-Whisper-WebUI-560.log", "cuda.runtime.out-of-memory", "serving", None),
    # batch H, looked into again: ggml's reservation after the allocation, then Ollama's next load
    # request (a retry with fewer layers), which names an earlier step and does not replace it
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-13303.log", "llamacpp.gpu.alloc-failed", "warmup", None),
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-13029.log", "llamacpp.gpu.alloc-failed", "warmup", None),
    # and a later step after it still does: the KV-cache update that asked for the compute buffers
    ("llamacpp/llamacpp.cuda.alloc-failed--ggml-org-llama.cpp-11476.log", "llamacpp.gpu.alloc-failed", "serving", None),
    # V0's AsyncLLMEngine: asyncio reports _log_task_completion re-raising the engine loop's error
    ("vllm/torch.cuda.oom--vllm-project-vllm-13152.log", "pytorch.cuda.oom", "serving", None),
    # batch AF
    # a remote rpc-server's buffer (RPC[host:port]) refused while the weights were placed
    ("llamacpp/llamacpp.gpu.alloc-failed--geerlingguy-beowulf-ai-cluster-7.log", "llamacpp.gpu.alloc-failed",
     "weight-loading", None),
    # Megatron-LM's '[before the start of training step]' line: the DataLoader worker died in the loop
    ("pytorch/host.oom-killed--NVIDIA-Megatron-LM-1657.log", "host.oom-killed", "serving", None),
    # batch AH
    # llama-server's KV cache full while serving, in the first server's wording, relayed by LocalAI
    ("llamacpp/llamacpp.kv-cache.no-free-space--mudler-LocalAI-1110.log", "llamacpp.kv-cache.no-free-space",
     "serving", "llamacpp"),
    # ... and in today's wording, under a unified KV cache
    ("llamacpp/llamacpp.kv-cache.no-free-space--ggml-org-llama.cpp-29090.log", "llamacpp.kv-cache.no-free-space",
     "serving", "llamacpp"),
    # ComfyUI's 'Got an OOM, unloading all loaded models.' after the error: a workflow was running
    ("pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-8336.log", "pytorch.cuda.oom", "serving", None),
    # ... and 'Prompt executed in' after it, in ComfyUI's H:M:S form past ten minutes
    ("pytorch/pytorch.mps.oom--Comfy-Org-ComfyUI-9308.log", "pytorch.mps.oom", "serving", None),
    # vllm-ascend's V1 worker: execute_model under the worker busy loop is a scheduled batch
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-ascend-3357.log", "pytorch.cuda.oom", "serving", "vllm"),
]


def test_the_recurrent_state_cache_of_hybrid_models_fails_like_the_kv_cache(tmp_path):
    """llama-memory-recurrent.cpp throws 'failed to allocate buffer for rs cache' where the KV
    cache says 'kv cache' (Mamba, Qwen3-Next and Qwen3.5 keep both)."""
    log = tmp_path / "rs.log"
    log.write_text("llama_init_from_model: failed to initialize the context: failed to allocate buffer for rs cache\n")
    (report,) = scan(log)
    assert (report["root_cause"], report["phase"]) == ("llamacpp.gpu.alloc-failed", "kv-cache-allocation")


def test_an_impossible_allocation_size_is_not_a_lack_of_memory():
    """ggml asking for 2^64 bytes (a size computed below zero) and the bad_alloc that follows:
    a bug in the caller, not a memory diagnosis."""
    log = CORPUS / "nonmemory/nonmemory-llamacpp--ggml-org-llama.cpp-15139.log"
    assert "attempted to allocate 17592186044416.00 MB" in log.read_text(encoding="utf-8")
    (report,) = scan(log)
    assert report["root_cause"] in (None, "uncatalogued")
    assert not [f for f in report["findings"] if f["id"] != "uncatalogued"]


@pytest.mark.parametrize(("log", "root_cause", "phase", "engine"), FROM_NEW_BATCHES, ids=lambda v: str(v)[:48])
def test_new_batch_logs(log, root_cause, phase, engine):
    (report,) = scan(CORPUS / log)
    assert report["root_cause"] == root_cause
    if phase:
        assert report["phase"] == phase
    if engine:
        assert report["engine"] == engine


def test_a_cache_that_holds_any_context_does_not_make_a_cut_traceback_the_max_model_len_check():
    """vLLM V0 counted 227076 GPU blocks (3.6 million tokens) before the traceback was cut: its
    max_model_len check passed, so the missing exception is not that check's; 378 blocks (6048
    tokens) leave the check a likely reading."""
    (flashrag,) = scan(CORPUS / "vllm/pytorch.cuda.oom--RUC-NLPIR-FlashRAG-67.log")
    assert (flashrag["root_cause"], flashrag["phase"]) == ("uncatalogued", "kv-cache-allocation")
    (openrlhf,) = scan(CORPUS / "vllm/vllm.kv-cache.max-model-len-exceeds-capacity--OpenRLHF-OpenRLHF-336.log")
    assert openrlhf["root_cause"] == "vllm.kv-cache.max-model-len-exceeds-capacity"


def test_an_applications_own_cut_traceback_after_the_cache_is_sized_is_not_the_max_model_len_check():
    """Xinference's worker relays its model actor's error with a traceback of its own frames
    (xoscar's), cut here before the relayed exception, right after vLLM counted its GPU blocks:
    no vLLM frame is innermost, so nothing says vLLM's check raised it."""
    (relayed,) = scan(CORPUS / "nonmemory/nonmemory-vllm--vllm-project-vllm-3743.log")
    assert (relayed["root_cause"], relayed["phase"]) == ("uncatalogued", "kv-cache-allocation")


def test_xla_running_out_of_on_chip_vmem_is_no_memory_diagnosis_whole_or_cut():
    """XLA's TPU compiler out of a core's vmem is a kernel's limit, not the chip's HBM; a paste cut
    before the memory space's name cannot tell the two apart, so it names no memory failure."""
    log = CORPUS / "nonmemory/nonmemory-pytorch--pytorch-xla-7962.log"
    (whole,) = scan(log)
    assert whole["root_cause"] == "uncatalogued"
    lines = log.read_bytes().split(b"\n")
    cut = lines[15][:lines[15].index(b"memory space") + len(b"memory space")]
    (report,) = scan("-", stdin=b"\n".join([*lines[:15], cut]))
    assert report["root_cause"] in (None, "uncatalogued")


def test_the_bfc_allocators_retry_warning_is_no_memory_failure():
    """XLA's and TensorFlow's BFC allocator warns 'with freed_by_count=0. The caller indicates
    that this is not a failure' when a try fails that the caller may retry: read alone, it names
    nothing; the warning of its last try ('(rounded to N)requested by op') is the failure."""
    retry = (b"2020-06-06 12:47:45.908022: W tensorflow/core/common_runtime/bfc_allocator.cc:239] Allocator "
             b"(GPU_0_bfc) ran out of memory trying to allocate 3.46GiB with freed_by_count=0. The caller "
             b"indicates that this is not a failure, but may mean that there could be performance gains if more "
             b"memory were available.\n")
    (report,) = scan("-", stdin=retry)
    assert report["root_cause"] is None
    last = (CORPUS / "pytorch/cuda.runtime.out-of-memory--jax-ml-jax-27354.log").read_bytes().splitlines()[-1]
    (report,) = scan("-", stdin=last + b"\n")
    assert report["root_cause"] == "cuda.runtime.out-of-memory"
    assert report["findings"][0]["basis"] == "class: gpu-oom (xla)"


def test_comfyui_model_manager_lines_open_and_close_a_load():
    """'Requested to load Flux' opens the load, 'loaded partially ...' closes it, read through
    ComfyUI's own timestamp prefix ('2025-06-26T20:41:20.827229 - '): the out-of-memory after
    the load came while the workflow computed."""
    (report,) = scan(CORPUS / "pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-8687.log")
    assert report["phases"] == [{"phase": "serving", "line": 1}, {"phase": "weight-loading", "line": 4},
                                {"phase": "serving", "line": 5}]
    assert (report["root_cause"], report["phase"]) == ("pytorch.cuda.oom", "serving")


def test_sglang_input_over_its_limit_names_the_kv_pool_when_it_is_the_cap(tmp_path):
    """SGLang's 'Input length (N tokens) exceeds the maximum allowed length (M tokens)': M is the
    smaller of the context length and the KV pool, less one. With the start-up line that shows
    the pool below the context, the checklist says the pool is the cap and drops the advice to
    raise --context-length; without it, both stay as conditional fixes."""
    real = CORPUS / "sglang/request.context-length-exceeded--sgl-project-sglang-4048.log"
    (report,) = scan(real)
    found = {f["id"]: f for f in report["findings"]}
    rejection = found["request.context-length-exceeded"]
    assert rejection["facts"]["prompt_tokens"] == 160062 and rejection["facts"]["context_limit_tokens"] == 59862
    assert [fix["id"] for fix in rejection["fixes"]][0] == "shorten-input"
    assert {"sglang-kv-pool-limit", "raise-server-limit"} <= {fix["id"] for fix in rejection["fixes"]}
    startup = ("[2025-03-03 06:40:00 TP0] max_total_num_tokens=59867, chunked_prefill_size=8192, "
               "max_prefill_tokens=16384, max_running_requests=2048, context_len=163840\n")
    log = tmp_path / "sglang.log"
    log.write_bytes(startup.encode() + b"\n".join(real.read_bytes().splitlines()[1:3]) + b"\n")
    (report,) = scan(log)
    assert report["root_cause"] == "request.context-length-exceeded"
    fixes = report["findings"][0]["fixes"]
    pool = next(fix for fix in fixes if fix["id"] == "sglang-kv-pool-limit")
    assert "59867 tokens" in pool["change"] and "163840-token context" in pool["change"]
    assert "raise-server-limit" not in [fix["id"] for fix in fixes]


def test_a_request_no_device_could_hold_is_no_out_of_memory_diagnosis():
    """PyTorch asking for 134744072 GiB (128 PiB) is a size computed from garbage, a bug in
    the caller: no memory diagnosis, the exception stays uncatalogued. A real request of a few
    thousand GiB (an attention matrix too large for any card) is still an out-of-memory."""
    log = CORPUS / "pytorch/nomatch-pytorch--zai-org-ChatGLM-6B-1254.log"
    (report,) = scan(log)
    assert report["root_cause"] == "uncatalogued"
    assert not [f["id"] for f in report["findings"] if f["id"] != "uncatalogued"]
    large = log.read_text(encoding="utf-8").replace("134744072.03 GiB", "2048.00 GiB")
    (report,) = scan("-", stdin=large.encode())
    assert report["root_cause"] == "pytorch.cuda.oom"


def test_whisper_cpp_gets_whisper_advice_not_llama_cpp_knobs():
    """whisper.cpp (its model loader's lines name it) has no layer split, context or KV-cache
    setting of llama.cpp's kind: its failed CPU buffer leads with a smaller or quantized model."""
    (report,) = scan(CORPUS / "llamacpp/llamacpp.host.alloc-failed--ggml-org-whisper.cpp-1915.log")
    assert report["facts"]["ggml_program"] == "whisper"
    fixes = [fix["id"] for fix in report["findings"][0]["fixes"]]
    assert fixes[0] == "whisper-smaller-model"
    assert not {"smaller-context", "quantize-kv-cache", "more-on-gpu", "smaller-quant"} & set(fixes)


def test_lmdeploy_out_of_session_tokens_names_session_len_not_other_engines_limits():
    """LMDeploy's 'run out of tokens. session=N': the first fix is LMDeploy's --session-len,
    and the fix that lists other engines' context flags is left out."""
    (report,) = scan(CORPUS / "pytorch/request.context-length-exceeded--InternLM-lmdeploy-2382.log")
    fixes = root(report)["fixes"]
    assert fixes[0]["id"] == "lmdeploy-session-len"
    assert "--session-len" in fixes[0]["change"]
    assert "raise-server-limit" not in [fix["id"] for fix in fixes]


def test_whisper_cpp_out_of_gpu_memory_gets_whisper_s_own_fixes_not_llama_cpp_s_layers():
    """whisper.cpp puts the whole model on one GPU: no '-ngl' fix, and the first fix names a
    smaller model or whisper.cpp's own --no-gpu."""
    (report,) = scan(CORPUS / "llamacpp/llamacpp.gpu.alloc-failed--thewh1teagle-vibe-422.log")
    fixes = root(report)["fixes"]
    assert fixes[0]["id"] == "whisper-smaller-or-cpu"
    assert "--no-gpu" in fixes[0]["change"]
    assert "fewer-gpu-layers" not in [fix["id"] for fix in fixes]


def test_nccls_failed_malloc_after_an_invalid_argument_is_not_a_lack_of_memory():
    """NCCL's allocator warns 'Cuda failure 1 'invalid argument'' and then 'Failed to CUDA
    malloc 512 bytes': the malloc failed for that reason, not for want of memory."""
    (report,) = scan(CORPUS / "nonmemory/nonmemory-vllm--vllm-project-vllm-3524.log")
    assert not [f for f in report["findings"] if set(f["tags"]) & {"gpu-memory", "host-memory"}]
    (oom,) = scan(CORPUS / "tgi/cuda.runtime.out-of-memory--huggingface-text-generation-inference-1969.log")
    assert oom["root_cause"] == "cuda.runtime.out-of-memory"


def test_a_linker_error_before_a_cut_traceback_is_not_read_as_memory():
    """A JIT build fails ('collect2: error: ld returned 1 exit status') while vLLM profiles the
    encoder, and the engine core's traceback is cut before its exception: the frames and the
    profiling marker no longer make that an encoder out-of-memory."""
    (report,) = scan(CORPUS / "nonmemory/nonmemory-vllm--QwenLM-Qwen3-VL-1267.log")
    assert report["phase"] == "memory-profiling"
    assert not [f for f in report["findings"] if set(f["tags"]) & {"gpu-memory", "host-memory"}]


def test_a_pinned_memory_fallback_is_not_a_diagnosis():
    """ggml asks for pinned host memory first and falls back to pageable memory when the
    runtime refuses (hipErrorOutOfMemory): the runner then starts and serves."""
    log = CORPUS / "healthy/healthy-ollama--likelovewant-ollama-for-amd-8.log"
    assert "of pinned memory: hipErrorOutOfMemory" in log.read_text(encoding="utf-8")
    (report,) = scan(log)
    assert report["root_cause"] is None and report["findings"] == []


def test_a_continuation_from_another_process_is_not_joined():
    """A wrapped message continues on lines with the same process tag, or none; a line of
    another rank is a record of its own (a transformation of a real log made here)."""
    log = (CORPUS / "pytorch/torch.cuda.oom-fragmentation--zai-org-GLM-4-785.log").read_text(encoding="utf-8")
    lines = log.splitlines()
    other = "\n".join([lines[0], lines[1].replace("[rank3]:", "[rank2]:"), *lines[2:]]) + "\n"
    (report,) = scan("-", stdin=other.encode())
    assert report["root_cause"] == "pytorch.cuda.oom"


def test_another_engines_signature_never_diagnoses_a_log_whose_engine_is_known():
    """A vLLM worker relays 'CUDA error: out of memory' at the end of its line, as ggml prints
    it alone: on a vLLM log that is the CUDA runtime's error, not llama.cpp's allocation."""
    (report,) = scan(CORPUS / "vllm/cuda.runtime.out-of-memory--QwenLM-Qwen3-VL-1684.log")
    assert report["engine"] == "vllm" and report["root_cause"] == "cuda.runtime.out-of-memory"
    assert not [f["id"] for f in report["findings"] if f["id"].startswith("llamacpp.")]


def test_ipython_frames_show_the_same_phase():
    """The same traceback printed the way IPython and Jupyter print it (``File path:N, in
    func(args)``; a transformation of a real log made here, not a corpus sample)."""
    import re

    log = CORPUS / "pytorch/cuda.runtime.out-of-memory--seanie12-Info-HCVAE-7.log"
    cpython = log.read_text(encoding="utf-8")
    ipython = re.sub(r'^\s*File "([^"]+)", line (\d+), in ([\w<>]+)', r"File \1:\2, in \3(*args)", cpython,
                     flags=re.M)
    assert 'File "' in cpython and 'File "' not in ipython
    (report,) = scan("-", stdin=ipython.encode())
    assert (report["root_cause"], report["phase"]) == ("cuda.runtime.out-of-memory", "serving")


@pytest.mark.parametrize("log", [
    "nonmemory/nonmemory-sglang--sgl-project-sglang-8513.log",  # Triton's OutOfResources, then SGLang kills itself
    "nonmemory/nonmemory-sglang--sgl-project-sglang-2468.log",  # a failed warmup assertion, then 'Killed'
    "nonmemory/nonmemory-sglang--sgl-project-sglang-16855.log",  # the same, then a Chinese shell's '已杀死'
])
def test_a_kill_after_the_process_own_error_is_its_launchers_not_the_oom_killer(log):
    (report,) = scan(CORPUS / log)
    assert report["root_cause"] == "uncatalogued"
    assert "host.oom-killed" not in {f["id"] for f in report["findings"]}
    assert "Error" in root(report)["evidence"] or "OutOfResources" in root(report)["evidence"]


def test_a_bare_kill_with_no_error_before_it_is_still_the_oom_killer():
    (report,) = scan(CORPUS / "pytorch/host.oom-killed--oobabooga-textgen-2509.log")  # loading, then "Killed"
    assert report["root_cause"] == "host.oom-killed"


@pytest.mark.parametrize("killed", ["已杀死", "強制結束", "強制終了", "죽었음", "Убито", "Getötet", "Processus arrêté"])
def test_the_shells_kill_report_is_read_in_the_locales_glibc_translates_it_for(killed):
    """A shell prints strsignal(SIGKILL) in the user's language (glibc's libc.mo: zh_CN, zh_TW,
    ja, ko, ru, de, fr); the English corpus log with its last line translated here."""
    english = (CORPUS / "pytorch/host.oom-killed--oobabooga-textgen-2509.log").read_text(encoding="utf-8")
    assert english.rstrip().endswith("Killed")
    (report,) = scan("-", stdin=(english.rstrip()[:-len("Killed")] + killed + "\n").encode())
    assert report["root_cause"] == "host.oom-killed"


@pytest.mark.parametrize(("status", "killed"), [("Killed", True), ("Done", False), ("Terminated", False), ("Exit 1", False)])
def test_bashs_job_control_report_is_a_kill_only_for_sigkill(status, killed):
    """bash reports a finished background job as '[N]+  <status>  <command>': the HELM log's
    'Killed' (a real corpus line) is the OOM killer's sign; 'Done', 'Terminated' (SIGTERM) and
    'Exit 1' in its place are not."""
    line = next(text for text in (CORPUS / "host/host.oom-killed--stanford-crfm-helm-655.log")
                .read_text(encoding="utf-8").splitlines() if text.startswith("[1]+"))
    (report,) = scan("-", stdin=(line.replace("Killed", status.ljust(len("Killed")), 1) + "\n").encode())
    assert (report["root_cause"] == "host.oom-killed") is killed


def test_a_code_line_that_starts_the_input_names_the_step_only_for_the_error_right_after_it():
    """GOT-OCR2.0's paste starts at accelerate's 'new_value = value.to(device)' (its frame line
    cut off) and the CUDA error follows at once: weight loading. The same two real lines with a
    run's other output between them say nothing about the step of that error."""
    lines = (CORPUS / "pytorch/pytorch.cuda.oom-weight-loading--Ucas-HaoranWei-GOT-OCR2.0-8.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    (close,) = scan("-", stdin="".join(lines).encode())
    assert close["phase"] == "weight-loading"
    (apart,) = scan("-", stdin=(lines[0] + "step 1\nstep 2\nstep 3\nstep 4\n" + "".join(lines[1:])).encode())
    assert apart["root_cause"] == "cuda.runtime.out-of-memory" and apart["phase"] == "unknown"


def test_a_frame_line_cut_at_its_start_is_a_frame_only_as_the_inputs_first_line():
    """TRELLIS's paste starts inside the rasterizer's frame line ('..._rasterization\\__init__.py",
    line 94, in forward'), its 'File "<path>' cut off: as the input's first line it is read as
    that frame, and names the step. The same line inside a log is no frame: its start is the
    end of the line before it, which a paste did not cut."""
    lines = (CORPUS / "pytorch/pytorch.cuda.oom--microsoft-TRELLIS-3.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    (first,) = scan("-", stdin="".join(lines).encode())
    assert first["root_cause"] == "pytorch.cuda.oom" and first["phase"] == "serving"
    (inside,) = scan("-", stdin=("step 1\n" + "".join(lines)).encode())
    assert inside["root_cause"] == "pytorch.cuda.oom" and inside["phase"] == "unknown"


def test_a_cap_of_the_whole_card_is_the_plain_out_of_memory():
    """'N allowed;' in PyTorch's message means a memory fraction is set; when it is the whole
    card (TGI sets 1.0) the cap stopped nothing, and the diagnosis stays the plain OOM."""
    (report,) = scan(CORPUS / "pytorch/pytorch.cuda.oom--pytorch-pytorch-111729.log")
    assert "11.93 GiB allowed" in (CORPUS / "pytorch/pytorch.cuda.oom--pytorch-pytorch-111729.log").read_text()
    assert report["root_cause"] == "pytorch.cuda.oom"
    (capped,) = scan(CORPUS / "pytorch/pytorch.cuda.oom-memory-cap--ROCm-TheRock-2118.log")
    checks = {c["id"]: c for c in root(capped)["checks"]}
    assert checks["cap-below-card"]["status"] == "fail"
    assert "1.05 of 287.98 GiB" in checks["cap-below-card"]["detail"]


def test_a_conditional_wording_names_no_engine_until_its_event_ends():
    """ggml's bare wording, dropped once PyTorch's hint follows it, must not have named the
    log's engine on the way: the fixes are not llama.cpp's."""
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", str(CORPUS / "pytorch/cuda.runtime.out-of-memory--GRAPH-0-GraphGDP-1.log")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "llamacpp" not in done.stdout.splitlines()[0]
    assert "-ngl" not in done.stdout and "num_gpu" not in done.stdout


def test_the_mps_checklist_checks_pytorchs_own_hint_against_the_numbers():
    """PyTorch's MPS message suggests turning the cap off; the checklist says whether a higher
    ratio (at most 2.0) would hold the request, and computes it."""
    (report,) = scan(CORPUS / "pytorch/nomatch-pytorch--Comfy-Org-ComfyUI-11584.log")
    finding = root(report)
    assert finding["id"] == "pytorch.mps.oom"
    checks = {c["id"]: c["status"] for c in finding["checks"]}
    assert checks == {"other-allocations": "fail", "ratio-can-help": "pass"}
    fixes = [f["id"] for f in finding["fixes"]]
    assert fixes[0] == "release-cache" and "raise-watermark" in fixes
    raise_ratio = next(f for f in finding["fixes"] if f["id"] == "raise-watermark")
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO=1.79" in raise_ratio["change"]
    (tight,) = scan(CORPUS / "pytorch/nomatch-pytorch--mattmireles-gemma-tuner-multimodal-18.log")
    tight_root = root(tight)
    assert {c["id"]: c["status"] for c in tight_root["checks"]}["other-allocations"] == "pass"
    assert "release-cache" not in [f["id"] for f in tight_root["fixes"]]
    # generated from MPSAllocator's template: a step beyond what the highest ratio (2.0) allows,
    # and one with the watermark off, get no advice to raise it
    (beyond,) = scan(CORPUS / "generated/pytorch-mps-oom-2.log")
    beyond_root = root(beyond)
    assert {c["id"]: c["status"] for c in beyond_root["checks"]}["ratio-can-help"] == "fail"
    assert "raise-watermark" not in [f["id"] for f in beyond_root["fixes"]]
    (off,) = scan(CORPUS / "generated/pytorch-mps-oom-3.log")
    assert root(off)["id"] == "pytorch.mps.oom"
    assert "raise-watermark" not in [f["id"] for f in root(off)["fixes"]]


def test_a_comfyui_workflow_received_marks_serving_and_loader_frames_still_mark_weight_loading(tmp_path):
    received = "got prompt\n"
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of "
           "23.64 GiB of which 512.00 MiB is free. Including non-PyTorch memory, this process has 23.12 GiB memory in use. "
           "Of the allocated memory 22.50 GiB is allocated by PyTorch, and 128.00 MiB is reserved by PyTorch but "
           "unallocated.\n")
    sampling = tmp_path / "sampling.log"
    sampling.write_text(received + oom)
    assert scan(sampling)[0]["phase"] == "serving"
    loading = tmp_path / "loading.log"
    loading.write_text(received + "Traceback (most recent call last):\n"
                       '  File "/ComfyUI/comfy/model_management.py", line 527, in load_models_gpu\n'
                       "    loaded_model.model_load(lowvram_model_memory, force_patch_weights=force_patch_weights)\n" + oom)
    assert scan(loading)[0]["phase"] == "weight-loading"


def test_llama_servers_full_kv_cache_is_a_warning_whose_fixes_use_the_slots_and_context(tmp_path):
    """'failed to find free space in the KV cache' while serving: the slots share one context,
    so the first fix gives a request the whole context and the numbers come from the log; the
    server keeps running, so the default gate (errors) passes."""
    log = tmp_path / "server.log"
    log.write_text("llama_new_context_with_model: n_ctx      = 8192\n"
                   "main: initializing slots, n_slots = 4\n"
                   "update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 256\n")
    (report,) = scan(log)
    (finding,) = [f for f in report["findings"] if f["id"] == "llamacpp.kv-cache.no-free-space"]
    assert (finding["severity"], finding["phase"]) == ("warning", "serving")
    (check,) = finding["checks"]
    assert check["status"] == "fail" and "about 2048 tokens" in check["detail"]
    first, second = finding["fixes"][:2]
    assert first["id"] == "one-slot-or-own-shares" and "-np 1 (was 4)" in first["change"]
    assert second["id"] == "larger-context" and "-c 16384 (was 8192" in second["change"]
    gate = subprocess.run([sys.executable, "-m", "matcher", "scan", str(log)], capture_output=True, check=False)
    assert gate.returncode == 0



def test_ollamas_failed_to_create_context_suffix_is_explained_where_only_the_wrapper_shows():
    """The client line alone ('error:failed to create context with model ...'): the wrapper stays
    the root cause, and its first check says what that suffix means."""
    (report,) = scan(CORPUS / "ollama/llamacpp.host.alloc-failed--ollama-ollama-6283.log")
    finding = root(report)
    assert finding["id"] == "ollama.runner.terminated"
    check = next(c for c in finding["checks"] if c["id"] == "find-runner-error")
    assert "'failed to create context with model' = llama.cpp could not allocate the context" in " ".join(check["look"].split())


def hard_wrapped(text: str, width: int) -> bytes:
    """A log as a terminal ``width`` columns wide prints it: each line cut into pieces of
    ``width`` characters, broken mid-word, the pieces without the line's prefix."""
    pieces = [line[i:i + width] for line in text.splitlines() for i in range(0, max(len(line), 1), width)]
    return ("\n".join(pieces) + "\n").encode("utf-8")


@pytest.mark.parametrize(("log", "what"), [
    # the wrap falls inside a frame's function name ('in fr' + 'om_pretrained'): only the whole
    # name maps to weight loading
    ("pytorch/pytorch.cuda.oom-weight-loading--Tencent-Hunyuan-HunyuanVideo-Avatar-25.log", "frame name"),
    # a continuation that begins with the one space the wrap fell on
    ("vllm/vllm.kv-cache.max-model-len-exceeds-capacity--QwenLM-Qwen3-16.log", "space-led piece"),
    # 'ValueError: Fr' is short, but its line (with vLLM's header) filled the terminal; the
    # frames' paths are wrapped too
    ("vllm/vllm.startup.free-memory-below-utilization--noonghunna-club-3090-535.log", "short message"),
    # NCCL's "Cuda failure 'out of m" + "emory'": a symptom class, read whole
    ("nccl/cuda.runtime.out-of-memory--NVIDIA-nccl-1235.log", "symptom class"),
    # an INFO line with no error word: "# GPU blocks: 0, # CPU block" + "s: 1638"
    ("vllm/vllm.kv-cache.no-available-memory--EleutherAI-lm-evaluation-harness-2431.log", "no error word"),
    # Ollama's wrapper matches the first piece ('runner process has terminated: ... unable to
    # alloc'); the whole line shows the native error it wraps ('ate CUDA0 buffer')
    ("ollama/llamacpp.gpu.alloc-failed--ollama-ollama-8910.log", "behind a wrapper"),
    # the wrap cuts the literal the prefilter looks for ('... not eno' + 'ugh KV cache space.'):
    # the line holding its first half is read on
    ("vllm/vllm.runtime.preemption--vllm-project-vllm-546.log", "anchor cut, first half"),
    # 'Watchdog' + ' caught collective operation timeout: ...': the line holding the second
    # half is no candidate's continuation, so the line before it is read through it
    ("nccl/nccl.watchdog.timeout--NVIDIA-nccl-1409.log", "anchor cut, second half"),
])
def test_a_log_hard_wrapped_at_80_columns_keeps_its_diagnosis(log, what):
    """Real corpus logs wrapped here as an 80-column terminal would (bench/wrapped.py
    measures the whole corpus at several widths)."""
    (raw,) = scan(CORPUS / log)
    assert raw["root_cause"] not in (None, "uncatalogued")
    (wrapped,) = scan("-", stdin=hard_wrapped((CORPUS / log).read_text(encoding="utf-8"), 80))
    assert (wrapped["root_cause"], wrapped["phase"]) == (raw["root_cause"], raw["phase"]), what


def test_a_paste_that_lost_its_indentation_does_not_glue_the_source_line_to_its_frame():
    """A frame line followed by its source line flush left, as a paste that lost the
    indentation shows it, is no wrapped frame: the frame keeps its own function name; the
    same frame hard-wrapped ('line 4,' + ' in load_model') is read whole. Made here from a
    real log: its traceback, then the allocator's error after it, as CPython orders them."""
    lines = (CORPUS / "pytorch/pytorch.cuda.oom-weight-loading--Tencent-Hunyuan-HunyuanVideo-Avatar-25.log") \
        .read_text(encoding="utf-8").splitlines()
    ordered = "\n".join(line.replace("[rank0]:", "").replace("[rank3]:", "") for line in [*lines[1:], lines[0]])
    flattened = "\n".join(line.strip() for line in ordered.splitlines())
    assert 'line 4, in load_model\nmodel = HYVideoDiffusionTransformer(' in flattened
    for text in (flattened + "\n", hard_wrapped(ordered, 80).decode()):
        run = scanner().run_lines(text.splitlines(keepends=True), "made-here")
        (finding,) = [f for f in run.findings if f.id == "pytorch.cuda.oom-weight-loading"]
        assert finding.frames[-1].endswith('line 4, in load_model'), finding.frames


def test_a_bindings_no_kv_slot_gets_the_bindings_knobs_and_the_engines_hint_checked(tmp_path):
    """llama_decode's return 1 raised by a binding: the fixes name where the application sets
    n_ctx (doubled from the context line when the log has one), and the batch-size hint of
    llama.h's own message says when it cannot help. Made here: llama.cpp's context line of one
    real corpus log, then the LLamaSharp error line of another."""
    context = next(line for line in (CORPUS / "healthy/healthy-ollama--MemTensor-MemOS-103.log")
                   .read_text(encoding="utf-8").splitlines() if line.startswith("llama_context: n_ctx "))
    error = (CORPUS / "llamacpp/llamacpp.kv-cache.no-slot-for-batch--SciSharp-LLamaSharp-660.log") \
        .read_text(encoding="utf-8").splitlines()[0]
    log = tmp_path / "app.log"
    log.write_text(f"{context}\n{error}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "--no-color", str(log)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 1
    assert "ROOT CAUSE  llamacpp.kv-cache.no-slot-for-batch" in done.stdout
    text = " ".join(done.stdout.split())  # the report wraps its lines
    assert "n_ctx 4096 (was 2048)" in text and "LLamaSharp ModelParams.ContextSize" in text
    assert "when the context is full, a smaller batch fails the same way" in text


@pytest.mark.parametrize("line", [
    # Triton's NVIDIA launcher: PyErr_Format(PyExc_RuntimeError, "Triton Error [CUDA]: %s", cuGetErrorString)
    "RuntimeError: Triton Error [CUDA]: out of memory",
    # its AMD launcher: "%s Code: %d, Messsage: %s" after the prefix "Triton Error [HIP]: "
    "RuntimeError: Triton Error [HIP]:  Code: 2, Messsage: out of memory",
])
def test_tritons_launcher_out_of_memory_is_a_runtime_out_of_memory(line):
    """The two forms of Triton's driver check, filled in from its source templates."""
    (report,) = scan("-", stdin=(line + "\n").encode())
    assert report["root_cause"] == "cuda.runtime.out-of-memory"
    assert root(report)["tier"] == "class"


def test_a_gpu_sharing_layers_cap_sizes_the_pods_share_from_its_numbers():
    """HAMi-core's own line carries what the container would hold and its limit: the first fix
    asks for a share above the first, and names the limit, not other processes."""
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "--no-color",
                           str(CORPUS / "pytorch/cuda.runtime.out-of-memory--Project-HAMi-HAMi-662.log")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    text = " ".join(done.stdout.split("Fix, in this order")[1].split())
    assert text.startswith("1. Give the container a larger share of the GPU")
    assert "nvidia.com/gpumem: 4096 (MiB)" in text and "HAMi's limit for the container is 2.93 GiB" in text


def test_a_segment_cuda_refused_under_wsl_is_not_answered_with_a_larger_dev_shm():
    """vLLM relays NCCL's ncclUnhandledCudaError before 'Error while creating shared memory
    segment': CUDA refused to register the segment, so the checklist says /dev/shm had room
    and the first fix disables the shared-memory transport instead of enlarging it."""
    done = subprocess.run([sys.executable, "-m", "matcher", "scan", "--no-color",
                           str(CORPUS / "vllm/nccl.shm.insufficient--microsoft-WSL-12467.log")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    text = " ".join(done.stdout.split())
    assert "[FAIL] Did CUDA refuse a segment that /dev/shm did hold?" in text
    assert "1. Disable the NCCL shared-memory transport change: NCCL_SHM_DISABLE=1" in text
    assert "--shm-size" not in text


@pytest.mark.parametrize(("method", "phase"), [("Warmup", "warmup"), ("Prefill", "serving"), ("Decode", "serving"),
                                               ("Health", "unknown")])
def test_tgi_interceptor_line_places_the_failure_by_the_call_that_raised(tmp_path, method, phase):
    """TGI's shard interceptor logs 'Method <call> encountered an error.': Warmup runs before
    serving, Prefill and Decode carry real requests; any other call says nothing of the step."""
    log = tmp_path / "tgi.log"
    log.write_text(f"2024-04-19T11:06:25.868590Z ERROR text_generation_launcher: Method {method} encountered an error.\n")
    (report,) = scan(log)
    assert (report["root_cause"], report["phase"]) == ("tgi.shard.failed", phase)


IPYTHON_CUT = (
    "{exception}                          Traceback (most recent call last)\n"
    "File ~/env/lib/python3.10/site-packages/vllm/v1/worker/gpu_model_runner.py:2874, in GPUModelRunner._dummy_sampler_run(self, hidden_states)\n"
    "   2873 try:\n"
)


@pytest.mark.parametrize(("exception", "root_cause"), [
    ("OutOfMemoryError", "vllm.sampler.oom-warmup"),
    ("torch.OutOfMemoryError", "vllm.sampler.oom-warmup"),
    ("KeyError", "uncatalogued"),
])
def test_an_ipython_header_speaks_for_the_exception_a_cut_traceback_lost(exception, root_cause):
    """IPython names the exception's class above the frames: when the paste ends before the
    exception line, a class that means running out of memory is read there, in the phase the
    frames show, as partial evidence; any other class is not a memory diagnosis but an
    uncatalogued error that the header names."""
    (report,) = scan("-", stdin=IPYTHON_CUT.format(exception=exception).encode())
    assert report["root_cause"] == root_cause
    finding = next(f for f in report["findings"] if f["id"] == root_cause)
    assert finding["tier"] == "partial" and finding["phase"] == "warmup" and finding["line"] == 1
    if root_cause == "uncatalogued":
        assert [f["id"] for f in report["findings"]] == ["uncatalogued"]
        assert "its header names KeyError; the frames show warmup" in finding["basis"]


FORWARD_FRAMES = (
    '  File "/env/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl\n'
    "    return forward_call(*args, **kwargs)\n"
    '  File "/app/model.py", line 40, in forward\n'
    "    x = self.attn(x)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.64 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.60 GiB memory in use. "
    "Of the allocated memory 21.90 GiB is allocated by PyTorch, and 260.00 MiB is reserved by PyTorch but unallocated.\n"
)
PROFILE_RUN = ('  File "/env/lib/python3.11/site-packages/vllm/v1/worker/gpu_worker.py", line 210, '
               "in determine_available_memory\n    self.model_runner.profile_run()\n")


@pytest.mark.parametrize(("before", "root_cause", "phase"), [
    ("Traceback (most recent call last):\n", "pytorch.cuda.oom", "serving"),
    ("Traceback (most recent call last):\n" + PROFILE_RUN, "pytorch.cuda.oom", "memory-profiling"),
    ("INFO 05-13 14:03:40 [model_runner.py:1110] Starting to load model /models/x...\nTraceback (most recent call last):\n",
     "pytorch.cuda.oom-weight-loading", "weight-loading"),
])
def test_a_models_forward_pass_is_the_workload_only_where_nothing_more_specific_names_the_step(before, root_cause, phase):
    """nn.Module's call frames are a fallback frame map: alone they place the error while the
    loaded model runs (serving); an engine's own frame (vLLM's profiling run) or a phase marker
    before the traceback decides instead (and the phase family follows it)."""
    (report,) = scan("-", stdin=(before + FORWARD_FRAMES).encode())
    assert report["root_cause"] == root_cause and report["phase"] == phase


BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.64 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.60 GiB memory in "
            "use. Of the allocated memory 21.90 GiB is allocated by PyTorch, and 260.00 MiB is reserved by PyTorch but "
            "unallocated.\n")


@pytest.mark.parametrize(("before", "phase", "source"), [
    # nn.Module.__call__ of PyTorch before 1.5, and any module's forward
    ('Traceback (most recent call last):\n  File "/env/lib/python3.7/site-packages/torch/nn/modules/module.py", '
     'line 489, in __call__\n    result = self.forward(*input, **kwargs)\n', "serving", "fallback"),
    ('Traceback (most recent call last):\n  File "/env/lib/python3.11/site-packages/diffusers/models/unets/'
     'unet_2d_condition.py", line 1200, in forward\n    sample = self.conv_in(sample)\n', "serving", "fallback"),
    # the code line under a user's frame calls an attention kernel
    ('Traceback (most recent call last):\n  File "/app/attention.py", line 253, in attend\n'
     "    y = torch.nn.functional.scaled_dot_product_attention(q, k, v)\n", "serving", "fallback"),
    # the Trainer's line as its epochs begin, and Unsloth's banner in its place
    ("[INFO|trainer.py:2414] 2025-03-01 10:00:00,000 >> ***** Running training *****\n", "serving", "marker"),
    ("   \\\\   /|    Num examples = 500 | Num Epochs = 1\n", "serving", "marker"),
    # a vLLM model's forward alone: vLLM runs it while profiling and capturing graphs as well
    ('Traceback (most recent call last):\n  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/'
     'models/qwen2_vl.py", line 400, in forward\n    x = self.patch_embed(x)\n  File "/usr/local/lib/python3.12/'
     'dist-packages/torch/nn/modules/module.py", line 1762, in _call_impl\n    return forward_call(*args, **kwargs)\n',
     "unknown", "unknown"),
])
def test_a_forward_pass_or_a_training_loops_line_shows_the_workload(before, phase, source):
    (report,) = scan("-", stdin=(before + BARE_OOM).encode())
    assert (report["root_cause"], report["phase"]) == ("pytorch.cuda.oom", phase)
    assert root(report)["incidents"][0]["phase_source"] == source


@pytest.mark.parametrize(("before", "root_cause", "phase"), [
    # an unlabelled denoising loop, a labelled frame loop, a training loop begun at step 0
    ("  2%|\u258e         | 1/40 [01:10<45:42, 68.14s/it]\n", "pytorch.cuda.oom", "serving"),
    ("Processing:  99%|\u2589| 1732/1744 [08:43<00:03,  3.79frame/s]\n", "pytorch.cuda.oom", "serving"),
    ("  0%|          | 0/4300 [00:02<?, ?it/s]\n", "pytorch.cuda.oom", "serving"),
    # loading, downloading and finished bars say nothing about the step that failed
    ("Loading checkpoint shards:  50%|#####     | 2/4 [00:10<00:10,  5.00s/it]\n", "pytorch.cuda.oom-weight-loading", "weight-loading"),
    ("Fetching 16 files:  25%|##5       | 4/16 [00:03<00:09,  1.25it/s]\n", "pytorch.cuda.oom", "unknown"),
    ("model.safetensors:  40%|####      | 400/1000 [00:04<00:06, 98.1MB/s]\n", "pytorch.cuda.oom", "unknown"),
    ("100%|##########| 88/88 [00:03<00:00, 20.72it/s]\n", "pytorch.cuda.oom", "unknown"),
])
def test_an_unfinished_progress_bar_of_the_programs_loop_shows_the_workload(before, root_cause, phase):
    (report,) = scan("-", stdin=(before + BARE_OOM).encode())
    assert (report["root_cause"], report["phase"]) == (root_cause, phase)


def test_a_ranks_error_glued_to_a_progress_bar_and_cut_is_still_read():
    """A rank's watchdog report printed onto the training bar's line, the line cut by the
    paste: the bar is the run's information, the cut text after it is the error."""
    log = ("[1763]   1%|\u258f         | 24/1752 [01:08<1:22:56,  2.88s/it][rank5]:[E602 11:17:52.185053341 "
           "ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective operati\n")
    (report,) = scan("-", stdin=log.encode())
    assert (report["root_cause"], report["phase"]) == ("nccl.watchdog.timeout", "serving")


def test_a_loss_line_of_any_framework_shows_the_workload_and_names_no_engine():
    """A line that counts epochs and prints loss terms (PaddleDetection logs each term before
    the total) is a training step of whatever framework wrote it: the phase is the workload's,
    and the engine stays unnamed."""
    log = ("[05/24 05:58:30] ppdet.engine INFO: Epoch: [8] [1000/2373] learning_rate: 0.000025 "
           "loss_class: 1.117397 loss_bbox: 0.252872\nKilled\n")
    (report,) = scan("-", stdin=log.encode())
    assert (report["root_cause"], report["phase"], report["engine"]) == ("host.oom-killed", "serving", None)


@pytest.mark.parametrize("log", [
    # vLLM logs it with logger.error, then picks another attention backend
    "(EngineCore pid=691) ERROR 10-01 22:41:13 [fa_utils.py:212] Cannot use FA version 2 is not supported due to "
    "FA2 is only supported on devices with compute capability >= 8\n",
    # vllm-ascend without its C extension: sleep mode is off, the engine starts
    "ERROR 04-28 16:10:09 camem.py:69] Failed to import vllm_ascend_C:No module named 'vllm_ascend.vllm_ascend_C'\n",
    # Paxml restores a checkpoint without the unpadded shapes, at error level, and goes on
    "ERROR:absl:For checkpoint version > 1.0, we require users to provide\n"
    "          `train_state_unpadded_shape_dtype_struct` during checkpoint\nRestored checkpoint in 3.17 seconds.\n",
    # ggml's Metal backend says 'error:' and looks in the working directory
    "ggml_metal_init: error: could not use bundle path to find ggml-metal.metal, falling back to trying cwd\n",
    # CPython reports a sitecustomize that failed to import, and runs the program
    "Error in sitecustomize; set PYTHONVERBOSE for traceback:\nModuleNotFoundError: No module named 'wrapt'\n",
])
def test_an_error_its_program_carries_on_from_is_no_error_event(log):
    (report,) = scan("-", stdin=log.encode())
    assert report["findings"] == []


@pytest.mark.parametrize("log", [
    # another ERROR line of the same module is still an error nobody explains
    "(EngineCore pid=691) ERROR 10-01 22:41:13 [fa_utils.py:212] FlashAttention failed to load its kernels\n",
    # Paxml raising the same words when it saves is an error
    "ValueError: For checkpoint version > 1.0, we require users to provide\n",
    # the same exception without CPython's note before it ended the program
    "ModuleNotFoundError: No module named 'wrapt'\n",
    # the note two lines up does not speak for a later exception
    "Error in sitecustomize; set PYTHONVERBOSE for traceback:\nModuleNotFoundError: No module named 'wrapt'\n"
    "Starting server\nValueError: bad model path\n",
])
def test_an_error_beside_a_harmless_one_is_still_reported(log):
    (report,) = scan("-", stdin=log.encode())
    assert report["root_cause"] == "uncatalogued" and root(report)["line"] == log.count("\n")


TORCH_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of "
             "23.65 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.61 GiB memory in use. "
             "Of the allocated memory 21.90 GiB is allocated by PyTorch, and 252.40 MiB is reserved by PyTorch but "
             "unallocated.\n")


@pytest.mark.parametrize(("frame", "comfyui"), [
    ('  File "/home/u/ComfyUI/execution.py", line 496, in execute\n', True),
    # early Fooocus kept a copy of ComfyUI's package: its frames are Fooocus's
    ('  File "D:\\Fooocus\\repositories\\ComfyUI-from-StabilityAI-Official\\comfy\\sd.py", line 640, in decode\n', False),
])
def test_a_frame_that_names_the_program_chooses_its_advice(frame, comfyui):
    """Extractors read traceback frames too: a frame under ComfyUI's folder makes the advice
    ComfyUI's (its workflow and launch flags), not a script's batch size."""
    log = "Traceback (most recent call last):\n" + frame + "    x = f()\n" + TORCH_OOM
    (report,) = scan("-", stdin=log.encode())
    fixes = [fix["id"] for fix in root(report)["fixes"]]
    assert ("smaller-workflow-comfyui" in fixes) is comfyui and ("smaller-batch" in fixes) is not comfyui


def test_torch_compiles_own_graphs_are_not_a_serving_engines_capture():
    """CUDA graph trees (torch.compile, mode='reduce-overhead') failing at capture_end: the
    program's own compiled function, so neither vLLM's nor SGLang's capture family, and the
    first fix is to record fewer graphs."""
    log = ('Traceback (most recent call last):\n'
           '  File "/usr/lib/python3.10/site-packages/torch/_inductor/cudagraph_trees.py", line 2089, in _run\n'
           '    return self.record_function(new_inputs, function_id)\n'
           '  File "/usr/lib/python3.10/site-packages/torch/cuda/graphs.py", line 84, in capture_end\n'
           '    super().capture_end()\n'
           'RuntimeError: CUDA error: out of memory\n')
    (report,) = scan("-", stdin=log.encode())
    assert (report["root_cause"], report["phase"], report["engine"]) == (
        "cuda.runtime.out-of-memory", "cudagraph-capture", None)
    assert root(report)["fixes"][0]["id"] == "compile-without-cudagraphs"


def test_a_generation_line_of_any_medium_shows_the_workload():
    """Wan's generate.py logs 'Generating video ...' once its pipeline is built."""
    (report,) = scan("-", stdin=b"[2025-03-02 12:02:35,384] INFO: Generating video ...\nKilled\n")
    assert (report["root_cause"], report["phase"]) == ("host.oom-killed", "serving")


def test_tensorflows_out_of_memory_is_the_runtimes():
    """TensorFlow's BFC allocator refusing a tensor: its own allocator, so the runtime's
    out-of-memory, not PyTorch's."""
    log = ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
           "shape[32,3,224,224] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n")
    (report,) = scan("-", stdin=log.encode())
    assert report["root_cause"] == "cuda.runtime.out-of-memory"


def test_a_marker_after_the_error_still_replaces_a_fallback_phase():
    """TGI logs the warmup that failed after the shard's traceback: that marker names the step
    the forward pass ran in."""
    (report,) = scan(CORPUS / "tgi/cuda.kernel.fault--huggingface-text-generation-inference-2613.log")
    assert report["root_cause"] == "cuda.kernel.fault" and report["phase"] == "warmup"


def test_a_forward_pass_after_the_weights_loaded_is_not_weight_loading():
    """'Loading checkpoint shards' names weight loading; an out-of-memory under a model's
    forward pass after it came while the loaded model computed (a training or inference step
    of a program that names no step of its own)."""
    log = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.30s/it]\n"
           "Traceback (most recent call last):\n"
           '  File "/home/u/train.py", line 88, in <module>\n'
           "    out = model(**batch)\n"
           '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl\n'
           "    return self._call_impl(*args, **kwargs)\n"
           '  File "/usr/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", line 1190, in forward\n'
           "    outputs = self.model(\n"
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of "
           "23.65 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.61 GiB memory in use. "
           "Of the allocated memory 21.90 GiB is allocated by PyTorch, and 252.40 MiB is reserved by PyTorch but "
           "unallocated.\n")
    (report,) = scan("-", stdin=log.encode())
    assert (report["root_cause"], report["phase"]) == ("pytorch.cuda.oom", "serving")


def test_docker_inspect_reads_the_oom_killed_flag_not_the_key():
    """Docker's inspect output names OOMKilled in every container's state: only a true flag is
    the OOM killer's kill; the false one (a container that exited on its own) is no diagnosis."""
    state = '\t"State": {{\n\t\t"Status": "exited",\n\t\t"OOMKilled": {flag},\n\t\t"ExitCode": {code},\n'
    (killed,) = scan("-", stdin=state.format(flag="true", code=137).encode())
    assert killed["root_cause"] == "host.oom-killed"
    (exited,) = scan("-", stdin=state.format(flag="false", code=139).encode())
    assert [f["id"] for f in exited["findings"]] == []


@pytest.mark.parametrize("keep", ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1640.75 MiB on de",
                                  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1640.75 MiB on device 1: cud"])
def test_a_last_line_cut_before_its_anchor_is_read_from_its_lead(tmp_path, keep):
    """A paste that ends inside ggml's allocation failure, before 'Malloc failed: out of
    memory' (the literal the prefilter looks for): the line was no candidate, but it shows the
    start every match of the wording begins with, and the rest of it matches as far as it goes.
    The cut number is not read as a value."""
    lines = (CORPUS / "llamacpp/llamacpp.cuda.alloc-failed--TabbyML-tabby-1498.log").read_text().splitlines()
    assert lines[9].startswith(keep)
    log = tmp_path / "cut.log"
    log.write_text("\n".join(lines[:9] + [keep]) + "\n")
    (report,) = scan(log)
    finding = root(report)
    assert (report["root_cause"], finding["tier"], finding["line"]) == ("llamacpp.gpu.alloc-failed", "partial", 10)
    assert "alloc_gib" not in finding["facts"]


@pytest.mark.parametrize("cut", ["Available KV cache memory: ", "Available KV cac"])
def test_a_healthy_line_cut_before_its_value_stays_healthy(tmp_path, cut):
    """vLLM prints 'Available KV cache memory: N GiB' on every start-up; only a negative N is a
    problem. A healthy log cut right before the number, or inside the words before it, reads
    like the start of that wording, and it shows no error: no diagnosis."""
    log = tmp_path / "healthy-cut.log"
    log.write_text("INFO 05-01 10:00:00 [gpu_worker.py:227] Model loading took 14.99 GiB memory\n"
                   f"INFO 05-01 10:00:05 [gpu_worker.py:227] {cut}\n")
    (report,) = scan(log)
    assert report["root_cause"] is None and report["findings"] == []


@pytest.mark.parametrize(("log", "number", "keep"), [
    # vLLM's start-up check, which is an error only when the free memory is short
    ("healthy/healthy-vllm--vllm-project-vllm-57047.log", 8, "Free memory on d"),
    # a level that Rust's tracing writes after its timestamp (Dynamo's vLLM worker)
    ("healthy/healthy-vllm--ai-dynamo-dynamo-3644.log", 3, "Available KV cac"),
])
def test_a_line_logged_below_warning_and_cut_short_is_information(tmp_path, log, number, keep):
    """A healthy log cut inside a line that its program logged at info level: what the cut
    hid cannot make it an error, so the start of a wording there names nothing (an error
    earlier in the log stays what it was)."""
    lines = (CORPUS / log).read_text().splitlines()
    assert keep in lines[number - 1]
    cut = tmp_path / "cut.log"
    cut.write_text("\n".join(lines[:number - 1] + [lines[number - 1][:lines[number - 1].index(keep) + len(keep)]]) + "\n")
    (report,) = scan(cut)
    assert {f["id"] for f in report["findings"]} <= {"uncatalogued"}


@pytest.mark.parametrize("cut", [
    # every TensorRT-LLM error opens so; an out-of-memory is one of many
    "[TensorRT-LLM][ERROR] ",
    # ggml's pinned-memory warning, whose reason the cut hid (healthy runs print it)
    "ggml_cuda_host_malloc: failed to allocate ",
    # the words so far open both llama.cpp's KV-cache and compute-buffer failures and others
    "WARNING: failed to allocate ",
])
def test_a_line_cut_after_an_opening_that_many_messages_share_names_nothing(tmp_path, cut):
    """A last line that ends right after a wording's opening words shows nothing of what
    follows them, so no wording is named from it (an error level still makes it an error that
    no signature explains)."""
    log = tmp_path / "cut.log"
    log.write_text(cut + "\n")
    (report,) = scan(log)
    assert report["root_cause"] in (None, "uncatalogued"), report["findings"]


@pytest.mark.parametrize(("cut", "root_cause"), [
    ("RuntimeError: CUDA error: an illegal memory access wa", "cuda.kernel.fault"),
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 12710.31 MiB on device 0: cud", "llamacpp.gpu.alloc-failed"),
])
def test_a_line_cut_inside_a_word_of_its_wording_still_names_it(tmp_path, cut, root_cause):
    """A cut inside a word of the wording's literal (or well past its opening) still names it."""
    log = tmp_path / "cut.log"
    log.write_text(cut + "\n")
    (report,) = scan(log)
    assert report["root_cause"] == root_cause
    assert root(report)["tier"] == "partial"


def test_a_line_cut_inside_what_would_exclude_its_wording_names_nothing(tmp_path):
    """llama.cpp's 'attempted to allocate N MB' is no lack of memory when N is a size no machine
    has (an unsigned wrap-around in the caller); a paste cut before the number cannot say which."""
    lines = (CORPUS / "nonmemory/nonmemory-llamacpp--ggml-org-llama.cpp-22040.log").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("ggml_aligned_malloc: insufficient memory"))
    log = tmp_path / "cut.log"
    log.write_text("\n".join(lines[:at] + [lines[at][:lines[at].index("allocate") + len("allocate")]]) + "\n")
    (report,) = scan(log)
    assert not [f for f in report["findings"] if f["id"] == "llamacpp.host.alloc-failed"]


def test_a_cut_line_that_two_wordings_share_is_read_as_the_wrapper(tmp_path):
    """'error: llama runner process has terminate' is the start of Ollama's wrapper and of its
    'terminated: signal: killed', which is the OOM killer's: the cut hid which one it was, so
    the report names the wrapper (the runner died; its own error is elsewhere), not a guess."""
    line = (CORPUS / "ollama/cuda.runtime.out-of-memory--ollama-ollama-6139.log").read_text().splitlines()[0]
    log = tmp_path / "cut.log"
    log.write_text(line[:line.index("terminated") + len("terminate")] + "\n")
    (report,) = scan(log)
    assert report["root_cause"] == "ollama.runner.terminated"
    assert root(report)["tier"] == "partial"
