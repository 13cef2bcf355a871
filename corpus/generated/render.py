"""Render generated corpus samples from the message templates of the GPU-memory reference.

Every problem entry of the reference (``error-messages.yaml``, same ids) and every wording
inside its template has at least one sample here: the message rendered with consistent
numbers, wrapped in the log prefix its engine and version print, and usually preceded by a
version banner so that the matcher knows the version. Informational entries that a catalog
fact entry covers get a sample too (``kind: healthy``, the fact entry named in ``expect``).

The table below is the whole source: this script reads nothing at run time. Running it writes
``<reference-id>[-<n>].log`` and a sidecar ``.yaml`` per sample beside itself (or into
``--out DIR``) and removes generated files that the table no longer produces; the output is
byte-for-byte the same on every run.

Conventions of the rendering (from the reference): vLLM's ``GiB()``/``format_gib`` print
``round(bytes / 2**30, 2)`` (``9.4``, not ``9.40``); ``:.2f`` prints two decimals; PyTorch sizes
come from ``format_size`` (``512.00 MiB``); llama.cpp versions are build numbers (``b3000`` is
written ``3000``); Ollama, TGI and SGLang versions are written without a leading ``v``.

A sample whose ``gap`` is set is expected to fail ``logkb test`` until the catalog covers the
wording: the text says what is missing. Its failure is a real gap, not a rendering error.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

GENERATED_BY = "corpus/generated/render.py"
GiB = 1 << 30
MiB = 1 << 20

# -- the reference's problem entries (every one must have a sample below) -------------------------

PROBLEM_IDS = [
    # vLLM
    "vllm-startup-free-mem-v1a", "vllm-startup-free-mem-v1b", "vllm-startup-free-mem-external-weights",
    "vllm-no-cache-blocks-a", "vllm-no-cache-blocks-b", "vllm-no-cache-blocks-c",
    "vllm-v0-maxlen-gt-kv", "vllm-v1-maxlen-kv-a", "vllm-v1-maxlen-kv-b", "vllm-v1-maxlen-kv-c",
    "vllm-v1-maxlen-kv-d", "vllm-autofit-fail", "vllm-v1-cg-no-oom-hint",
    "vllm-memprof-a", "vllm-memprof-b", "vllm-memprof-c", "vllm-memprof-d",
    "vllm-model-load-oom", "vllm-sampler-warmup-oom", "vllm-pooler-warmup-oom",
    "vllm-v0-preemption", "vllm-v1-stats-preemptions", "vllm-swap-space", "vllm-swap-abort",
    "vllm-v0-prompt-too-long", "vllm-prompt-longer-than-max-model-len", "vllm-openai-max-context",
    "vllm-batched-tokens-lt-maxlen", "vllm-engine-core-failed", "vllm-lora-slots",
    # PyTorch
    "pytorch-oom-legacy", "pytorch-oom-2.1", "pytorch-oom-2.2plus", "pytorch-oom-fields",
    "pytorch-oom-fraction-preempt", "pytorch-exception-name", "pytorch-cuda-error-oom",
    "pytorch-mps-oom",  # from PyTorch's source, not the reference (see pytorch_samples)
    # TGI
    "tgi-warmup-prefill-oom-old", "tgi-warmup-prefill-oom", "tgi-router-max-total-tokens",
    "tgi-cuda-graphs", "tgi-wrappers", "tgi-request-validation",
    "tgi-vllm-backend-error",  # from TGI's source, not the reference (see tgi_samples)
    # SGLang
    "sglang-not-enough-memory", "sglang-mem-unbalanced", "sglang-cuda-graph-failed",
    "sglang-runtime-oom", "sglang-retract", "sglang-context-length",
    # llama.cpp
    "llamacpp-cudamalloc-failed", "llamacpp-alloc-buffer-failed", "llamacpp-unable-to-allocate-buffer",
    "llamacpp-kv-alloc-failed", "llamacpp-compute-buffers", "llamacpp-cuda-error",
    "llamacpp-not-enough-space", "llamacpp-server-context",
    # Ollama
    "ollama-requires-more-system-memory", "ollama-requires-more-system-memory-evict",
    "ollama-runner-terminated", "ollama-insufficient-memory", "ollama-layout",
    # TensorRT-LLM, NCCL
    "trtllm-no-free-blocks", "nccl-shm",
]

# Informational entries: facts, not problems. Those with a catalog fact entry get samples; the
# rest are listed so that the split of the reference stays visible.
FACT_IDS = [
    "vllm-autofit-info", "vllm-v0-cg-capturing-model", "vllm-v0-cg-memory-hint", "vllm-v0-cg-capturing-decoding",
    "vllm-cg-tqdm-shapes", "vllm-v1-cg-tqdm-modes", "vllm-cg-finished", "vllm-cg-skip", "vllm-cg-memory-profiling",
    "vllm-kv-cache-memory-suggestion", "vllm-stats-line", "vllm-banner", "vllm-args", "vllm-engine-init",
    "vllm-model-loading-memory", "vllm-v0-memory-profiling-summary", "vllm-v0-kv-line",
    "vllm-v1-profile-result-debug", "vllm-available-kv-memory", "vllm-kv-cache-memory-bytes-info",
    "vllm-gpu-blocks", "vllm-kv-cache-size-tokens", "vllm-max-concurrency", "vllm-chunked-prefill-info",
    "vllm-server-ready", "vllm-init-engine-took",
    "tgi-inferred-batch-total", "tgi-kv-blocks", "tgi-launcher-vram",
    "sglang-cuda-graph-begin-end", "sglang-kv-allocated", "sglang-max-total-num-tokens", "sglang-load-weight",
    "sglang-ready", "llamacpp-info-lines", "ollama-offload-info", "ollama-vram-recover", "trtllm-kv-alloc",
]
FACTS_WITHOUT_ENTRY = {
    "vllm-v0-cg-memory-hint": "no fact entry reads the 'CUDA graphs can take additional 1~3 GiB' hint",
    "vllm-cg-skip": "no fact entry reads 'Skipping CUDA graph capture'",
    "vllm-kv-cache-memory-bytes-info": "no fact entry reads 'reserved N GiB memory for KV Cache as specified by kv_cache_memory_bytes'",
    "ollama-vram-recover": "no fact entry reads 'gpu VRAM usage didn't recover within timeout'",
}


# -- numbers as the engines print them -------------------------------------------------------------


def gib(nbytes: float) -> str:
    """vLLM GiB() / format_gib: round to two decimals, printed as Python prints the float."""
    return str(round(nbytes / GiB, 2))


def f2(value: float) -> str:
    return f"{value:.2f}"


def size(nbytes: float) -> str:
    """PyTorch format_size (c10): bytes up to 1 KiB, then KiB, MiB, GiB with two decimals."""
    if nbytes <= 1024:
        return f"{int(nbytes)} bytes"
    if nbytes <= MiB:
        return f"{nbytes / 1024:.2f} KiB"
    if nbytes <= GiB:
        return f"{nbytes / MiB:.2f} MiB"
    return f"{nbytes / GiB:.2f} GiB"


def human2(nbytes: float) -> str:
    """Ollama format.HumanBytes2: binary units, one decimal."""
    return f"{nbytes / GiB:.1f} GiB"


def vtuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.lstrip("vb").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not piece[:1].isdigit():
            break
        parts.append(int(digits or 0))
    return tuple(parts)


def at_least(version: str, floor: str) -> bool:
    return vtuple(version) >= vtuple(floor)


# -- one sample ------------------------------------------------------------------------------------


class M(str):
    """A message line the sample points at (its line number becomes ``expect.line``)."""


@dataclass
class Sample:
    ref: str  # reference entry id
    wording: str  # which wording of the template, in a few words
    versions: str | None  # the wording's release range (PEP 440), as the reference states it
    engine: str
    version: str  # the release the sample pretends to come from (inside ``versions``)
    expect: str | None  # problem signature (or, for kind healthy, the fact entry) that must match
    phase: str | None
    lines: list[str]
    kind: str = "failure"
    note: str = ""
    gap: str | None = None

    @property
    def line(self) -> int:
        marked = [i + 1 for i, text in enumerate(self.lines) if isinstance(text, M)]
        if len(marked) != 1:
            raise ValueError(f"{self.ref} ({self.wording}): {len(marked)} marked lines, expected one")
        return marked[0]


class Log:
    """Lines of one sample, with a clock for the timestamps engines print."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tick = 0

    def put(self, *lines: str) -> Log:
        self.lines.extend(lines)
        return self

    def clock(self) -> int:
        self.tick += 1
        return self.tick


def _keep_mark(template: str, text: str) -> str:
    return M(text) if isinstance(template, M) else text


# -- vLLM ------------------------------------------------------------------------------------------

VLLM_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
PY_VLLM = "/usr/local/lib/python3.12/dist-packages"


class Vllm(Log):
    """vLLM records: '%(levelname)s %(asctime)s %(filename)s:%(lineno)d] msg' up to 0.7.3, the
    location in brackets from 0.8.0, a relative path from 0.11.0; V1 processes add their own
    '(Name pid=N)' tag. Every line of a multi-line record carries the header."""

    def __init__(self, version: str) -> None:
        super().__init__()
        self.version = version
        self.v1 = at_least(version, "0.8.0")

    def stamp(self) -> str:
        t = self.clock()
        return f"05-10 12:{t // 60:02d}:{t % 60:02d}"

    def rec(self, level: str, src: str, *msg: str, proc: str | None = None) -> Vllm:
        if not at_least(self.version, "0.11.0"):
            src = src.rsplit("/", 1)[-1]
        where = f"{src}]" if not at_least(self.version, "0.8.0") else f"[{src}]"
        tag = f"({proc}) " if proc else ""
        head = f"{tag}{level} {self.stamp()} {where} "
        for piece in msg:
            self.lines.append(_keep_mark(piece, head + piece))
        return self

    @property
    def api(self) -> str | None:
        return "APIServer pid=1" if at_least(self.version, "0.10.1") else None

    @property
    def core(self) -> str | None:
        return "EngineCore_DP0 pid=211" if at_least(self.version, "0.10.1") else None

    def banner(self, model: str = VLLM_MODEL, args: str | None = None) -> Vllm:
        if at_least(self.version, "0.15.0"):
            self.rec("INFO", "entrypoints/utils.py:233", f"vLLM server version {self.version}, serving model {model}",
                     proc=self.api)
        elif at_least(self.version, "0.4.0"):
            self.rec("INFO", "entrypoints/openai/api_server.py:1043", f"vLLM API server version {self.version}",
                     proc=self.api)
        if args is not None:
            label = "non-default args" if at_least(self.version, "0.9.0") else "args"
            self.rec("INFO", "entrypoints/utils.py:246", f"{label}: {args}", proc=self.api)
        return self

    def loading(self, model: str = VLLM_MODEL) -> Vllm:
        proc = self.core if self.v1 else None
        self.rec("INFO", "v1/worker/gpu_model_runner.py:1770" if self.v1 else "worker/model_runner.py:1014",
                 f"Starting to load model {model}...", proc=proc)
        return self

    def traceback(self, frames: list[tuple[str, int, str, str]], *exc: str, header: str | None = None,
                  level: str = "ERROR", src: str = "v1/engine/core.py:708", proc: str | None = None) -> Vllm:
        """A traceback: plain stderr (V0 main process, or before 0.8.5), or inside one logged
        record when ``header`` is given (V1 EngineCore from 0.8.5: logger.exception)."""
        body = ["Traceback (most recent call last):"]
        for path, lineno, func, code in frames:
            body.append(f'  File "{PY_VLLM}/{path}", line {lineno}, in {func}')
            body.append(f"    {code}")
        body.extend(exc)
        if header is None:
            self.put(*body)
        else:
            self.rec(level, src, header, *body, proc=proc)
        return self

    def engine_failure(self, frames: list[tuple[str, int, str, str]], *exc: str, wrap: bool = True) -> Vllm:
        """How an error raised during V1 engine start-up reaches the log."""
        if at_least(self.version, "0.8.5"):
            self.traceback(frames, *exc, header="EngineCore failed to start.", proc=self.core)
        else:
            self.traceback(frames, *exc)
        if wrap and at_least(self.version, "0.8.4"):
            suffix = " Failed core proc(s): {}" if at_least(self.version, "0.9.0") else ""
            self.put("Traceback (most recent call last):",
                     f'  File "{PY_VLLM}/vllm/v1/engine/core_client.py", line 96, in make_async_mp_client',
                     "    return AsyncMPClient(*client_args)",
                     f"RuntimeError: Engine core initialization failed. See root cause above.{suffix}")
        return self


