"""The scan's context trackers on their own: which engine the process tags name, which way the
start-up phases run, and which phase a native stack's frames show."""

from __future__ import annotations

from matcher.catalog import FrameMap, load_catalog
from matcher.scan.context import EngineTracker, PhaseTracker, goes_back
from matcher.scan.lines import NATIVE_FRAME


def test_vllms_process_tags_name_vllm_once_each():
    tracker = EngineTracker()
    for tag in ("(EngineCore_DP0 pid=1)", "(EngineCore_DP0 pid=1)", "(Worker_TP1_EP1 pid=7)", "(APIServer pid=3)"):
        tracker.note_origin(tag)
    assert tracker.engine == "vllm" and tracker.counts == {"vllm": 3}


def test_other_tags_name_no_engine():
    tracker = EngineTracker()
    for tag in ("[rank0]:", "(Worker pid=12)", "(WorkerDict pid=5)", "(raylet)", "python3[13938]", None):
        tracker.note_origin(tag)
    assert tracker.engine is None


def test_the_journals_tag_of_ollamas_service_names_ollama_over_the_llamacpp_lines_it_prints():
    tracker = EngineTracker()
    for _ in range(20):
        tracker.note("llamacpp")  # llama.cpp's loading lines, printed by Ollama's runner
    tracker.note_origin("ollama[13938]")
    assert tracker.engine == "ollama"


def test_vllms_logging_header_names_vllm_only_where_no_serving_engine_is_seen():
    """An error line pasted alone with vLLM's header is vLLM's, over the PyTorch layer its
    message comes from; frames of another engine outweigh the header (early SGLang logged in
    vLLM's format)."""
    alone = EngineTracker()
    alone.note("pytorch")
    alone.note_writer("vllm")
    alone.note_writer("vllm")
    assert alone.engine == "vllm" and alone.writers == ["vllm"]
    embedded = EngineTracker()
    embedded.note_writer("vllm")
    embedded.note("sglang")
    assert embedded.engine == "sglang"
    assert EngineTracker().engine is None


def test_a_start_up_runs_forward_through_its_phases():
    assert goes_back("warmup", "weight-loading")
    assert not goes_back("warmup", "serving")
    assert not goes_back(None, "weight-loading") and not goes_back("unknown", "warmup")


def _tracker() -> PhaseTracker:
    catalog = load_catalog()
    return PhaseTracker([s for s in catalog.signatures.values() if isinstance(s, FrameMap)])


def test_a_native_stack_is_read_innermost_first():
    """gdb prints the innermost frame first: the warm-up decode inside the common start-up is
    warmup, and a loader frame printed before that start-up frame makes it weight loading."""
    tracker = _tracker()
    assert tracker.add_native_frame(10, "#5  0x00006470414fdd7a in llama_decode ()", after_error=True) is None
    assert tracker.add_native_frame(11, "#6  0x0000647 in llama_init_from_gpt_params(gpt_params&) ()",
                                    after_error=True) == "warmup"
    loading = _tracker()
    loading.add_native_frame(3, "libllama.so(_ZN18llama_model_loader13load_all_dataEP12ggml_context+0x5d)[0x7f]", True)
    assert loading.add_native_frame(4, "#7  0x0000 in common_init_from_params(common_params&) ()", True) \
        == "weight-loading"


def test_a_native_stack_before_an_error_speaks_for_it_unless_a_marker_follows():
    """Go prints a panic's stack before the server reports the runner's exit; a phase marker
    after the stack, or a stack that belonged to an earlier error, does not carry over."""
    tracker = _tracker()
    tracker.add_native_frame(2, "github.com/ollama/ollama/runner/ollamarunner.(*Server).reserveWorstCaseGraph(0xc0)",
                             after_error=False)
    assert tracker.in_force(9) == ("warmup", "frames")
    tracker.enter("serving", 10)
    assert tracker.in_force(11) == ("serving", "marker")
    owned = _tracker()
    owned.add_native_frame(2, "common_speculative_state_mtp::draft", after_error=True)
    assert owned.in_force(5) == ("unknown", "unknown")


def test_a_forward_pass_ends_a_load_in_a_program_but_not_in_a_serving_engine():
    """After a weight-loading marker, a traceback through a model's forward pass is the
    program's own work in a plain PyTorch program (the load is over); a serving engine runs its
    model next to profile or warm up, so there the marker stays."""
    tracker = _tracker()
    tracker.enter("weight-loading", 1)
    tracker.start_traceback()
    tracker.add_frame(5, '  File "/env/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl')
    assert tracker.in_force(7, "pytorch") == ("serving", "fallback")
    assert tracker.in_force(7, None) == ("serving", "fallback")
    assert tracker.in_force(7, "vllm") == ("weight-loading", "marker")


def test_a_forward_pass_alone_leaves_a_serving_engines_phase_open():
    """A serving engine runs its model during start-up too (profiling, warmup, graph capture):
    with no frame or marker of its own, a forward pass does not show that it was serving."""
    tracker = _tracker()
    tracker.start_traceback()
    tracker.add_frame(5, '  File "/app/model.py", line 40, in forward')
    assert tracker.in_force(7, "pytorch") == ("serving", "fallback")
    assert tracker.in_force(7, "vllm") == ("unknown", "unknown")


def test_native_frame_lines_are_told_from_code_and_prose():
    frames = ["#3 llama_decode (ctx=0x0) at llama.cpp:123", "  9: candle_transformers::models::falcon::Falcon::load",
              "runtime.cgocall(0x564221a518d0, 0xc000047268)", "  current device: 0, in function ggml_cuda_cpy",
              "=========         Host Frame: llama_context::kv_self_update() in llama-context.cpp:765"]
    others = ["    model.cuda()", "torch.cuda.synchronize()", "1: Loading model weights", "#12 Fix the bug",
              "RuntimeError: CUDA error: out of memory"]
    assert all(NATIVE_FRAME.match(line) for line in frames)
    assert not any(NATIVE_FRAME.match(line) for line in others)
