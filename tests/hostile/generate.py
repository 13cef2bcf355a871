"""Write the hostile-input corpus: inputs that try to crash, hang or blow up logkb, and logs
with planted secrets that no report may echo.

    python tests/hostile/generate.py OUT_DIR [--big]

Everything is generated (nothing here is a real log). ``--big`` adds the 100 MB single line
and the 10^6 identical error lines; the test suite uses them once, the rest everywhere.
"""

from __future__ import annotations

import argparse
import gzip
import random
from pathlib import Path

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 11.75 MiB is free."
FREE = ("ValueError: Free memory on device (6.93/8.0 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 7.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")

# One value per class of secret the reports must never echo.
SECRETS = {
    "hf": "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9",
    "openai": "sk-proj-" + "Zx8Cv7Bn6Ml5Kj4Hg3Fd2Sa1Qw0Er9Ty",
    "aws_id": "AKIA" + "IOSFODNN7EXAMPLQ",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "bearer": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "api_key": "k3y-" + "0123456789abcdef0123",
    "token": "tok-" + "fedcba9876543210fedc",
    "private_key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "BKcwggSjAgEAAoIBAQC7",
    "prompt": "my-confidential-prompt-" + "text-about-project-zebra",
}


def planted_secrets_log() -> str:
    s = SECRETS
    return "\n".join([
        f"INFO 01-01 00:00:00 [arg_utils.py:1] non-default args: {{'model': 'x/y', 'hf_token': '{s['hf']}', 'gpu_memory_utilization': 0.9}}",
        f"ERROR 01-01 00:00:01 [core.py:1] {FREE} HF_TOKEN={s['hf']} OPENAI_API_KEY={s['openai']}",
        f"ERROR 01-01 00:00:02 [core.py:1] {OOM} Authorization: Bearer {s['bearer']} aws_access_key_id={s['aws_id']} aws_secret_access_key={s['aws_secret']}",
        f"ERROR 01-01 00:00:03 [serving.py:1] This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. api_key={s['api_key']} token={s['token']} prompt: '{s['prompt']}'",
        f"INFO 01-01 00:00:04 [logger.py:1] Received request cmpl-1: prompt: '{s['prompt']} CUDA out of memory. Tried to allocate 1 GiB', params: SamplingParams(n=1)",
        f"ERROR 01-01 00:00:05 [x.py:1] RuntimeError: CUDA error: out of memory -----BEGIN PRIVATE KEY----- {s['private_key']} -----END PRIVATE KEY-----",
    ]) + "\n"


def small_cases(rng: random.Random) -> dict[str, bytes]:
    return {
        "empty.log": b"",
        "random-bytes.log": bytes(rng.randrange(256) for _ in range(200_000)),
        "invalid-utf8.log": (b"\xff\xfe\xc3(" + OOM.encode() + b"\xe2\x28\xa1\n") * 50,
        "nul-bytes.log": (b"\x00" * 10 + OOM.encode() + b"\x00\n") * 50,
        "lone-cr.log": (OOM.encode() + b"\r") * 500,
        "crlf.log": (FREE.encode() + b"\r\n") * 50,
        "no-final-newline.log": FREE.encode(),
        "repeated-tracebacks.log": (
            b"Traceback (most recent call last):\n"
            + b'  File "/x/vllm/worker/model_runner.py", line 1, in capture_model\n' * 60
            + b"RuntimeError: CUDA error: out of memory\n"
        ) * 2_000,
        "ansi-storm.log": (b"\x1b[31m\x1b[1m" * 2_000 + OOM.encode() + b"\x1b[0m\n") * 20,
        "deep-json.log": (b'{"log":' * 5_000 + b'"x"' + b"}" * 5_000 + b"\n") * 5,
        "planted-secrets.log": planted_secrets_log().encode(),
        "truncated.log.gz": gzip.compress((FREE + "\n").encode() * 2_000)[:-300],
    }


def big_cases() -> dict[str, bytes]:
    return {
        "single-100mb-line.log": b"x" * (50 * 2**20) + OOM.encode() + b"y" * (50 * 2**20),
        "million-errors.log": b"RuntimeError: CUDA error: out of memory\n" * 1_000_000,
    }


def generate(out: Path, big: bool = False, seed: int = 1) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    cases = small_cases(random.Random(seed))
    if big:
        cases.update(big_cases())
    paths = []
    for name, data in cases.items():
        path = out / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--big", action="store_true")
    args = parser.parse_args()
    for path in generate(args.out, args.big):
        print(path)


if __name__ == "__main__":
    main()
