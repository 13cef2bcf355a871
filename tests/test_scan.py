"""Matcher behaviour on small inline logs: normalization, phases, root cause, facts, fuzzy."""

from matcher.diagnose import diagnose
from matcher.normalize import normalize

FREE = (
    "(EngineCore_DP0 pid=1) ERROR 09-28 15:47:24 [core.py:718] ValueError: Free memory on device (6.93/8.0 GiB) "
    "on startup is less than desired GPU memory utilization (0.9, 7.2 GiB). Decrease GPU memory utilization "
    "or reduce GPU memory used by other processes."
)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
    "23.56 GiB of which 11.75 MiB is free. Including non-PyTorch memory, this process has 23.54 GiB memory in use. "
    "Of the allocated memory 22.10 GiB is allocated by PyTorch, and 1.01 GiB is reserved by PyTorch but unallocated."
)


def diag(scanner, lines):
    return diagnose(scanner.run_lines(lines))


def test_normalize_strips_wrappers():
    assert normalize("vllm-1  | (EngineCore_DP0 pid=1) ERROR 05-10 12:00:00 [core.py:7] boom") == "boom"
    assert normalize("\x1b[1;36m(APIServer pid=1)\x1b[0;0m INFO 11-02 10:00:00 [x.py:1] hi") == "hi"
    assert normalize("2024-05-01T10:00:00.1Z stderr F INFO 05-01 10:00:00 worker.py:255] # GPU blocks: 1") == "# GPU blocks: 1"
    assert normalize('{"level":"ERROR","fields":{"message":"Shard 0 failed"}}') == "Shard 0 failed"
    assert normalize('{"log":"INFO 05-01 10:00:00 a.py:1] inner\\n","stream":"stderr"}') == "inner"
    assert normalize("[pod/vllm-0/vllm] 2024-05-01T10:00:00Z INFO 05-01 10:00:00 [x.py:1] hi") == "hi"
    # Google Cloud Logging's export of a GKE container (the line of corpus log vllm-29049)
    assert normalize("INFO 2025-11-19T20:16:36.096677269Z [resource.labels.containerName: vllm] (EngineCore_DP0 "
                     "pid=270) ERROR 11-19 12:16:36 [v1/engine/core.py:842] self.model_runner._dummy_sampler_run()") \
        == "self.model_runner._dummy_sampler_run()"
    # journalctl (corpus log ollama-16771) and syslog with the host left out (ollama-5113)
    assert normalize("Jun 16 20:53:56 pop-os ollama[13938]: slot update_slots: id  0 | task 1243 | new prompt") \
        == "slot update_slots: id  0 | task 1243 | new prompt"
    assert normalize("jun 18 13:23:19 ollama[22256]: time=2024-06-18T13:23:19.008+02:00 level=ERROR") \
        == "time=2024-06-18T13:23:19.008+02:00 level=ERROR"
    # llama.cpp's timestamped header after a supervisor's process-id tag (llama.cpp-24232)
    assert normalize("[34169] 7.51.240.943 E CUDA error: out of memory") == "CUDA error: out of memory"
    # a kernel line has no process tag, and a shell's job report keeps its job number
    assert normalize("Jun 16 20:53:56 host kernel: Out of memory: Killed process 1") \
        == "Jun 16 20:53:56 host kernel: Out of memory: Killed process 1"
    assert normalize("[1]    12345 killed     python serve.py") == "[1]    12345 killed     python serve.py"
    # uvicorn's level prefix, padded to 10 columns (corpus log exllamav2-732); pip's one-space form stays
    assert normalize("ERROR:    torch.OutOfMemoryError: Allocation on device") == "torch.OutOfMemoryError: Allocation on device"
    assert normalize("ERROR: Could not find a version") == "ERROR: Could not find a version"
    # Ray's actor prefix on a remote node names its address (corpus log sglang-6309)
    assert normalize("(SGLangEngine pid=952, ip=10.150.236.219) [2025-11-06 01:16:21 TP0] Scheduler hit an "
                     "exception: boom") == "Scheduler hit an exception: boom"
    # Buildkite's per-line timestamp: raw, as an APC string command, and pasted without its
    # escape codes (corpus log vllm-omni-3430)
    assert normalize("\x1b_bk;t=1778177757178\x07Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert normalize("bk;t=1778177757178 Process DiffusionWorker-0:") == "Process DiffusionWorker-0:"
    # a CI runner's label before vLLM's process tag (corpus log perf-eval-6); a label before
    # anything else is text
    assert normalize("[vllm] (Worker_DP6_EP6 pid=3853) ERROR 05-18 14:27:49 [multiproc_executor.py:962] "
                     "torch.OutOfMemoryError: boom") == "torch.OutOfMemoryError: boom"
    assert normalize("[vllm] ERROR 05-18 14:27:49 [core.py:9] boom") == "boom"
    assert normalize("[vllm] torch.OutOfMemoryError: boom") == "[vllm] torch.OutOfMemoryError: boom"
    # the Markdown code mark a paste left on a log's first or last line (corpus logs llama.cpp-5156,
    # vllm-7418); indentation stays, and a message's own pair of marks is text
    assert normalize("Killed`") == "Killed"
    assert normalize("`Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert normalize("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.```") \
        == "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    assert normalize("  `File \"x.py\", line 1, in <module>") == '  File "x.py", line 1, in <module>'
    assert normalize("set `max_split_size_mb` to avoid fragmentation") == "set `max_split_size_mb` to avoid fragmentation"


def test_wrapping_names_the_process_and_the_error_level():
    from matcher.normalize import parse_line

    journal = parse_line("Jun 16 20:53:56 pop-os ollama[13938]: slot launch_slot_: id  0 | task 1 | processing task")
    assert (journal.origin, journal.header) == ("ollama[13938]", False)  # a transport prefix, on every line
    ggml = parse_line("[34169] 7.51.240.943 E CUDA error: out of memory")
    assert (ggml.origin, ggml.header, ggml.error_level) == ("[34169]", True, True)
    assert not ggml.header_first  # the supervisor's tag came before the header
    labelled = parse_line("[vllm] (Worker_DP6_EP6 pid=3853) ERROR 05-18 14:27:49 [multiproc_executor.py:962] boom")
    assert (labelled.origin, labelled.error_level) == ("(Worker_DP6_EP6 pid=3853)", True)  # the tag names vLLM's worker
    assert parse_line("INFO 10-28 11:14:52 distributed_gpu_executor.py:57] # GPU blocks: 0").header_first
    compose = parse_line("tabbyapi-1  | 2025-03-14 11:05:29.634 ERROR:    torch.OutOfMemoryError: CUDA out of memory.")
    assert compose.header and not compose.header_first  # every piece of a wrapped message begins with 'tabb'
    quoted = parse_line("▎ ValueError: To serve at least one request with the model's max seq len (196608),")
    assert quoted.text.startswith("ValueError: ")
    assert parse_line("▎").text == ""
    assert parse_line("collect2: error: ld returned 1 exit status").error_level
    assert parse_line("/usr/bin/ld: error: cannot find -lcuda").error_level
    assert not parse_line("RuntimeError: CUDA error: out of memory").error_level
    # a level below warning, in a header or in the message's first words
    assert parse_line("INFO 10-28 11:14:52 distributed_gpu_executor.py:57] # GPU blocks: 0").informational
    assert parse_line("2025-10-15T09:43:13.902042Z  INFO gpu_worker.determine_available_memory: x").informational
    assert parse_line('time=2024-06-18T13:23:19.008+02:00 level=INFO source=sched.go:388 msg="x"').informational
    assert parse_line("7.51.187.428 I llama_kv_cache: size = 1.00 GiB").informational
    assert not parse_line('time=2024-06-18T13:23:19.008+02:00 level=ERROR source=sched.go:388 msg="x"').informational
    assert not parse_line("WARNING 10-28 11:14:52 scheduler.py:1089] Sequence group 0 is preempted").informational
    assert not parse_line("RuntimeError: CUDA error: out of memory").informational


def test_free_memory_facts_and_computed_fix(scanner):
    d = diag(scanner, ["INFO vLLM API server version 0.11.0", FREE])
    root = d.root_cause
    assert root.id == "vllm.startup.free-memory-below-utilization"
    assert root.phase == "device-check"
    assert root.line == 2
    assert root.facts == {"free_gib": 6.93, "total_gib": 8.0, "gpu_memory_utilization": 0.9, "requested_gib": 7.2}
    assert d.run.facts["engine_version"] == "0.11.0"


def test_oom_after_capture_marker_is_graph_capture_and_explains_generic(scanner):
    lines = [
        "INFO 05-01 10:00:00 [gpu_model_runner.py:1] Model loading took 14.99 GiB and 5.1 seconds",
        "INFO 05-01 10:00:09 [kv_cache_utils.py:1] GPU KV cache size: 45,072 tokens",
        "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  40%|####      | 27/67",
        OOM,
    ]
    d = diag(scanner, lines)
    assert d.root_cause.id == "vllm.cudagraph.oom-during-capture"
    assert d.root_cause.phase == "cudagraph-capture"
    assert d.roles["pytorch.cuda.oom"] == "symptom"
    assert d.explained_by["pytorch.cuda.oom"] == "vllm.cudagraph.oom-during-capture"


def test_oom_after_capture_finished_is_not_graph_capture(scanner):
    lines = [
        "Capturing CUDA graphs (decode, FULL): 100%|##########| 35/35",
        "INFO 05-01 10:00:20 [gpu_model_runner.py:1] Graph capturing finished in 12 secs, took 0.84 GiB",
        "INFO 05-01 10:00:25 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000",
        OOM,
    ]
    d = diag(scanner, lines)
    assert d.root_cause.id == "pytorch.cuda.oom"
    assert d.root_cause.phase == "serving"
    assert "vllm.cudagraph.oom-during-capture" not in d.roles


def test_capture_decided_by_traceback_frames(scanner):
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/vllm/worker/model_runner.py", line 1450, in capture_model',
        "    graph_runner.capture(**capture_inputs)",
        '  File "/x/torch/cuda/graphs.py", line 84, in capture_end',
        "    super().capture_end()",
        "RuntimeError: CUDA error: out of memory",
    ]
    d = diag(scanner, lines)
    assert d.root_cause.id == "vllm.cudagraph.oom-during-capture"
    assert d.root_cause.line == 6


