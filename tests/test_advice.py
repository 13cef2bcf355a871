"""The advice a report gives, through the CLI on corpus logs: fixes fit the phase, engine and
device of the log, no text is ever printed with a placeholder left in it, and the corrected
fixes of the catalog say what the engines really do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
UNFILLED = re.compile(r"<value>|\{[A-Za-z_][A-Za-z0-9_]*(?::[^{}]*)?\}")
PROSE_KEYS = ("title", "change", "tradeoff", "verify", "detail", "look", "summary", "cause")


def run(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def report(log: Path) -> dict:
    return json.loads(run("scan", "-f", "json", log))["files"][0]


def fixes(log: Path) -> list[str]:
    return [fix["id"] for fix in report(log)["findings"][0]["fixes"]]


def _prose(value: object, key: str = ""):
    if isinstance(value, str):
        if key in PROSE_KEYS:
            yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _prose(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _prose(item, key)


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_no_report_over_the_whole_corpus_prints_an_unfilled_placeholder(fmt) -> None:
    out = run("scan", "-f", fmt, "--fail-on", "never", CORPUS)
    if fmt == "json":
        files = json.loads(out)["files"]
        assert len(files) > 400
        leftovers = [(f["path"], key, text) for f in files for finding in f["findings"]
                     for key, text in _prose(finding) if UNFILLED.search(text)]
    else:
        leftovers = [line for line in out.splitlines() if "<value>" in line]
    assert leftovers == []


def test_the_verbose_text_report_over_the_whole_corpus_has_no_placeholder() -> None:
    out = run("scan", "-v", "--fail-on", "never", CORPUS)
    checklist_lines = [line for line in out.splitlines() if line.startswith("    ") and "line " not in line[:12]]
    assert not [line for line in checklist_lines if "<value>" in line]


def validate_edited(tmp_path: Path, signature: str, old: str, new: str, override: str):
    """``logkb validate`` on an overlay that replaces a built-in signature by a copy of its file
    (``kb/<signature>``) with ``old`` replaced by ``new``."""
    text = (ROOT / "kb" / signature).read_text()
    assert old in text
    target = tmp_path / signature
    target.parent.mkdir(parents=True)
    target.write_text(text.replace(old, new))
    (tmp_path / "catalog.yaml").write_text("catalog_version: 2026.12.0\nschema_version: 1\nchangelog: []\n"
                                           f"overrides: [{override}]\n")
    return CliRunner().invoke(main, ["validate", str(tmp_path)])


def test_validate_refuses_a_fix_that_cannot_be_shown_without_numbers(tmp_path: Path) -> None:
    result = validate_edited(
        tmp_path, "vllm/no-available-memory.yaml",
        '      - "Raise --gpu-memory-utilization by 0.05 at a time (not above 0.95), provided nvidia-smi shows that much memory free."\n',
        "", "vllm.kv-cache.no-available-memory")
    assert result.exit_code == 2
    assert "no-available-memory.yaml: fixes[0].change_fallback: needs a number from the log" in result.output


# -- fixes fit the phase, the engine and the device ------------------------------------------


def test_trtllm_weight_loading_failure_leads_with_a_smaller_engine_not_the_kv_fraction() -> None:
    log = CORPUS / "trtllm/trtllm.executor.insufficient-memory--nvidia-tensorrt-llm-1060.log"
    assert report(log)["phase"] == "weight-loading"
    assert fixes(log) == ["shrink-the-model", "smaller-build-limits"]


def test_trtllm_serving_failure_still_leads_with_the_kv_fraction() -> None:
    log = CORPUS / "trtllm/trtllm.executor.insufficient-memory--nvidia-tensorrt-llm-3636.log"
    assert report(log)["phase"] == "serving"
    assert fixes(log)[0] in ("lower-kv-fraction", "more-kv-for-blocks")


def test_tgi_vllm_backend_is_told_that_tgi_token_limits_do_not_size_vllms_kv_cache() -> None:
    """TGI's vLLM backend (generated from TGI's backends/vllm source): vLLM's own engine core
    log and TGI's 'Error: Python(PyErr {...})'. The log is TGI's, so vLLM's command-line flags
    are not offered as changes; the one fix says where vLLM's KV sizing is set instead."""
    log = CORPUS / "generated/tgi-vllm-backend-error.log"
    found = report(log)
    assert (found["root_cause"], found["engine"]) == ("vllm.kv-cache.no-available-memory", "tgi")
    assert fixes(log) == ["tgi-vllm-backend"]
    root = next(f for f in found["findings"] if f["id"] == found["root_cause"])
    assert "only validate requests" in root["fixes"][0]["change"]
    vllm_log = CORPUS / "generated/vllm-no-cache-blocks-a-2.log"
    assert report(vllm_log)["engine"] == "vllm" and "tgi-vllm-backend" not in fixes(vllm_log)


def test_validate_refuses_a_wording_condition_on_an_undeclared_fact(tmp_path: Path) -> None:
    result = validate_edited(tmp_path, "llamacpp/gpu-alloc-failed.yaml", 'requires: "not has(torch_cuda_async_hint)"',
                             'requires: "not has(torch_cuda_async_hnt)"', "llamacpp.gpu.alloc-failed")
    assert result.exit_code == 2
    assert "gpu-alloc-failed.yaml" in result.output and "torch_cuda_async_hnt" in result.output


def test_validate_refuses_names_engine_outside_an_extractor(tmp_path: Path) -> None:
    result = validate_edited(tmp_path, "vllm/no-available-memory.yaml", "kind: problem\n",
                             "kind: problem\nnames_engine: true\n", "vllm.kv-cache.no-available-memory")
    assert result.exit_code == 2
    assert "no-available-memory.yaml" in result.output and "names_engine" in result.output


def test_validate_refuses_continues_event_outside_an_extractor(tmp_path: Path) -> None:
    result = validate_edited(tmp_path, "vllm/no-available-memory.yaml", "kind: problem\n",
                             "kind: problem\ncontinues_event: true\n", "vllm.kv-cache.no-available-memory")
    assert result.exit_code == 2
    assert "no-available-memory.yaml" in result.output and "continues_event" in result.output


def test_validate_refuses_harmless_outside_an_extractor(tmp_path: Path) -> None:
    """Only a fact extractor may declare its lines harmless: a problem that did so would
    silence the very error it diagnoses."""
    result = validate_edited(tmp_path, "vllm/no-available-memory.yaml", "kind: problem\n",
                             "kind: problem\nharmless: true\n", "vllm.kv-cache.no-available-memory")
    assert result.exit_code == 2
    assert "no-available-memory.yaml" in result.output and "harmless" in result.output


def test_trtllm_runtime_buffer_failing_at_load_leads_with_smaller_build_limits() -> None:
    """cudaMallocAsync in tllmBuffers.h while Triton creates the model instance: that allocator
    holds runtime buffers and the KV pool, which the build limits size (the weights come from
    TensorRT's own deserialisation), so the rebuild with smaller limits comes first."""
    log = CORPUS / "trtllm/trtllm.executor.insufficient-memory--triton-inference-server-tensorrtllm_backend-281.log"
    found = report(log)
    root = next(f for f in found["findings"] if f["id"] == found["root_cause"])
    assert (found["phase"], root["facts"]["trtllm_source"]) == ("weight-loading", "tllmBuffers.h")
    assert fixes(log) == ["smaller-build-limits", "shrink-the-model"]
    assert "first when" in run("explain", "trtllm.executor.insufficient-memory")


def test_trtllm_runtime_buffer_failing_while_serving_still_leads_with_the_kv_fraction() -> None:
    log = CORPUS / "trtllm/trtllm.executor.insufficient-memory--NVIDIA-TensorRT-LLM-2335.log"
    assert report(log)["phase"] == "serving"
    assert fixes(log)[:2] == ["lower-kv-fraction", "smaller-build-limits"]


def test_a_segment_cuda_refused_is_not_a_small_dev_shm() -> None:
    """NCCL created and sized the segment, then cudaHostRegister failed ('Cuda failure' from
    shmutils.cc): a larger /dev/shm cannot help, the shared-memory transport has to go. A
    segment that could not be sized (fallocate: no space) keeps the /dev/shm fixes."""
    refused = CORPUS / "nccl/nccl.shm.insufficient--nvidia-nccl-1518.log"
    root = report(refused)["findings"][0]
    assert next(c for c in root["checks"] if c["id"] == "cuda-refused-segment")["status"] == "fail"
    assert fixes(refused) == ["disable-shm"]
    full = CORPUS / "pytorch/nccl.shm.insufficient--NVIDIA-nccl-342.log"
    assert next(c for c in report(full)["findings"][0]["checks"] if c["id"] == "cuda-refused-segment")["status"] == "pass"
    assert fixes(full)[0] == "docker-shm"


