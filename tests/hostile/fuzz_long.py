"""The hypothesis properties of tests/test_hostile.py with a large example budget.

    python tests/hostile/fuzz_long.py 100000

Prints how many examples ran and exits non-zero on the first crash. The suite runs the same
properties with a small budget on every CI run.
"""

from __future__ import annotations

import io
import sys
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matcher.api import scanner
from matcher.normalize import normalize
from matcher.read import read_chunks
from matcher.report import build_report
from matcher.report import github, gitlab, json_report, junit, markdown, sarif, text

LINES = st.lists(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(str.encode), st.sampled_from([
    b"Traceback (most recent call last):", b'  File "/x/vllm/worker/model_runner.py", line 1, in capture_model',
    b"Capturing CUDA graphs (decode, FULL):", b"RuntimeError: CUDA error: out of memory",
    b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    b"8.00 GiB of which 1.00 GiB is free.", b"Model loading took 14.99 GiB and 5.1 seconds",
    b"Available KV cache memory: -1.2 GiB", b"No available memory for the cache blocks. Try increasing "
    b"`gpu_memory_utilization`", b"\x1b[31mERROR\x1b[0m", b'{"log": "ERROR x", "stream": "stderr"}'])),
    max_size=60)


def run(examples: int) -> int:
    engine = scanner()
    count = 0

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(LINES, st.integers(min_value=1, max_value=512))
    def property_(lines: list[bytes], size: int) -> None:
        nonlocal count
        count += 1
        data = b"\n".join(lines)
        assert b"".join(c.data for c in read_chunks(io.BytesIO(data), "x", size=size)) == data
        normalize(data.decode("utf-8", "replace"))
        report = build_report(engine.run(io.BytesIO(data), "x"))
        for render in (lambda r: text.render(r), lambda r: json_report.render(r, "x"), lambda r: markdown.render(r, "x"),
                       lambda r: sarif.render(r, "x"), lambda r: junit.render(r, "x"), github.render, gitlab.render):
            render([report])

    property_()
    return count


if __name__ == "__main__":
    started = time.monotonic()
    total = run(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print(f"{total} examples, 0 crashes, {time.monotonic() - started:.0f} s")