def test_wrapper_never_wins(scanner):
    d = diag(scanner, [FREE, "(EngineCore_DP0 pid=1) ERROR 09-28 [core.py:1] EngineCore failed to start."])
    assert d.root_cause.id == "vllm.startup.free-memory-below-utilization"
    assert d.roles["vllm.engine.core-failed"] == "wrapper"


def test_prompt_that_talks_about_oom_is_silent(scanner):
    echo = ("INFO 05-01 10:00:00 [logger.py:39] Received request chatcmpl-1: prompt: 'why do I get "
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "8.00 GiB of which 1.00 GiB is free.', params: SamplingParams(n=1)")
    run = scanner.run_lines([echo])
    assert run.findings == []
    assert run.prompt_lines_skipped == 1


def test_unknown_wording_is_caught_by_fuzzy_with_lower_confidence(scanner):
    variant = "ValueError: Not enough memory available for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    d = diag(scanner, [variant])
    root = d.root_cause
    assert root.id == "vllm.kv-cache.no-available-memory"
    assert root.match == "fuzzy"
    assert 0.5 < root.confidence < 1.0


def test_repeated_errors_fold_into_one_finding(scanner):
    run = scanner.run_lines([FREE] * 1000)
    assert len(run.findings) == 1
    assert run.findings[0].occurrences == 1000
    assert run.findings[0].line == 1 and run.findings[0].last_line == 1000


