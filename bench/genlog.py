"""Deterministic generator of realistic vLLM serving logs for benchmarks.

A start-up block (version banner, non-default args, weight loading, memory profiling, KV
cache size, CUDA graph capture, routes, Uvicorn), then serving: ``Received request``
lines with prompts (most of the bytes), ``Added request``, access lines, a metrics line
every ten simulated seconds, preemption warnings and rare request errors. Failures are
injected from the corpus: a window of real lines around the root-cause message of a sample
whose root cause is a catalog signature, followed by an engine restart. Optionally some
lines are ANSI-coloured or JSON records, and a few lines are 1 MiB long.

    python bench/genlog.py --size 100M --seed 1 -o /tmp/x.log [--manifest x.json]

The same arguments always give the same bytes (for the same corpus and catalog).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import yaml

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
FAILURE_WINDOW = (8, 4)  # lines before and after the root-cause line of a corpus sample
LONG_LINE = 1 << 20

WORDS = (
    "the of and to in is you that it he was for on are as with his they at be this have from or "
    "one had by word but not what all were we when your can said there use an each which she do "
    "how their if will up other about out many then them these so some her would make like him "
    "into time has look two more write go see number no way could people my than first water been "
    "call who oil its now find long down day did get come made may part summarize translate explain "
    "write code python function list table example story poem email customer order invoice report "
    "token context request answer question data analysis please step reasoning function class return "
    "value string integer array loop debug test deploy"
).split()
# Words that catalog anchors and the fuzzy gate look for: in a prompt now and then, as in real traffic.
RARE_WORDS = ("error", "memory", "failed", "model", "GPU", "exception", "killed", "out of memory")
RARE_WORD_RATE = 0.0005
SYSTEM_PROMPTS = (
    "You are a helpful assistant.",
    "You are a senior Python engineer. Answer with code only.",
    "Summarize the following support ticket in three bullet points.",
    "Translate the user's text into French.",
)
ENDPOINTS = ("/v1/completions", "/v1/chat/completions", "/v1/chat/completions", "/metrics", "/health")


def parse_size(text: str) -> int:
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = text[-1] if text and text[-1] in UNITS else ""
    return int(float(text[: len(text) - len(unit)]) * UNITS[unit])


@dataclass
class Failure:
    root_cause: str
    source: str
    lines: list[str]
    root_index: int  # index of the root-cause line in ``lines``


def corpus_failures(catalog_ids: set[str]) -> list[Failure]:
    """Windows of real log lines around each corpus sample's root-cause message."""
    failures = []
    for sidecar in sorted((ROOT / "corpus").rglob("*.yaml")):
        log = sidecar.with_suffix(".log")
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8")) or {}
        expect = meta.get("expect") or {}
        cause, line = expect.get("root_cause"), expect.get("line")
        if not log.exists() or cause not in catalog_ids or not isinstance(line, int):
            continue
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        before, after = FAILURE_WINDOW
        first = max(0, line - 1 - before)
        window = lines[first: line + after]
        if window:
            failures.append(Failure(cause, str(log.relative_to(ROOT)), window, line - 1 - first))
    return failures


def catalog_ids() -> set[str]:
    sys.path.insert(0, str(ROOT))
    from matcher.catalog import load_catalog

    return set(load_catalog().signatures)


