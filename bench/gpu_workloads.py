"""Small PyTorch programs that fail (or succeed) on a GPU the way serving and training jobs do.

bench/gpu_runs.py runs each one as its own process and keeps its output verbatim as a corpus
log; nothing here imports logkb. Sizes are fractions of the card, so any CUDA GPU with 16 GiB
or more gives the same failures.

    python bench/gpu_workloads.py NAME [key=value ...]
"""

from __future__ import annotations

import os
import sys
import time

import torch

GiB = 1 << 30


def _card_gib() -> float:
    return torch.cuda.get_device_properties(0).total_memory / GiB


def _tensor(gib: float) -> torch.Tensor:
    return torch.empty(int(gib * GiB), dtype=torch.uint8, device="cuda")


def hold(gib: str) -> None:
    """Another job on the same GPU: hold ``gib`` GiB until killed."""
    kept = _tensor(float(gib))
    print(f"holding {kept.numel() / GiB:.2f} GiB on cuda:0 (pid {os.getpid()})", flush=True)
    while True:
        time.sleep(60)


def train(batch: str = "0", width: str = "16384", steps: str = "3") -> None:
    """A training loop of a wide MLP; with batch 0 the batch is sized to need about 1.3x the card."""
    width_n = int(width)
    layers = [torch.nn.Linear(width_n, width_n, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
    model = torch.nn.Sequential(*[m for layer in layers for m in (layer, torch.nn.GELU())])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    # Each layer keeps its input and its GELU input for backward: about 4 bytes x width per row and layer.
    rows = int(batch) or int(1.3 * _card_gib() * GiB / (len(layers) * 2 * 2 * width_n))
    print(f"training: {sum(p.numel() for p in model.parameters()) / 1e9:.2f}B parameters, batch {rows} x {width_n}", flush=True)
    for step in range(int(steps)):
        x = torch.randn(rows, width_n, device="cuda", dtype=torch.bfloat16)
        loss = model(x).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"step {step}: loss {loss.item():.4f}, peak {torch.cuda.max_memory_allocated() / GiB:.2f} GiB", flush=True)
    print("training finished", flush=True)


def fragment(block: str = "2", keep: str = "0.4", ask: str = "12") -> None:
    """Cached segments each pinned by one small live tensor, then one large request.

    The card is filled with ``block`` GiB tensors that are freed again (the allocator keeps
    the segments), each segment is then refilled with a large tensor and a small ``keep`` GiB
    one, and the large ones are freed: most memory is reserved but unallocated, in holes no
    larger than a block, when a request of ``ask`` GiB comes."""
    size, pinned, request = float(block), float(keep), float(ask)
    free_gib = torch.cuda.mem_get_info()[0] / GiB
    count = int((free_gib - request + 3) // size)
    blocks = [_tensor(size) for _ in range(count)]
    del blocks
    large, small = [], []
    for _ in range(count):
        large.append(_tensor(size - pinned - 0.1))
        small.append(_tensor(pinned))
    del large
    stats = torch.cuda.memory_stats()
    print(f"{count} segments of {size} GiB: {stats['allocated_bytes.all.current'] / GiB:.2f} GiB allocated, "
          f"{stats['reserved_bytes.all.current'] / GiB:.2f} GiB reserved", flush=True)
    result = _tensor(request)
    print(f"allocated {result.numel() / GiB:.2f} GiB; done", flush=True)


def capped(fraction: str = "0.25", steps: str = "0.10,0.14,0.18") -> None:
    """A process limited by torch.cuda.set_per_process_memory_fraction: weights of 15% of the
    card, then one activation per step, each a given share of the card."""
    torch.cuda.set_per_process_memory_fraction(float(fraction), 0)
    card = _card_gib()
    weights = _tensor(0.15 * card)
    print(f"memory fraction {fraction}; weights {weights.numel() / GiB:.2f} GiB", flush=True)
    for step, share in enumerate(float(s) for s in steps.split(",")):
        activation = _tensor(share * card)
        print(f"step {step}: activation {activation.numel() / GiB:.2f} GiB", flush=True)
        del activation
    print("all steps finished", flush=True)


def load(model_dir: str) -> None:
    """Load a Hugging Face checkpoint onto the GPU, as an inference server does at start."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.bfloat16, device_map="cuda")
    print(f"loaded {sum(p.numel() for p in model.parameters()) / 1e9:.2f}B parameters; "
          f"{torch.cuda.memory_allocated() / GiB:.2f} GiB allocated", flush=True)


def save_model(model_dir: str, layers: str = "6") -> None:
    """Write a randomly initialised Llama-shaped checkpoint for ``load`` (no download needed)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=int(layers),
                         num_attention_heads=32, num_key_value_heads=8, vocab_size=32000)
    with torch.device("cpu"):
        model = LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(model_dir)
    print(f"saved {sum(p.numel() for p in model.parameters()) / 1e9:.2f}B parameters to {model_dir}", flush=True)


def capture(share: str = "1.2") -> None:
    """Capture a CUDA graph whose body needs ``share`` of the card."""
    card = _card_gib()
    static_in = torch.ones(1024, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        static_in * 2  # warm up on the side stream, as graph capture requires
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    print(f"capturing a graph that needs {share} x {card:.1f} GiB", flush=True)
    with torch.cuda.graph(graph):
        parts = [_tensor(0.3 * card) for _ in range(int(float(share) / 0.3) + 1)]
        static_out = static_in * len(parts)
    graph.replay()
    print(f"replayed: {static_out[0].item()}", flush=True)


def bad_index() -> None:
    """An out-of-range index on the GPU: a device-side assert, not a memory problem."""
    table = torch.zeros(1000, device="cuda")
    index = torch.tensor([5, 1000000], device="cuda")
    print(table[index].sum().item(), flush=True)


def bad_pointer() -> None:
    """A kernel that writes far outside its buffer: an illegal memory access."""
    import triton
    import triton.language as tl

    @triton.jit
    def scatter(out, offset, n: tl.constexpr):
        lanes = tl.arange(0, n)
        tl.store(out + offset + lanes, lanes.to(tl.float32))

    out = torch.zeros(128, device="cuda")
    scatter[(1,)](out, 1 << 40, n=128)
    torch.cuda.synchronize()
    print(out.sum().item(), flush=True)


def healthy(steps: str = "3") -> None:
    """A short inference-like loop that fits: it must produce no diagnosis."""
    free, total = torch.cuda.mem_get_info()
    print(f"cuda:0 {torch.cuda.get_device_name(0)}: {free / GiB:.2f} GiB free of {total / GiB:.2f} GiB", flush=True)
    weight = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for step in range(int(steps)):
        out = torch.randn(64, 8192, device="cuda", dtype=torch.bfloat16) @ weight
        print(f"step {step}: {out.float().abs().mean().item():.3f}; {torch.cuda.memory_allocated() / GiB:.2f} GiB allocated",
              flush=True)


WORKLOADS = {f.__name__: f for f in (hold, train, fragment, capped, load, save_model, capture, bad_index, bad_pointer, healthy)}

if __name__ == "__main__":
    name, *args = sys.argv[1:]
    WORKLOADS[name](**dict(a.split("=", 1) for a in args))
