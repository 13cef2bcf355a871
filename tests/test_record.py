"""Run records and comparisons on real corpus logs; the arithmetic is written out here."""

import json

from click.testing import CliRunner

from matcher.cli import main

PAIR_FAILED = "corpus/vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
PAIR_FIXED = "corpus/vllm/vllm.healthy--vllm-project-vllm-10517.log"
V1_HEALTHY = "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"


def invoke(*args):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


def test_facts_json_of_a_v0_run_with_profiling_numbers():
    rec = json.loads(invoke("facts", "--format", "json", PAIR_FIXED).output)
    memory = rec["memory"]
    # "Memory profiling results: total_gpu_memory=23.58GiB ... gpu_memory_utilization=0.90"
    assert memory["total_gib"] == 23.58 and memory["gpu_memory_utilization"] == 0.9
    assert memory["budget_gib"] == round(23.58 * 0.9, 2)  # 21.22
    assert memory["outside_budget_gib"] == round(23.58 - 21.22, 2)
    assert memory["weights_gib"] == 14.9888  # "Loading model weights took 14.9888 GB"
    assert memory["activation_peak_gib"] == round(17.06 - 14.9888, 2)  # peak_torch_memory=17.06GiB minus weights
    assert rec["kv_cache"]["gpu_blocks"] == 1952 and rec["kv_cache"]["max_concurrency"] == 1.56
    assert rec["settings"]["max_model_len"] == 20000  # "Maximum concurrency for 20000 tokens per request"


def test_facts_text_draws_the_budget():
    out = invoke("facts", PAIR_FIXED).output
    assert "budget (x0.9)" in out and "█" in out and "outside the budget" in out


def test_facts_of_a_v1_startup_reports_kv_tokens_and_phase():
    rec = json.loads(invoke("facts", "--format", "json", V1_HEALTHY).output)
    assert rec["engine"] == "vllm"
    assert rec["kv_cache"]["kv_cache_tokens"] == 251920
    assert rec["phase_reached"] == "warmup"
    assert rec["root_cause"] is None


def test_compare_names_the_changed_knob():
    result = invoke("compare", PAIR_FAILED, PAIR_FIXED)
    assert "max_model_len" in result.output
    doc = json.loads(invoke("compare", "--format", "json", PAIR_FAILED, PAIR_FIXED).output)
    assert (doc["a"]["outcome"], doc["b"]["outcome"]) == ("failed", "no-problem")
    assert doc["a"]["root_cause"] == "vllm.kv-cache.max-model-len-exceeds-capacity"
    assert doc["a"]["failed_phase"] == "kv-cache-allocation"
    assert doc["changed"] == {"max_model_len": [29000, 20000]}
    assert doc["knobs_changed"] == ["max_model_len"]
    assert doc["memory_deltas"]["gpu_blocks"] == [1478, 1952]
    assert "warning:" not in result.output


def test_compare_warns_when_several_knobs_changed(tmp_path):
    a = tmp_path / "a.log"
    b = tmp_path / "b.log"
    a.write_text("INFO 01-01 00:00:00 [arg_utils.py:1] non-default args: {'max_model_len': 8192, 'gpu_memory_utilization': 0.9}\n")
    b.write_text("INFO 01-01 00:00:00 [arg_utils.py:1] non-default args: {'max_model_len': 4096, 'gpu_memory_utilization': 0.8}\n")
    out = invoke("compare", str(a), str(b)).output
    assert "warning: 2 knobs changed" in out


def test_facts_of_a_generated_v1_startup_that_becomes_ready(tmp_path):
    """bench/genlog.py writes a V1 startup block followed by serving traffic."""
    import subprocess
    import sys

    log = tmp_path / "v1.log"
    subprocess.run([sys.executable, "bench/genlog.py", "--size", "20K", "--failures", "0", "--seed", "3", "-o", str(log)],
                   check=True)
    rec = json.loads(invoke("facts", "--format", "json", str(log)).output)
    assert rec["version"] == "0.10.1.1"
    assert rec["settings"]["gpu_memory_utilization"] == 0.95 and rec["settings"]["max_model_len"] == 8192
    assert rec["kv_cache"]["kv_cache_tokens"] == 398960
    assert rec["memory"]["weights_gib"] == 4.63 and rec["memory"]["cudagraph_gib"] == 0.52
    assert (rec["outcome"], rec["phase_reached"]) == ("ready", "serving")


