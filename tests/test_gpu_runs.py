"""The logs bench/gpu_runs.py produced on a real GPU (corpus/generated/gpu): what the first fix
did there, held through the command line, and the runner's own mapping from a printed fix to
a changed run (which needs no GPU).

The sidecars record what the run measured: what the other process held (``other_process_gib``)
and, where the first fix maps onto the program, how the rerun ended (``first_fix``)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
GPU = ROOT / "corpus" / "generated" / "gpu"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"logkb_bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


runs = _load("gpu_runs")


def meta(case: str) -> dict:
    return yaml.safe_load((GPU / f"{case}.yaml").read_text(encoding="utf-8"))


def report(log: Path) -> dict:
    result = CliRunner().invoke(main, ["scan", "-f", "json", str(log)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]


def first_fix(case: str) -> dict:
    got = report(GPU / f"{case}.log")
    root = next(f for f in got["findings"] if f["id"] == got["root_cause"])
    return root["fixes"][0]


def test_every_case_of_the_runner_has_its_log_and_a_sidecar_it_wrote() -> None:
    for case in runs.CASES:
        side = meta(case.name)
        assert (GPU / f"{case.name}.log").is_file()
        assert side["generated_by"] == "bench/gpu_runs.py" and side["kind"] == case.kind and "source" not in side
        assert set(side["produced"]) == {"date", "gpu", "driver", "torch", "cuda"}
        if case.kind == "failure":
            assert side["expect"]["root_cause"] == case.root_cause and side["expect"]["phase"] == case.phase
        if "first_fix" in side and "rerun_log" in side["first_fix"]:
            assert (GPU / side["first_fix"]["rerun_log"]).is_file()


def test_no_log_carries_the_producing_machines_paths() -> None:
    for log in GPU.glob("*.log"):
        text = log.read_text(encoding="utf-8")
        assert "/work/" not in text and "/home/" not in text and str(ROOT) not in text, log.name
        assert 'File "bench/gpu_workloads.py"' in text or "Traceback" not in text, log.name


@pytest.mark.parametrize("case", ["other-process", "weight-loading"])
def test_the_other_processes_memory_is_computed_within_one_percent_and_freeing_it_worked(case: str) -> None:
    side, fix = meta(case), first_fix(case)
    assert fix["id"] == "free-other-processes"
    printed = float(re.search(r"about ([\d.]+) GiB", fix["change"]).group(1))
    assert abs(printed - side["other_process_gib"]) <= 0.01 * side["other_process_gib"]
    assert side["first_fix"]["rerun_exit"] == 0 and side["first_fix"]["rerun_root_cause"] is None
    assert report(GPU / f"{case}.fixed.log")["root_cause"] is None


def test_weight_loading_beside_another_process_reads_the_phase_from_transformers_frames() -> None:
    got = report(GPU / "weight-loading.log")
    assert (got["root_cause"], got["phase"]) == ("pytorch.cuda.oom-weight-loading", "weight-loading")


def test_fragmentation_leads_with_the_allocator_setting_the_message_names_and_it_worked() -> None:
    fix = first_fix("fragmentation")
    assert fix["id"] == "expandable-segments" and "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in fix["change"]
    side = meta("fragmentation")
    assert side["first_fix"]["applied"] == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    assert side["first_fix"]["rerun_exit"] == 0


def test_memory_cap_fraction_held_the_failed_step_and_the_next_larger_step_failed_again() -> None:
    fix = first_fix("memory-cap")
    assert fix["id"] == "raise-cap-script" and "set_per_process_memory_fraction(0.26)" in fix["change"]
    rerun = (GPU / "memory-cap.fixed.log").read_text(encoding="utf-8")
    assert "memory fraction 0.26" in rerun and "step 0: activation 13.98 GiB" in rerun  # the step that failed passed
    again = report(GPU / "memory-cap.fixed.log")
    assert again["root_cause"] == "pytorch.cuda.oom-memory-cap"  # step 1 asks for more, as the fix warns


def test_the_gpu_faults_that_are_not_memory_get_no_memory_diagnosis() -> None:
    fault = report(GPU / "illegal-address.log")
    assert fault["root_cause"] == "cuda.kernel.fault"
    assert not [f for f in fault["findings"] if "gpu-memory" in f["tags"]]
    asserted = report(GPU / "device-assert.log")
    assert asserted["root_cause"] == "uncatalogued"
    assert not [f for f in asserted["findings"] if "gpu-memory" in f["tags"]]
    assert report(GPU / "healthy.log")["findings"] == []


# -- the runner's mapping from a printed fix to the next run, without a GPU -----------------


def test_a_printed_fix_maps_onto_the_program_or_says_it_cannot() -> None:
    train = runs.Run("train", {"batch": "1000"}, hold_share=0.9)
    rerun, applied = runs._apply({"id": "free-other-processes", "change": "Stop the other process(es)"}, train)
    assert rerun.hold_share == 0 and applied == "the other process was stopped"
    rerun, applied = runs._apply({"id": "smaller-batch", "change": "Lower the batch size or the number"}, train)
    assert rerun.args["batch"] == "500" and rerun.hold_share == 0.9
    printed = (GPU / "batch-too-large.log").read_text(encoding="utf-8")  # the loop chose its own batch
    rerun, applied = runs._apply({"id": "smaller-batch", "change": "Lower the batch size"}, runs.Run("train"), printed)
    assert applied == f"batch halved to {meta('batch-too-large')['first_fix']['applied'].split()[-1]}"
    rerun, _ = runs._apply({"id": "expandable-segments", "change": "Start with PYTORCH_ALLOC_CONF=expandable_segments:True in"},
                           runs.Run("fragment"))
    assert rerun.env == {"PYTORCH_ALLOC_CONF": "expandable_segments:True"}
    rerun, _ = runs._apply({"id": "raise-cap-script", "change": "torch.cuda.set_per_process_memory_fraction(0.31) or higher"},
                           runs.Run("capped"))
    assert rerun.args["fraction"] == "0.31"
    rerun, applied = runs._apply({"id": "smaller-model", "change": "Quantize (4-bit/8-bit/FP8)"}, runs.Run("load"))
    assert rerun is None and applied == "no equivalent in this program"


def test_scrub_writes_the_repository_path_relative(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(f'  File "{runs.REPO}/bench/gpu_workloads.py", line 3, in <module>\n'.encode())
    runs.scrub(log)
    assert log.read_bytes() == b'  File "bench/gpu_workloads.py", line 3, in <module>\n'