def test_vllm_v0_multimodal_profile_run_leads_with_fewer_sequences() -> None:
    """V0's profile run builds max_num_seqs dummy sequences, each with the maximum multimodal
    input (Llama 3.2 Vision: 256 images at the default); a V1 engine core sizes its dummy batch
    from the encoder budget and gets no such fix."""
    v0 = CORPUS / "vllm/torch.cuda.oom--vllm-project-vllm-10569.log"
    assert report(v0)["root_cause"] == "vllm.multimodal.encoder-budget"
    assert fixes(v0)[0] == "fewer-profiled-sequences"
    v1 = CORPUS / "vllm/vllm.multimodal.encoder-budget--vllm-project-vllm-27706.log"
    assert "vllm/v1/worker/gpu_model_runner.py" in v1.read_text(encoding="utf-8")
    assert "fewer-profiled-sequences" not in fixes(v1)


@pytest.mark.parametrize("log", [
    "llamacpp/llamacpp.cuda.alloc-failed--ggml-org-llama.cpp-20431.log",
    "ollama/llamacpp.cuda.alloc-failed--ollama-ollama-8447.log",
])
def test_llamacpp_weight_loading_failure_gets_no_context_or_kv_advice(log) -> None:
    path = CORPUS / log
    assert report(path)["phase"] == "weight-loading"
    found = fixes(path)
    assert found[0] == "fewer-gpu-layers"
    assert not {"smaller-context", "quantize-kv-cache", "smaller-ubatch", "fewer-parallel-slots"} & set(found)


def test_llamacpp_kv_cache_failure_leads_with_the_context_even_when_the_log_does_not_show_it() -> None:
    log = CORPUS / "llamacpp/llamacpp.gpu.alloc-failed--janhq-jan-8236.log"
    assert "n_ctx" not in log.read_text(encoding="utf-8")
    found = report(log)
    assert found["phase"] == "kv-cache-allocation"
    assert [fix["id"] for fix in found["findings"][0]["fixes"]][:2] == ["smaller-context", "fewer-gpu-layers"]


def test_llamacpp_is_told_about_its_fitter_and_ollama_is_not() -> None:
    llamacpp = report(CORPUS / "llamacpp/llamacpp.cuda.alloc-failed--ggml-org-llama.cpp-20431.log")
    fit = next(fix for fix in llamacpp["findings"][0]["fixes"] if fix["id"] == "let-llamacpp-fit")
    assert "--fit" in fit["change"] and "-ngl" in fit["change"]
    ollama = CORPUS / "ollama/llamacpp.cuda.alloc-failed--ollama-ollama-8447.log"
    assert "let-llamacpp-fit" not in fixes(ollama)


def test_a_utilization_a_few_hundredths_above_the_free_share_is_lowered_first() -> None:
    """30.12 of 31.84 GiB free against 0.95: 0.92 costs a little of the KV cache and no other
    process's memory, the change the pair's thread made (0.93); where the free share is far
    below the request (16.61 of 23.68 GiB against 0.8) freeing the GPU still comes first."""
    near = report(CORPUS / "vllm/vllm.startup.free-memory-below-utilization--Alex8791-cyber-cognithor-318.log")
    first = near["findings"][0]["fixes"][0]
    assert first["id"] == "lower-utilization" and "--gpu-memory-utilization 0.92" in first["change"]
    far = CORPUS / "vllm/vllm.startup.free-memory-below-utilization--QinYang79-ICL-3.log"
    assert fixes(far)[:2] == ["free-the-gpu", "lower-utilization"]


def test_a_pinned_setting_that_stopped_the_fitter_is_freed_first_where_the_projection_did_not_fit() -> None:
    """llama.cpp's fitter projected more than was free and stopped at the user's -ngl: the
    allocation failure that follows leads with letting the fitter choose, and the prediction is
    reported beside it."""
    found = report(CORPUS / "generated/llamacpp-cudamalloc-failed-3.log")
    assert found["root_cause"] == "llamacpp.gpu.alloc-failed"
    assert [fix["id"] for fix in found["findings"][0]["fixes"]][:2] == ["let-llamacpp-fit", "fewer-gpu-layers"]
    assert "llamacpp.fit.projected-over-free" in {finding["id"] for finding in found["findings"]}


def test_the_fitter_stopping_where_the_projection_fits_is_no_finding() -> None:
    """A -ngl on the command line stops the fitter on every start; with the projection under the
    free memory (14068 against 14807 MiB) the load fits and nothing is reported."""
    log = CORPUS / "healthy/healthy-llamacpp--ghghang2-v1.6-llama_server-gptoss-fit.log"
    assert "n_gpu_layers already set by user to 999, abort" in log.read_text(encoding="utf-8")
    assert report(log)["findings"] == []


def test_the_fitter_stopping_over_free_memory_is_a_warning_with_the_shortfall() -> None:
    """Only the fitter's lines: a projection of 24840 MiB against 22341 MiB free, stopped by
    --cpu-moe's tensor placements. The load has not failed yet: a warning, whose first fix frees
    the placements and whose manual fix names the 2499 MiB."""
    found = report(CORPUS / "llamacpp/llamacpp.fit.projected-over-free--ggml-org-llama.cpp-27872.log")
    finding = found["findings"][0]
    assert (finding["id"], finding["severity"], found["phase"]) == (
        "llamacpp.fit.projected-over-free", "warning", "weight-loading")
    changes = {fix["id"]: fix["change"] for fix in finding["fixes"]}
    assert list(changes)[0] == "unpin-placements" and "unpin-layers" not in changes
    assert "2499 MiB" in changes["free-the-difference"]


@pytest.mark.parametrize("log,evidence", [
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-8447.log", "github.com/ollama/ollama/"),  # a Go panic's frames
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-3237.log", "\\ollama\\llm\\llama.cpp"),  # the source it built
    ("ollama/llamacpp.cuda.alloc-failed--ollama-ollama-11713.log", "monster ollama["),  # the journal's service tag
])
def test_ollamas_own_traces_name_ollama_over_the_llamacpp_lines_it_prints(log, evidence) -> None:
    path = CORPUS / log
    assert evidence in path.read_text(encoding="utf-8")
    found = report(path)
    assert found["engine"] == "ollama"
    assert "ollama-gpu-overhead" in [fix["id"] for fix in found["findings"][0]["fixes"]]


def test_llamacpp_compute_buffer_failure_keeps_the_ubatch_fix() -> None:
    log = CORPUS / "generated/llamacpp-compute-buffers-1.log"
    assert report(log)["phase"] == "warmup"
    assert "smaller-ubatch" in fixes(log)


def test_a_tpu_log_gets_no_cuda_graph_advice(tmp_path: Path) -> None:
    # The real TPU traceback, after the command line its PR description quotes above it (that
    # line is what shows the TPU; the corpus log itself keeps the traceback alone).
    real = CORPUS / "vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-tpu-inference-223.log"
    tpu = tmp_path / "tpu.log"
    tpu.write_bytes(b"export TPU_BACKEND_TYPE=jax; python3 tpu_commons/examples/offline_inference.py\n"
                    + real.read_bytes())
    gpu = CORPUS / "vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
    assert report(tpu)["facts"]["device"] == "TPU"
    assert "fewer-cuda-graphs" not in fixes(tpu)
    assert "cudagraph" not in run("scan", tpu).lower()
    assert "fewer-cuda-graphs" in fixes(gpu)
    assert "-cc.cudagraph_mode=NONE" in run("scan", gpu)


def test_cuda_runtime_oom_in_tgi_names_only_tgi_knobs() -> None:
    out = run("scan", CORPUS / "tgi/cuda.runtime.out-of-memory--huggingface-text-generation-inference-2572.log")
    fix_text = out[out.index("Fix, in this order"):]
    assert "TGI_WIGGLE_ROOM" in fix_text and "--cuda-memory-fraction" in fix_text
    assert "--gpu-memory-utilization" not in fix_text and "--mem-fraction-static" not in fix_text


def test_cuda_runtime_oom_of_an_unknown_engine_says_it_does_not_know_the_engine() -> None:
    log = CORPUS / "pytorch/cuda.runtime.out-of-memory--cadene-vqa.pytorch-47.log"
    out = run("scan", log)
    fix_text = out[out.index("Fix, in this order"):]
    assert "could not tell which server wrote this log" in fix_text
    assert "--gpu-memory-utilization" not in fix_text and "--mem-fraction-static" not in fix_text