V0_STARTUP = """\
INFO 10-21 09:00:00 api_server.py:528] vLLM API server version 0.6.3
INFO 10-21 09:00:00 api_server.py:529] args: Namespace(model='Qwen/Qwen2.5-7B-Instruct', max_model_len=16384, gpu_memory_utilization=0.9, tensor_parallel_size=1, enforce_eager=False)
INFO 10-21 09:00:05 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='Qwen/Qwen2.5-7B-Instruct', max_seq_len=16384, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto
INFO 10-21 09:00:40 model_runner.py:1067] Loading model weights took 14.2487 GB
INFO 10-21 09:00:44 gpu_executor.py:122] # GPU blocks: 11245, # CPU blocks: 4681
INFO 10-21 09:00:44 gpu_executor.py:126] Maximum concurrency for 16384 tokens per request: 10.98x
INFO 10-21 09:00:46 model_runner.py:1395] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.
INFO 10-21 09:01:02 model_runner.py:1523] Graph capturing finished in 16 secs.
INFO 10-21 09:01:03 launcher.py:19] Available routes are:
INFO:     Application startup complete.
"""


def test_facts_of_a_v0_startup_that_becomes_ready(tmp_path):
    """V0 wordings (0.6.3) of the reference's templates: blocks instead of a token count."""
    log = tmp_path / "v0.log"
    log.write_text(V0_STARTUP)
    rec = json.loads(invoke("facts", "--format", "json", str(log)).output)
    assert rec["version"] == "0.6.3" and rec["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert rec["settings"]["max_model_len"] == 16384 and rec["settings"]["enforce_eager"] is False
    assert rec["kv_cache"]["gpu_blocks"] == 11245 and rec["kv_cache"]["max_concurrency"] == 10.98
    assert (rec["outcome"], rec["phase_reached"]) == ("ready", "serving")


def test_hardware_from_the_ollama_discovery_line(tmp_path):
    log = tmp_path / "ollama.log"
    log.write_text('time=2025-03-28T15:48:41.043+09:00 level=INFO source=types.go:130 msg="inference compute" '
                   'id=GPU-1 library=cuda variant=v12 compute=8.6 driver=12.4 name="NVIDIA GeForce RTX 3090" '
                   'total="23.7 GiB" available="23.4 GiB"\n')
    rec = json.loads(invoke("facts", "--format", "json", str(log)).output)
    assert rec["hardware"] == {"gpu_name": "NVIDIA GeForce RTX 3090", "gpu_total_gib": 23.7}
    assert "hardware    NVIDIA GeForce RTX 3090, 23.7 GiB" in invoke("facts", str(log)).output


# -- the complete run record: every argument, environment, startup memory, dates, processes --

V1_ARGS = "corpus/healthy/healthy-vllm--vllm-project-vllm-24162.log"  # vLLM V1 "non-default args: {...}"
TGI_ARGS = "corpus/healthy/healthy-tgi--huggingface-text-generation-inference-1220.log"  # command line + "Args { ... }"
V1_WORKERS = "corpus/healthy/healthy-vllm--vllm-project-vllm-28228.log"  # (Worker_TP0 pid=..) and (EngineCore_DP0 pid=..)
V1_FREE_AT_START = "corpus/vllm/vllm.startup.free-memory-below-utilization--noonghunna-club-3090-535.log"
RANKS = "corpus/pytorch/torch.cuda.oom-weight-loading--hiyouga-llamafactory-9510.log"  # [rank5]: / [rank6]:


def derived(tmp_path, source, name, old, new, header=True):
    """A copy of a real corpus log with one text replaced, written by this test."""
    text = open(source, encoding="utf-8").read()
    assert old in text, f"{source} no longer holds {old!r}"
    path = tmp_path / name
    path.write_text((f"# generated by tests/test_record.py from {source}\n" if header else "") + text.replace(old, new, 1))
    return str(path)


def facts_json(path):
    return json.loads(invoke("facts", "--format", "json", path).output)


def test_facts_keep_every_non_default_argument_and_the_date():
    rec = facts_json(V1_ARGS)
    assert rec["arguments"] == {"model_tag": "/data/datasets/models-hf/Qwen2.5-0.5B/",
                                "model": "/data/datasets/models-hf/Qwen2.5-0.5B/", "tensor_parallel_size": 2}
    assert rec["argument_sources"] == ["non-default args"]
    assert (rec["started"], rec["ended"]) == ("09-03 16:28:08", "09-03 16:28:23")  # vLLM prints no year


def test_facts_read_tgi_args_whole_and_its_command_line():
    rec = facts_json(TGI_ARGS)
    args = rec["arguments"]
    assert rec["argument_sources"] == ["command line", "Args"]
    assert args["max_concurrent_requests"] == 2000 and args["cuda_memory_fraction"] == 1.0
    assert args["max_batch_prefill_tokens"] == 4096 and args["trust_remote_code"] is False
    assert args["ngrok_authtoken"] is None and args["env"] is False  # the last item of "Args { ... }"
    assert len(args) == 38  # the 38 items of Args; the command line's --model-id and --max-concurrent-requests are among them
    assert rec["started"] == "2023-11-01 13:37:03"
    out = invoke("facts", TGI_ARGS).output
    assert "other arguments (command line, Args)" in out and "cuda_memory_fraction" in out


def test_facts_show_what_other_processes_held_at_startup():
    rec = facts_json(V1_FREE_AT_START)
    # "Free memory on device cuda:0 (22.35/23.56 GiB) on startup is less than ... (0.95, 22.38 GiB)"
    assert rec["memory"]["free_at_start_gib"] == 22.35
    assert rec["memory"]["held_by_others_at_start_gib"] == round(23.56 - 22.35, 2)
    assert rec["memory"]["requested_gib"] == 22.38
    assert [p["key"] for p in rec["processes"]] == ["Worker"]


def test_facts_keep_one_record_per_process():
    rec = facts_json(V1_WORKERS)
    processes = {p["key"]: p for p in rec["processes"]}
    assert list(processes) == ["Worker_TP0", "EngineCore_DP0"]
    assert processes["Worker_TP0"]["tag"] == "(Worker_TP0 pid=26347)"
    assert processes["Worker_TP0"]["memory"] == {"kv_cache_gib": 2.3}  # "Available KV cache memory: 2.30 GiB"
    assert processes["EngineCore_DP0"]["kv_cache"] == {"kv_cache_tokens": 75840, "max_concurrency": 2.48,
                                                       "concurrency_tokens": 120000}
    assert "kv_cache_tokens" not in processes["Worker_TP0"]["facts"]
    out = invoke("facts", V1_WORKERS).output
    assert "per process" in out and "Worker_TP0                 kv_cache_gib 2.3" in out


def test_facts_keep_the_rank_of_an_out_of_memory():
    rec = facts_json(RANKS)
    (rank,) = rec["processes"]
    assert (rank["key"], rank["tag"]) == ("rank5", "[rank5]")
    # the allocator's message and the weight-loading family its load_model call puts it in
    assert [p["id"] for p in rank["problems"]] == ["pytorch.cuda.oom", "pytorch.cuda.oom-weight-loading"]
    for problem in rank["problems"]:
        assert problem["facts"]["gpu_index"] == 5 and problem["facts"]["device_total_gib"] == 79.33


def test_compare_counts_a_kv_cache_dtype_change_in_the_non_default_args(tmp_path):
    fp8 = derived(tmp_path, V1_ARGS, "fp8.log", "'tensor_parallel_size': 2}",
                  "'tensor_parallel_size': 2, 'kv_cache_dtype': 'fp8'}")
    doc = json.loads(invoke("compare", "--format", "json", V1_ARGS, fp8).output)
    assert doc["changed"] == {"kv_cache_dtype": [None, "fp8"]}  # absent from non-default args: the default
    assert doc["knobs_changed"] == ["kv_cache_dtype"]
    assert doc["b"]["settings"]["kv_cache_dtype"] == "fp8"
    out = invoke("compare", V1_ARGS, fp8).output
    assert "kv_cache_dtype" in out and "fp8" in out and "warning:" not in out


def test_compare_counts_arguments_no_list_names(tmp_path):
    changed = derived(tmp_path, TGI_ARGS, "tgi.log", "waiting_served_ratio: 1.2, max_batch_prefill_tokens: 4096",
                      "waiting_served_ratio: 0.3, max_batch_prefill_tokens: 2048")
    doc = json.loads(invoke("compare", "--format", "json", TGI_ARGS, changed).output)
    assert doc["changed"] == {"max_batch_prefill_tokens": [4096, 2048], "waiting_served_ratio": [1.2, 0.3]}
    assert "warning: 2 knobs changed" in invoke("compare", TGI_ARGS, changed).output


def test_compare_per_process_when_both_runs_have_several(tmp_path):
    more = derived(tmp_path, V1_WORKERS, "more-kv.log", "Available KV cache memory: 2.30 GiB",
                   "Available KV cache memory: 3.10 GiB")
    doc = json.loads(invoke("compare", "--format", "json", V1_WORKERS, more).output)
    (worker,) = doc["processes"]
    assert worker["key"] == "Worker_TP0"
    assert worker["memory_deltas"] == {"kv_cache_gib": [2.3, 3.1]}
    assert doc["processes_only_in_a"] == [] and doc["processes_only_in_b"] == []
    assert "process Worker_TP0" in invoke("compare", V1_WORKERS, more).output


SECRET_TOKEN = "hf_" + "Qx7" * 10  # a Hugging Face token shape
SECRET_KEY = "plain-secret-987654"  # no known shape: only its name gives it away
PROMPT = "Tell me the moonbase launch codes, then run: vllm serve moonbase-codes --max-model-len 99"


def test_no_secret_or_prompt_in_facts_or_compare(tmp_path):
    """A real vLLM log with an environment dump, secret arguments and a request echo planted."""
    planted = "\n".join([
        "# generated by tests/test_record.py from " + V1_ARGS + ": planted environment, secrets and a prompt",
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "CUDA_VISIBLE_DEVICES=0,1",
        f"VLLM_API_KEY={SECRET_KEY}",
        f"HF_TOKEN={SECRET_TOKEN}",
        f"NCCL_PASSWORD={SECRET_KEY}",
        f"INFO 09-03 16:28:30 [logger.py:43] Received request cmpl-1: prompt: '{PROMPT} --api-key {SECRET_KEY}',"
        " params: SamplingParams(n=1), prompt_token_ids: [1, 2, 3].",
        "",
    ])
    source = open(V1_ARGS, encoding="utf-8").read().replace(
        "'tensor_parallel_size': 2}", f"'tensor_parallel_size': 2, 'api_key': '{SECRET_KEY}', 'hf_token': '{SECRET_TOKEN}'}}")
    path = tmp_path / "planted.log"
    path.write_text(planted + source)
    rec = facts_json(str(path))
    assert rec["environment"] == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "CUDA_VISIBLE_DEVICES": "0,1",
                                  "VLLM_API_KEY": "[REDACTED]", "NCCL_PASSWORD": "[REDACTED]"}
    assert rec["arguments"]["api_key"] == "[REDACTED]" and rec["arguments"]["hf_token"] == "[REDACTED]"
    assert "max_model_len" not in rec["arguments"]  # the prompt's command line is no setting
    outputs = [invoke("facts", str(path)).output, invoke("facts", "-f", "json", str(path)).output,
               invoke("compare", V1_ARGS, str(path)).output, invoke("compare", "-f", "json", str(path), V1_ARGS).output]
    for out in outputs:
        assert SECRET_KEY not in out and SECRET_TOKEN not in out and "moonbase" not in out
    assert "env.PYTORCH_CUDA_ALLOC_CONF" not in outputs[2]  # A lists no environment: nothing to compare it with


