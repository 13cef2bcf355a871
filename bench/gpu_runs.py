"""Does the first fix work on a real GPU? Fail, diagnose, apply logkb's first fix, run again.

Each case runs one program of bench/gpu_workloads.py (some beside a second process that holds
memory, as another job on a shared card does) and keeps its output verbatim. logkb scans the
log through its command line; the first fix of the root cause is applied as printed (the
value it computed, the variable it names) wherever the fix maps onto the program, and the
program runs again. The ground truth is known by construction: what the other process held,
which programs are not memory failures.

    python bench/gpu_runs.py --out DIR [--logkb logkb] [--cases a,b]

DIR receives, per case, ``<case>.log`` and ``<case>.yaml`` (a corpus sidecar) and, where a
fix was applied, ``<case>.fixed.log``; and ``results.json`` with the environment, each case's
diagnosis, the fix applied and the rerun's outcome, and logkb's start-up time on that machine.
Run it with the Python that has PyTorch (transformers and Triton for two cases), on a CUDA GPU
with 16 GiB or more that nothing else uses.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKLOADS = HERE / "gpu_workloads.py"
TIMEOUT_S = 150  # seconds per program run; a run that hangs counts as failed (exit -9)


@dataclass
class Run:
    """One program run: the workload and its arguments, its environment, and whether another
    process holds memory beside it (a share of the memory free when it starts)."""
    workload: str
    args: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    hold_share: float = 0.0


@dataclass
class Case:
    name: str
    run: Run
    kind: str  # failure, non-memory, healthy
    root_cause: str | None
    phase: str | None
    notes: str


def _model_dir() -> str:
    return str(Path(tempfile.gettempdir()) / "logkb-gpu-model")


CASES = [
    Case("other-process", Run("train", {"batch": "96000"}, hold_share=0.9), "failure", "pytorch.cuda.oom", "serving",
         "A training loop that fits an idle card starts while another process holds 90% of the free memory."),
    Case("fragmentation", Run("fragment"), "failure", "pytorch.cuda.oom-fragmentation", "unknown",
         "Cached segments, each pinned by a small live tensor, leave most memory reserved but unallocated in "
         "holes smaller than the next request."),
    Case("memory-cap", Run("capped"), "failure", "pytorch.cuda.oom-memory-cap", "unknown",
         "torch.cuda.set_per_process_memory_fraction(0.25) caps the process below what its steps need."),
    Case("batch-too-large", Run("train"), "failure", "pytorch.cuda.oom", "serving",
         "A training batch sized to need about 1.3 times the card, on an idle card."),
    Case("weight-loading", Run("load", {"model_dir": _model_dir()}, hold_share=0.99), "failure",
         "pytorch.cuda.oom-weight-loading", "weight-loading",
         "transformers from_pretrained(device_map='cuda') of a randomly initialised Llama-shaped checkpoint "
         "(about 1.6B parameters, 3 GiB in bf16) while another process holds 99% of the free memory."),
    Case("graph-capture", Run("capture"), "failure", "pytorch.cuda.oom", "cudagraph-capture",
         "A CUDA graph whose captured body allocates more than the card."),
    Case("device-assert", Run("bad_index"), "non-memory", None, None,
         "An out-of-range index on the GPU trips a device-side assert: not a memory problem."),
    Case("illegal-address", Run("bad_pointer"), "failure", "cuda.kernel.fault", "unknown",
         "A Triton kernel stores far outside its buffer: an illegal memory access, not a lack of memory."),
    Case("healthy", Run("healthy"), "healthy", None, None, "A short matrix loop that fits."),
]


def _free_gib() -> float:
    probe = "import torch; print(torch.cuda.mem_get_info()[0] / 2**30)"
    return float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)


def _hold(share: float) -> tuple[subprocess.Popen[str], float]:
    """Start a process holding ``share`` of the free memory; return it and how much free
    memory it took in GiB (its CUDA context included), the figure logkb should report."""
    before = _free_gib()
    holder = subprocess.Popen([sys.executable, str(WORKLOADS), "hold", f"gib={share * before:.2f}"],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert holder.stdout is not None
    holder.stdout.readline()  # "holding ..." once the memory is taken
    return holder, before - _free_gib()


def _stop(holder: subprocess.Popen[str] | None) -> None:
    if holder is not None and holder.poll() is None:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()
        time.sleep(1)


def execute(run: Run, log: Path) -> tuple[int, float | None]:
    """Run the program (beside a holder when asked); its stdout and stderr, interleaved, go
    to ``log``. Returns its exit status and what the holder held (GiB), if any."""
    holder, held = (_hold(run.hold_share) if run.hold_share else (None, None))
    try:
        with log.open("wb") as out:
            try:
                done = subprocess.run([sys.executable, str(WORKLOADS), run.workload, *(f"{k}={v}" for k, v in run.args.items())],
                                      stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **run.env},
                                      timeout=TIMEOUT_S, cwd=HERE)
            except subprocess.TimeoutExpired:
                return -9, held
        return done.returncode, held
    finally:
        _stop(holder)
        scrub(log)


def scrub(log: Path) -> None:
    """Write the repository's location on the producing machine as a relative path: Python
    prints the absolute path of a script it runs, and a corpus log carries no machine's paths."""
    data = log.read_bytes()
    log.write_bytes(data.replace(f"{REPO}/".encode(), b""))


def diagnose(logkb: str, log: Path) -> dict:
    done = subprocess.run([logkb, "scan", "-f", "json", str(log)], capture_output=True, text=True)
    report = json.loads(done.stdout)["files"][0]
    root = next((f for f in report["findings"] if f["id"] == report["root_cause"]), None)
    return {"root_cause": report["root_cause"], "phase": report["phase"], "logkb_exit": done.returncode,
            "tier": root["tier"] if root else None,
            "fixes": [{"id": f["id"], "change": f.get("change")} for f in (root or {}).get("fixes", [])],
            "loud": sorted({f["id"] for f in report["findings"] if f.get("severity") in ("error", "warning")})}