# Stacks (file, line, function, code), innermost last.
V1_CORE = [
    ("vllm/v1/engine/core.py", 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
    ("vllm/v1/engine/core.py", 498, "__init__", "super().__init__(vllm_config, executor_class, log_stats,"),
]
V1_INIT_DEVICE = V1_CORE + [
    ("vllm/v1/engine/core.py", 83, "__init__", "self.model_executor = executor_class(vllm_config)"),
    ("vllm/executor/uniproc_executor.py", 54, "_init_executor", 'self.collective_rpc("init_device")'),
    ("vllm/v1/worker/gpu_worker.py", 193, "init_device", "raise ValueError("),
]
V1_KV_SIZING = V1_CORE + [
    ("vllm/v1/engine/core.py", 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
    ("vllm/v1/engine/core.py", 199, "_initialize_kv_caches", "kv_cache_configs = get_kv_cache_configs(vllm_config,"),
    ("vllm/v1/core/kv_cache_utils.py", 1243, "get_kv_cache_configs", "check_enough_kv_cache_memory(vllm_config, kv_cache_spec_one_worker,"),
    ("vllm/v1/core/kv_cache_utils.py", 716, "check_enough_kv_cache_memory", "raise ValueError("),
]
V1_PROFILE = V1_CORE + [
    ("vllm/v1/engine/core.py", 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
    ("vllm/v1/engine/core.py", 190, "_initialize_kv_caches", "self.model_executor.determine_available_memory())"),
    ("vllm/v1/worker/gpu_worker.py", 263, "determine_available_memory", "assert self.init_snapshot.free_memory > free_gpu_memory, ("),
]
V1_LOAD = V1_CORE + [
    ("vllm/v1/engine/core.py", 83, "__init__", "self.model_executor = executor_class(vllm_config)"),
    ("vllm/v1/worker/gpu_worker.py", 214, "load_model", "self.model_runner.load_model(eep_scale_up=eep_scale_up)"),
    ("vllm/v1/worker/gpu_model_runner.py", 2883, "load_model", "self.model = model_loader.load_model("),
    ("vllm/model_executor/layers/linear.py", 1312, "weight_loader", "param_data.copy_(loaded_weight)"),
]
V1_WARMUP = V1_CORE + [
    ("vllm/v1/engine/core.py", 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
    ("vllm/v1/engine/core.py", 214, "_initialize_kv_caches", 'self.model_executor.initialize_from_config(kv_cache_configs)'),
    ("vllm/v1/worker/gpu_worker.py", 321, "compile_or_warm_up_model", "self.model_runner._dummy_sampler_run("),
]
V1_CAPTURE = V1_CORE + [
    ("vllm/v1/worker/gpu_worker.py", 297, "compile_or_warm_up_model", "self.model_runner.capture_model()"),
    ("vllm/v1/worker/gpu_model_runner.py", 2531, "capture_model", "self._capture_cudagraphs("),
    ("vllm/v1/worker/gpu_model_runner.py", 2600, "_capture_cudagraphs", "self._dummy_run(num_tokens, cudagraph_runtime_mode=runtime_mode,"),
    ("vllm/model_executor/layers/activation.py", 115, "forward_cuda", "out = torch.empty(output_shape, dtype=x.dtype, device=x.device)"),
]
V0_ENGINE = [
    ("vllm/entrypoints/openai/api_server.py", 107, "build_async_engine_client_from_engine_args", "engine_client = AsyncLLMEngine.from_engine_args("),
    ("vllm/engine/async_llm_engine.py", 573, "from_engine_args", "engine = cls("),
    ("vllm/engine/llm_engine.py", 339, "__init__", "self._initialize_kv_caches()"),
]
V0_KV_SIZING = V0_ENGINE + [
    ("vllm/engine/llm_engine.py", 487, "_initialize_kv_caches", "self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)"),
    ("vllm/executor/gpu_executor.py", 125, "initialize_cache", "self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)"),
    ("vllm/worker/worker.py", 262, "initialize_cache", "raise_if_cache_size_invalid(num_gpu_blocks,"),
    ("vllm/worker/worker.py", 477, "raise_if_cache_size_invalid", "raise ValueError("),
]
V0_PROFILE = V0_ENGINE + [
    ("vllm/engine/llm_engine.py", 474, "_initialize_kv_caches", "self.model_executor.determine_num_available_blocks())"),
    ("vllm/worker/worker.py", 229, "determine_num_available_blocks", "assert peak_memory > 0, ("),
]
V0_CONFIG = [
    ("vllm/entrypoints/openai/api_server.py", 107, "build_async_engine_client_from_engine_args", "engine_client = AsyncLLMEngine.from_engine_args("),
    ("vllm/engine/arg_utils.py", 1012, "create_engine_config", "scheduler_config = SchedulerConfig("),
    ("vllm/config.py", 1007, "_verify_args", "raise ValueError("),
]
V0_SCHEDULER = [
    ("vllm/engine/async_llm_engine.py", 873, "run_engine_loop", "result = task.result()"),
    ("vllm/engine/llm_engine.py", 1384, "step", "scheduler_outputs = self.scheduler[0].schedule()"),
    ("vllm/core/scheduler.py", 1219, "_schedule_default", "running_scheduled = self._schedule_running("),
    ("vllm/core/scheduler.py", 1397, "_preempt_by_swap", "self._swap_out(seq_group, blocks_to_swap_out)"),
    ("vllm/core/scheduler.py", 1418, "_swap_out", "raise RuntimeError("),
]
OPENAI_CHAT = [
    ("vllm/entrypoints/openai/serving_chat.py", 190, "create_chat_completion", "prompt_inputs = self._tokenize_prompt_input("),
    ("vllm/entrypoints/openai/serving_engine.py", 374, "_validate_input", "raise ValueError("),
]
V1_INPUT = [
    ("vllm/v1/engine/async_llm.py", 263, "add_request", "prompt_str, request = self.processor.process_inputs("),
    ("vllm/v1/engine/processor.py", 384, "_validate_model_input", "raise ValueError("),
]
V0_INPUT = [
    ("vllm/engine/async_llm_engine.py", 512, "add_request_async", "self._add_processed_request("),
    ("vllm/engine/llm_engine.py", 2011, "_validate_model_input", "raise ValueError("),
]


def torch_oom(torch: str, alloc: float, total: float, free: float, allocated: float, unallocated: float,
              procs: tuple[tuple[int, float], ...] = (), own: float | None = None, allowed: float | None = None,
              private: float | None = None, gpu: int = 0) -> str:
    """The caching allocator's OutOfMemoryError text for a torch release (2.1 and later)."""
    proc_info = "".join(f"Process {pid} has {size(used)} memory in use. " for pid, used in procs)
    if own is not None:
        proc_info += f"Including non-PyTorch memory, this process has {size(own)} memory in use. "
    allowed_info = f"{size(allowed)} allowed; " if allowed is not None else ""
    capacity = "capacty" if not at_least(torch, "2.2") else "capacity"
    head = (f"CUDA out of memory. Tried to allocate {size(alloc)}. GPU {gpu} has a total {capacity} of {size(total)} "
            f"of which {size(free)} is free. {proc_info}{allowed_info}Of the allocated memory {size(allocated)} is "
            "allocated by PyTorch, ")
    if private is not None and at_least(torch, "2.4"):
        head += f"with {size(private)} allocated in private pools (e.g., CUDA Graphs), "
    head += f"and {size(unallocated)} is reserved by PyTorch but unallocated. "
    if not at_least(torch, "2.2"):
        return head + ("If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
                       "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    conf = "PYTORCH_ALLOC_CONF" if vtuple(torch)[:2] == (2, 10) else "PYTORCH_CUDA_ALLOC_CONF"
    url = ("https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"
           if at_least(torch, "2.11") else "https://pytorch.org/docs/stable/notes/cuda.html#environment-variables")
    return head + (f"If reserved but unallocated memory is large try setting {conf}=expandable_segments:True to "
                   f"avoid fragmentation.  See documentation for Memory Management  ({url})")


def torch_oom_legacy(alloc: float, total: float, allocated: float, free: float, reserved: float,
                     allowed: float | None = None, gpu: int = 0) -> str:
    allowed_part = f"{size(allowed)} allowed; " if allowed is not None else ""
    return (f"CUDA out of memory. Tried to allocate {size(alloc)} (GPU {gpu}; {size(total)} total capacity; "
            f"{size(allocated)} already allocated; {size(free)} free; {allowed_part}{size(reserved)} reserved in "
            "total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
            "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")


def oom_class(torch: str) -> str:
    if not at_least(torch, "1.13"):
        return "RuntimeError"
    return "torch.OutOfMemoryError" if at_least(torch, "2.4") else "torch.cuda.OutOfMemoryError"


RTX4090 = 25_393_692_672  # 23.65 GiB as torch and vLLM report it
H100 = 85_031_714_816  # 79.19 GiB
KV_PER_TOKEN = 128 * 1024  # Llama-3.1-8B, fp16: 2 x 32 layers x 8 KV heads x 128 dims x 2 bytes


def vllm_samples() -> list[Sample]:
    out: list[Sample] = []

    # -- family 1: free memory at start-up below the utilization budget
    util = 0.9
    free = int(9.4 * GiB)
    requested = RTX4090 * util
    text_a = (f"Free memory on device ({gib(free)}/{gib(RTX4090)} GiB) on startup is less than desired GPU memory "
              f"utilization ({util}, {gib(requested)} GiB). Decrease GPU memory utilization or reduce GPU memory "
              "used by other processes.")
    log = Vllm("0.11.0").banner(args=f"{{'model': '{VLLM_MODEL}', 'gpu_memory_utilization': 0.9}}")
    log.engine_failure(V1_INIT_DEVICE, M("ValueError: " + text_a))
    out.append(Sample("vllm-startup-free-mem-v1a", "GiB() numbers, no device name", ">=0.9.1,<=0.13.0", "vllm",
                      "0.11.0", "vllm.startup.free-memory-below-utilization", "device-check", log.lines,
                      note="Another process holds about 14 GiB of a 23.65 GiB card; 0.9 of the card is 21.28 GiB."))
    text_b = text_a.replace("Free memory on device (", "Free memory on device cuda:0 (")
    log = Vllm("0.20.0").banner(args=f"{{'model': '{VLLM_MODEL}', 'gpu_memory_utilization': 0.9}}")
    log.engine_failure(V1_INIT_DEVICE, M("ValueError: " + text_b))
    out.append(Sample("vllm-startup-free-mem-v1b", "format_gib numbers, device named", ">=0.14.0,<=0.33.0", "vllm",
                      "0.20.0", "vllm.startup.free-memory-below-utilization", "device-check", log.lines))
    requested_h = H100 * util
    external = int(64.5 * GiB)
    budget = requested_h - external
    free_h = int(5.12 * GiB)
    text = (f"Free memory on device cuda:0 ({gib(free_h)}/{gib(H100)} GiB) on startup is less than the engine's "
            f"budget after excluding external process's weights ({util}, {gib(budget)} GiB). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes.")
    log = Vllm("0.32.0").banner()
    log.engine_failure(V1_INIT_DEVICE, M("ValueError: " + text))
    out.append(Sample("vllm-startup-free-mem-external-weights", "budget after external weights", ">=0.32.0,<=0.33.0",
                      "vllm", "0.32.0", "vllm.startup.free-memory-below-utilization", "device-check", log.lines,
                      note="64.5 GiB of weights held by another process; the 71.27 GiB budget leaves 6.77 GiB, "
                           "more than the 5.12 GiB free."))
    held = int(73.4 * GiB)
    text = (f"Externally held weights on device cuda:0 ({gib(held)}/{gib(H100)} GiB) exceed the desired GPU memory "
            f"utilization ({util}, {gib(requested_h)} GiB). Increase GPU memory utilization or reduce GPU memory used "
            "by other processes.")
    log = Vllm("0.33.0").banner()
    log.engine_failure(V1_INIT_DEVICE, M("ValueError: " + text))
    out.append(Sample("vllm-startup-free-mem-external-weights", "external weights exceed the budget",
                      ">=0.32.0,<=0.33.0", "vllm", "0.33.0", "vllm.startup.free-memory-below-utilization",
                      "device-check", log.lines))

    # -- family 2: nothing left for KV cache blocks
    nocache = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    docs = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
    log = Vllm("0.5.4").banner()
    log.rec("INFO", "executor/gpu_executor.py:83", "# GPU blocks: 0, # CPU blocks: 2048")
    log.traceback(V0_KV_SIZING, M("ValueError: " + nocache))
    out.append(Sample("vllm-no-cache-blocks-a", "V0 worker", "<=0.12.0", "vllm", "0.5.4",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines))
    log = Vllm("0.11.0").banner()
    log.rec("INFO", "v1/worker/gpu_model_runner.py:2653", "Model loading took 14.9889 GiB and 4.512301 seconds",
            proc=log.core)
    log.rec("INFO", "v1/worker/gpu_worker.py:298", "Available KV cache memory: -1.73 GiB", proc=log.core)
    log.engine_failure(V1_KV_SIZING, M("ValueError: " + nocache))
    out.append(Sample("vllm-no-cache-blocks-a", "V1 kv_cache_utils", "<=0.12.0", "vllm", "0.11.0",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines,
                      note="Weights of 14.99 GiB on a budget of about 13.3 GiB: the profiler leaves -1.73 GiB."))
    log = Vllm("0.15.1").banner()
    log.rec("INFO", "v1/worker/gpu_worker.py:298", "Available KV cache memory: -0.5 GiB", proc=log.core)
    log.engine_failure(V1_KV_SIZING, M("ValueError: " + nocache[:-1] + "." + docs))
    out.append(Sample("vllm-no-cache-blocks-b", "docs link appended", ">=0.13.0,<=0.21.0", "vllm", "0.15.1",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines))
    text = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
            "the engine (this flag also controls CPU memory reservation on the CPU backend, despite its name)." + docs)
    log = Vllm("0.30.0").banner()
    log.engine_failure(V1_KV_SIZING, M("ValueError: " + text))
    out.append(Sample("vllm-no-cache-blocks-c", "CPU-backend note", ">=0.22.0,<=0.33.0", "vllm", "0.30.0",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines))

    # -- family 3: max_model_len larger than what the KV cache holds
    blocks = 1335
    text = (f"The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV "
            f"cache ({blocks * 16}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine.")
    log = Vllm("0.5.4").banner()
    log.rec("INFO", "executor/gpu_executor.py:83", f"# GPU blocks: {blocks}, # CPU blocks: 2048")
    log.traceback(V0_KV_SIZING, M("ValueError: " + text))
    out.append(Sample("vllm-v0-maxlen-gt-kv", "V0 block capacity", ">=0.2.7,<=0.10.2", "vllm", "0.5.4",
                      "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", log.lines,
                      note="1335 blocks x 16 tokens = 21360 tokens, less than max_model_len 32768."))
    needed = 131072 * KV_PER_TOKEN
    avail = int(9.83 * GiB)
    try_more = ("Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.")
    for version, unit, label, versions in (("0.7.3", "GB", "unit GB", ">=0.7.0,<=0.8.2"),
                                           ("0.8.3", "GiB", "unit GiB", ">=0.8.3,<=0.8.3")):
        text = (f"To serve at least one request with the models's max seq len (131072), ({f2(needed / GiB)} {unit} KV "
                f"cache is needed, which is larger than the available KV cache memory ({f2(avail / GiB)} {unit}). "
                + try_more)
        log = Vllm(version).banner()
        log.engine_failure(V1_KV_SIZING, M("ValueError: " + text))
        out.append(Sample("vllm-v1-maxlen-kv-a", label, versions, "vllm", version,
                          "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", log.lines,
                          note="A 128k context of Llama-3.1-8B needs 16 GiB of KV cache; 9.83 GiB are left."))
    for version, estimated, label in (("0.8.4", "", "no estimate"), ("0.9.0", " Based on the available memory,",
                                                                        "estimate sentence cut short")):
        text = (f"To serve at least one request with the models's max seq len (131072), ({f2(needed / GiB)} GiB KV cache "
                f"is needed, which is larger than the available KV cache memory ({f2(avail / GiB)} GiB).{estimated}  "
                + try_more)
        log = Vllm(version).banner()
        log.engine_failure(V1_KV_SIZING, M("ValueError: " + text))
        out.append(Sample("vllm-v1-maxlen-kv-b", label, ">=0.8.4,<=0.9.0.1", "vllm", version,
                          "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", log.lines))
    avail_c = int(9.8 * GiB)
    estimate = (avail_c // KV_PER_TOKEN) // 16 * 16
    for version, fmt, link, label, versions in (
            ("0.10.1", lambda b: f2(b / GiB), "", ":.2f, no docs link", ">=0.9.1,<=0.12.0"),
            ("0.13.0", lambda b: f2(b / GiB), docs, ":.2f with docs link", ">=0.13.0,<=0.13.0"),
            ("0.16.0", gib, docs, "format_gib with docs link", ">=0.14.0,<=0.21.0")):
        text = (f"To serve at least one request with the models's max seq len (131072), ({fmt(needed)} GiB KV cache is "
                f"needed, which is larger than the available KV cache memory ({fmt(avail_c)} GiB). Based on the "
                f"available memory, the estimated maximum model length is {estimate}. " + try_more + link)
        log = Vllm(version).banner()
        log.engine_failure(V1_KV_SIZING, M("ValueError: " + text))
        out.append(Sample("vllm-v1-maxlen-kv-c", label, versions, "vllm", version,
                          "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", log.lines,
                          note=f"16 GiB needed, 9.8 GiB available: {estimate} tokens fit."))
    try_d = ("Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or "
             "decreasing `max_model_len` when initializing the engine." + docs)
    for version, estimated, label in (
            ("0.25.0", f"Based on the available memory, the estimated maximum model length is {estimate}. ", "with estimate"),
            ("0.33.0", "", "without estimate")):
        text = (f"To serve at least one request with the model's max seq len (131072), ({gib(needed)} GiB KV cache is "
                f"needed, which is larger than the available KV cache memory ({gib(avail_c)} GiB). {estimated}" + try_d)
        log = Vllm(version).banner()
        log.engine_failure(V1_KV_SIZING, M("ValueError: " + text))
        out.append(Sample("vllm-v1-maxlen-kv-d", label, ">=0.22.0,<=0.33.0", "vllm", version,
                          "vllm.kv-cache.max-model-len-exceeds-capacity", "kv-cache-allocation", log.lines))
    log = Vllm("0.18.0").banner(args=f"{{'model': '{VLLM_MODEL}', 'max_model_len': -1}}")
    log.rec("INFO", "v1/worker/gpu_worker.py:298", "Available KV cache memory: 0.0 GiB", proc=log.core)
    log.engine_failure(V1_KV_SIZING, M("ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to "
                                       "serve even a single token. Try increasing `gpu_memory_utilization`."))
    out.append(Sample("vllm-autofit-fail", "auto-fit finds no room", ">=0.14.0,<=0.33.0", "vllm", "0.18.0",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines))

    # -- family 4: CUDA graph capture running out of memory (V1 has no message of its own)
    for version, torch, bar, label in (
            ("0.10.1", "2.7.1", "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  40%|████      | 27/67 [00:03<00:04,  8.52it/s]",
             "V1 capture, mode progress bar"),
            ("0.9.2", "2.7.0", "Capturing CUDA graph shapes:  40%|████      | 27/67 [00:03<00:04,  8.52it/s]",
             "V1 capture, shapes progress bar")):
        log = Vllm(version).banner()
        log.rec("INFO", "v1/core/kv_cache_utils.py:1087", "GPU KV cache size: 412,352 tokens", proc=log.core)
        log.rec("INFO", "v1/core/kv_cache_utils.py:1091",
                "Maximum concurrency for 32,768 tokens per request: 12.58x", proc=log.core)
        log.put(bar)
        oom = torch_oom(torch, alloc=20 * MiB, total=H100, free=10.69 * MiB, allocated=76.4 * GiB,
                        unallocated=1.31 * GiB, own=79.17 * GiB, private=1.12 * GiB)
        log.engine_failure(V1_CAPTURE, M(f"{oom_class(torch)}: {oom}"))
        out.append(Sample("vllm-v1-cg-no-oom-hint", label, ">=0.7.0,<=0.33.0", "vllm", version,
                          "vllm.cudagraph.oom-during-capture", "cudagraph-capture", log.lines,
                          note="The KV cache took the budget; the raw PyTorch OOM surfaces inside capture_model."))

    # -- family 5: memory profiling assertion
    log = Vllm("0.5.0").banner()
    log.traceback(V0_PROFILE, M("AssertionError: Error in memory profiling. This happens when the GPU memory was not "
                                "properly cleaned up before initializing the vLLM instance."))
    out.append(Sample("vllm-memprof-a", "no numbers", ">=0.4.0,<=0.5.3.post1", "vllm", "0.5.0",
                      "vllm.profiling.memory-not-released", "memory-profiling", log.lines))
    log = Vllm("0.6.3").banner()
    log.traceback(V0_PROFILE, M("AssertionError: Error in memory profiling. Initial free memory 20436287488, current "
                                "free memory 21510029312. This happens when the GPU memory was not properly cleaned up "
                                "before initializing the vLLM instance."))
    out.append(Sample("vllm-memprof-b", "free memory in bytes", ">=0.5.4,<=0.9.0.1", "vllm", "0.6.3",
                      "vllm.profiling.memory-not-released", "memory-profiling", log.lines))
    log = Vllm("0.7.3").banner()
    log.traceback(V0_PROFILE, M("AssertionError: Error in memory profiling. Initial used memory 4294967296, currently "
                                "used memory 3221225472. This happens when the GPU memory was not properly cleaned up "
                                "before initializing the vLLM instance."))
    out.append(Sample("vllm-memprof-c", "used memory in bytes", ">=0.7.0,<=0.10.2", "vllm", "0.7.3",
                      "vllm.profiling.memory-not-released", "memory-profiling", log.lines))
    before, after = 20.5 * GiB, 21.73 * GiB
    log = Vllm("0.12.0").banner()
    log.engine_failure(V1_PROFILE, M(f"AssertionError: Error in memory profiling. Initial free memory {gib(before)} GiB, "
                                     f"current free memory {gib(after)} GiB. This happens when other processes sharing "
                                     "the same container release GPU memory while vLLM is profiling during "
                                     "initialization. To fix this, ensure consistent GPU memory allocation or isolate "
                                     "vLLM in its own container."))
    out.append(Sample("vllm-memprof-d", "GiB numbers", ">=0.9.1,<=0.33.0", "vllm", "0.12.0",
                      "vllm.profiling.memory-not-released", "memory-profiling", log.lines))

    # -- family 5: weight loading, sampler and pooler warm-up
    oom = torch_oom("2.9.0", alloc=896 * MiB, total=RTX4090, free=412.31 * MiB, allocated=22.61 * GiB,
                    unallocated=38.45 * MiB, own=23.09 * GiB)
    log = Vllm("0.14.0").banner().loading("Qwen/Qwen2.5-14B-Instruct")
    log.rec("ERROR", "v1/worker/gpu_model_runner.py:2891",
            M("Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization to free memory for "
              "weights, increasing --tensor-parallel-size, or using --quantization. See "
              "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more tips. "
              f"(original error: {oom})"), proc=log.core)
    log.engine_failure(V1_LOAD, f"torch.OutOfMemoryError: {oom}")
    out.append(Sample("vllm-model-load-oom", "vLLM's weight-loading message", ">=0.13.0,<=0.33.0", "vllm", "0.14.0",
                      "pytorch.cuda.oom-weight-loading", "weight-loading", log.lines,
                      note="A 14B model in bf16 (about 28 GiB) on a 23.65 GiB card."))
    oom = torch_oom("2.7.0", alloc=7.83 * GiB, total=H100, free=3.9 * GiB, allocated=71.02 * GiB,
                    unallocated=1.1 * GiB, own=75.27 * GiB)
    log = Vllm("0.9.2").banner()
    log.rec("INFO", "v1/worker/gpu_model_runner.py:2275", "Graph capturing finished in 21 secs, took 0.89 GiB",
            proc=log.core)
    log.put("Traceback (most recent call last):",
            f'  File "{PY_VLLM}/vllm/v1/worker/gpu_model_runner.py", line 2107, in _dummy_sampler_run',
            "    sampler_output = self.sampler(logits=logits,",
            f"torch.OutOfMemoryError: {oom}", "",
            "The above exception was the direct cause of the following exception:", "")
    log.engine_failure(V1_WARMUP, M("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy "
                                    "requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
                                    "initializing the engine."))
    out.append(Sample("vllm-sampler-warmup-oom", "sampler", ">=0.8.0,<=0.33.0", "vllm", "0.9.2",
                      "vllm.sampler.oom-warmup", "warmup", log.lines,
                      note="1024 dummy requests x a 152k vocabulary in fp32 logits need 7.83 GiB more."))
    for version, task, label, versions in (("0.9.2", "", "pooler without task", ">=0.9.2,<=0.9.2"),
                                           ("0.11.0", " (task='embed')", "pooler with task", ">=0.10.0,<=0.33.0")):
        log = Vllm(version).banner(model="BAAI/bge-m3")
        log.engine_failure(V1_WARMUP, M(f"RuntimeError: CUDA out of memory occurred when warming up pooler{task} with "
                                        "512 dummy requests. Please try lowering `max_num_seqs` or "
                                        "`gpu_memory_utilization` when initializing the engine."))
        out.append(Sample("vllm-pooler-warmup-oom", label, versions, "vllm", version, "vllm.sampler.oom-warmup",
                          "warmup", log.lines))

    # -- family 5: KV cache pressure while serving
    for mode, count, label in (("RECOMPUTE", 1, "recompute mode"), ("SWAP", 51, "swap mode")):
        log = Vllm("0.6.3").banner()
        log.rec("INFO", "entrypoints/openai/api_server.py:558", "Available routes are:")
        log.rec("INFO", "engine/metrics.py:349",
                "Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 512.7 tokens/s, Running: 256 reqs, "
                "Swapped: 0 reqs, Pending: 31 reqs, GPU KV cache usage: 99.2%, CPU KV cache usage: 0.0%.")
        log.rec("WARNING", "core/scheduler.py:1483",
                M(f"Sequence group chat-5c1e8d6a2b3f4e7a9d0c1b2a3f4e5d6c is preempted by PreemptionMode.{mode} mode "
                  "because there is not enough KV cache space. This can affect the end-to-end performance. Increase "
                  "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
                  f"total_num_cumulative_preemption={count}"))
        out.append(Sample("vllm-v0-preemption", label, ">=0.4.3,<=0.10.2", "vllm", "0.6.3", "vllm.runtime.preemption",
                          "serving", log.lines))
    for version, line, label in (
            ("0.11.1", "Engine 000: Avg prompt throughput: 2400.5 tokens/s, Avg generation throughput: 812.3 tokens/s, "
                       "Running: 96 reqs, Waiting: 31 reqs, Preemptions: 7, GPU KV cache usage: 99.6%, Prefix cache hit "
                       "rate: 12.4%", "engine-numbered stats line"),
            ("0.30.0", "Avg prompt throughput: 310.2 tokens/s, Avg generation throughput: 95.6 tokens/s, Running: 12 "
                       "reqs, Waiting: 5 reqs, Preemptions: 2, XPU KV cache usage: 98.9%, Prefix cache hit rate: 0.0%",
             "device-typed KV usage"),
            ("0.33.0", "Avg prompt throughput: 2210.0 tokens/s, Avg generation throughput: 760.1 tokens/s, Running: 88 "
                       "reqs, Waiting: 40 reqs, Deferred: 3 reqs, Preemptions: 11, GPU KV cache usage: 100.0%, Prefix "
                       "cache hit rate: 31.7%", "with deferred requests")):
        log = Vllm(version).banner()
        log.rec("INFO", "entrypoints/launcher.py:46" if at_least(version, "0.29.0") else "entrypoints/openai/api_server.py:1971",
                "Starting vLLM server on http://0.0.0.0:8000" if at_least(version, "0.18.0")
                else "Starting vLLM API server 0 on http://0.0.0.0:8000", proc=log.api)
        log.rec("INFO", "v1/metrics/loggers.py:123", M(line), proc=log.api)
        out.append(Sample("vllm-v1-stats-preemptions", label, ">=0.11.1,<=0.33.0", "vllm", version,
                          "vllm.runtime.preemption", "serving", log.lines))

    # -- family 5: swap space
    log = Vllm("0.5.4").banner()
    log.rec("WARNING", "config.py:704", M("Possibly too large swap space. 32.00 GiB out of the 62.56 GiB total CPU "
                                          "memory is allocated for the swap space."))
    out.append(Sample("vllm-swap-space", "warning (Possibly too large)", "<=0.17.1", "vllm", "0.5.4",
                      "vllm.host.swap-space-too-large", "device-check", log.lines,
                      note="swap_space 32 GiB x 1 GPU is 51% of 62.56 GiB of host memory (warning above 40%)."))
    log = Vllm("0.6.3").banner()
    log.traceback([("vllm/engine/arg_utils.py", 1012, "create_engine_config", "cache_config = CacheConfig("),
                   ("vllm/config.py", 685, "verify_with_parallel_config", "raise ValueError(\"Too large swap space. \" + msg)")],
                  M("ValueError: Too large swap space. 64.00 GiB out of the 62.56 GiB total CPU memory is allocated "
                    "for the swap space."))
    out.append(Sample("vllm-swap-space", "error (Too large)", "<=0.17.1", "vllm", "0.6.3",
                      "vllm.host.swap-space-too-large", "device-check", log.lines))
    log = Vllm("0.6.3").banner()
    log.rec("INFO", "entrypoints/openai/api_server.py:558", "Available routes are:")
    log.traceback(V0_SCHEDULER, M("RuntimeError: Aborted due to the lack of CPU swap space. Please increase the swap "
                                  "space to avoid this error."))
    out.append(Sample("vllm-swap-abort", "swap-out with no CPU blocks", "<=0.10.2", "vllm", "0.6.3",
                      "vllm.runtime.swap-space-exhausted", "serving", log.lines))

    # -- family 5: prompt length
    for version, text, label, versions in (
            ("0.4.1", "Input prompt (9000 tokens) is too long and exceeds limit of 8192", "limit, f-string", "<=0.4.1"),
            ("0.6.3", "Input prompt (9000 tokens) is too long and exceeds limit of 8192", "limit, %d", ">=0.4.2,<=0.10.2"),
            ("0.4.0", "Input prompt (40000 tokens) is too long and exceeds the capacity of block_manager",
             "block manager capacity, f-string", ">=0.2.3,<=0.4.1"),
            ("0.5.4", "Input prompt (40000 tokens) is too long and exceeds the capacity of block_manager",
             "block manager capacity, %d", ">=0.4.2,<=0.6.2"),
            ("0.7.3", "Input prompt (40000 tokens) + lookahead slots (0) is too long and exceeds the capacity of "
                      "block_manager", "lookahead slots", ">=0.6.3,<=0.10.2")):
        log = Vllm(version).banner()
        log.rec("INFO", "entrypoints/openai/api_server.py:558", "Available routes are:")
        log.rec("WARNING", "core/scheduler.py:1012", M(text))
        out.append(Sample("vllm-v0-prompt-too-long", label, versions, "vllm", version, "request.context-length-exceeded",
                          "request-validation", log.lines))
    for version, text, label, versions, frames in (
            ("0.7.3", "The prompt (total length 9000) is too long to fit into the model (context length 8192). Make sure "
                      "that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. For "
                      "image inputs, the number of image tokens depends on the number of images, and possibly their "
                      "aspect ratios as well.", "total length", ">=0.6.0,<=0.8.3", V0_INPUT),
            ("0.9.2", "The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that "
                      "`max_model_len` is no smaller than the number of text tokens.", "longer than the maximum",
             ">=0.8.4,<=0.33.0", V1_INPUT),
            ("0.12.0", "The decoder prompt (length 8192) plus the number of requested output tokens (at least 1) is "
                       "longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than "
                       "the number of text tokens.", "plus requested output tokens", ">=0.11.1,<=0.33.0", V1_INPUT)):
        log = Vllm(version).banner()
        log.traceback(frames, M("ValueError: " + text), header="Error in preprocessing prompt inputs",
                      src="entrypoints/openai/serving_completion.py:128", proc=log.api)
        out.append(Sample("vllm-prompt-longer-than-max-model-len", label, versions, "vllm", version,
                          "request.context-length-exceeded", "request-validation", log.lines))
    openai = (
        ("0.6.3", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the "
                  "messages, 1000 in the completion). Please reduce the length of the messages or completion.",
         "messages plus completion", "<=0.10.0"),
        ("0.8.5", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens in the "
                  "messages, Please reduce the length of the messages.", "messages only", ">=0.4.1,<=0.10.0"),
        ("0.11.0", "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. "
                   "Please reduce the length of the input messages.", "input tokens", ">=0.10.1,<=0.19.1"),
        ("0.15.1", "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is "
                   "8192 tokens and your request has 7000 input tokens (2000 > 8192 - 7000).", "max_tokens too large",
         ">=0.10.1,<=0.17.1"),
        ("0.20.0", "This model's maximum context length is 8192 tokens. However, you requested 2000 output tokens and "
                   "your prompt contains 7000 input tokens, for a total of 9000 tokens. Please reduce the length of the "
                   "input prompt or the number of requested output tokens.", "output plus input tokens",
         ">=0.18.0,<=0.31.0"),
    )
    for version, text, label, versions in openai:
        log = Vllm(version).banner()
        log.traceback(OPENAI_CHAT, M("ValueError: " + text), header="Error in preprocessing prompt inputs",
                      src="entrypoints/openai/serving_chat.py:222", proc=log.api)
        out.append(Sample("vllm-openai-max-context", label, versions, "vllm", version, "request.context-length-exceeded",
                          "request-validation", log.lines))
    log = Vllm("0.32.0").banner()
    log.rec("INFO", "entrypoints/launcher.py:46", "Starting vLLM server on http://0.0.0.0:8000", proc=log.api)
    log.put("$ curl -s http://localhost:8000/v1/chat/completions -H 'Content-Type: application/json' -d @request.json",
            M('{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, your prompt contains '
              '9000 input tokens, which exceeds this limit even without any output tokens. Please reduce the length of '
              'the input prompt.","type":"BadRequestError","param":null,"code":400}}'))
    out.append(Sample("vllm-openai-max-context", "prompt alone too long", ">=0.32.0,<=0.33.0", "vllm", "0.32.0",
                      "request.context-length-exceeded", "request-validation", log.lines,
                      note="The 400 response body as the client receives it."))
    log = Vllm("0.5.4").banner()
    log.traceback(V0_CONFIG, M("ValueError: max_num_batched_tokens (4096) is smaller than max_model_len (32768). This "
                               "effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM "
                               "reject longer sequences. Please increase max_num_batched_tokens or decrease "
                               "max_model_len."))
    out.append(Sample("vllm-batched-tokens-lt-maxlen", "scheduler config check", ">=0.2.2", "vllm", "0.5.4",
                      "vllm.config.batched-tokens-below-max-model-len", "device-check", log.lines))

    # -- wrappers: nothing else in these logs, so the wrapper itself is the root cause
    wrappers = (
        ("0.11.0", "EngineCore failed to start.", "v1/engine/core.py:708", "core", "EngineCore failed to start",
         ">=0.8.5,<=0.33.0"),
        ("0.8.4", "Engine core initialization failed. See root cause above.", "v1/engine/core_client.py:421", "api",
         "initialization failed, no proc list", ">=0.8.4,<=0.8.5.post1"),
        ("0.10.1", "Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}",
         "v1/engine/utils.py:780", "api", "initialization failed with proc list", ">=0.9.0,<=0.27.1"),
        ("0.30.0", "Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}",
         "v1/engine/utils.py:780", "api", "initialization failed with proc list, 0.28+", ">=0.28.0,<=0.33.0"),
        ("0.9.2", "WorkerProc failed to start.", "v1/executor/multiproc_executor.py:510", "worker",
         "WorkerProc failed to start", ">=0.6.5,<=0.33.0"),
        ("0.8.0", "WorkerProc hit an exception: Expected all tensors to be on the same device, but found at least two "
                  "devices, cuda:0 and cpu!", "v1/executor/multiproc_executor.py:371", "worker",
         "WorkerProc hit an exception with text", ">=0.7.0,<=0.8.4"),
        ("0.11.0", "WorkerProc hit an exception.", "v1/executor/multiproc_executor.py:666", "worker",
         "WorkerProc hit an exception", ">=0.8.5,<=0.33.0"),
    )
    for version, text, src, who, label, versions in wrappers:
        log = Vllm(version).banner().loading()
        proc = {"core": log.core, "api": log.api, "worker": "VllmWorker rank=0 pid=305"}[who]
        log.rec("ERROR", src, M(text), proc=proc)
        out.append(Sample("vllm-engine-core-failed", label, versions, "vllm", version, "vllm.engine.core-failed",
                          "weight-loading", log.lines,
                          note="Only the wrapper line is left of the failure, so it is the root cause."))

    # -- LoRA slots
    for version, exc, label, versions in (("0.6.3", "ValueError: No free lora slots", "lora slots", ">=0.3.0,<=0.33.0"),
                                          ("0.11.0", "RuntimeError: No free adapter slots.", "adapter slots",
                                           ">=0.5.2,<=0.33.0")):
        log = Vllm(version).banner()
        log.traceback([("vllm/lora/worker_manager.py", 231, "_apply_adapters", "self.add_adapter(lora)"),
                       ("vllm/lora/model_manager.py", 368, "activate_adapter", "first_free_slot = next(")],
                      M(exc))
        out.append(Sample("vllm-lora-slots", label, versions, "vllm", version, "vllm.lora.no-free-slots", "serving",
                          log.lines))
    return out


# -- PyTorch ---------------------------------------------------------------------------------------

PY_SITE = "/usr/local/lib/python3.10/site-packages"


def hf_generate(torch: str, exc: str) -> list[str]:
    """A transformers generate() call that fails with ``exc`` (the line the sample points at)."""
    context = ("torch/utils/_contextlib.py", 115) if at_least(torch, "2.0") else ("torch/autograd/grad_mode.py", 27)
    return [
        f"torch=={torch}",
        "Traceback (most recent call last):",
        '  File "/app/generate.py", line 41, in <module>',
        "    outputs = model.generate(**inputs, max_new_tokens=512)",
        f'  File "{PY_SITE}/{context[0]}", line {context[1]}, in decorate_context',
        "    return func(*args, **kwargs)",
        f'  File "{PY_SITE}/transformers/generation/utils.py", line 1989, in generate',
        "    result = self._sample(",
        f'  File "{PY_SITE}/transformers/models/llama/modeling_llama.py", line 1189, in forward',
        "    logits = logits.float()",
        M(exc),
    ]


def pytorch_samples() -> list[Sample]:
    out: list[Sample] = []
    gpu = 23.69 * GiB

    def add(ref: str, label: str, versions: str, torch: str, exc: str, expect: str = "pytorch.cuda.oom", **kw) -> None:
        out.append(Sample(ref, label, versions, "pytorch", torch, expect, "serving", hf_generate(torch, exc), **kw))

    add("pytorch-oom-legacy", "without allowed", "<=2.0.1", "1.13.1",
        "torch.cuda.OutOfMemoryError: " + torch_oom_legacy(2 * GiB, gpu, 20.11 * GiB, 1.06 * GiB, 21.34 * GiB))
    add("pytorch-oom-legacy", "with allowed (memory fraction)", "<=2.0.1", "2.0.1",
        "torch.cuda.OutOfMemoryError: " + torch_oom_legacy(1 * GiB, gpu, 17.02 * GiB, 4.75 * GiB, 17.6 * GiB,
                                                           allowed=18 * GiB),
        expect="pytorch.cuda.oom-memory-cap")  # a cap below the card (18 of 23.69 GiB) is what refused it
    common = {"alloc": 1.25 * GiB, "total": 23.65 * GiB, "free": 1.02 * GiB, "allocated": 19.86 * GiB,
                  "unallocated": 210.45 * MiB, "procs": ((2213, 2.1 * GiB),), "own": 20.51 * GiB}
    add("pytorch-oom-2.1", "capacty typo, process list", ">=2.1.0,<=2.1.2", "2.1.2",
        "torch.cuda.OutOfMemoryError: " + torch_oom("2.1.2", **common))
    add("pytorch-oom-2.1", "capacty typo, allowed", ">=2.1.0,<=2.1.2", "2.1.2",
        "torch.cuda.OutOfMemoryError: " + torch_oom("2.1.2", alloc=1 * GiB, total=23.65 * GiB, free=6.52 * GiB,
                                                    allocated=15.43 * GiB, unallocated=120.0 * MiB, own=16.98 * GiB,
                                                    allowed=16 * GiB),
        expect="pytorch.cuda.oom-memory-cap")
    add("pytorch-oom-2.2plus", "no private pools", ">=2.2.0,<=2.14.1", "2.2.2",
        "torch.cuda.OutOfMemoryError: " + torch_oom("2.2.2", **common))
    add("pytorch-oom-2.2plus", "private pools clause", ">=2.4.0,<=2.14.1", "2.5.1",
        "torch.OutOfMemoryError: " + torch_oom("2.5.1", private=3.21 * GiB, **common),
        note="3.21 GiB held by CUDA graph pools; the fragmentation signature stays out (pools above 0.25 GiB).")
    add("pytorch-oom-2.2plus", "PYTORCH_ALLOC_CONF hint", ">=2.10.0,<=2.10.0", "2.10.0",
        "torch.OutOfMemoryError: " + torch_oom("2.10.0", **common))
    add("pytorch-oom-2.2plus", "docs.pytorch.org URL", ">=2.11.0,<=2.14.1", "2.14.1",
        "torch.OutOfMemoryError: " + torch_oom("2.14.1", **common))
    add("pytorch-oom-fields", "other processes listed", ">=2.1.0,<=2.14.1", "2.4.1",
        "torch.OutOfMemoryError: " + torch_oom("2.4.1", alloc=2 * GiB, total=23.65 * GiB, free=1.5 * GiB,
                                               allocated=9.12 * GiB, unallocated=102.0 * MiB,
                                               procs=((1873, 9.5 * GiB), (2044, 3.2 * GiB))),
        note="Two other processes hold 12.7 GiB of the card: a co-tenant, not this model, is the problem.")
    add("pytorch-oom-fields", "this process line", ">=2.1.0,<=2.14.1", "2.6.0",
        "torch.OutOfMemoryError: " + torch_oom("2.6.0", alloc=1.5 * GiB, total=23.65 * GiB, free=900 * MiB,
                                               allocated=21.9 * GiB, unallocated=150.0 * MiB, own=22.61 * GiB))
    add("pytorch-oom-fields", "allocated-by-PyTorch sentence with private pools", ">=2.4.0,<=2.14.1", "2.7.1",
        "torch.OutOfMemoryError: " + torch_oom("2.7.1", alloc=512 * MiB, total=23.65 * GiB, free=310 * MiB,
                                               allocated=22.3 * GiB, unallocated=88.0 * MiB, own=23.1 * GiB,
                                               private=1.45 * GiB))
    add("pytorch-oom-fraction-preempt", "rejected before cudaMalloc", ">=2.12.1,<=2.14.1", "2.12.1",
        "torch.OutOfMemoryError: CUDA out of memory. Allocation was preemptively rejected because it would exceed "
        "per_process_memory_fraction limit. Requested size: 4.00 GiB",
        expect="pytorch.cuda.oom-memory-cap")
    add("pytorch-exception-name", "torch.cuda.OutOfMemoryError", ">=1.13.1,<=2.3.1", "2.3.1",
        "torch.cuda.OutOfMemoryError: " + torch_oom("2.3.1", **common))
    add("pytorch-exception-name", "torch.OutOfMemoryError", ">=2.4.0,<=2.14.1", "2.4.1",
        "torch.OutOfMemoryError: " + torch_oom("2.4.1", **common))
    add("pytorch-exception-name", "RuntimeError before 1.13", "<1.13", "1.12.1",
        "RuntimeError: " + torch_oom_legacy(1 * GiB, 10.76 * GiB, 8.39 * GiB, 1.26 * GiB, 8.52 * GiB))
    for torch, cls, period, dsa, label, versions in (
            ("1.13.1", "RuntimeError", ".", False, "period, no DSA line", "<=1.13.1"),
            ("2.1.2", "RuntimeError", "", True, "DSA line", ">=2.0.1,<=2.12.1"),
            ("2.14.1", "torch.AcceleratorError", "", False, "no DSA line", ">=2.14.1,<=2.14.1")):
        lines = hf_generate(torch, f"{cls}: CUDA error: out of memory")
        lines += ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
                  "might be incorrect.", f"For debugging consider passing CUDA_LAUNCH_BLOCKING=1{period}"]
        if dsa:
            lines.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
        out.append(Sample("pytorch-cuda-error-oom", label, versions, "pytorch", torch, "cuda.runtime.out-of-memory",
                          "serving", lines))
    # PyTorch's MPS allocator (Apple silicon). Not in the reference: the template is
    # MPSHeapAllocatorImpl::alloc_buffer_block in aten/src/ATen/mps/MPSAllocator.mm, which names the
    # cap only while the high watermark is on (PYTORCH_MPS_HIGH_WATERMARK_RATIO, default 1.7).
    def mps_oom(allocated: float, other: float, alloc: float, allowed: float | None, pool: str = "private") -> str:
        cap = f", max allowed: {size(allowed)}" if allowed is not None else ""
        hint = (" Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause "
                "system failure).") if allowed is not None else ""
        return (f"RuntimeError: MPS backend out of memory (MPS allocated: {size(allocated)}, other allocations: "
                f"{size(other)}{cap}). Tried to allocate {size(alloc)} on {pool} pool.{hint}")

    add("pytorch-mps-oom", "watermark on, the cache holds much", None, "2.5.1",
        mps_oom(9.1 * GiB, 8.3 * GiB, 1.5 * GiB, 18.13 * GiB), expect="pytorch.mps.oom",
        note="A 32 GB Mac (working set about 10.67 GiB, cap 1.7 times that): half the cap is cached buffers, and a "
             "ratio near 1.8 would also hold the request.")
    add("pytorch-mps-oom", "watermark on, beyond the highest ratio", None, "2.5.1",
        mps_oom(17.6 * GiB, 256 * MiB, 4 * GiB, 18.13 * GiB), expect="pytorch.mps.oom",
        note="The step needs about 21.9 GiB, above the 21.33 GiB that the highest ratio (2.0) allows: raising the cap "
             "cannot fit it.")
    add("pytorch-mps-oom", "watermark off", None, "2.5.1",
        mps_oom(30.2 * GiB, 1.1 * GiB, 2 * GiB, None, pool="shared"), expect="pytorch.mps.oom")
    return out


# -- TGI -------------------------------------------------------------------------------------------

PY_TGI = "/opt/conda/lib/python3.11/site-packages"


class Tgi(Log):
    """TGI launcher output: RFC 3339 time, level padded to five columns, target, message."""

    def __init__(self, version: str, model: str = "mistralai/Mistral-7B-Instruct-v0.2") -> None:
        super().__init__()
        self.version = version
        self.put(f"$ docker run --gpus all --shm-size 1g -p 8080:80 ghcr.io/huggingface/text-generation-inference:"
                 f"{version} --model-id {model}")

    def rec(self, level: str, target: str, msg: str) -> Tgi:
        t = self.clock()
        self.lines.append(_keep_mark(msg, f"2024-05-10T12:{t // 60:02d}:{t % 60:02d}.{t * 104729 % 1000000:06d}Z "
                                          f"{level:>5} {target}: {msg}"))
        return self

    @property
    def router(self) -> str:
        if at_least(self.version, "2.3.0"):
            return "text_generation_router_v3: backends/v3/src/lib.rs:125"
        return "text_generation_router: router/src/main.rs:402"

    def start(self) -> Tgi:
        self.rec("INFO", "text_generation_launcher", "Starting download process.")
        self.rec("INFO", "shard-manager: text_generation_launcher", "Starting shard rank=0")
        return self

    def warmup(self) -> Tgi:
        self.rec("INFO", "text_generation_launcher", "Shard ready in 14.5s")
        self.rec("INFO", self.router, "Warming up model")
        return self

    def shard_error(self, header: str, frames: list[tuple[str, int, str, str]], exc: str) -> Tgi:
        """The Python shard's logger.exception, relayed by the launcher: header, then traceback."""
        self.rec("ERROR", "text_generation_launcher", header)
        self.put("Traceback (most recent call last):")
        for path, lineno, func, code in frames:
            self.put(f'  File "{PY_TGI}/{path}", line {lineno}, in {func}', f"    {code}")
        self.put(exc)
        return self


TGI_WARMUP = [
    ("text_generation_server/interceptor.py", 21, "intercept", "return await response"),
    ("text_generation_server/server.py", 123, "Warmup", "max_supported_total_tokens = self.model.warmup(batch)"),
    ("text_generation_server/models/flash_causal_lm.py", 1335, "warmup", "raise RuntimeError("),
]
TGI_GRAPHS = [
    ("text_generation_server/models/flash_causal_lm.py", 1018, "warmup", "self.cuda_graph_warmup(bs, max_s, max_bt)"),
    ("text_generation_server/models/flash_causal_lm.py", 868, "cuda_graph_warmup", "self.model.forward("),
    ("torch/cuda/graphs.py", 184, "__exit__", "self.cuda_graph.capture_end()"),
]


def tgi_samples() -> list[Sample]:
    out: list[Sample] = []
    log = Tgi("0.9.3").start().warmup()
    log.shard_error("Method Warmup encountered an error.", TGI_WARMUP,
                    M("RuntimeError: Not enough memory to handle 16000 total tokens with 4096 prefill tokens. You need "
                      "to decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`"))
    out.append(Sample("tgi-warmup-prefill-oom-old", "total and prefill tokens", ">=0.9.0,<=0.9.3", "tgi", "0.9.3",
                      "tgi.prefill.not-enough-memory", "warmup", log.lines))
    log = Tgi("3.0.1").start().warmup()
    log.shard_error("Method Warmup encountered an error.", TGI_WARMUP,
                    M("RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease "
                      "`--max-batch-prefill-tokens`"))
    log.rec("ERROR", "warmup{max_input_length=None max_prefill_tokens=4096 max_total_tokens=None max_batch_size=None}:"
                     "warmup: text_generation_router_v3::client", "backends/v3/src/client/mod.rs:45: Server error: Not "
                     "enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`")
    out.append(Sample("tgi-warmup-prefill-oom", "prefill tokens", ">=0.9.4,<=3.3.7", "tgi", "3.0.1",
                      "tgi.prefill.not-enough-memory", "warmup", log.lines))
    log = Tgi("1.4.0").start().warmup()
    log.rec("ERROR", "text_generation_router", M("router/src/main.rs:417: Argument validation error: `max_total_tokens` "
                                                 "must be <= `max_batch_total_tokens`. Given: 32000 and 21104"))
    out.append(Sample("tgi-router-max-total-tokens", "argument validation", ">=1.0.0,<=2.0.4", "tgi", "1.4.0",
                      "tgi.router.max-total-tokens-exceeds-capacity", "kv-cache-allocation", log.lines,
                      note="Warm-up found room for 21104 tokens; one request may use 32000."))
    log = Tgi("2.4.1").start().warmup()
    log.rec("INFO", "text_generation_launcher", "KV-cache blocks: 1319, size: 16")
    log.rec("ERROR", "text_generation_router_v3", M("backends/v3/src/lib.rs:125: Not enough memory to handle "
                                                    "`max_total_tokens=32000`"))
    out.append(Sample("tgi-router-max-total-tokens", "not enough memory for max_total_tokens", ">=2.1.0,<=3.3.7", "tgi",
                      "2.4.1", "tgi.router.max-total-tokens-exceeds-capacity", "kv-cache-allocation", log.lines,
                      note="1319 blocks x 16 = 21104 tokens of KV cache, less than max_total_tokens 32000."))

    log = Tgi("2.0.4").start().warmup()
    log.rec("INFO", "text_generation_launcher", "Cuda Graphs are enabled for sizes [1, 2, 4, 8, 16, 32]")
    log.rec("ERROR", "text_generation_launcher", M("Decode cuda graph warmup failed"))
    log.put("Traceback (most recent call last):")
    for path, lineno, func, code in TGI_GRAPHS:
        log.put(f'  File "{PY_TGI}/{path}", line {lineno}, in {func}', f"    {code}")
    log.put("torch.cuda.OutOfMemoryError: " + torch_oom("2.3.0", alloc=256 * MiB, total=23.65 * GiB, free=120.81 * MiB,
                                                        allocated=22.74 * GiB, unallocated=97.3 * MiB, own=23.52 * GiB))
    out.append(Sample("tgi-cuda-graphs", "decode graph warm-up failed", ">=1.4.1,<=3.3.7", "tgi", "2.0.4",
                      "tgi.cudagraph.warmup-failed", "cudagraph-capture", log.lines))

    log = Tgi("1.4.5").start().warmup()
    log.shard_error("Method Warmup encountered an error.", TGI_WARMUP, M("ValueError: Unsupported head size: 96"))
    out.append(Sample("tgi-wrappers", "Method encountered an error", ">=0.4.0,<=3.3.7", "tgi", "1.4.5",
                      "uncatalogued", "warmup", log.lines,
                      note="The shard's own exception is not a memory message: it is reported as uncatalogued, "
                           "ahead of the wrapper that points at it."))
    log = Tgi("2.0.4").start()
    log.rec("ERROR", "shard-manager: text_generation_launcher", M("Shard complete standard error output:"))
    log.put("", "The cache for model files in Transformers v4.22.0 has been updated.")
    log.rec("ERROR", "shard-manager: text_generation_launcher", "Shard process was signaled to shutdown with signal 9")
    out.append(Sample("tgi-wrappers", "shard standard error output", ">=0.4.0,<=3.3.7", "tgi", "2.0.4",
                      "tgi.shard.failed", "weight-loading", log.lines))
    log = Tgi("2.0.4").start()
    log.rec("ERROR", "text_generation_launcher", M("Shard 0 failed to start"))
    log.rec("INFO", "text_generation_launcher", "Shutting down shards")
    out.append(Sample("tgi-wrappers", "shard failed to start", ">=0.4.0,<=3.3.7", "tgi", "2.0.4", "tgi.shard.failed",
                      "weight-loading", log.lines))
    log = Tgi("2.2.0").start().warmup()
    log.rec("ERROR", "text_generation_launcher", M("Unable to warmup the Python model shards: transport error"))
    out.append(Sample("tgi-wrappers", "unable to warm up the shards", ">=0.4.0,<=3.3.7", "tgi", "2.2.0",
                      "tgi.shard.failed", "warmup", log.lines))
    log = Tgi("2.2.0").start().warmup()
    log.rec("INFO", log.router, "Connected")
    log.rec("ERROR", "batch{batch_size=1}:prefill:prefill{id=0 size=1}:prefill{id=0 size=1}: text_generation_client",
            M("router/client/src/lib.rs:33: Server error: transport error"))
    out.append(Sample("tgi-wrappers", "server error", ">=0.4.0,<=3.3.7", "tgi", "2.2.0", "tgi.shard.failed", "serving",
                      log.lines, note="The router's batch span belongs to its serving loop, after 'Connected'."))

    for version, text, label, versions, gap in (
            ("1.4.0", "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 "
                      "`max_new_tokens`", "inputs plus max_new_tokens", ">=0.4.0,<=3.3.7", None),
            ("2.0.4", "`inputs` must have less than 4000 tokens. Given: 4500", "inputs alone", ">=0.4.0,<=3.3.7", None),
            ("2.0.4", "`max_new_tokens` must be <= 2048. Given: 4096", "max_new_tokens alone", ">=0.5.0,<=3.3.7",
             None)):
        log = Tgi(version).start().warmup()
        log.rec("INFO", "text_generation_router", "router/src/server.rs:1579: Connected")
        log.rec("ERROR", "compat_generate{default_return_full_text=true}:generate:generate: text_generation_router::infer",
                M("router/src/infer.rs:121: " + text))
        out.append(Sample("tgi-request-validation", label, versions, "tgi", version, "request.context-length-exceeded",
                          "request-validation", log.lines, gap=gap))

    # TGI's vLLM backend (backends/vllm on TGI's main branch) runs vLLM's LLMEngine in process
    # through PyO3: vLLM's engine core logs its own failure, and main() returns the Python error
    # as VllmBackendError::Python, printed in PyO3's Debug form. Not in the reference: the last
    # line's template is TGI's backends/vllm/src/{main,errors}.rs and PyO3's Debug of PyErr.
    nocache = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    log = Vllm("0.8.5")
    log.rec("INFO", "v1/worker/gpu_worker.py:217", "Available KV cache memory: -0.84 GiB", proc=log.core)
    log.engine_failure(V1_KV_SIZING, M("ValueError: " + nocache), wrap=False)
    log.put("Error: Python(PyErr { type: <class 'RuntimeError'>, value: RuntimeError('Engine core initialization "
            "failed. See root cause above.'), traceback: Some(<traceback object at 0x7f3c5a2e1d80>) })")
    out.append(Sample("tgi-vllm-backend-error", "vLLM backend start-up error", None, "tgi", "main",
                      "vllm.kv-cache.no-available-memory", "kv-cache-allocation", log.lines,
                      note="vLLM 0.8.5 inside TGI's vLLM backend: TGI's --max-total-tokens and "
                           "--max-batch-prefill-tokens never reach vLLM, so the advice must say what does."))
    return out


# -- SGLang ----------------------------------------------------------------------------------------

PY_SGL = "/usr/local/lib/python3.10/dist-packages"


class Sglang(Log):
    """SGLang records: '[time TPn] msg' (the rank in the bracket); multi-line messages keep the
    header on the first line only."""

    def __init__(self, version: str, extra: str = "") -> None:
        super().__init__()
        self.version = version
        if at_least(version, "0.2.0"):
            cuda = "cu121" if not at_least(version, "0.4.0") else "cu124" if not at_least(version, "0.5.0") else "cu126"
            self.put(f"$ docker run --gpus all --shm-size 32g --ipc=host -p 30000:30000 lmsysorg/sglang:v{version}-{cuda} "
                     f"python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --port 30000{extra}")
        else:
            self.put(f'$ pip install "sglang[all]=={version}"',
                     f"$ python -m sglang.launch_server --model-path meta-llama/Llama-2-7b-chat-hf --port 30000{extra}")

    def rec(self, msg: str, *more: str, rank: str = "TP0") -> Sglang:
        t = self.clock()
        self.lines.append(_keep_mark(msg, f"[2025-01-10 12:{t // 60:02d}:{t % 60:02d} {rank}] {msg}"))
        self.lines.extend(more)
        return self

    def exception(self, frames: list[tuple[str, int, str, str]], *exc: str) -> Sglang:
        body = []
        for path, lineno, func, code in frames:
            body += [f'  File "{PY_SGL}/{path}", line {lineno}, in {func}', f"    {code}"]
        return self.rec("Scheduler hit an exception: Traceback (most recent call last):", *body, *exc)


SGL_POOL = [
    ("sglang/srt/managers/scheduler.py", 2400, "run_scheduler_process", "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)"),
    ("sglang/srt/model_executor/model_runner.py", 231, "initialize", "self.init_memory_pool("),
    ("sglang/srt/model_executor/model_runner.py", 1024, "init_memory_pool", "raise RuntimeError("),
]
SGL_CAPTURE = [
    ("sglang/srt/managers/scheduler.py", 2400, "run_scheduler_process", "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)"),
    ("sglang/srt/model_executor/model_runner.py", 255, "initialize", "self.init_cuda_graphs()"),
    ("sglang/srt/model_executor/cuda_graph_runner.py", 318, "__init__", "raise Exception("),
]
SGL_DEVICE = [
    ("sglang/srt/managers/scheduler.py", 2400, "run_scheduler_process", "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)"),
    ("sglang/srt/model_executor/model_runner.py", 389, "init_torch_distributed", "raise ValueError("),
]


def sglang_samples() -> list[Sample]:
    out: list[Sample] = []
    for version, text, label, versions in (
            ("0.1.12", "Not enought memory. Please try to increase --mem-fraction-static.", "typo 'enought'",
             ">=0.1.6,<=0.1.17"),
            ("0.3.0", "Not enough memory. Please try to increase --mem-fraction-static.", "plain", ">=0.1.18,<=0.5.2"),
            ("0.5.4", "Not enough memory. Please try to increase --mem-fraction-static. Current value: "
                      "self.server_args.mem_fraction_static=0.5", "current value with self.server_args",
             ">=0.5.3,<=0.5.9"),
            ("0.5.12", "Not enough memory. Please try to increase --mem-fraction-static. Current value: "
                       "mem_fraction_static=0.5", "current value", ">=0.5.10,<=0.5.23"),
            ("0.5.20", "Not enough memory. Please try to increase --mem-fraction-static.", "no current value",
             ">=0.5.10,<=0.5.23")):
        log = Sglang(version, " --mem-fraction-static 0.5")
        log.rec("Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=9.12 GB, mem usage=14.99 GB.")
        log.exception(SGL_POOL, M("RuntimeError: " + text))
        out.append(Sample("sglang-not-enough-memory", label, versions, "sglang", version,
                          "sglang.startup.not-enough-memory", "kv-cache-allocation", log.lines,
                          note="0.5 x 23.65 GiB is less than the 14.99 GB of weights: no KV tokens fit."))
    for version, text, label in (
            ("0.3.0", "The memory capacity is unbalanced. Some GPUs may be occupied by other processes.", "no details"),
            ("0.4.6", "The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
                      "min_per_gpu_memory=60.12, local_gpu_memory=78.9, local_gpu_memory * 0.9=71.01", "with details")):
        log = Sglang(version, " --tp 2")
        log.rec("Init torch distributed begin.")
        log.exception(SGL_DEVICE, M("ValueError: " + text))
        out.append(Sample("sglang-mem-unbalanced", label, ">=0.1.17,<=0.5.23" if label == "no details" else
                          ">=0.4.4,<=0.5.23", "sglang", version, "sglang.startup.memory-unbalanced", "device-check",
                          log.lines, note="The other rank's GPU has 18.8 GB less free memory than this one."))
    hint_full = ["Possible solutions:",
                 "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
                 "2. set --cuda-graph-max-bs to a smaller value (e.g., 16)",
                 "3. disable torch compile by not using --enable-torch-compile",
                 "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)",
                 "Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose "]
    for version, torch, head, hints, label, versions in (
            ("0.1.22", "2.3.0", "Capture cuda graph failed {e}.", [], "no colon, lower-case", ">=0.1.22,<=0.1.22"),
            ("0.5.2", "2.8.0", "Capture CUDA graph failed: {e}", hint_full, "hint list", ">=0.4.6.post4,<=0.5.13.post1"),
            ("0.5.14", "2.9.1", "Capture CUDA graph failed: {e}",
             ["Possible solutions:", "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
              "2. set --cuda-graph-max-bs-decode to a smaller value (e.g., 16)",
              "3. disable decode CUDA graph by --cuda-graph-backend-decode=disabled."], "decode runner hints",
             ">=0.5.14,<=0.5.23"),
            ("0.5.20", "2.9.1", "Capture CUDA graph failed: {e}",
             ["Possible solutions:", "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
              "2. set --cuda-graph-max-bs-prefill to a smaller value (e.g., 16)",
              "3. disable prefill CUDA graph by --cuda-graph-backend-prefill=disabled."], "prefill runner hints",
             ">=0.5.14,<=0.5.23")):
        oom = torch_oom(torch, alloc=128 * MiB, total=79.19 * GiB, free=54.25 * MiB, allocated=76.83 * GiB,
                        unallocated=188.6 * MiB, own=79.13 * GiB, private=1.73 * GiB)
        log = Sglang(version, " --mem-fraction-static 0.9")
        log.rec("Capture cuda graph begin. This can take up to several minutes." +
                (" avail mem=3.21 GB" if at_least(version, "0.4.3.post3") else ""))
        log.exception(SGL_CAPTURE, M("Exception: " + head.format(e=oom)), *hints)
        out.append(Sample("sglang-cuda-graph-failed", label, versions, "sglang", version,
                          "sglang.cudagraph.oom-during-capture", "cudagraph-capture", log.lines))
    log = Sglang("0.3.4.post2")
    log.rec("The server is fired up and ready to roll!")
    log.rec(M("Prefill out of memory. Try to lower your batch size."), "Try to allocate 4096 tokens.",
            "Avaliable tokens: 1024 (available_size=512 + evictable_size=512)")
    out.append(Sample("sglang-runtime-oom", "prefill", ">=0.2.10,<=0.5.23", "sglang", "0.3.4.post2",
                      "sglang.runtime.kv-pool-exhausted", "serving", log.lines))
    log = Sglang("0.4.1")
    log.rec("The server is fired up and ready to roll!")
    log.rec(M("Decode out of memory. Try to lower your batch size."), "Try to allocate 64 tokens.",
            "Avaliable tokens: 12 (available_size=12 + evictable_size=0)")
    out.append(Sample("sglang-runtime-oom", "decode", ">=0.2.10,<=0.5.23", "sglang", "0.4.1",
                      "sglang.runtime.kv-pool-exhausted", "serving", log.lines))
    log = Sglang("0.4.6")
    log.rec("The server is fired up and ready to roll!")
    log.exception([("sglang/srt/managers/scheduler.py", 1203, "get_new_batch_prefill", "new_batch.prepare_for_extend()"),
                   ("sglang/srt/managers/schedule_batch.py", 1041, "alloc_req_slots", "raise RuntimeError(")],
                  M("RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for "
                    "`--max-running-requests`."))
    out.append(Sample("sglang-runtime-oom", "request slots", ">=0.4.3.post3,<=0.5.23", "sglang", "0.4.6",
                      "sglang.runtime.kv-pool-exhausted", "serving", log.lines))
    for version, text, label, versions in (
            ("0.2.5", "decode out of memory happened, #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000",
             "lower-case, comma", ">=0.1.6,<=0.2.13"),
            ("0.3.6", "Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000",
             "capitalised, period", ">=0.2.14,<=0.4.6.post5"),
            ("0.4.8", "KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000",
             "pool is full", ">=0.4.7,<=0.5.6.post2"),
            ("0.5.4", "KV cache pool is full. Retract requests. #retracted_reqs: 3, #aborted_retracted_reqs: 0, "
                      "#new_token_ratio: 0.4000 -> 0.5000", "with aborted count", ">=0.5.3,<=0.5.4.post1"),
            ("0.5.10", "KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_tokens_gained: 2048",
             "tokens gained", ">=0.5.7,<=0.5.23")):
        log = Sglang(version)
        log.rec("The server is fired up and ready to roll!")
        log.rec("Decode batch. #running-req: 128, #token: 81920, token usage: 0.99, gen throughput (token/s): 3120.55, "
                "#queue-req: 17")
        log.rec(M(text))
        out.append(Sample("sglang-retract", label, versions, "sglang", version, "sglang.runtime.kv-pool-exhausted",
                          "serving", log.lines))
    for version, text, label, versions in (
            ("0.3.0", "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
             "input longer than context", ">=0.1.16,<=0.5.23"),
            ("0.5.1", "The input (9000 tokens) is longer than the model's context length (8192 tokens). Truncating the "
                      "input.", "truncating", ">=0.5.1,<=0.5.23"),
            ("0.4.1.post7", "Requested token count exceeds the model's maximum context length of 8192 tokens. You "
                            "requested a total of 9000 tokens: 8000 tokens from the input messages and 1000 tokens for "
                            "the completion. Please reduce the number of tokens in the input messages or the "
                            "completion to fit within the limit.", "input plus completion", ">=0.4.1.post7,<=0.5.23")):
        log = Sglang(version)
        log.rec("The server is fired up and ready to roll!")
        log.rec(M(text))
        out.append(Sample("sglang-context-length", label, versions, "sglang", version, "request.context-length-exceeded",
                          "request-validation", log.lines))
    return out


# -- llama.cpp -------------------------------------------------------------------------------------


def llamacpp_head(build: int, server: bool = False) -> list[str]:
    if server or build >= 3300:
        banner = f"build: {build} (0a1b2c3d) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu"
    else:
        banner = f"main: build = {build} (0a1b2c3)"
    return [banner,
            "ggml_cuda_init: found 1 CUDA devices:",
            "  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes"]


def llamacpp_samples() -> list[Sample]:
    out: list[Sample] = []
    loading = ["llm_load_tensors: ggml ctx size =    0.30 MiB", "llm_load_tensors: offloading 32 repeating layers to GPU",
               "llm_load_tensors: offloaded 33/33 layers to GPU"]
    log = llamacpp_head(3000) + loading + [
        M("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 13563.02 MiB on device 0: cudaMalloc failed: out of memory"),
        "llama_model_load: error loading model: unable to allocate backend buffer",
        "llama_load_model_from_file: failed to load model"]
    out.append(Sample("llamacpp-cudamalloc-failed", "backend buffer cudaMalloc", ">=1843", "llamacpp", "3000",
                      "llamacpp.gpu.alloc-failed", "weight-loading", log,
                      note="13.2 GiB of fp16 weights for a 12 GiB RTX 3060."))
    context = ["llama_new_context_with_model: n_ctx      = 32768", "llama_new_context_with_model: n_batch    = 2048",
               "llama_kv_cache_init:      CUDA0 KV buffer size =  4096.00 MiB",
               "llama_new_context_with_model: KV self size  = 4096.00 MiB, K (f16): 2048.00 MiB, V (f16): 2048.00 MiB",
               "llama_new_context_with_model:  CUDA_Host  output buffer size =     0.49 MiB"]
    log = llamacpp_head(3000) + context + [
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4208.00 MiB on device 0: cudaMalloc failed: out of memory",
        M("ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4412407808"),
        "llama_new_context_with_model: failed to allocate compute buffers"]
    out.append(Sample("llamacpp-alloc-buffer-failed", "gallocr compute buffer", ">=1996", "llamacpp", "3000",
                      "llamacpp.gpu.alloc-failed", "warmup", log))
    log = llamacpp_head(3000) + loading + [
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 13563.02 MiB on device 0: cudaMalloc failed: out of memory",
        M("llama_model_load: error loading model: unable to allocate backend buffer"),
        "llama_load_model_from_file: failed to load model"]
    out.append(Sample("llamacpp-unable-to-allocate-buffer", "backend buffer", ">=2508,<=3894", "llamacpp", "3000",
                      "llamacpp.gpu.alloc-failed", "weight-loading", log))
    log = llamacpp_head(4000) + loading + [
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 13563.02 MiB on device 0: cudaMalloc failed: out of memory",
        M("llama_model_load: error loading model: unable to allocate CUDA0 buffer"),
        "llama_load_model_from_file: failed to load model"]
    out.append(Sample("llamacpp-unable-to-allocate-buffer", "named buffer", ">=3895", "llamacpp", "4000",
                      "llamacpp.gpu.alloc-failed", "weight-loading", log))
    log = llamacpp_head(3000) + loading + [
        "llama_new_context_with_model: n_ctx      = 131072",
        "llama_kv_cache_init: kv_size = 131072, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 32",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory",
        M("llama_kv_cache_init: failed to allocate buffer for kv cache"),
        "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache"]
    out.append(Sample("llamacpp-kv-alloc-failed", "logged by llama_kv_cache_init", ">=1843", "llamacpp", "3000",
                      "llamacpp.gpu.alloc-failed", "kv-cache-allocation", log,
                      note="A 128k context needs 16 GiB of KV cache in f16."))
    log = llamacpp_head(3000) + context + [
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4208.00 MiB on device 0: cudaMalloc failed: out of memory",
        "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4412407808",
        M("llama_new_context_with_model: failed to allocate compute buffers")]
    out.append(Sample("llamacpp-compute-buffers", "compute buffers (context creation)", ">=2129", "llamacpp", "3000",
                      "llamacpp.gpu.alloc-failed", "warmup", log))
    log = llamacpp_head(4000, server=True) + context[:2] + [
        "srv  update_slots: all slots are idle",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4208.00 MiB on device 0: cudaMalloc failed: out of memory",
        "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4412407808",
        M("llama_kv_cache_update_impl: failed to allocate compute buffers")]
    out.append(Sample("llamacpp-compute-buffers", "compute buffers (KV cache update while serving)", ">=2129", "llamacpp",
                      "4000", "llamacpp.gpu.alloc-failed", "serving", log,
                      note="A K-shift or defragmentation of the KV cache needs its own compute graph at run time."))
    for build, lines, label, versions in (
            (1500, [M("CUDA error 2 at ggml-cuda.cu:7036: out of memory"), "current device: 0"],
             "error code and location", "<1697"),
            (2500, [M("CUDA error: out of memory"), "  current device: 0, in function alloc at ggml-cuda.cu:291",
                    "  cuMemCreate(&handle, reserve_size, &prop, 0)", 'GGML_ASSERT: ggml-cuda.cu:100: !"CUDA error"'],
             "CUDA error with device and function", ">=1697,<=3867"),
            (4000, [M("CUDA error: out of memory"),
                    "  current device: 0, in function alloc at ggml/src/ggml-cuda/ggml-cuda.cu:376",
                    "  cuMemCreate(&handle, reserve_size, &prop, 0)",
                    "ggml/src/ggml-cuda/ggml-cuda.cu:70: CUDA error"], "backend-named error (CUDA)", ">=3868"),
            (4000, [M("ROCm error: out of memory"),
                    "  current device: 0, in function ggml_cuda_pool_leg::alloc at ggml/src/ggml-cuda/ggml-cuda.cu:313",
                    "  ggml_cuda_device_malloc(&ptr, look_ahead_size, device)",
                    "ggml/src/ggml-cuda/ggml-cuda.cu:70: ROCm error"], "backend-named error (ROCm)", ">=3868")):
        head = llamacpp_head(build)
        if label.endswith("(ROCm)"):
            head = [head[0], "ggml_cuda_init: found 1 ROCm devices:",
                    "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32"]
        log = head + ["llama_new_context_with_model:      CUDA0 compute buffer size =   560.00 MiB",
                      "llama_new_context_with_model: graph nodes  = 1030"] + lines
        out.append(Sample("llamacpp-cuda-error", label, versions, "llamacpp", str(build), "llamacpp.gpu.alloc-failed",
                          "warmup", log))
    for build, line, label, versions in (
            (1500, "ggml_allocr_alloc: not enough space in the buffer (needed 442499072, largest block available "
                   "290586624)", "needed and largest block", "<=2128"),
            (3000, "ggml_tallocr_alloc: not enough space in the buffer to allocate blk.0.attn_k.weight (needed 4194304, "
                   "available 2097152)", "tensor name", ">=2129"),
            (3000, "ggml_dyn_tallocr_alloc: not enough space in the buffer to allocate 442499072 bytes, largest block "
                   "available 290586624 bytes", "bytes and largest block", ">=2129"),
            (4000, 'ggml/src/ggml-alloc.c:182: not enough space in the buffer', "abort message", ">=1046")):
        log = llamacpp_head(build) + ["llama_new_context_with_model:      CUDA0 compute buffer size =   560.00 MiB",
                                      "llama_new_context_with_model: graph nodes  = 1030", M(line)]
        out.append(Sample("llamacpp-not-enough-space", label, versions, "llamacpp", str(build),
                          None, "warmup", log,
                          note="A graph larger than the reserved buffer: an allocator mismatch (a bug or changed "
                               "shapes) rather than a full GPU, so no memory diagnosis."))
    for build, line, label, versions, gap in (
            (3000, '{"tid":"139871","timestamp":1718000000,"level":"ERR","function":"update_slots","line":1953,'
                   '"msg":"input is too large to process. increase the physical batch size","id_slot":0,"id_task":7}',
             "physical batch size", ">=2943,<=4747",
             None),
            (3000, '{"tid":"139871","timestamp":1718000000,"level":"WARN","function":"update_slots","line":1877,'
                   '"msg":"input is larger than the max context size. skipping","id_slot":0,"id_task":7}',
             "larger than the max context", ">=2943,<=4747", None),
            (4000, "srv    send_error: task id = 12, error: the request exceeds the available context size. try "
                   "increasing the context size or enable context shift", "request exceeds the context",
             ">=3812,<=4747", None)):
        head = llamacpp_head(build, server=True) if build >= 3300 else [
            '{"tid":"139871","timestamp":1717999990,"level":"INFO","function":"main","line":2862,"msg":"build info",'
            f'"build":{build},"commit":"0a1b2c3"}}']
        log = head + [M(line)]
        out.append(Sample("llamacpp-server-context", label, versions, "llamacpp", str(build),
                          "request.context-length-exceeded", "request-validation", log, gap=gap))
    return out


# -- Ollama ----------------------------------------------------------------------------------------


class Ollama(Log):
    """Ollama server log: the Go log package ('2024/02/20 10:00:00 file.go:N: msg') before 0.1.30,
    slog key=value records after. Runner (llama.cpp) stderr lines pass through unchanged."""

    def __init__(self, version: str) -> None:
        super().__init__()
        self.version = version
        self.slog = at_least(version, "0.1.30")
        self.rec("INFO", "routes.go:1205", f"Listening on 127.0.0.1:11434 (version {version})")

    def rec(self, level: str, source: str, msg: str, attrs: str = "") -> Ollama:
        t = self.clock()
        if self.slog:
            quoted = f'"{msg}"' if (" " in msg or "=" in msg) else msg
            text = f"time=2025-05-14T10:{t // 60:02d}:{t % 60:02d}.{t * 7919 % 1000:03d}Z level={level} source={source} msg={quoted}"
            if attrs:
                text += " " + attrs
        else:
            text = f"2023/12/20 10:{t // 60:02d}:{t % 60:02d} {source}: {msg}"
        self.lines.append(_keep_mark(msg if not isinstance(attrs, M) else attrs, text))
        return self

    def starting(self) -> Ollama:
        if self.slog:
            return self.rec("INFO", "server.go:405", "starting llama server",
                            'cmd="/usr/lib/ollama/runners/cuda_v12/ollama_llama_server runner --model '
                            '/root/.ollama/models/blobs/sha256-8eeb52dfb3bb --ctx-size 8192 --batch-size 512 '
                            '--n-gpu-layers 33 --parallel 4 --port 39005"')
        return self.rec("INFO", "llama.go:577", "starting llama runner")


def ollama_samples() -> list[Sample]:
    out: list[Sample] = []
    avail = 9.8 * GiB
    log = Ollama("0.5.7")
    log.rec("WARN", "server.go:136", "model request too large for system",
            f'requested="{human2(12.3 * GiB)}" available={int(avail)} total="15.5 GiB" free="8.2 GiB" swap="1.6 GiB"')
    log.rec("INFO", "sched.go:428", "NewLlamaServer failed",
            M(f'model=/root/.ollama/models/blobs/sha256-6a0746a1ec1a error="model requires more system memory '
              f'({human2(12.3 * GiB)}) than is available ({human2(avail)})"'))
    out.append(Sample("ollama-requires-more-system-memory", "sizes in the error", ">=0.2.2,<=0.24.0", "ollama", "0.5.7",
                      "ollama.host.insufficient-memory", "device-check", log.lines,
                      note="The part of the model left on the CPU needs 12.3 GiB; free RAM plus swap is 9.8 GiB."))
    log = Ollama("0.13.5")
    log.rec("INFO", "sched.go:443", "NewLlamaServer failed",
            M('model=/root/.ollama/models/blobs/sha256-6a0746a1ec1a error="model requires more system memory than is '
              'currently available unable to load full model on GPU"'))
    out.append(Sample("ollama-requires-more-system-memory-evict", "evict and retry", ">=0.12.7,<=0.24.0", "ollama",
                      "0.13.5", "ollama.host.insufficient-memory", "device-check", log.lines))

    for version, line, label, versions, gap in (
            ("0.1.17", "llama runner process has terminated", "bare", ">=0.0.20,<=0.1.17",
             None),
            ("0.1.25", "llama runner: GGML_ASSERT: /go/src/github.com/jmorganca/ollama/llm/llama.cpp/ggml.c:4761: "
                       "view_src == NULL || data_size == 0 || data_size + view_offs <= ggml_nbytes(view_src)",
             "captured runner line", ">=0.1.18,<=0.1.31",
             None),
            ("0.1.38", "llama runner process has terminated: signal: aborted (core dumped) error:failed to create "
                       "context with model '/usr/share/ollama/.ollama/models/blobs/sha256-8eeb52dfb3bb'",
             "exit status and message", ">=0.1.32,<=0.2.7", None),
            ("0.6.2", "llama runner process has terminated: exit status 2", "wrapped error", ">=0.2.8,<=0.22.1", None),
            ("0.23.0", "llama runner process has terminated: error:unknown model architecture: 'gemma9'",
             "captured message", ">=0.23.0,<=0.24.0", None),
            ("0.24.0", "llama runner process has terminated with exit code 2", "exit code", ">=0.23.0,<=0.24.0", None),
            ("0.30.0", "llama-server process has terminated: exit status 1", "upstream llama-server",
             ">=0.30.0,<=0.32.15", None)):
        log = Ollama(version).starting()
        if log.slog:
            log.rec("INFO", "server.go:585", "waiting for llama runner to start responding")
            log.rec("ERROR", "sched.go:455", "error loading llama server", M(f'error="{line.replace(chr(34), chr(92) + chr(34))}"'))
        else:
            log.rec("INFO", "llama.go:479", "waiting for llama runner to start responding")
            log.rec("INFO", "llama.go:436", "signal: aborted (core dumped)")
            log.put("[GIN] 2023/12/20 - 10:00:05 | 500 |  4.61223012s |       127.0.0.1 | POST     \"/api/chat\"",
                    M(f"Error: {line}"))
        out.append(Sample("ollama-runner-terminated", label, versions, "ollama", version, "ollama.runner.terminated",
                          "weight-loading", log.lines, gap=gap,
                          note="A runner exit with no memory message of its own: the wrapper is all there is."))

    log = Ollama("0.12.6").starting()
    log.rec("INFO", "runner.go:1210", "load", 'request="{Operation:alloc LoraPath:[] Parallel:1 BatchSize:512 '
            'FlashAttention:true KvSize:131072 KvCacheType: NumThreads:16 GPULayers:37[ID:0 Layers:37(0..36)] '
            'MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"')
    log.rec("ERROR", "sched.go:455", "error loading llama server",
            M('error="insufficient memory - required allocations: {InputWeights:417988608A CPU:{Name:CPU Weights:[0A] '
              'Cache:[0A] Graph:0A} GPUs:[{Name:CUDA0 Weights:[432013312A 432013312A] Cache:[536870912F 536870912F] '
              'Graph:4412407808F}]}"'))
    out.append(Sample("ollama-insufficient-memory", "required allocations", ">=0.7.1,<=0.32.15", "ollama", "0.12.6",
                      "ollama.host.insufficient-memory", "weight-loading", log.lines))
    for version, line, label, versions in (
            ("0.11.5", 'error="memory layout cannot be allocated with num_gpu = 33"', "with num_gpu", ">=0.11.5,<=0.24.0"),
            ("0.12.0", 'error="memory layout cannot be allocated"', "without num_gpu", ">=0.11.5,<=0.24.0"),
            ("0.12.3", 'error="failed to commit memory for model"', "commit failed", ">=0.11.5,<=0.24.0")):
        log = Ollama(version).starting()
        log.rec("INFO", "server.go:777", "model layout did not fit, applying backoff", "backoff=0.10")
        log.rec("ERROR", "sched.go:455", "error loading llama server", M(line))
        out.append(Sample("ollama-layout", label, versions, "ollama", version, "ollama.host.insufficient-memory",
                          "weight-loading", log.lines))
    log = Ollama("0.12.3").starting()
    log.rec("INFO", "server.go:777", "model layout did not fit, applying backoff", M("backoff=0.10"))
    log.rec("INFO", "server.go:1289", "llama runner started in 6.21 seconds")
    out.append(Sample("ollama-layout", "backoff (information)", ">=0.11.5,<=0.24.0", "ollama", "0.12.3",
                      "ollama.phase.runner-start", None, log.lines, kind="healthy",
                      note="The layout search retried with fewer layers and the runner started: not a failure."))

    # llama.cpp wordings newer than the last b-tag the reference read, as Ollama relays them
    context = ["llama_context: constructing llama_context", "llama_context: n_seq_max     = 4",
               "llama_context: n_ctx         = 8192", "llama_context: n_batch       = 2048",
               "llama_context:  CUDA_Host  output buffer size =     0.49 MiB",
               "llama_kv_cache_unified:      CUDA0 KV buffer size =  1024.00 MiB",
               "llama_kv_cache_unified: KV self size  = 1024.00 MiB, K (f16):  512.00 MiB, V (f16):  512.00 MiB"]
    for version, lines, label, ref, versions, gap in (
            ("0.7.0", context[:3] + ["llama_context: n_ctx         = 131072", context[4],
                                     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: "
                                     "cudaMalloc failed: out of memory",
                                     M("llama_init_from_model: failed to initialize the context: failed to allocate "
                                       "buffer for kv cache")],
             "exception text (upstream de4c07f9)", "llamacpp-kv-alloc-failed", ">=0.7.0", None),
            ("0.6.6", context + ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4208.00 MiB on device 0: "
                                 "cudaMalloc failed: out of memory",
                                 "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4412407808",
                                 M("llama_init_from_model: failed to initialize the context: failed to allocate compute "
                                   "pp buffers")],
             "compute pp buffers (upstream 71e90e88)", "llamacpp-compute-buffers", ">=0.6.6", None),
            ("0.6.6", context + ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4208.00 MiB on device 0: "
                                 "cudaMalloc failed: out of memory",
                                 "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4412407808",
                                 M("llama_init_from_model: failed to initialize the context: failed to allocate compute "
                                   "tg buffers")],
             "compute tg buffers (upstream 71e90e88)", "llamacpp-compute-buffers", ">=0.6.6", None),
            ("0.13.5", ["load_tensors: offloading 32 repeating layers to GPU",
                        M("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 13563.02 MiB on device 0: cudaMalloc "
                          "failed: out of memory"),
                        "alloc_tensor_range: failed to allocate CUDA0 buffer of size 14221840384",
                        "llama_model_load: error loading model: unable to allocate CUDA0 buffer"],
             "cudaMalloc in the vendored copy (upstream ec98e2002)", "llamacpp-cudamalloc-failed", ">=0.13.5,<=0.24.0",
             None)):
        log = Ollama(version).starting()
        log.put(*lines)
        phase = {"llamacpp-kv-alloc-failed": "kv-cache-allocation", "llamacpp-compute-buffers": "warmup",
                 "llamacpp-cudamalloc-failed": "weight-loading"}[ref]
        out.append(Sample(ref, label, versions, "ollama", version, "llamacpp.gpu.alloc-failed", phase, log.lines,
                          note="The reference dates this wording by the llama.cpp copy vendored in this Ollama release.",
                          gap=gap))
    return out


# -- TensorRT-LLM, NCCL ----------------------------------------------------------------------------


def other_samples() -> list[Sample]:
    out: list[Sample] = []
    log = ["[TensorRT-LLM] TensorRT-LLM version: 0.9.0",
           "[TensorRT-LLM][INFO] Loaded engine size: 12856 MiB",
           "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 6.12 GiB for max tokens in paged KV cache (50112).",
           M("[TensorRT-LLM][ERROR] Assertion failed: Can't allocate new blocks. No free blocks left "
             "(/src/tensorrt_llm/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:431)")]
    out.append(Sample("trtllm-no-free-blocks", "no free blocks", None, "trtllm", "0.9.0",
                      "trtllm.executor.insufficient-memory", "serving", log,
                      note="The reference does not date this wording; 0.9.0 is only the release the log names."))
    nccl = "2.20.5"

    def vllm_tp(*lines: str) -> list[str]:
        log = Vllm("0.6.3").banner(args=f"Namespace(model='{VLLM_MODEL}', tensor_parallel_size=2)")
        log.rec("INFO", "distributed/device_communicators/pynccl.py:63", f"vLLM is using nccl=={nccl}")
        log.put(*lines)
        return log.lines

    where = "node-0:212:212 [1]"
    for lines, label in (
            ([M(f"{where} include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device")],
             "posix_fallocate failed"),
            ([M(f"{where} include/shm.h:48 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Kx3Jq2 "
                "(size 9637888)")], "creating segment, no errno"),
            ([M(f"{where} misc/shmutils.cc:87 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Kx3Jq2 "
                "(size 9637888), error: No space left on device (28)")], "creating segment with errno"),
            ([M(f"{where} misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-Kx3Jq2 to 9637888 bytes, "
                "error: No space left on device (28)")], "failed to extend"),
            (["Traceback (most recent call last):",
              f'  File "{PY_VLLM}/torch/distributed/distributed_c10d.py", line 2288, in all_reduce',
              "    work = group.allreduce([tensor], opts)",
              "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
              f"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {nccl}",
              "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
              "Last error:",
              M("Error while creating shared memory segment /dev/shm/nccl-Kx3Jq2 (size 9637888)")],
             "unhandled system error")):
        out.append(Sample("nccl-shm", label, None, "nccl", nccl, "nccl.shm.insufficient", "device-check", vllm_tp(*lines),
                          note="Two tensor-parallel workers in a container with Docker's 64 MB /dev/shm."))
    bare = ["Traceback (most recent call last):",
            f'  File "{PY_VLLM}/vllm/distributed/device_communicators/pynccl.py", line 99, in __init__',
            "    self.comm: ncclComm_t = self.nccl.ncclCommInitRank(",
            f'  File "{PY_VLLM}/vllm/distributed/device_communicators/pynccl_wrapper.py", line 277, in NCCL_CHECK',
            "    raise RuntimeError(f\"NCCL error: {error_str}\")",
            M("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.")]
    out.append(Sample("nccl-shm", "ncclSystemError", None, "nccl", nccl, "uncatalogued", "device-check", vllm_tp(*bare),
                      note="Two tensor-parallel workers in a container with Docker's 64 MB /dev/shm; the bare system "
                           "error names no call, and sockets or InfiniBand raise it too, so it is uncatalogued, not "
                           "a /dev/shm diagnosis."))
    return out


# -- informational entries: facts ------------------------------------------------------------------


def fact(ref: str, label: str, versions: str | None, engine: str, version: str, entry: str, lines: list[str],
         note: str = "") -> Sample:
    return Sample(ref, label, versions, engine, version, entry, None, lines, kind="healthy", note=note)


def fact_samples() -> list[Sample]:
    out: list[Sample] = []

    def vllm_fact(ref: str, label: str, versions: str, version: str, entry: str, text: str,
                  src: str = "v1/worker/gpu_worker.py:298", proc: str = "core", level: str = "INFO") -> None:
        log = Vllm(version).banner()
        who = {"core": log.core, "api": log.api, None: None}[proc]
        log.rec(level, src, M(text), proc=who)
        out.append(fact(ref, label, versions, "vllm", version, entry, log.lines))

    vllm_fact("vllm-autofit-info", "reduced, GPU memory", ">=0.14.0,<=0.31.0", "0.18.0", "vllm.info.autofit-max-model-len",
              "Auto-fit max_model_len: reduced from 131072 to 80272 to fit in available GPU memory (9.8 GiB available "
              "for KV cache)", src="v1/core/kv_cache_utils.py:1011")
    vllm_fact("vllm-autofit-info", "reduced, KV cache memory", ">=0.32.0,<=0.33.0", "0.32.0",
              "vllm.info.autofit-max-model-len",
              "Auto-fit max_model_len: reduced from 131072 to 80272 to fit in available KV cache memory (9.8 GiB GPU)",
              src="v1/core/kv_cache_planning.py:402")
    vllm_fact("vllm-autofit-info", "full context fits, GPU memory", ">=0.14.0,<=0.31.0", "0.18.0",
              "vllm.info.autofit-max-model-len",
              "Auto-fit max_model_len: full model context length 131072 fits in available GPU memory",
              src="v1/core/kv_cache_utils.py:1020")
    vllm_fact("vllm-autofit-info", "full context fits, KV cache memory", ">=0.32.0,<=0.33.0", "0.32.0",
              "vllm.info.autofit-max-model-len",
              "Auto-fit max_model_len: full model context length 131072 fits in available KV cache memory (20.12 GiB GPU)",
              src="v1/core/kv_cache_planning.py:410")
    vllm_fact("vllm-v0-cg-capturing-model", "V0 capture banner", ">=0.2.6,<=0.6.3.post1", "0.5.4",
              "vllm.phase.cudagraph-capture",
              "Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not "
              "static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
              src="worker/model_runner.py:1223", proc=None)
    vllm_fact("vllm-v0-cg-capturing-decoding", "short form", ">=0.6.4,<=0.6.5", "0.6.4",
              "vllm.phase.cudagraph-capture",
              "Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. "
              "To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
              src="worker/model_runner.py:1404", proc=None)
    vllm_fact("vllm-v0-cg-capturing-decoding", "with out-of-memory advice", ">=0.6.6,<=0.10.2", "0.7.3",
              "vllm.phase.cudagraph-capture",
              "Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. "
              "To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If "
              "out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or "
              "switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
              src="worker/model_runner.py:1415", proc=None)
    log = Vllm("0.7.3").banner()
    log.put(M("Capturing CUDA graph shapes: 100%|██████████| 35/35 [00:12<00:00,  2.81it/s]"))
    out.append(fact("vllm-cg-tqdm-shapes", "shapes progress bar", ">=0.6.6,<=0.10.2", "vllm", "0.7.3",
                    "vllm.phase.cudagraph-capture", log.lines))
    for version, bar, label in (
            ("0.11.0", "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:06<00:00, "
                       "10.37it/s]", "mode progress bar"),
            ("0.12.0", "Capturing CUDA graphs: 100%|██████████| 35/35 [00:03<00:00, 10.02it/s]", "runner V2 bar")):
        log = Vllm(version).banner()
        log.put(M(bar))
        out.append(fact("vllm-v1-cg-tqdm-modes", label, ">=0.10.1,<=0.33.0", "vllm", version,
                        "vllm.phase.cudagraph-capture", log.lines))
    for version, text, label, versions in (
            ("0.3.3", "Graph capturing finished in 21 secs.", "f-string", ">=0.2.6,<=0.4.1"),
            ("0.5.4", "Graph capturing finished in 21 secs.", "%.0f", ">=0.4.2,<=0.6.3.post1"),
            ("0.10.1", "Graph capturing finished in 21 secs, took 0.89 GiB", "with memory", ">=0.6.4,<=0.33.0")):
        vllm_fact("vllm-cg-finished", label, versions, version, "vllm.info.cudagraph-finished", text,
                  src="v1/worker/gpu_model_runner.py:2275")
    vllm_fact("vllm-cg-memory-profiling", "pool memory after capture", ">=0.18.0,<=0.33.0", "0.20.0",
              "vllm.info.cudagraph-finished",
              "CUDA graph pool memory: 0.89 GiB (actual), 0.92 GiB (estimated), difference: 0.03 GiB (3.4%).")
    vllm_fact("vllm-kv-cache-memory-suggestion", "memory breakdown", ">=0.11.0,<=0.26.0", "0.11.0",
              "vllm.info.memory-breakdown",
              "Free memory on device (23.31/23.65 GiB) on startup. Desired GPU memory utilization is (0.9, 21.28 GiB). "
              "Actual usage is 14.99 GiB for weight, 1.42 GiB for peak activation, 0.12 GiB for non-torch memory, and "
              "0.89 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory=5014748364` "
              "(4.67 GiB) to fit into requested memory, or `--kv-cache-memory=6942128230` (6.47 GiB) to fully utilize "
              "gpu memory. Current kv cache memory in use is 4.75 GiB.")
    for version, text, label, versions in (
            ("0.5.4", "Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 512.7 tokens/s, Running: 40 "
                      "reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 61.2%, CPU KV cache usage: 0.0%.",
             "V0", "<=0.10.2"),
            ("0.7.2", "Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 512.7 tokens/s, Running: 40 "
                      "reqs, Waiting: 0 reqs GPU KV cache usage: 61.2%.", "V1 0.7.1-0.7.2", ">=0.7.1,<=0.7.2"),
            ("0.8.0", "Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 512.7 tokens/s, Running: 40 "
                      "reqs, Waiting: 0 reqs, GPU KV cache usage: 61.2%, Prefix cache hit rate: 8.0%", "V1 0.7.3-0.8.2",
             ">=0.7.3,<=0.8.2"),
            ("0.9.2", "Engine 000: Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 512.7 tokens/s, "
                      "Running: 40 reqs, Waiting: 0 reqs, GPU KV cache usage: 61.2%, Prefix cache hit rate: 8.0%",
             "V1 engine-numbered", ">=0.8.3,<=0.33.0")):
        vllm_fact("vllm-stats-line", label, versions, version, "vllm.info.stats-line", text,
                  src="v1/metrics/loggers.py:123" if at_least(version, "0.7.1") else "engine/metrics.py:349", proc="api")
    for version, versions, label in (("0.4.1", ">=0.4.0,<=0.4.1", "f-string"), ("0.6.3", ">=0.4.2,<=0.14.1", "%s"),
                                     ("0.20.0", ">=0.15.0,<=0.33.0", "server version and model")):
        log = Vllm(version)
        log.banner()
        log.lines[-1] = M(log.lines[-1])
        out.append(fact("vllm-banner", label, versions, "vllm", version, "vllm.info.version-banner", log.lines))
    for version, text, label, versions in (
            ("0.6.3", f"args: Namespace(host=None, port=8000, model='{VLLM_MODEL}', max_model_len=8192, gpu_memory_utilization=0.9, "
                      "swap_space=4, max_num_seqs=256)", "Namespace dump", ">=0.4.2,<=0.8.5.post1"),
            ("0.11.0", f"non-default args: {{'model': '{VLLM_MODEL}', 'max_model_len': 8192, 'gpu_memory_utilization': 0.85}}", "non-default args", ">=0.9.0,<=0.33.0")):
        vllm_fact("vllm-args", label, versions, version, "vllm.info.engine-args", text,
                  src="entrypoints/utils.py:246", proc="api")
    for version, text, label, versions in (
            ("0.5.4", f"Initializing an LLM engine (v0.5.4) with config: model='{VLLM_MODEL}', speculative_config=None, "
                      f"tokenizer='{VLLM_MODEL}', max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, "
                      "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
                      "quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0",
             "explicit fields", ">=0.4.0,<=0.6.4"),
            ("0.7.3", f"Initializing a V0 LLM engine (v0.7.3) with config: model='{VLLM_MODEL}', max_seq_len=8192, "
                      "tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, use_cached_outputs=True, ", "V0 engine", ">=0.7.1,<=0.10.2"),
            ("0.9.2", f"Initializing a V1 LLM engine (v0.9.2) with config: model='{VLLM_MODEL}', max_seq_len=8192, "
                      "tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto", "V1 engine",
             ">=0.7.1,<=0.33.0")):
        log = Vllm(version)
        log.rec("INFO", "v1/engine/core.py:69" if "V1" in text else "engine/llm_engine.py:232", M(text),
                proc=log.core if "V1" in text else None)
        out.append(fact("vllm-engine-init", label, versions, "vllm", version, "vllm.info.version-banner", log.lines))
    for version, text, label, versions in (
            ("0.4.1", "Loading model weights took 14.9889 GB", "GB, f-string", ">=0.4.0,<=0.4.1"),
            ("0.6.3", "Loading model weights took 14.9889 GB", "GB, %.4f", ">=0.4.2,<=0.7.3"),
            ("0.8.1", "Model loading took 14.9889 GB and 4.512301 seconds", "Model loading, GB", ">=0.8.0,<=0.8.2"),
            ("0.10.1", "Model loading took 14.9889 GiB and 4.512301 seconds", "Model loading, GiB", ">=0.8.3,<=0.11.0"),
            ("0.12.0", "Model loading took 14.9889 GiB memory and 4.512301 seconds", "GiB memory", ">=0.11.1,<=0.13.0"),
            ("0.20.0", "Model loading took 14.99 GiB memory and 4.512301 seconds", "format_gib", ">=0.14.0,<=0.33.0")):
        vllm_fact("vllm-model-loading-memory", label, versions, version, "vllm.info.model-loading-memory", text,
                  src="v1/worker/gpu_model_runner.py:2653" if at_least(version, "0.8.0") else "worker/model_runner.py:1071",
                  proc="core" if at_least(version, "0.8.0") else None)
    log = Vllm("0.6.5").banner()
    log.rec("INFO", "worker/worker.py:260", "Memory profiling takes 2.83 seconds",
            M("the current vLLM instance can use total_gpu_memory (23.65GiB) x gpu_memory_utilization (0.90) = 21.28GiB"),
            "model weights take 14.99GiB; non_torch_memory takes 0.12GiB; PyTorch activation peak memory takes 1.42GiB; "
            "the rest of the memory reserved for KV Cache is 4.75GiB.")
    out.append(fact("vllm-v0-memory-profiling-summary", "three-line summary", ">=0.6.5,<=0.10.2", "vllm", "0.6.5",
                    "vllm.info.memory-profiling-v0", log.lines))
    vllm_fact("vllm-v0-kv-line", "weights and KV line", ">=0.6.5,<=0.10.2", "0.7.3", "vllm.info.memory-profiling-v0",
              "model weights take 14.99GiB; non_torch_memory takes 0.12GiB; PyTorch activation peak memory takes 1.42GiB; "
              "the rest of the memory reserved for KV Cache is 4.75GiB.", src="worker/worker.py:260", proc=None)
    vllm_fact("vllm-v1-profile-result-debug", "non-torch forward increase", ">=0.9.1,<=0.26.0", "0.11.0",
              "vllm.info.memory-profiling-v1",
              "Memory profiling takes 2.83 seconds. Total non KV cache memory: 16.53GiB; torch peak memory increase: "
              "1.42GiB; non-torch forward increase memory: 0.12GiB; weights memory: 14.99GiB.", level="DEBUG",
              src="utils/mem_utils.py:191")
    vllm_fact("vllm-v1-profile-result-debug", "total consumed", ">=0.27.0,<=0.33.0", "0.28.0",
              "vllm.info.memory-profiling-v1",
              "Memory profiling takes 2.83 seconds. Total non KV cache memory: 16.53GiB; torch peak memory increase: "
              "1.42GiB; total consumed (from mem_get_info): 15.11GiB; weights memory: 14.99GiB.", level="DEBUG",
              src="utils/mem_utils.py:191")
    vllm_fact("vllm-available-kv-memory", "%.2f", ">=0.9.1,<=0.13.0", "0.11.0", "vllm.info.available-kv-memory",
              "Available KV cache memory: 4.70 GiB")
    vllm_fact("vllm-available-kv-memory", "format_gib", ">=0.14.0,<=0.33.0", "0.20.0", "vllm.info.available-kv-memory",
              "Available KV cache memory: 4.7 GiB")
    for version, text, label, versions, src, proc in (
            ("0.3.3", "# GPU blocks: 2432, # CPU blocks: 2048", "f-string", "<=0.4.1", "engine/llm_engine.py:337", None),
            ("0.5.4", "# GPU blocks: 2432, # CPU blocks: 2048", "%d", ">=0.4.2,<=0.6.6.post1",
             "executor/gpu_executor.py:83", None),
            ("0.7.3", "# cuda blocks: 2432, # CPU blocks: 2048", "device-named", ">=0.7.0,<=0.11.0",
             "executor/executor_base.py:111", None),
            ("0.7.3", "# GPU blocks: 2432", "V1 GPU only", ">=0.6.4,<=0.7.3", "v1/core/kv_cache_utils.py:537", None)):
        log = Vllm(version).banner()
        log.rec("INFO", src, M(text), proc=proc)
        out.append(fact("vllm-gpu-blocks", label, versions, "vllm", version, "vllm.info.gpu-blocks", log.lines))
    for version, text, label, versions in (
            ("0.10.1", "GPU KV cache size: 38,912 tokens", "tokens only", ">=0.8.0,<=0.27.1"),
            ("0.28.0", "GPU KV cache size: 38,912 tokens, Maximum concurrency for 8,192 tokens per request: 4.75x",
             "with concurrency", ">=0.28.0,<=0.29.0"),
            ("0.30.0", "XPU KV cache size: 38,912 tokens, Maximum concurrency for 8,192 tokens per request: 4.75x",
             "device-typed", ">=0.30.0,<=0.33.0")):
        vllm_fact("vllm-kv-cache-size-tokens", label, versions, version, "vllm.info.kv-cache-size", text,
                  src="v1/core/kv_cache_utils.py:1087")
    vllm_fact("vllm-max-concurrency", "separate line", ">=0.6.3,<=0.27.1", "0.10.1", "vllm.info.kv-cache-size",
              "Maximum concurrency for 8,192 tokens per request: 4.75x", src="v1/core/kv_cache_utils.py:1091")
    vllm_fact("vllm-chunked-prefill-info", "chunked prefill", ">=0.5.3,<=0.33.0", "0.10.1", "vllm.info.engine-args",
              "Chunked prefill is enabled with max_num_batched_tokens=8192.", src="config/__init__.py:2244", proc="api")
    for version, text, label, versions, entry in (
            ("0.6.3", "Available routes are:", "routes", ">=0.5.2,<=0.33.0", "vllm.phase.server-ready"),
            ("0.7.3", "Starting vLLM API server on http://0.0.0.0:8000", "host and port", ">=0.7.3,<=0.7.3",
             "vllm.phase.server-ready"),
            ("0.8.5", "Starting vLLM API server on http://0.0.0.0:8000", "http or https", ">=0.8.0,<=0.9.0.1",
             "vllm.phase.server-ready"),
            ("0.11.0", "Starting vLLM API server 0 on http://0.0.0.0:8000", "numbered", ">=0.9.1,<=0.17.1",
             "vllm.phase.server-ready"),
            ("0.20.0", "Starting vLLM server on http://0.0.0.0:8000", "server", ">=0.18.0,<=0.33.0",
             "vllm.phase.server-ready")):
        vllm_fact("vllm-server-ready", label, versions, version, entry, text,
                  src="entrypoints/openai/api_server.py:1971", proc="api")
    log = Vllm("0.11.0").banner()
    log.put(M("(APIServer pid=1) INFO:     Application startup complete."))
    out.append(fact("vllm-server-ready", "uvicorn", ">=0.5.2,<=0.33.0", "vllm", "0.11.0", "server.phase.uvicorn-ready",
                    log.lines))
    vllm_fact("vllm-init-engine-took", "seconds", ">=0.6.5,<=0.19.1", "0.11.0", "vllm.phase.engine-ready",
              "init engine (profile, create kv cache, warmup model) took 38.42 seconds", src="v1/engine/core.py:218")
    vllm_fact("vllm-init-engine-took", "with compilation time", ">=0.20.0,<=0.33.0", "0.20.0", "vllm.phase.engine-ready",
              "init engine (profile, create kv cache, warmup model) took 38.42 s (compilation: 21.07 s)",
              src="v1/engine/core.py:218")

    # TGI
    for version, text, target, label, entry in (
            ("2.0.4", "Inferred max batch total tokens: 21104", "text_generation_router: router/src/main.rs:417",
             "inferred", "tgi.info.inferred-batch-total"),
            ("2.0.4", "Setting max batch total tokens to 21104", "text_generation_router: router/src/main.rs:453",
             "setting", "tgi.info.max-batch-total-tokens")):
        log = Tgi(version).start().warmup()
        log.rec("INFO" if label == "setting" else "WARN", target.split(": ")[0], M(target.split(": ")[1] + ": " + text))
        out.append(fact("tgi-inferred-batch-total", label, ">=0.9.4,<=3.3.7", "tgi", version, entry, log.lines))
    log = Tgi("2.4.1").start().warmup()
    log.rec("INFO", "text_generation_launcher", M("KV-cache blocks: 1319, size: 16"))
    out.append(fact("tgi-kv-blocks", "blocks and size", ">=2.4.0,<=3.3.7", "tgi", "2.4.1", "tgi.info.kv-cache-blocks",
                    log.lines))
    log = Tgi("2.0.4").start().warmup()
    log.rec("INFO", "text_generation_launcher", M("Cuda Graphs are enabled for sizes [1, 2, 4, 8, 16, 32]"))
    out.append(fact("tgi-cuda-graphs", "graphs enabled", ">=2.0.0,<=3.3.7", "tgi", "2.0.4", "tgi.phase.cuda-graphs",
                    log.lines))
    for text, label, level in (
            ("Not enough VRAM to run the model: Available: 25.39GB - Model 28.97GB.", "not enough VRAM", "WARN"),
            ("Reducing the max batch prefill from 10000 to 4096 because there is not enough VRAM to support it.",
             "reducing prefill", "WARN"),
            ("Default `max_batch_prefill_tokens` to 4096", "default prefill", "INFO")):
        log = Tgi("3.0.1")
        log.rec(level, "text_generation_launcher", M(text))
        entry = "tgi.info.launcher-args" if label == "default prefill" else "tgi.info.launcher-vram"
        out.append(fact("tgi-launcher-vram", label, ">=3.0.0,<=3.3.7", "tgi", "3.0.1", entry, log.lines,
                        note="The launcher's estimate only picks defaults; the shard may still start."))

    # SGLang
    for version, text, label, versions, entry in (
            ("0.4.6", "Capture cuda graph begin. This can take up to several minutes. avail mem=3.21 GB", "begin",
             ">=0.1.20,<=0.5.23", "sglang.phase.cudagraph-capture"),
            ("0.4.6", "Capture cuda graph end. Time elapsed: 21.37 s. mem usage=0.89 GB. avail mem=2.32 GB.", "end",
             ">=0.4.3.post3,<=0.5.23", "sglang.info.cudagraph-end"),
            ("0.5.14", "Capture decode CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=3.21 GB",
             "decode begin", ">=0.5.14,<=0.5.23", "sglang.phase.cudagraph-capture")):
        log = Sglang(version)
        log.rec(M(text))
        out.append(fact("sglang-cuda-graph-begin-end", label, versions, "sglang", version, entry, log.lines))
    for version, text, label, versions in (
            ("0.4.2", "KV Cache is allocated. K size: 2.37 GB, V size: 2.37 GB.", "K and V", ">=0.4.1.post6,<=0.4.3.post2"),
            ("0.4.6", "KV Cache is allocated. #tokens: 38912, K size: 2.37 GB, V size: 2.37 GB", "tokens, K and V",
             ">=0.4.3.post3,<=0.5.12.post1"),
            ("0.4.6", "KV Cache is allocated. #tokens: 38912, KV size: 4.75 GB", "MLA pool", ">=0.4.5.post3,<=0.5.12.post1"),
            ("0.5.14", "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 38912, K size: 2.37 GB, V size: 2.37 GB",
             "with dtype", ">=0.5.13,<=0.5.16"),
            ("0.5.20", "Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 38912, KV size: "
                       "4.75 GB, avail mem=2.32 GB", "post-capture", ">=0.5.17,<=0.5.23")):
        log = Sglang(version)
        log.rec(M(text))
        out.append(fact("sglang-kv-allocated", label, versions, "sglang", version, "sglang.info.kv-cache-allocated",
                        log.lines))
    log = Sglang("0.4.7")
    log.rec(M("max_total_num_tokens=38912, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, "
              "context_len=131072, available_gpu_mem=2.32 GB"))
    out.append(fact("sglang-max-total-num-tokens", "summary", ">=0.4.7,<=0.5.23", "sglang", "0.4.7",
                    "sglang.info.max-total-num-tokens", log.lines))
    for version, text, label, versions, entry in (
            ("0.4.6", "Load weight begin. avail mem=23.31 GB", "begin", ">=0.1.17,<=0.5.23", "sglang.phase.load-weight-begin"),
            ("0.4.6", "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=8.21 GB, mem usage=14.99 GB.",
             "end with dtype", ">=0.4.3.post3,<=0.5.9", "sglang.info.load-weight-end"),
            ("0.5.12", "Load weight end. elapsed=4.51 s, type=LlamaForCausalLM, avail mem=8.21 GB, mem usage=14.99 GB.",
             "end with elapsed", ">=0.5.10,<=0.5.23", "sglang.info.load-weight-end"),
            ("0.4.6", "Memory pool end. avail mem=3.21 GB", "memory pool", ">=0.1.17,<=0.5.23", "sglang.info.memory-pool-end")):
        log = Sglang(version)
        log.rec(M(text))
        out.append(fact("sglang-load-weight", label, versions, "sglang", version, entry, log.lines))
    log = Sglang("0.4.6")
    log.rec(M("The server is fired up and ready to roll!"))
    out.append(fact("sglang-ready", "ready", ">=0.1.18,<=0.5.23", "sglang", "0.4.6", "sglang.phase.server-ready",
                    log.lines))

    # llama.cpp
    for build, text, label, versions, entry in (
            (3000, "llm_load_tensors: offloaded 33/33 layers to GPU", "offloaded layers", ">=1046",
             "llamacpp.phase.load-tensors"),
            (3000, "llama_kv_cache_init:      CUDA0 KV buffer size =  1024.00 MiB", "KV buffer", ">=1843",
             "llamacpp.info.kv-cache"),
            (3000, "llama_new_context_with_model: KV self size  = 1024.00 MiB, K (f16):  512.00 MiB, V (f16):  512.00 MiB",
             "KV self size", ">=1619,<=4747", "llamacpp.info.kv-cache"),
            (3000, "llama_new_context_with_model:      CUDA0 compute buffer size =   560.00 MiB", "compute buffer",
             ">=1843", "llamacpp.phase.compute-buffers")):
        out.append(fact("llamacpp-info-lines", label, versions, "llamacpp", str(build), entry,
                        llamacpp_head(build) + [M(text)]))

    # Ollama
    for version, msg, label, versions in (
            ("0.1.38", "offload to gpu", "offload to gpu", ">=0.1.32,<=0.1.44"),
            ("0.3.12", "offload to cuda", "offload to library", ">=0.1.45,<=0.5.11"),
            ("0.6.2", "offload", "offload", ">=0.5.12,<=0.12.10")):
        log = Ollama(version)
        log.rec("INFO", "memory.go:326", msg,
                M('layers.requested=-1 layers.model=33 layers.offload=33 layers.split="" memory.available="[22.9 GiB]" '
                  'memory.gpu_overhead="0 B" memory.required.full="6.2 GiB" memory.required.partial="6.2 GiB" '
                  'memory.required.kv="1.0 GiB" memory.required.allocations="[6.2 GiB]" memory.weights.total="4.3 GiB"'))
        out.append(fact("ollama-offload-info", label, versions, "ollama", version, "ollama.phase.scheduler", log.lines))

    # TensorRT-LLM
    out.append(fact("trtllm-kv-alloc", "paged KV cache", None, "trtllm", "0.9.0", "trtllm.info.kv-cache",
                    ["[TensorRT-LLM] TensorRT-LLM version: 0.9.0",
                     M("[TensorRT-LLM][INFO] [MemUsageChange] Allocated 6.12 GiB for max tokens in paged KV cache (50112).")]))
    return out


# -- writing ---------------------------------------------------------------------------------------


def llamacpp_fit_samples() -> list[Sample]:
    """Builds with the memory fitter (llama_params_fit, December 2025): it projects the load against
    free memory, and a -ngl on the command line stops it; the load then fails as the projection said.
    Rendered last so that the samples before it keep their numbers."""
    out: list[Sample] = []
    log = llamacpp_head(7437, server=True) + [
        "llama_params_fit_impl: projected to use 14500 MiB of device memory vs. 11780 MiB of free device memory",
        "llama_params_fit_impl: cannot meet free memory target of 1024 MiB, need to reduce device memory by 3744 MiB",
        "llama_params_fit: failed to fit params to free device memory: n_gpu_layers already set by user to 99, abort",
        "load_tensors: offloading 32 repeating layers to GPU", "load_tensors: offloaded 33/33 layers to GPU",
        M("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 13563.02 MiB on device 0: cudaMalloc failed: out of memory"),
        "alloc_tensor_range: failed to allocate CUDA0 buffer of size 14221842432",
        "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
        "llama_model_load_from_file_impl: failed to load model"]
    out.append(Sample("llamacpp-cudamalloc-failed", "after the fitter stopped at a pinned -ngl", ">=7437", "llamacpp", "7437",
                      "llamacpp.gpu.alloc-failed", "weight-loading", log,
                      note="The fitter projected 14500 MiB against 11780 MiB free and stopped at -ngl 99: "
                           "the fix that leads is to let it choose the layers."))
    return out


def all_samples() -> list[Sample]:
    return (vllm_samples() + pytorch_samples() + tgi_samples() + sglang_samples() + llamacpp_samples()
            + ollama_samples() + other_samples() + fact_samples() + llamacpp_fit_samples())


def named(samples: list[Sample]) -> list[tuple[str, Sample]]:
    """``<reference-id>`` when an entry has one sample, ``<reference-id>-<n>`` otherwise."""
    per_ref: dict[str, list[Sample]] = {}
    for sample in samples:
        per_ref.setdefault(sample.ref, []).append(sample)
    out = []
    for ref, group in per_ref.items():
        for n, sample in enumerate(group, 1):
            out.append((ref if len(group) == 1 else f"{ref}-{n}", sample))
    return out


def sidecar(sample: Sample) -> dict:
    doc: dict = {"generated_by": GENERATED_BY, "reference_id": sample.ref, "wording": sample.wording}
    if sample.versions:
        doc["wording_versions"] = sample.versions
    doc.update({"engine": sample.engine, "engine_version": _Quoted(sample.version), "kind": sample.kind})
    if sample.kind == "healthy":
        doc["expect"] = {"root_cause": None, "fact": sample.expect, "line": sample.line}
    else:
        doc["expect"] = {"root_cause": sample.expect, "phase": sample.phase, "line": sample.line}
    notes = f"Rendered from the reference template '{sample.ref}' ({sample.wording}) for {sample.engine} {sample.version}."
    if sample.note:
        notes += " " + sample.note
    doc["notes"] = notes
    if sample.gap:
        doc["gap"] = sample.gap
    return doc


class _Quoted(str):
    """A scalar written in double quotes (a release such as 3000 or 0.10 must stay a string)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Quoted, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", str(value),
                                                                                style='"'))


def render(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, sample in named(all_samples()):
        sample.line  # noqa: B018 - raises unless exactly one line is marked
        log = out_dir / f"{name}.log"
        log.write_text("".join(str(line) + "\n" for line in sample.lines), encoding="utf-8")
        side = out_dir / f"{name}.yaml"
        side.write_text(yaml.dump(sidecar(sample), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100000),
                        encoding="utf-8")
        written += [log, side]
    keep = set(written)
    for stale in sorted(out_dir.glob("*.log")) + sorted(out_dir.glob("*.yaml")):
        if stale not in keep:
            stale.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="directory to write the samples into (default: beside this script)")
    args = parser.parse_args(argv)
    written = render(args.out)
    covered = {s.ref for s in all_samples()}
    missing = [ref for ref in PROBLEM_IDS if ref not in covered]
    print(f"wrote {len(written) // 2} samples to {args.out.name or args.out}", file=sys.stderr)
    if missing:
        print(f"problem entries without a sample: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