def test_an_overlay_fix_is_dropped_outside_its_declared_phase(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "catalog.yaml").write_text("catalog_version: 2026.12.0\nschema_version: 1\nchangelog: []\n")
    (tmp_path / "test" / "thing.yaml").write_text("""\
schema_version: 1
id: test.overlay.phased
title: Phased overlay failure
kind: problem
severity: error
status: experimental
engines: [{name: vllm}]
match:
  patterns:
    - regex: 'Phased overlay failure in (?P<where>\\w+)'
      phase: serving
summary: s
cause: c
checks: []
fixes:
  - id: general
    title: General advice
    change: "g"
    tradeoff: t
  - id: loading-only
    title: Only while loading
    applies_to: {phases: [weight-loading]}
    change: "l"
    tradeoff: t
  - id: serving-first
    title: First while serving
    applies_to: {leads_in: [serving]}
    change: "s"
    tradeoff: t
  - id: never-while-serving
    title: Anywhere but serving
    applies_to: {not_phases: [serving]}
    change: "n"
    tradeoff: t
verify: v
references: [{url: "https://example.org"}]
""")
    log = tmp_path / "x.log"
    log.write_text("ERROR Phased overlay failure in decode\n")
    out = json.loads(run("scan", "--catalog", tmp_path, "-f", "json", log))
    finding = out["files"][0]["findings"][0]
    assert finding["phase"] == "serving"
    assert [f["id"] for f in finding["fixes"]] == ["serving-first", "general"]
    page = run("explain", "--catalog", tmp_path, "test.overlay.phased")
    assert "not in phases: serving" in page


# -- the corrected advice -----------------------------------------------------------------


def test_the_async_allocators_wording_with_a_whole_card_limit_is_the_plain_oom_in_tgis_warmup() -> None:
    """cudaMallocAsync says 'would exceed allowed memory' for every out-of-memory: a cap only
    where its PyTorch limit is below the device limit (here both are 22.20 GiB)."""
    got = report(CORPUS / "tgi/pytorch.cuda.oom--huggingface-text-generation-inference-563.log")
    assert (got["root_cause"], got["phase"], got["engine"]) == ("pytorch.cuda.oom", "warmup", "tgi")
    ids = [f["id"] for f in got["findings"][0]["fixes"]]
    assert "smaller-batch-tgi" in ids[:2] and not any("cap" in i for i in ids)
    assert not any(f["id"] == "pytorch.cuda.oom-memory-cap" for f in got["findings"])


def test_the_async_allocators_wording_below_the_card_is_the_cap(tmp_path: Path) -> None:
    log = tmp_path / "capped.log"  # CUDAMallocAsyncAllocator.cpp's lines, with a fraction of 0.5 on a 24 GiB card
    log.write_text("torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
                   "Currently allocated     : 11.55 GiB\nRequested               : 952.00 MiB\n"
                   "Device limit            : 24.00 GiB\nFree (according to CUDA): 11.20 GiB\n"
                   "PyTorch limit (set by user-supplied memory fraction)\n                        : 12.00 GiB\n")
    got = report(log)
    assert got["root_cause"] == "pytorch.cuda.oom-memory-cap"
    first = got["findings"][0]["fixes"][0]
    assert first["id"] == "raise-cap-script" and "set_per_process_memory_fraction(0.53)" in first["change"]


def test_memory_cap_fix_names_the_least_fraction_that_holds_the_failed_step() -> None:
    got = report(CORPUS / "generated/pytorch-oom-2.1-2.log")
    finding = got["findings"][0]
    assert got["root_cause"] == "pytorch.cuda.oom-memory-cap"
    holds = next(c for c in finding["checks"] if c["id"] == "card-holds-step")
    assert holds["status"] == "pass" and "16.43 GiB" in holds["detail"] and "0.71" in holds["detail"]
    first = finding["fixes"][0]
    # 15.43 GiB held plus the 1 GiB request on a 23.64 GiB card: 0.695 of it, plus 1%, rounded up
    assert first["id"] == "raise-cap-script" and "set_per_process_memory_fraction(0.71) or higher" in first["change"]


def test_memory_cap_offers_no_fraction_when_the_step_is_larger_than_the_card(tmp_path: Path) -> None:
    log = tmp_path / "capped.log"  # the PyTorch 2.1+ wording, with a request no fraction can hold
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB. GPU 0 has a total capacity "
                   "of 23.64 GiB of which 20.00 GiB is free. Including non-PyTorch memory, this process has 3.50 GiB memory "
                   "in use. 11.82 GiB allowed; Of the allocated memory 3.00 GiB is allocated by PyTorch, and 0 bytes is "
                   "reserved by PyTorch but unallocated.\n")
    got = report(log)
    finding = got["findings"][0]
    assert got["root_cause"] == "pytorch.cuda.oom-memory-cap"
    holds = next(c for c in finding["checks"] if c["id"] == "card-holds-step")
    assert holds["status"] == "fail" and "no fraction holds this step" in holds["detail"]
    assert [f["id"] for f in finding["fixes"]] == ["smaller-work"]


def test_autofit_failure_is_no_memory_for_the_kv_cache() -> None:
    got = report(CORPUS / "generated/vllm-autofit-fail.log")
    assert (got["root_cause"], got["phase"]) == ("vllm.kv-cache.no-available-memory", "kv-cache-allocation")


def test_no_available_memory_offers_a_fixed_kv_size_and_cpu_offload_for_vllm() -> None:
    log = CORPUS / "vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-13882.log"
    out = run("scan", log)
    assert "--kv-cache-memory-bytes" in out and "--cpu-offload-gb" in out
    assert "--max-total-tokens" not in out
    finding = report(log)["findings"][0]
    hint = next(c for c in finding["checks"] if c["id"] == "engine-hint")
    # 5.2 GiB weights + 1.42 activation peak + 0.03 non-torch + 1 GiB of KV on an 8 GiB card: 0.96
    assert hint["status"] == "fail" and "0.96" in hint["detail"] and "cannot work" in hint["detail"]
    ids = [f["id"] for f in finding["fixes"]]
    assert "raise-utilization" not in ids and ids[0] == "cut-activation-peak"


def test_tgi_cuda_graph_failure_names_the_wiggle_room_and_what_the_fraction_costs() -> None:
    log = CORPUS / "tgi/tgi.cudagraph.warmup-failed--huggingface-text-generation-inference-1695.log"
    changes = {f["id"]: f["change"] for f in report(log)["findings"][0]["fixes"]}
    order = list(changes)
    assert order.index("wiggle-room") < order.index("lower-memory-fraction")
    assert "TGI_WIGGLE_ROOM" in changes["wiggle-room"]
    assert "also sizes the KV cache" in changes["lower-memory-fraction"]


@pytest.mark.parametrize("sample, first", [("vllm-lora-slots-1.log", "raise-max-loras"),
                                           ("vllm-lora-slots-2.log", "raise-max-cpu-loras")])
def test_lora_gpu_slots_and_cpu_adapter_cache_get_their_own_knob(sample, first) -> None:
    ids = fixes(CORPUS / "generated" / sample)
    assert ids[0] == first
    other = ({"raise-max-loras", "raise-max-cpu-loras"} - {first}).pop()
    assert other not in ids


@pytest.mark.parametrize("message", [
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.1.",
    "RuntimeError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.1.",
])
def test_sglang_fraction_ending_in_a_period_is_read_whole(message) -> None:
    result = CliRunner().invoke(main, ["scan", "-f", "json", "-"], input=message + "\n")
    finding = json.loads(result.output)["files"][0]["findings"][0]
    assert finding["id"] == "sglang.startup.not-enough-memory"
    assert finding["facts"]["mem_fraction_static"] == 0.1
    assert "was 0.1" in json.dumps(finding["fixes"])


def test_sglang_retraction_is_back_pressure_a_warning_that_passes_ci() -> None:
    log = CORPUS / "generated/sglang-retract-4.log"
    got = report(log)
    assert (got["root_cause"], got["outcome"]) == ("sglang.runtime.kv-pool-exhausted", "degraded")
    assert got["findings"][0]["severity"] == "warning"
    assert CliRunner().invoke(main, ["scan", str(log)]).exit_code == 0
    assert CliRunner().invoke(main, ["scan", "--fail-on", "warning", str(log)]).exit_code == 1