# How a printed fix maps onto these programs: a new Run, or None where the program has no
# equivalent of the change (a smaller model, an engine flag).
def _apply(fix: dict, run: Run, log_text: str = "") -> tuple[Run | None, str]:
    change = fix.get("change") or ""
    if fix["id"] == "free-other-processes":
        return Run(run.workload, run.args, run.env), "the other process was stopped"
    conf = re.search(r"\b(PYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF)=((?:expandable_segments:True)|max_split_size_mb:\d+)", change)
    if conf:
        return Run(run.workload, run.args, {**run.env, conf[1]: conf[2]}, run.hold_share), f"{conf[1]}={conf[2]}"
    fraction = re.search(r"set_per_process_memory_fraction\([^)]*?(\d?\.\d+)\)", change)
    if fraction and run.workload == "capped":
        return Run(run.workload, {**run.args, "fraction": fraction[1]}, run.env, run.hold_share), f"fraction {fraction[1]}"
    # The training loop prints the batch it chose ("batch N x W"); halve that.
    batch = re.search(r"\bbatch (\d+) x \d+", log_text)
    if run.workload == "train" and re.search(r"\bbatch size\b", change) and (batch or run.args.get("batch")):
        half = int(batch[1] if batch else run.args["batch"]) // 2
        return Run(run.workload, {**run.args, "batch": str(half)}, run.env, run.hold_share), f"batch halved to {half}"
    return None, "no equivalent in this program"


def startup_ms(logkb: str, runs: int = 21) -> float:
    """Median wall time of ``logkb scan`` on a 10-line log, the cache warm."""
    log = Path(tempfile.mkdtemp()) / "ten.log"
    log.write_text("".join(f"INFO line {i}\n" for i in range(10)))
    times = []
    for _ in range(runs + 2):
        start = time.perf_counter()
        subprocess.run([logkb, "scan", str(log)], capture_output=True)
        times.append(time.perf_counter() - start)
    return round(1000 * statistics.median(times[2:]), 1)


def environment() -> dict:
    probe = ("import json, torch, platform; p = torch.cuda.get_device_properties(0); "
             "print(json.dumps({'gpu': p.name, 'gpu_gib': round(p.total_memory / 2**30, 2), 'torch': torch.__version__, "
             "'cuda': torch.version.cuda, 'python': platform.python_version()}))")
    env = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True)
    env["driver"] = smi.stdout.strip()
    return env


def sidecar(case: Case, env: dict, date: str, result: dict) -> dict:
    meta: dict = {"generated_by": "bench/gpu_runs.py", "case": case.name, "workload": "bench/gpu_workloads.py " + case.run.workload,
                  "produced": {"date": date, "gpu": env["gpu"], "driver": env["driver"], "torch": env["torch"],
                               "cuda": env["cuda"]},
                  "engine": "pytorch", "kind": case.kind}
    if case.kind == "failure" or case.root_cause:
        meta["expect"] = {"root_cause": case.root_cause, **({"phase": case.phase} if case.phase else {})}
    if result.get("held_gib") is not None:
        meta["other_process_gib"] = result["held_gib"]
    if "applied" in result:
        meta["first_fix"] = {"id": result["fixes"][0]["id"], "applied": result["applied"]}
        if "fixed_exit" in result:
            meta["first_fix"].update(rerun_log=f"{case.name}.fixed.log", rerun_exit=result["fixed_exit"],
                                     rerun_root_cause=result["fixed_diagnosis"])
    meta["notes"] = case.notes
    meta["scrubbed"] = "The repository's absolute path on the producing machine is written relative to the repository (bench/...)."
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--logkb", default=shutil.which("logkb") or "logkb")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = environment()
    date = datetime.date.today().isoformat()
    wanted = set(args.cases.split(",")) if args.cases else None
    if any(c.run.workload == "load" for c in CASES if wanted is None or c.name in wanted):
        subprocess.run([sys.executable, str(WORKLOADS), "save_model", f"model_dir={_model_dir()}"], check=True)
    results = []
    for case in CASES:
        if wanted is not None and case.name not in wanted:
            continue
        log = args.out / f"{case.name}.log"
        started = time.perf_counter()
        status, held = execute(case.run, log)
        seen = diagnose(args.logkb, log)
        result = {"case": case.name, "kind": case.kind, "program_exit": status, "seconds": round(time.perf_counter() - started, 1),
                  "held_gib": None if held is None else round(held, 2), "expected": case.root_cause, **seen}
        if case.kind == "failure" and seen["fixes"]:
            rerun, applied = _apply(seen["fixes"][0], case.run, log.read_text(encoding="utf-8", errors="replace"))
            result["applied"] = applied
            if rerun is not None:
                fixed_log = args.out / f"{case.name}.fixed.log"
                result["fixed_exit"], _ = execute(rerun, fixed_log)
                result["fixed_diagnosis"] = diagnose(args.logkb, fixed_log)["root_cause"]
        (args.out / f"{case.name}.yaml").write_text(yaml.safe_dump(sidecar(case, env, date, result), sort_keys=False, width=100))
        results.append(result)
        print(json.dumps(result), flush=True)
    report = {"environment": env, "date": date, "startup_ms": startup_ms(args.logkb), "cases": results}
    (args.out / "results.json").write_text(json.dumps(report, indent=1))
    print(f"start-up on 10 lines: {report['startup_ms']} ms (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
