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