@dataclass
class Generator:
    rng: random.Random
    failures: list[Failure]
    ansi: float = 0.0
    json_lines: float = 0.0
    clock: float = 0.0
    line_no: int = 0
    manifest: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = self.rng
        self.prompts = [self._prompt() for _ in range(2000)]
        self.model = rng.choice(("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct",
                                 "mistralai/Mistral-7B-Instruct-v0.3"))
        self.version = rng.choice(("0.6.3.post1", "0.8.5", "0.10.1.1", "0.11.0"))

    def _prompt(self) -> str:
        rng = self.rng
        words = " ".join(rng.choice(RARE_WORDS) if rng.random() < RARE_WORD_RATE else rng.choice(WORDS)
                         for _ in range(rng.randint(8, 220)))
        system = rng.choice(SYSTEM_PROMPTS)
        return f"<|im_start|>system\\n{system}<|im_end|>\\n<|im_start|>user\\n{words}<|im_end|>\\n<|im_start|>assistant\\n"

    def _stamp(self) -> str:
        seconds = int(self.clock)
        day = 1 + seconds // 86400
        h, m, s = seconds // 3600 % 24, seconds // 60 % 60, seconds % 60
        return f"11-{day:02d} {h:02d}:{m:02d}:{s:02d}"

    def _line(self, level: str, where: str, message: str) -> str:
        rng = self.rng
        if self.json_lines and rng.random() < self.json_lines:
            record = {"time": self._stamp(), "level": level, "logger": where, "message": message}
            return json.dumps(record)
        if self.ansi and rng.random() < self.ansi:
            colour = {"INFO": "32", "WARNING": "33", "ERROR": "31"}[level]
            return f"\x1b[{colour}m{level}\x1b[0m {self._stamp()} [{where}] {message}"
        return f"{level} {self._stamp()} [{where}] {message}"

    def startup(self) -> list[str]:
        util = self.rng.choice((0.85, 0.9, 0.92, 0.95))
        max_len = self.rng.choice((4096, 8192, 32768))
        i = self._line
        weights = round(self.rng.uniform(4, 16), 2)
        return [
            i("INFO", "__init__.py:239", "Automatically detected platform cuda."),
            i("INFO", "api_server.py:1043", f"vLLM API server version {self.version}"),
            i("INFO", "cli_args.py:325", f"non-default args: {{'model': '{self.model}', "
              f"'max_model_len': {max_len}, 'gpu_memory_utilization': {util}, 'enable_prefix_caching': True}}"),
            i("INFO", "config.py:717", "This model supports multiple tasks: {'generate', 'embed'}. Defaulting to 'generate'."),
            i("INFO", "core.py:58", f"Initializing a V1 LLM engine (v{self.version}) with config: model='{self.model}', "
              f"tokenizer='{self.model}', dtype=torch.bfloat16, max_seq_len={max_len}, tensor_parallel_size=1, "
              "quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0"),
            i("INFO", "gpu_model_runner.py:1329", f"Starting to load model {self.model}..."),
            i("INFO", "weight_utils.py:265", "Using model weights format ['*.safetensors']"),
            i("INFO", "default_loader.py:272", "Loading weights took 3.41 seconds"),
            i("INFO", "gpu_model_runner.py:1348", f"Model loading took {weights} GiB and 4.02 seconds"),
            i("INFO", "gpu_worker.py:232", "Available KV cache memory: 48.71 GiB"),
            i("INFO", "kv_cache_utils.py:716", "GPU KV cache size: 398,960 tokens"),
            i("INFO", "kv_cache_utils.py:720", f"Maximum concurrency for {max_len} tokens per request: 48.70x"),
            i("INFO", "gpu_model_runner.py:1686", "Capturing CUDA graph shapes: 100%|##########| 67/67 [00:21<00:00,  3.11it/s]"),
            i("INFO", "gpu_model_runner.py:1764", "Graph capturing finished in 22 secs, took 0.52 GiB"),
            i("INFO", "core.py:159", "init engine (profile, create kv cache, warmup model) took 41.84 seconds"),
            i("INFO", "api_server.py:1081", "Starting vLLM API server on http://0.0.0.0:8000"),
            i("INFO", "launcher.py:28", "Available routes are:"),
            "INFO:     Started server process [1]",
            "INFO:     Waiting for application startup.",
            "INFO:     Application startup complete.",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
        ]

    def request(self) -> list[str]:
        rng = self.rng
        rid = f"{'chatcmpl' if rng.random() < 0.7 else 'cmpl'}-{rng.getrandbits(128):032x}"
        prompt = rng.choice(self.prompts)
        max_tokens = rng.choice((64, 128, 256, 512, 1024))
        temperature = rng.choice((0.0, 0.2, 0.7, 1.0))
        self.clock += rng.random() * 0.2
        lines = [
            self._line("INFO", "logger.py:39", f"Received request {rid}: prompt: '{prompt}', params: SamplingParams(n=1, "
                       f"presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature={temperature}, "
                       f"top_p=1.0, top_k=-1, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], "
                       f"include_stop_str_in_output=False, ignore_eos=False, max_tokens={max_tokens}, min_tokens=0, "
                       "logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
                       "truncate_prompt_tokens=None, guided_decoding=None, extra_args=None), prompt_token_ids: None, "
                       "prompt_embeds shape: None, lora_request: None."),
            self._line("INFO", "async_llm.py:252", f"Added request {rid}."),
            f"INFO:     10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.randint(30000, 65000)} - "
            f"\"POST {rng.choice(ENDPOINTS)} HTTP/1.1\" 200 OK",
        ]
        roll = rng.random()
        if roll < 0.002:
            lines.append(self._line(
                "WARNING", "scheduler.py:1754",
                f"Sequence group {rid} is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV "
                "cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or "
                f"tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption={rng.randint(1, 900)}"))
        elif roll < 0.0025:
            tokens = rng.randint(8200, 40000)
            lines.append(self._line(
                "ERROR", "serving_chat.py:222",
                f"Error in preprocessing prompt inputs: This model's maximum context length is 8192 tokens. However, "
                f"you requested {tokens} tokens ({tokens - 512} in the messages, 512 in the completion). Please reduce "
                "the length of the messages or completion."))
        return lines

    def metrics(self) -> str:
        rng = self.rng
        return self._line(
            "INFO", "loggers.py:118",
            f"Engine 000: Avg prompt throughput: {rng.uniform(0, 9000):.1f} tokens/s, Avg generation throughput: "
            f"{rng.uniform(0, 3000):.1f} tokens/s, Running: {rng.randint(0, 64)} reqs, Waiting: {rng.randint(0, 9)} reqs, "
            f"GPU KV cache usage: {rng.uniform(0, 99):.1f}%, Prefix cache hit rate: {rng.uniform(0, 80):.1f}%")

    def failure(self) -> list[str]:
        failure = self.rng.choice(self.failures)
        self.manifest.append({"line": self.line_no + 1 + failure.root_index, "root_cause": failure.root_cause,
                              "source": failure.source})
        return list(failure.lines)

    def long_line(self) -> str:
        words = " ".join(self.rng.choice(WORDS) for _ in range(LONG_LINE // 5))[:LONG_LINE]
        return self._line("INFO", "logger.py:39", f"Received request cmpl-long: prompt: '{words}', params: None")


def generate(out: BinaryIO, size: int, seed: int, failures: int, ansi: float, json_lines: float,
             long_lines: int, corpus: list[Failure]) -> list[dict]:
    rng = random.Random(seed)
    gen = Generator(rng, corpus, ansi, json_lines)
    # Byte offsets (as fractions of the size) at which failures and long lines are injected.
    failure_at = sorted(rng.random() for _ in range(failures if corpus else 0))
    long_at = sorted(rng.random() for _ in range(long_lines))
    written, next_metrics = 0, 10.0
    batch: list[str] = []
    pending = gen.startup()
    while True:
        if not pending:
            fraction = written / size
            if failure_at and fraction >= failure_at[0]:
                failure_at.pop(0)
                pending = gen.failure() + gen.startup()
            elif long_at and fraction >= long_at[0]:
                long_at.pop(0)
                pending = [gen.long_line()]
            elif gen.clock >= next_metrics:
                next_metrics += 10.0
                pending = [gen.metrics()]
            else:
                pending = gen.request()
        text = "\n".join(pending) + "\n"
        data = text.encode("utf-8")
        if written + len(data) > size:
            break
        batch.append(text)
        written += len(data)
        gen.line_no += len(pending)
        pending = []
        if len(batch) >= 4096:
            out.write("".join(batch).encode("utf-8"))
            batch = []
    out.write("".join(batch).encode("utf-8"))
    return gen.manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100M", help="bytes to write, e.g. 64K, 100M, 1G (default 100M)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--failures", type=int, default=20, help="failure windows injected from the corpus")
    parser.add_argument("--ansi", type=float, default=0.0, help="fraction of ANSI-coloured lines")
    parser.add_argument("--json", type=float, default=0.0, dest="json_lines", help="fraction of JSON log records")
    parser.add_argument("--long-lines", type=int, default=0, help="number of 1 MiB lines")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    parser.add_argument("--manifest", help="write the injected failures (line, root cause, source) as JSON")
    args = parser.parse_args(argv)
    corpus = corpus_failures(catalog_ids()) if args.failures else []
    out = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    try:
        manifest = generate(out, parse_size(args.size), args.seed, args.failures, args.ansi, args.json_lines,
                            args.long_lines, corpus)
    finally:
        if args.output:
            out.close()
    if args.manifest:
        Path(args.manifest).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