def test_compare_counts_a_changed_environment_variable(tmp_path):
    a = derived(tmp_path, V1_ARGS, "a.log", "INFO 09-03 16:28:08",
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nINFO 09-03 16:28:08", header=False)
    b = derived(tmp_path, V1_ARGS, "b.log", "INFO 09-03 16:28:08",
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False\nINFO 09-03 16:28:08", header=False)
    doc = json.loads(invoke("compare", "--format", "json", a, b).output)
    assert doc["changed"] == {"env.PYTORCH_CUDA_ALLOC_CONF": ["expandable_segments:True", "expandable_segments:False"]}


NVIDIA_SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0  On |                  N/A |
| 30%   45C    P8             25W /  350W |    1236MiB /  24576MiB |      2%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


def test_facts_read_a_pasted_nvidia_smi_table(tmp_path):
    """nvidia-smi 550's layout (generated here: no corpus log pastes one) above a real log."""
    path = tmp_path / "smi.log"
    path.write_text(NVIDIA_SMI + open(V1_FREE_AT_START, encoding="utf-8").read())
    rec = facts_json(str(path))
    assert rec["gpus"] == [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "used_gib": round(1236 / 1024, 2),
                            "total_gib": 24.0}]
    assert rec["hardware"]["gpu_name"] == "NVIDIA GeForce RTX 3090" and rec["hardware"]["gpu_count"] == 1


def test_facts_from_stdin_keep_the_arguments():
    with open(V1_ARGS, "rb") as handle:
        result = CliRunner().invoke(main, ["facts", "-f", "json", "-"], input=handle.read(), catch_exceptions=False)
    assert json.loads(result.output)["arguments"]["tensor_parallel_size"] == 2


SGLANG_RANKS = "corpus/sglang/sglang.startup.not-enough-memory--sgl-project-sglang-7691.log"  # "[... DP0 TP0]" x 8


def test_facts_keep_each_sglang_rank_apart():
    rec = facts_json(SGLANG_RANKS)
    ranks = {p["key"]: p for p in rec["processes"]}
    assert sorted(ranks) == sorted(f"DP{i} TP{i}" for i in range(8))
    # "[2025-07-02 07:41:58 DP0 TP0] Load weight end. ... avail mem=21.73 GB, mem usage=166.59 GB."
    assert ranks["DP0 TP0"]["memory"] == {"weights_gib": 166.59}
    assert ranks["DP0 TP0"]["facts"]["post_load_free_gib"] == 21.73
    assert "weights_gib" not in ranks["DP7 TP7"]["facts"]  # only rank 0 printed its weights here
    assert [p["line"] for p in ranks["DP7 TP7"]["problems"]] == [3]


SERVER_ARGS = ("[2025-07-02 07:40:01] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tokenizer_path="
               "'deepseek-ai/DeepSeek-V3', kv_cache_dtype='auto', mem_fraction_static=0.85, max_total_tokens=131072, "
               "chunked_prefill_size=8192, tp_size=8, dp_size=8, enable_dp_attention=True, json_model_override_args='{}', "
               "lora_paths=None, api_key='plainsecret-abc-123', disable_cuda_graph=False, cuda_graph_bs=[1, 2, 4, 8])\n")


def test_facts_read_sglang_server_args(tmp_path):
    """SGLang's ServerArgs repr as it prints it at start (generated here: the corpus holds none) above a real log."""
    path = tmp_path / "sglang.log"
    path.write_text(SERVER_ARGS + open(SGLANG_RANKS, encoding="utf-8").read())
    rec = facts_json(str(path))
    args = rec["arguments"]
    assert rec["argument_sources"] == ["ServerArgs"]
    assert (args["mem_fraction_static"], args["tp_size"], args["dp_size"]) == (0.85, 8, 8)
    assert args["enable_dp_attention"] is True and args["lora_paths"] is None
    assert args["cuda_graph_bs"] == "[1, 2, 4, 8]" and args["json_model_override_args"] == "{}"
    assert args["api_key"] == "[REDACTED]" and "plainsecret" not in invoke("facts", str(path)).output
    assert rec["started"] == "2025-07-02 07:40:01"
    fp8 = tmp_path / "sglang-fp8.log"
    fp8.write_text(path.read_text().replace("kv_cache_dtype='auto'", "kv_cache_dtype='fp8_e5m2'"))
    doc = json.loads(invoke("compare", "--format", "json", str(path), str(fp8)).output)
    assert doc["changed"] == {"kv_cache_dtype": ["auto", "fp8_e5m2"]}


def test_facts_on_hostile_dumps_stay_bounded(tmp_path):
    """Generated here: dumps with unbalanced brackets and quotes, a 1 MiB value, a dump cut short."""
    path = tmp_path / "hostile.log"
    lines = [
        "INFO 01-01 00:00:00 [utils.py:1] non-default args: {'a': '" + "x" * 30_000 + "', 'b': 2}",
        "(APIServer pid=1) INFO 01-01 00:00:00 [utils.py:1] non-default args: {'z': '" + "z" * (1 << 20) + "', 'y': 2}",
        "INFO 01-01 00:00:00 [utils.py:1] non-default args: {'c': ((((((([[[[{{{{, 'd': 3",
        "INFO 01-01 00:00:00 [utils.py:1] args: Namespace(e='unterminated, f=4",
        "Args { g: Some(\"x\"), h: " + "(" * 100_000,
        *["INFO 01-01 00:00:00 [utils.py:1] non-default args: {" + "'k': [" * 5000 for _ in range(50)],
    ]
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["facts", "-f", "json", str(path)], catch_exceptions=False)
    assert result.exit_code == 0
    rec = json.loads(result.output)
    args = rec["arguments"]
    assert len(args["a"]) <= 220 and args["a"].startswith("xxx")  # clipped
    assert args["b"] == 2 and "d" not in args and args["g"] == "x"  # 'c' swallows the rest: its brackets never close
    (api_server,) = rec["processes"]
    assert api_server["arguments"]["z"].startswith("zzz") and "y" not in api_server["arguments"]  # read up to 64 KiB