# Labels and flags that only one serving engine has: a fix printed for another engine's log
# must not carry them.
ENGINE_MARKS = {
    "vllm": re.compile(r"\bvLLM( V0)?:|--gpu-memory-utilization\b|--max-num-seqs\b|--enforce-eager\b|--swap-space\b"
                       r"|--max-model-len\b"),
    "sglang": re.compile(r"\bSGLang:|--mem-fraction-static\b|--max-running-requests\b|--context-length\b"),
    "tgi": re.compile(r"\bTGI:|--max-batch-prefill-tokens\b|--cuda-memory-fraction\b|--num-shard\b|max_new_tokens"
                      r"|--max-total-tokens\b"),
}
# TGI's vLLM backend runs vLLM inside TGI: that fix says which of vLLM's settings TGI passes on.
INNER_ENGINE_FIXES = {("tgi", "tgi-vllm-backend")}


def _printed(finding: dict) -> list[tuple[str, str]]:
    """(id, text) of every fix and check a finding prints, in the words the reader sees."""
    return ([(fix["id"], f"{fix['title']} {fix['change']}") for fix in finding["fixes"]]
            + [(check["id"], f"{check['title']} {check.get('detail') or ''}") for check in finding["checks"]])


def test_no_fix_or_check_over_the_whole_corpus_names_another_engines_knobs() -> None:
    """Over every corpus log whose engine logkb names, no printed fix or check carries a label
    or flag that only another serving engine has."""
    files = json.loads(run("scan", "-f", "json", "--fail-on", "never", CORPUS))["files"]
    engines = {f.get("engine") for f in files}
    assert {"vllm", "tgi", "sglang", "llamacpp", "ollama", "pytorch"} <= engines
    wrong = [(f["path"], finding["id"], item, other)
             for f in files for finding in f["findings"] for item, text in _printed(finding)
             for other, marks in ENGINE_MARKS.items()
             if f.get("engine") and other != f["engine"] and (f["engine"], item) not in INNER_ENGINE_FIXES
             and marks.search(text)]
    assert wrong == []  # (a log whose engine logkb cannot tell gets fixes that say so: see the test above)


def test_pytorchs_oom_gives_each_engine_its_own_batch_knobs() -> None:
    """The same out-of-memory wording from three engines: each log gets its engine's knobs."""
    by_engine = {
        "vllm": CORPUS / "vllm" / "pytorch.cuda.oom--vllm-project-vllm-3407.log",
        "sglang": CORPUS / "sglang" / "torch.cuda.oom--gpustack-gpustack-4761.log",
        "tgi": CORPUS / "tgi" / "pytorch.cuda.oom--huggingface-text-generation-inference-801.log",
    }
    wanted = {"vllm": "--max-num-seqs", "sglang": "--max-running-requests", "tgi": "--max-batch-prefill-tokens"}
    for engine, log in by_engine.items():
        got = report(log)
        assert (got["engine"], got["root_cause"]) == (engine, "pytorch.cuda.oom"), log
        changes = " ".join(fix["change"] for fix in got["findings"][0]["fixes"])
        assert wanted[engine] in changes and not any(
            flag in changes for other, flag in wanted.items() if other != engine), (engine, changes)


@pytest.mark.parametrize("name", [
    "torch.cuda.oom-weight-loading--vllm-project-aibrix-1054.log",  # the OOM line pasted under its command
    "pytorch.cuda.oom--vllm-project-perf-eval-6.log",  # behind a CI runner's "[vllm] " label
])
def test_an_oom_line_with_vllms_logging_header_gets_vllms_batch_knobs(name: str) -> None:
    """PyTorch's message under vLLM's own header ("ERROR 05-06 18:20:49 [engine.py:448]") is a
    vLLM log even where nothing else names the engine: the batch fix names vLLM's flags."""
    got = report(CORPUS / "vllm" / name)
    assert (got["engine"], got["root_cause"]) == ("vllm", "pytorch.cuda.oom")
    first = got["findings"][0]["fixes"][0]
    assert first["id"] == "smaller-batch-vllm" and "--max-num-batched-tokens" in first["change"]


def test_a_generic_fix_beside_engine_variants_reaches_every_other_engine() -> None:
    """pytorch.cuda.oom's generic batch fix is declared for all engines but those with their
    own variant: a plain PyTorch log keeps it, and explain says which engines it skips."""
    assert "not for engines: vllm, tgi, sglang" in run("explain", "pytorch.cuda.oom")
    got = report(CORPUS / "pytorch" / "pytorch.cuda.oom--black-forest-labs-flux-459.log")
    assert (got["engine"], got["root_cause"]) == ("pytorch", "pytorch.cuda.oom")
    assert "smaller-batch" in [fix["id"] for fix in got["findings"][0]["fixes"]]


def test_an_ascend_out_of_memory_points_at_npu_smi_not_nvidia_smi() -> None:
    """torch_npu's message names the NPU: the fix that frees other processes names Ascend's
    device tool; a CUDA log's keeps nvidia-smi."""
    npu = report(CORPUS / "vllm" / "pytorch.cuda.oom--vllm-project-vllm-ascend-1617.log")
    cuda = report(CORPUS / "pytorch" / "pytorch.cuda.oom--huggingface-trl-5750.log")  # two processes listed
    for got, tool, other in ((npu, "npu-smi", "nvidia-smi"), (cuda, "nvidia-smi", "npu-smi")):
        fix = next(f for f in got["findings"][0]["fixes"] if f["id"] == "free-other-processes")
        assert tool in fix["change"] and other not in fix["change"], fix["change"]


def test_torch_npus_legacy_layout_gives_its_numbers_and_the_npus_own_knobs() -> None:
    """torch_npu prints PyTorch 1.x's layout with '(NPU 0; ...' and 'N current active;': its
    numbers decide fragmentation, and the fixes name PYTORCH_NPU_ALLOC_CONF and npu-smi, never
    CUDA's variable or nvidia-smi."""
    found = report(CORPUS / "vllm" / "pytorch.cuda.oom--vllm-project-vllm-ascend-5020.log")
    root = next(f for f in found["findings"] if f["id"] == found["root_cause"])
    assert root["id"] == "pytorch.cuda.oom-fragmentation" and root["tier"] == "exact"
    assert root["facts"]["alloc_gib"] == 2.0 and root["facts"]["torch_reserved_gib"] == 58.73
    changes = " ".join(fix["change"] for fix in root["fixes"])
    assert "PYTORCH_NPU_ALLOC_CONF=" in changes and "PYTORCH_CUDA_ALLOC_CONF" not in changes
    assert root["fixes"][0]["id"] == "expandable-segments"  # torch_npu's allocator grows segments too
    assert "torch.npu.memory_summary()" in root["fixes"][0]["verify"]
    # The layout dates PyTorch, not torch_npu: no check says expandable segments are missing,
    # and max_split_size_mb, which torch_npu's allocator takes too, stays second.
    assert "allocator-generation" not in {c["id"] for c in root["checks"]}
    assert [fix["id"] for fix in root["fixes"]][1] == "max-split-size"
    plain = report(CORPUS / "vllm" / "pytorch.cuda.oom--vllm-project-vllm-ascend-6611.log")
    others = next(f for f in plain["findings"][0]["fixes"] if f["id"] == "free-other-processes")
    assert "npu-smi" in others["change"] and "NPU " in others["change"] and "nvidia-smi" not in others["change"]


def test_a_family_chosen_by_phase_keeps_the_numbers_of_the_message_it_explains() -> None:
    """TGI's shard dies while loading (ShardCannotStart after the OOM): the weight-loading family
    is chosen by phase, and the OOM's own numbers (15.40 of 15.77 GiB reserved by this process,
    the whole card allowed) drop the fixes about other processes and a per-process cap."""
    found = report(CORPUS / "tgi" / "torch.cuda.oom--huggingface-text-generation-inference-866.log")
    assert (found["root_cause"], found["phase"]) == ("pytorch.cuda.oom-weight-loading", "weight-loading")
    root = next(f for f in found["findings"] if f["id"] == found["root_cause"])
    ids = [fix["id"] for fix in root["fixes"]]
    assert "free-other-processes" not in ids and "raise-per-process-cap" not in ids
    assert ids[0] == "split-over-gpus-tgi" and "--num-shard" in root["fixes"][0]["change"]


def test_ggmls_error_report_names_the_engine_of_a_log_that_names_none() -> None:
    """Ollama relays ggml's 'CUDA error: out of memory ... ggml-cuda.cu' as one string, with no
    banner: the report's form is llama.cpp's, so is the family and its advice."""
    found = report(CORPUS / "ollama" / "llamacpp.cuda.alloc-failed--ollama-ollama-3460.log")
    assert found["root_cause"] == "llamacpp.gpu.alloc-failed"


