"""The scan's context trackers on their own: which engine the process tags name, and which way
the start-up phases run."""

from __future__ import annotations

from matcher.scan.context import EngineTracker, goes_back


def test_vllms_process_tags_name_vllm_once_each():
    tracker = EngineTracker()
    for tag in ("(EngineCore_DP0 pid=1)", "(EngineCore_DP0 pid=1)", "(Worker_TP1_EP1 pid=7)", "(APIServer pid=3)"):
        tracker.note_origin(tag)
    assert tracker.engine == "vllm" and tracker.counts == {"vllm": 3}


def test_other_tags_name_no_engine():
    tracker = EngineTracker()
    for tag in ("[rank0]:", "(Worker pid=12)", "(WorkerDict pid=5)", "(raylet)", "ollama[13938]", None):
        tracker.note_origin(tag)
    assert tracker.engine is None


def test_a_start_up_runs_forward_through_its_phases():
    assert goes_back("warmup", "weight-loading")
    assert not goes_back("warmup", "serving")
    assert not goes_back(None, "weight-loading") and not goes_back("unknown", "warmup")