def test_healthy_startup_reaches_serving(scanner):
    lines = [
        "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.2",
        "INFO 05-01 10:00:01 [gpu_model_runner.py:1] Model loading took 14.99 GiB and 5.1 seconds",
        "INFO 05-01 10:00:09 [gpu_worker.py:1] Available KV cache memory: 5.34 GiB",
        "INFO 05-01 10:00:09 [kv_cache_utils.py:1] GPU KV cache size: 43,712 tokens",
        "INFO 05-01 10:00:09 [kv_cache_utils.py:1] Maximum concurrency for 4,096 tokens per request: 10.67x",
        "INFO 05-01 10:00:25 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000",
    ]
    d = diag(scanner, lines)
    assert d.root_cause is None
    assert d.outcome == "ready"
    facts = d.run.facts
    assert facts["kv_cache_tokens"] == 43712 and facts["max_concurrency"] == 10.67
    assert facts["available_kv_gib"] == 5.34 and facts["weights_gib"] == 14.99


def test_hard_negatives_from_healthy_servers_stay_silent(scanner):
    """Lines that mention memory without a failure (wordings from real healthy logs)."""
    lines = [
        "[2025-01-01 00:00:00 TP0] Capture cuda graph end. Time elapsed: 58.13 s. mem usage=1.99 GB. avail mem=0.00 GB.",
        "[2025-01-01 00:00:00 TP0] max_total_num_tokens=425984, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        "max_running_requests=2048, context_len=32768, available_gpu_mem=0.00 GB",
        "INFO 08-01 10:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
        "throughput: 1800.4 tokens/s, Running: 64 reqs, Waiting: 0 reqs, GPU KV cache usage: 98.4%, Prefix cache hit rate: 0.0%",
        "INFO 08-01 10:00:00 [arg_utils.py:1] non-default args: {'gpu_memory_utilization': 0.98, 'max_model_len': 131072}",
        "$ vllm serve Qwen/Qwen2.5-7B --gpu-memory-utilization 0.99 --enforce-eager",
    ]
    run = scanner.run_lines(lines)
    assert [f.id for f in run.findings if f.severity in ("error", "warning")] == []