def test_validate_refuses_a_fix_whose_when_names_a_missing_check(tmp_path: Path) -> None:
    result = validate_edited(tmp_path, "pytorch/cuda-oom.yaml", "when: checks.other-processes.failed",
                             "when: checks.other-process.failed", "pytorch.cuda.oom")
    assert result.exit_code == 2
    edited = tmp_path / "pytorch" / "cuda-oom.yaml"
    line = next(i for i, text in enumerate(edited.read_text().splitlines(), 1) if "checks.other-process." in text)
    assert f"cuda-oom.yaml:{line}: fixes[0].when: no check 'other-process' in this signature" in result.output


def test_validate_refuses_a_fix_that_leads_when_a_missing_check_fails(tmp_path: Path) -> None:
    result = validate_edited(tmp_path, "trtllm/insufficient-memory.yaml",
                             "    leads_when: \"trtllm_source == 'tllmBuffers.h'\"",
                             "    leads_when: checks.which-buffers.failed", "trtllm.executor.insufficient-memory")
    assert result.exit_code == 2
    edited = tmp_path / "trtllm" / "insufficient-memory.yaml"
    line = next(i for i, text in enumerate(edited.read_text().splitlines(), 1) if "checks.which-buffers." in text)
    assert f"insufficient-memory.yaml:{line}: fixes[3].leads_when: no check 'which-buffers' in this signature" in result.output


def test_a_fix_that_names_a_check_follows_its_verdict() -> None:
    """'when: checks.other-processes.failed': shown first when other processes hold memory,
    dropped when this process holds it all (both from real logs' numbers)."""
    for log, status, shown in (("tgi/torch.cuda.oom--huggingface-text-generation-inference-653.log", "fail", True),
                               ("tgi/torch.cuda.oom--huggingface-text-generation-inference-866.log", "pass", False)):
        found = report(CORPUS / log)
        root = next(f for f in found["findings"] if f["id"] == found["root_cause"])
        assert next(c for c in root["checks"] if c["id"] == "other-processes")["status"] == status
        ids = [fix["id"] for fix in root["fixes"]]
        assert ("free-other-processes" in ids[:1]) is shown, ids


OMNI = CORPUS / "vllm" / "vllm.startup.free-memory-below-utilization--vllm-project-vllm-omni-1842.log"


def test_a_pipeline_stage_is_not_told_to_stop_its_sibling_stage() -> None:
    """vLLM-Omni: Stage-0 found the GPU partly used while Stage-1 loaded its model. The
    advice shares the device between the stages; stopping 'the other process' would stop the
    pipeline itself."""
    assert fixes(OMNI)[0] == "share-the-gpu-between-stages"
    assert "free-the-gpu" not in fixes(OMNI) and "lower-utilization" not in fixes(OMNI)
    text = run("scan", "--no-color", OMNI)
    assert "This log shows 2 vLLM-Omni pipeline stages" in text and "Do not stop the sibling stage" in text
    assert "Stop the process" not in text


def test_a_single_engine_is_still_told_to_free_the_gpu_first() -> None:
    log = CORPUS / "vllm" / "vllm.startup.free-memory-below-utilization--vllm-project-vllm-omni-276.log"
    assert "[Stage-" not in log.read_text(encoding="utf-8")
    assert fixes(log)[0] == "free-the-gpu"


def test_a_stage_is_not_credited_with_a_sibling_stages_weights() -> None:
    from matcher import pipeline
    from matcher.report import derived_facts, stage_facts

    with OMNI.open("rb") as stream:
        run_ = pipeline.scanner().run(stream, str(OMNI))
    assert run_.stages == {"[Stage-0]", "[Stage-1]"} and round(run_.facts["weights_gib"], 2) == 26.47  # Stage-1's
    finding = next(f for f in run_.findings if f.id == "vllm.startup.free-memory-below-utilization")
    assert finding.first.origin == "[Stage-0]"
    facts, foreign = stage_facts(run_, derived_facts(run_), finding)
    assert "weights_gib" not in finding.all_facts(facts, foreign)
    assert facts["pipeline_stages"] == 2


def test_ctranslate2s_own_out_of_memory_gets_its_own_knobs_first() -> None:
    """CTranslate2's 'CUDA failed with error out of memory' (faster-whisper here, while the model
    is built) leads with CTranslate2's allocator and compute type; PyTorch's bare CUDA error
    does not get them."""
    for log in ("pytorch/pytorch.cuda.oom-weight-loading--chidiwilliams-buzz-439.log",
                "pytorch/cuda.runtime.out-of-memory--OpenNMT-CTranslate2-690.log"):
        assert fixes(CORPUS / log)[:2] == ["ct2-caching-allocator", "ct2-int8"], log
    text = run("scan", CORPUS / "pytorch/cuda.runtime.out-of-memory--OpenNMT-CTranslate2-690.log")
    assert "CT2_CUDA_ALLOCATOR=cub_caching" in text and "compute_type='int8_float16'" in text
    plain = fixes(CORPUS / "pytorch/cuda.runtime.out-of-memory--GRAPH-0-GraphGDP-1.log")
    assert not {"ct2-caching-allocator", "ct2-int8"} & set(plain)


def test_turbomind_out_of_memory_gets_lmdeploys_knobs_by_phase() -> None:
    """LMDeploy's TurboMind reporting its own allocation failure gets LMDeploy's settings first:
    the KV cache's share and the weights per GPU while serving or sizing the cache, only the
    weights while they load; a TurboMind error that is not a lack of memory gets neither."""
    serving = fixes(CORPUS / "pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-2236.log")
    assert serving[:2] == ["turbomind-kv-share", "turbomind-smaller-weights"]
    loading = fixes(CORPUS / "pytorch/torch.cuda.oom-weight-loading--InternLM-lmdeploy-1593.log")
    assert loading[0] == "turbomind-smaller-weights" and "turbomind-kv-share" not in loading
    text = run("scan", CORPUS / "pytorch/cuda.runtime.out-of-memory--InternLM-lmdeploy-2236.log")
    assert "--cache-max-entry-count" in text and "--model-format awq" in text
    fault = report(CORPUS / "pytorch/cuda.kernel.fault--InternLM-lmdeploy-1813.log")
    assert not {"turbomind-kv-share", "turbomind-smaller-weights"} & {
        fix["id"] for finding in fault["findings"] for fix in finding["fixes"]}


def _check(log: Path, check_id: str) -> dict:
    finding = report(log)["findings"][0]
    return next(c for c in finding["checks"] if c["id"] == check_id)


def test_the_only_process_pytorch_lists_is_this_one():
    """In a container PyTorch cannot match its own PID, so a job alone on its GPU is listed as
    'Process N has ... memory in use.': with that one line and no 'this process', the memory
    is this job's, other processes hold none, and freeing them is not offered."""
    log = CORPUS / "pytorch/pytorch.cuda.oom--black-forest-labs-flux-459.log"
    text = log.read_text(encoding="utf-8")
    assert "this process has" not in text and len(re.findall(r"Process \d+ has", text)) == 1
    assert _check(log, "other-processes")["status"] == "pass"
    assert "free-other-processes" not in fixes(log)


def test_two_listed_processes_leave_this_ones_share_unknown():
    """Two 'Process N has' lines and no 'this process': either may be this job, so the check
    stays open and freeing memory stays a conditional fix."""
    log = CORPUS / "pytorch/pytorch.cuda.oom--huggingface-trl-5750.log"
    assert len(re.findall(r"Process \d+ has", log.read_text(encoding="utf-8"))) >= 2
    assert _check(log, "other-processes")["status"] == "unknown"


def test_a_llamacpp_failure_while_serving_leads_with_the_micro_batch():
    """Weights and KV cache were placed at load; what grows while serving is the compute
    buffers and ggml's pool, which follow the micro-batch (koboldcpp's --blasbatchsize)."""
    log = CORPUS / "llamacpp/llamacpp.cuda.alloc-failed--LostRuins-koboldcpp-1711.log"
    found = report(log)
    assert (found["root_cause"], found["phase"]) == ("llamacpp.gpu.alloc-failed", "serving")
    first = found["findings"][0]["fixes"][0]
    assert first["id"] == "smaller-ubatch" and "--blasbatchsize" in first["change"]
    loading = CORPUS / "llamacpp/llamacpp.gpu.alloc-failed--geerlingguy-beowulf-ai-cluster-7.log"
    assert fixes(loading)[0] == "fewer-gpu-layers"


