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