HIP_FRAGMENTED = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 63.98 GiB "
    "of which 1.00 GiB is free. Of the allocated memory 40.00 GiB is allocated by PyTorch, and 20.00 GiB is reserved "
    "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
)


def test_rocm_oom_is_diagnosed_with_the_variable_its_build_reads():
    from matcher.api import diagnose_lines

    report = diagnose_lines([HIP_FRAGMENTED])
    assert report["root_cause"] == "pytorch.cuda.oom-fragmentation"
    fix = report["findings"][0]["fixes"][0]
    assert fix["id"] == "expandable-segments"
    assert "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in fix["change"]
    newer = diagnose_lines([HIP_FRAGMENTED.replace("PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF")])
    assert "PYTORCH_ALLOC_CONF=expandable_segments:True" in newer["findings"][0]["fixes"][0]["change"]


def test_rocm_runtime_oom_and_cuda_oom_wordings_match(scanner):
    assert diag(scanner, ["RuntimeError: HIP error: out of memory"]).root_cause.id == "cuda.runtime.out-of-memory"
    hip = diag(scanner, [OOM.replace("CUDA out of memory", "HIP out of memory")]).root_cause
    assert hip.id == "pytorch.cuda.oom" and hip.facts["alloc_gib"] == diag(scanner, [OOM]).root_cause.facts["alloc_gib"]


def test_metal_vulkan_and_sycl_out_of_memory_wordings():
    from matcher.api import diagnose_lines

    def root(*lines: str) -> dict:
        report = diagnose_lines(list(lines))
        return report["findings"][0] if report["findings"] else {"id": None}

    runtime = root("ggml_metal_graph_compute: command buffer 6 failed with status 5",
                   "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")
    assert runtime["id"] == "llamacpp.metal.out-of-memory" and runtime["line"] == 2
    relayed = root("Error: 500 Internal Server Error: llama runner process has terminated: "
                   "error:failed to allocate buffer, size = 33074.89 MiB")
    assert relayed["id"] == "llamacpp.gpu.alloc-failed" and relayed["facts"]["alloc_gib"] == 32.2997
    vulkan = root("ggml_vulkan: Device memory allocation of size 2166360064 failed.",
                  "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory")
    assert vulkan["id"] == "llamacpp.gpu.alloc-failed" and vulkan["fixes"][0]["id"] == "vulkan-buffer-limit"
    full = root("ggml_vulkan: Device memory allocation of size 118497280 failed.",
                "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory")
    assert full["fixes"][0]["id"] != "vulkan-buffer-limit"
    assert root("ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 2303168640 Bytes of memory on device"
                )["id"] == "llamacpp.gpu.alloc-failed"
    # MLX prints the same macOS text in its own words: the Apple GPU's diagnosis, not llama.cpp's;
    # a non-memory command buffer code is not an OOM, in either
    assert root("[METAL] Command buffer execution failed: Insufficient Memory "
                "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")["id"] == "metal.gpu.out-of-memory"
    assert root("[METAL] Command buffer execution failed: Caused GPU Timeout Error "
                "(00000002:kIOGPUCommandBufferCallbackErrorTimeout)")["id"] is None
    assert root("error: Ignored (for causing prior/excessive GPU errors) "
                "(00000004:kIOAccelCommandBufferCallbackErrorSubmissionsIgnored)")["id"] is None


def test_llamacpp_banners_and_apple_devices_are_read(scanner):
    run = scanner.run_lines([
        "version: 0.4.1-dev (build 11059, commit 059a34f8d)",
        "llama_model_load_from_file_impl: using device Metal (Apple M5) (unknown id) - 12123 MiB free",
        "ggml_metal_init: recommendedMaxWorkingSetSize  = 22906.50 MB",
    ])
    assert run.facts["llamacpp_version"] == 11059 and run.facts["device"] == "Metal"
    assert run.facts["free_gib"] == round(12123 / 1024, 4) and run.facts["metal_working_set_mb"] == 22906.5
    assert scanner.run_lines(["build: 885c5bbe8 (10428)"]).facts["llamacpp_version"] == 10428