def test_a_llamacpp_failure_past_the_weights_with_a_long_context_leads_with_the_context():
    """The KV cache and the compute buffer's attention part grow with the context: a context
    the log shows to be long comes first (halved, from its own number); where the log does not
    show the context, fewer layers (which always frees memory) stay first; a Vulkan per-buffer
    limit, the precise cause, stays before both."""
    long_context = CORPUS / "ollama/llamacpp.cuda.alloc-failed--ollama-ollama-4225.log"
    found = report(long_context)
    assert (found["root_cause"], found["phase"]) == ("llamacpp.gpu.alloc-failed", "warmup")
    first = found["findings"][0]["fixes"][0]
    assert first["id"] == "smaller-context" and "num_ctx 32768" in first["change"] and "was 65536" in first["change"]
    unknown_context = CORPUS / "ollama/llamacpp.gpu.alloc-failed--ollama-ollama-11355.log"
    assert "n_ctx" not in report(unknown_context)["facts"]
    assert fixes(unknown_context)[0] == "fewer-gpu-layers"
    vulkan = CORPUS / "llamacpp/llamacpp.cuda.alloc-failed--LostRuins-koboldcpp-1054.log"
    assert fixes(vulkan)[:2] == ["vulkan-buffer-limit", "smaller-context"]


def test_every_pair_names_a_corpus_log_with_the_same_root_cause():
    """corpus/pairs: each failing log (and fixed log) exists, and the pair expects the root
    cause its corpus sidecar expects."""
    import yaml

    pairs = sorted((CORPUS / "pairs").glob("*.yaml"))
    assert len(pairs) >= 25
    for path in pairs:
        pair = yaml.safe_load(path.read_text(encoding="utf-8"))
        failing = ROOT / pair["failing_log"]
        sidecar = yaml.safe_load(failing.with_suffix(".yaml").read_text(encoding="utf-8"))
        assert pair["expect_root_cause"] == sidecar["expect"]["root_cause"], path.name
        assert pair["worked"]["knob"], path.name
        if pair.get("fixed_log"):
            assert (ROOT / pair["fixed_log"]).exists(), path.name


def test_vllms_process_tag_names_the_engine_of_a_log_that_shows_nothing_else_of_it():
    """'(EngineCore pid=4108)' is a tag only vLLM gives its processes: the out-of-memory under
    it gets vLLM's knobs (--max-num-seqs, --gpu-memory-utilization), not a plain script's."""
    log = CORPUS / "vllm/pytorch.cuda.oom--LMCache-LMCache-3430.log"
    text = log.read_text(encoding="utf-8")
    assert text.startswith("(EngineCore pid=") and "vllm/" not in text
    found = report(log)
    assert found["engine"] == "vllm"
    first = found["findings"][0]["fixes"][0]
    assert first["id"] == "smaller-batch-vllm" and "--max-num-seqs" in first["change"]


def test_an_out_of_memory_with_the_card_half_free_points_at_a_limit_not_at_other_processes():
    """PyTorch releases its cache and retries before it raises: 2.35 GiB free for a 20 MiB
    request means something other than the card's memory refused it (the taggui thread's
    expandable segments made it run), so that comes first; a full card keeps the check passing
    and offers no such fix."""
    log = CORPUS / "pytorch/pytorch.cuda.oom--jhc13-taggui-188.log"
    assert _check(log, "free-exceeds-request")["status"] == "fail"
    first = report(log)["findings"][0]["fixes"][0]
    assert first["id"] == "find-the-limit" and "2.35 GiB free" in first["change"]
    assert "expandable_segments:True" in first["change"]
    full = CORPUS / "pytorch/pytorch.cuda.oom--black-forest-labs-flux-459.log"
    assert _check(full, "free-exceeds-request")["status"] == "pass"
    assert "find-the-limit" not in fixes(full)
    # PyTorch before 2.1 (its older message layout) has no expandable segments to offer
    legacy = CORPUS / "pytorch/torch.cuda.oom--lm-sys-FastChat-2429.log"
    assert "already allocated" in legacy.read_text(encoding="utf-8")
    first = report(legacy)["findings"][0]["fixes"][0]
    assert first["id"] == "find-the-limit" and "expandable" not in first["change"]


@pytest.mark.parametrize(("log", "tools"), [
    ("vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-ascend-3843.log", ("nvidia-smi", "rocm-smi", "npu-smi")),
    ("tgi/tgi.prefill.not-enough-memory--huggingface-text-generation-inference-1067.log", ("nvidia-smi", "rocm-smi", "hl-smi")),
])
def test_memory_checks_do_not_assume_an_nvidia_card(log: str, tools: tuple[str, ...]) -> None:
    """vLLM and SGLang run on ROCm and Ascend, TGI on ROCm and Gaudi: every command that lists a
    device's memory or its processes falls back to that platform's tool."""
    findings = report(CORPUS / log)["findings"]
    commands = [check["command"] for f in findings for check in f["checks"] if "smi" in (check.get("command") or "")]
    assert commands and all(all(tool in command for tool in tools) for command in commands)


@pytest.mark.parametrize(("log", "lead", "others"), [
    ("pytorch/pytorch.cuda.oom--zjunlp-EasyEdit-563.log", "shrink-oversized-operation", "355.43 GiB"),
    ("pytorch/pytorch.cuda.oom--casper-hansen-AutoAWQ-423.log", "shrink-oversized-operation", "156"),
    ("vllm/torch.cuda.oom--gpustack-gpustack-4963.log", "shrink-oversized-operation-vllm", "192"),
])
def test_one_request_larger_than_the_card_leads_with_the_operation(log: str, lead: str, others: str) -> None:
    """A single allocation above the card's whole memory (the attention matrix of a long input,
    a calibration set moved at once) is not met by freeing memory: the check says so, and the
    fix that cuts that operation comes first, in the engine's own words."""
    path = CORPUS / log
    assert _check(path, "request-exceeds-card")["status"] == "fail"
    assert "the card was full" not in json.dumps(report(path))
    first = report(path)["findings"][0]["fixes"][0]
    assert first["id"] == lead and others in first["change"]
    assert ("--limit-mm-per-prompt" in first["change"]) == lead.endswith("-vllm")


def test_a_request_the_card_could_hold_offers_no_oversized_operation_fix() -> None:
    full = CORPUS / "pytorch/pytorch.cuda.oom--black-forest-labs-flux-459.log"
    assert _check(full, "request-exceeds-card")["status"] == "pass"
    assert not {"shrink-oversized-operation", "shrink-oversized-operation-vllm"} & set(fixes(full))


@pytest.mark.parametrize(("log", "first", "absent"), [
    ("vllm/pytorch.cuda.oom--vllm-project-vllm-42147.log", "engine-headroom", "smaller-batch-vllm"),
    ("vllm/torch.cuda.oom--QwenLM-Qwen3-458.log", "engine-headroom", "smaller-batch-vllm"),
    ("sglang/pytorch.cuda.oom--sgl-project-sglang-12496.log", "engine-headroom-sglang", None),
])
def test_an_out_of_memory_while_the_kv_cache_is_allocated_lowers_the_engines_budget(log: str, first: str,
                                                                                   absent: str | None) -> None:
    """vLLM and SGLang size the KV cache from their memory budget, not from the work they
    schedule: when allocating it runs out, the budget leads, and vLLM's batch limits (which would
    only raise the budget) are not offered."""
    found = report(CORPUS / log)
    assert found["phase"] == "kv-cache-allocation"
    ids = [fix["id"] for fix in found["findings"][0]["fixes"]]
    assert ids[0] == first and absent not in ids


def test_an_out_of_memory_while_serving_still_starts_with_the_work_in_flight() -> None:
    found = report(CORPUS / "vllm/pytorch.cuda.oom--vllm-project-vllm-38257.log")
    assert found["phase"] == "serving"
    assert [fix["id"] for fix in found["findings"][0]["fixes"]][:2] == ["smaller-batch-vllm", "engine-headroom"]


def test_validate_refuses_a_check_and_expression_whose_check_is_missing_or_whose_fact_is_undeclared(
        tmp_path: Path) -> None:
    sig, old = "llamacpp/gpu-alloc-failed.yaml", 'when: "checks.buffer-vs-free.failed and not has(ggml_program)"'
    missing = validate_edited(tmp_path / "a", sig, old, 'when: "checks.buffer-vs-fre.failed and not has(ggml_program)"',
                              "llamacpp.gpu.alloc-failed")
    assert missing.exit_code == 2 and "no check 'buffer-vs-fre' in this signature" in missing.output
    undeclared = validate_edited(tmp_path / "b", sig, old, 'when: "checks.buffer-vs-free.failed and not has(ggml_progrm)"',
                                 "llamacpp.gpu.alloc-failed")
    assert undeclared.exit_code == 2 and "ggml_progrm" in undeclared.output


@pytest.mark.parametrize("log", [
    "llamacpp/llamacpp.gpu.alloc-failed--leejet-stable-diffusion.cpp-558.log",  # weights, Vulkan
    "llamacpp/llamacpp.gpu.alloc-failed--leejet-stable-diffusion.cpp-791.log",  # a Vulkan buffer over the limit
])
def test_stable_diffusion_cpp_gets_its_own_knobs_not_llamacpps(log) -> None:
    """stable-diffusion.cpp runs on ggml but has no layer count, context or KV cache: its
    failure leads with its own offload flags, and no fix names -ngl, -c, --fit or the KV cache,
    including the fixes that also need a check of the signature to fail."""
    found = report(CORPUS / log)
    assert found["root_cause"] == "llamacpp.gpu.alloc-failed"
    fixes = found["findings"][0]["fixes"]
    assert fixes[0]["id"] == "sdcpp-weights-off-the-gpu" and "--offload-to-cpu" in fixes[0]["change"]
    assert not {"fewer-gpu-layers", "let-llamacpp-fit", "smaller-context", "quantize-kv-cache", "smaller-ubatch",
                "moe-experts-to-cpu", "single-pipeline-copy", "vulkan-buffer-limit"} & {f["id"] for f in fixes}


def test_a_request_over_the_context_gets_only_its_own_engines_settings():
    """llama-server's refusal names -c and --context-shift, and neither vLLM's V0 batch check
    nor another engine's flag; Ollama's embedding refusal is not told to ask for fewer output
    tokens (an embedding has none); a vLLM log keeps its V0 check."""
    llamacpp = report(CORPUS / "llamacpp/request.context-length-exceeded--harrier77-nim_llamaserver_chatbot-llama_server.log")
    (finding,) = [f for f in llamacpp["findings"] if f["id"] == "request.context-length-exceeded"]
    assert "v0-batched-limit" not in [c["id"] for c in finding["checks"]]
    changes = {fix["id"]: fix["change"] for fix in finding["fixes"]}
    assert "v0-raise-batched-tokens" not in changes
    assert "--context-shift" in changes["shorten-input"] and "-c (shared by the -np slots)" in changes["raise-server-limit"]
    assert not re.search(r"vLLM|SGLang|TGI|--max-model-len|--context-length", " ".join(changes.values()))
    ollama = CORPUS / "ollama/request.context-length-exceeded--CryZenXs-Projeto_Angela_6.0-ollama-server-log.log"
    assert fixes(ollama)[0] == "shorten-input" and "cap-output-llamacpp" not in fixes(ollama)
    assert "num_ctx" in report(ollama)["findings"][0]["fixes"][1]["change"]
    vllm = report(CORPUS / "vllm/request.context-length-exceeded--kolyangg-mlops-assignment-logs-vllm-log.log")
    assert "v0-batched-limit" in [c["id"] for c in vllm["findings"][0]["checks"]]


def test_vllms_utilization_check_is_left_out_of_a_plain_pytorch_weight_loading_report():
    """The check of --gpu-memory-utilization belongs to vLLM's logs: a plain PyTorch program
    that ran out of memory loading weights has no such setting, so the check is not printed."""
    plain = report(CORPUS / "pytorch/pytorch.cuda.oom-weight-loading--ntdinh05-wav2vec2_cpp-notes-april7_trainlog.log")
    assert plain["engine"] != "vllm"
    assert "engine-budget-direction" not in [c["id"] for f in plain["findings"] for c in f["checks"]]
    vllm = report(CORPUS / "vllm/pytorch.cuda.oom-weight-loading--baodangtrandev-RAG--vllm_output-log.log")
    assert "engine-budget-direction" in [c["id"] for c in vllm["findings"][0]["checks"]]


def test_mlx_metal_errors_get_neither_llamacpp_knobs_nor_a_silent_report() -> None:
    """MLX's Metal out-of-memory is diagnosed with mlx-lm's own flags where MLX's wording shows,
    and an array larger than Metal's largest buffer leads with a smaller input."""
    lora = report(CORPUS / "pytorch/metal.gpu.out-of-memory--ml-explore-mlx-lm-236.log")
    assert lora["root_cause"] == "metal.gpu.out-of-memory"
    changes = " ".join(fix["change"] for fix in lora["findings"][0]["fixes"])
    assert lora["findings"][0]["fixes"][0]["id"] == "bound-mlx-lm-memory"
    assert "--grad-checkpoint" in changes and "-ngl" not in changes and "num_ctx" not in changes
    vision = report(CORPUS / "pytorch/metal.gpu.out-of-memory--Blaizzy-mlx-vlm-79.log")
    first = vision["findings"][0]["fixes"][0]
    assert first["id"] == "shrink-oversized-input"
    assert "20.25 GiB" in first["change"]  # Metal's buffer limit from the log (21743271936 bytes)
    # one buffer's limit is the device's: more wired memory or fewer other apps do not raise it
    assert {"raise-wired-limit", "close-other-apps"}.isdisjoint(fix["id"] for fix in vision["findings"][0]["fixes"])
    served = report(CORPUS / "vllm/metal.gpu.out-of-memory--vllm-project-vllm-metal-274.log")
    assert "bound-mlx-lm-memory" not in [fix["id"] for fix in served["findings"][0]["fixes"]]


def test_mlx_lms_flags_lead_only_where_the_log_shows_mlx_lm() -> None:
    """The same Metal error from an image generator (mflux, fixed in its thread by a smaller
    image) leads with asking less of the GPU, which names the image size; mlx-lm's flags stay in
    the list, after it."""
    image = report(CORPUS / "pytorch/metal.gpu.out-of-memory--mflux-community-mflux-212.log")
    found = [fix["id"] for fix in image["findings"][0]["fixes"]]
    assert found[:2] == ["shorter-context-or-batch", "bound-mlx-lm-memory"]
    assert "image size" in image["findings"][0]["fixes"][0]["change"]


def test_a_fine_tuning_out_of_memory_names_trls_sequence_length_setting() -> None:
    """The generic smaller-batch fix names the setting a QLoRA thread lowered to fix its
    out-of-memory: max_seq_length in TRL's SFTConfig, max_length from TRL 0.16."""
    found = report(CORPUS / "pytorch/pytorch.cuda.oom--yangjianxin1-Firefly-33.log")
    first = found["findings"][0]["fixes"][0]
    assert first["id"] == "smaller-batch"
    assert "max_seq_length" in first["change"] and "max_length" in first["change"]



def test_a_converter_killed_for_host_memory_gets_the_converters_own_fix_first():
    """llama.cpp's converter to GGUF killed by the OOM killer (corpus log llama.cpp-5156): its
    --use-temp-file leads, and advice about loading a model into a server (transformers'
    low_cpu_mem_usage, a more quantized model) is left out."""
    found = report(CORPUS / "host" / "host.oom-killed--ggml-org-llama.cpp-5156.log")
    root = found["findings"][0]
    assert root["id"] == "host.oom-killed" and found["phase"] == "weight-loading"
    fixes = [f["id"] for f in root["fixes"]]
    assert fixes[0] == "convert-with-less-ram" and "--use-temp-file" in root["fixes"][0]["change"]
    assert "lower-loading-ram" not in fixes and "smaller-model" not in fixes


@pytest.mark.parametrize("log", [
    "pytorch/pytorch.cuda.oom--Comfy-Org-ComfyUI-10277.log",  # only ComfyUI's own tip under the message
    "pytorch/pytorch.cuda.oom--kijai-ComfyUI-GIMM-VFI-15.log",  # a custom node's traceback under ComfyUI's folder
])
def test_a_comfyui_out_of_memory_gets_comfyuis_knobs_not_a_scripts_batch_size(log) -> None:
    """ComfyUI's memory settings are its launch flags and the workflow's sizes: a training
    script's batch size, TRL's sequence length and tensor parallelism are not knobs it has."""
    found = report(CORPUS / log)
    assert found["root_cause"] == "pytorch.cuda.oom"
    root = found["findings"][0]
    ids = [fix["id"] for fix in root["fixes"]]
    assert "smaller-workflow-comfyui" in ids and "smaller-model-comfyui" in ids
    assert "smaller-batch" not in ids and "smaller-model" not in ids
    workflow = next(fix for fix in root["fixes"] if fix["id"] == "smaller-workflow-comfyui")
    assert "--lowvram" in workflow["change"] and "VAE Decode (Tiled)" in workflow["change"]


def test_a_comfyui_loader_node_out_of_memory_is_weight_loading_with_comfyuis_offload() -> None:
    """The node type of ComfyUI's error report (UNETLoader) places the error while a model
    loads; the fixes are ComfyUI's offload flags and lower-precision files, not Hugging Face's
    device_map or from_pretrained arguments."""
    found = report(CORPUS / "pytorch/pytorch.cuda.oom-weight-loading--Comfy-Org-ComfyUI-6176.log")
    assert (found["root_cause"], found["phase"]) == ("pytorch.cuda.oom-weight-loading", "weight-loading")
    ids = [fix["id"] for fix in found["findings"][0]["fixes"]]
    assert {"offload-comfyui", "fewer-bytes-per-weight-comfyui"} <= set(ids)
    assert not {"split-over-gpus-hf", "fewer-bytes-per-weight-hf", "offload-to-cpu-hf"} & set(ids)


def test_a_comfyui_cuda_runtime_out_of_memory_leads_with_the_workflow_not_the_script() -> None:
    found = report(CORPUS / "pytorch/cuda.runtime.out-of-memory--Comfy-Org-ComfyUI-10566.log")
    ids = [fix["id"] for fix in found["findings"][0]["fixes"]]
    assert ids[0] == "smaller-workflow-comfyui" and "smaller-batch-script" not in ids


def test_an_out_of_memory_while_onnx_runtime_builds_a_session_gets_onnx_runtimes_fix() -> None:
    """cuBLAS could not allocate while ONNX Runtime built a session (VOICEVOX): the phase is
    weight loading, but PyTorch's and Hugging Face's loading knobs do not reach ONNX Runtime."""
    found = report(CORPUS / "pytorch/cuda.runtime.out-of-memory--VOICEVOX-voicevox_engine-513.log")
    assert (found["root_cause"], found["phase"]) == ("cuda.runtime.out-of-memory", "weight-loading")
    ids = [fix["id"] for fix in found["findings"][0]["fixes"]]
    assert ids[0] == "ort-session-memory" and "unknown-engine" not in ids
    assert "gpu_mem_limit" in found["findings"][0]["fixes"][0]["change"]


def test_a_runtime_that_cannot_start_for_want_of_memory_is_told_to_free_the_gpu_not_to_shrink_a_budget() -> None:
    """cudaGetDeviceCount failing with error 2 (WSL2): no server has taken a share yet, so the
    advice to lower one's budget does not apply; freeing or isolating the card comes first."""
    found = report(CORPUS / "pytorch/cuda.runtime.out-of-memory--pytorch-pytorch-150048.log")
    assert (found["root_cause"], found["phase"]) == ("cuda.runtime.out-of-memory", "device-check")
    ids = [fix["id"] for fix in found["findings"][0]["fixes"]]
    assert ids[0] == "free-gpu" and "unknown-engine" not in ids


def test_physxs_gpu_allocator_failing_leads_with_fewer_simulated_environments() -> None:
    found = report(CORPUS / "pytorch/cuda.runtime.out-of-memory--isaac-sim-IsaacGymEnvs-256.log")
    assert found["root_cause"] == "cuda.runtime.out-of-memory"
    fixes = found["findings"][0]["fixes"]
    assert fixes[0]["id"] == "physx-fewer-envs" and "num_envs" in fixes[0]["change"]
    assert "unknown-engine" not in [fix["id"] for fix in fixes]


def test_windows_commit_limit_leads_with_the_paging_file_and_drops_linux_commands() -> None:
    """'The paging file is too small' is Windows' commit limit: the paging file, not a
    container's limit, is the first fix, and the checks with Linux commands are left out."""
    found = report(CORPUS / "host/host.memory.alloc-failed--thu-ml-tianshou-527.log")["findings"][0]
    assert found["id"] == "host.memory.alloc-failed"
    assert found["fixes"][0]["id"] == "windows-paging-file"
    checks = [check["id"] for check in found["checks"]]
    assert "windows-commit-limit" in checks and "host-memory" not in checks


def test_a_vulkan_out_of_memory_outside_ggml_gets_its_own_advice_not_cudas() -> None:
    found = report(CORPUS / "pytorch/vulkan.gpu.out-of-memory--mlc-ai-mlc-llm-38.log")["findings"][0]
    assert found["id"] == "vulkan.gpu.out-of-memory"
    text = json.dumps(found["fixes"])
    assert "context_window_size" in text and "CUDA_VISIBLE_DEVICES" not in text


def _stdin_report(tmp_path: Path, text: str) -> dict:
    log = tmp_path / "run.log"
    log.write_text(text)
    return report(log)


TPU_RESERVE = ("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': Attempting to "
               "reserve 51.43G at the bottom of memory. That was not possible. There are 46.61G free, 0B reserved, "
               "and 46.61G reservable.\n")


def test_a_tpu_out_of_memory_gets_a_chips_advice_not_a_gpus(tmp_path: Path) -> None:
    """The TPU runtime refusing HBM for a program: the device is a TPU chip, so nvidia-smi,
    CUDA_LAUNCH_BLOCKING and a GPU to free are no advice; the program must need less per chip."""
    found = _stdin_report(tmp_path, TPU_RESERVE)
    assert found["root_cause"] == "cuda.runtime.out-of-memory"
    finding = found["findings"][0]
    assert [fix["id"] for fix in finding["fixes"]] == ["tpu-smaller-program"]
    assert [check["id"] for check in finding["checks"]] == ["tpu-program-size"]
    text = run("scan", tmp_path / "run.log")
    assert "nvidia-smi" not in text and "CUDA_LAUNCH_BLOCKING" not in text


def test_vllm_on_a_tpu_leads_with_its_own_utilization() -> None:
    """vLLM sizes its KV cache on the TPU first, so the compiled programs find too little HBM:
    lowering --gpu-memory-utilization is the fix the thread confirms, not a smaller program."""
    log = CORPUS / "vllm/cuda.runtime.out-of-memory--vllm-project-vllm-16521.log"
    assert report(log)["engine"] == "vllm"
    assert fixes(log)[0] == "leave-headroom"


def test_vllm_metals_overhead_larger_than_the_weights_is_cut_first() -> None:
    """vllm-metal's breakdown: 37.86 GB of overhead beside 13.76 GB of weights (a release whose
    estimate grew with --max-num-batched-tokens): the overhead is the first thing to cut, and
    none of vLLM's CUDA knobs or nvidia-smi appears."""
    log = CORPUS / "vllm/vllm.kv-cache.no-available-memory--vllm-project-vllm-metal-585.log"
    assert fixes(log) == ["metal-fewer-batched-tokens", "metal-smaller-model"]
    text = run("scan", log)
    assert "nvidia-smi" not in text and "--kv-cache-memory-bytes" not in text and "tensor-parallel" not in text


@pytest.mark.parametrize(("message", "first", "words"), [
    # a later release names --gpu-memory-utilization: (0.26 + 0.49 + 1) / 12.71 -> 0.14
    ("Paged attention: not enough Metal memory for KV cache. metal_limit=12.71GB, fraction=0.05, usable_metal=0.64GB, "
     "model_memory=0.26GB, overhead=0.49GB, kv_budget=-0.11GB. Mitigations: increase --gpu-memory-utilization "
     "(currently 0.05); use a smaller or more quantized model.",
     "metal-raise-fraction-flag", "--gpu-memory-utilization 0.14"),
    # an earlier one reads its own variable: (1.5 + 0.5 + 1) / 19.07 -> 0.16
    ("Paged attention: not enough Metal memory for KV cache. metal_limit=19.07GB, fraction=0.05, usable_metal=0.95GB, "
     "model_memory=1.50GB, overhead=0.50GB, kv_budget=-1.05GB. Mitigations: increase VLLM_METAL_MEMORY_FRACTION, "
     "use a smaller or more quantized model.",
     "metal-raise-fraction-env", "VLLM_METAL_MEMORY_FRACTION=0.16"),
    # bf16 weights that no fraction fits: (16.38 + 1.30 + 1) / 19.07 -> 0.98
    ("Paged attention: not enough Metal memory for KV cache. metal_limit=19.07GB, fraction=0.92, usable_metal=17.54GB, "
     "model_memory=16.38GB, overhead=1.30GB, kv_budget=-0.13GB.",
     "metal-smaller-model", "4-bit"),
])
def test_vllm_metals_kv_budget_names_the_setting_its_release_reads(tmp_path: Path, message, first, words) -> None:
    found = _stdin_report(tmp_path, f"ValueError: {message}\n")
    assert found["root_cause"] == "vllm.kv-cache.no-available-memory"
    fix = found["findings"][0]["fixes"][0]
    assert fix["id"] == first and words in fix["change"]
