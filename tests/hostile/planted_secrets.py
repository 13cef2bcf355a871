"""A planted-secret corpus: fake secrets and prompt texts of the right shape, of 54 kinds, on
error lines and on the lines next to them. Nothing here is a real secret: every value is drawn
from a seeded random generator in the shape its issuer uses.

    python tests/hostile/planted_secrets.py OUT_DIR     # one log per kind, and their controls

``planted()`` returns, per kind, the log, a secret-free control log (the same lines with each
secret replaced by a harmless word) and the strings no output of logkb may contain.
"""

from __future__ import annotations

import base64
import random
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
ERRORS = (
    "RuntimeError: CUDA error: out of memory",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.56 GiB of which 11.75 MiB is free.",
    "ValueError: Free memory on device (6.93/8.0 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 7.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
)


@dataclass(frozen=True)
class Plant:
    kind: str
    text: str  # what goes on the line, the secret inside
    secrets: tuple[str, ...]  # what must never come out


def _kinds(rng: random.Random) -> list[Plant]:
    def r(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def words(n: int) -> str:
        return " ".join(r(string.ascii_lowercase, rng.randint(4, 9)) for _ in range(n))

    def one(kind: str, make: Callable[[str], str], secret: str) -> Plant:
        return Plant(kind, make(secret), (secret,))

    aws_id, aws_secret = "AKIA" + r(string.ascii_uppercase + string.digits, 16), r(B64, 40)
    pem = "MII" + r(B64, 60)
    basic = base64.b64encode(f"svc:{r(ALNUM, 14)}".encode()).decode()
    return [
        one("hf", lambda s: f"HF_TOKEN={s}", "hf_" + r(ALNUM, 34)),
        one("hf-hub-env", lambda s: f"HUGGING_FACE_HUB_TOKEN={s}", "hf_" + r(ALNUM, 34)),
        one("openai-project", lambda s: f"OPENAI_API_KEY={s}", "sk-proj-" + r(ALNUM + "_-", 48)),
        one("openai-legacy", lambda s: f"using key {s}", "sk-" + r(ALNUM, 48)),
        one("anthropic", lambda s: f"ANTHROPIC_API_KEY={s}", "sk-ant-api03-" + r(ALNUM + "_-", 60)),
        one("aws-key-id", lambda s: f"aws_access_key_id={s}", "AKIA" + r(string.ascii_uppercase + string.digits, 16)),
        one("aws-secret-json", lambda s: f'{{"AccessKeyId": "ASIA{r(string.ascii_uppercase, 16)}", "SecretAccessKey": "{s}"}}',
            r(B64, 40)),
        Plant("aws-id-colon-secret", f"credentials {aws_id}:{aws_secret} rejected", (aws_id, aws_secret)),
        one("aws-secret-env", lambda s: f"AWS_SECRET_ACCESS_KEY={s}", r(B64, 40)),
        one("aws-session-token", lambda s: f"aws_session_token={s}", "IQoJb3JpZ2luX2Vj" + r(B64, 80)),
        one("github-classic", lambda s: f"git clone with {s}", "ghp_" + r(ALNUM, 36)),
        one("github-fine-grained", lambda s: f"GITHUB_TOKEN={s}", "github_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59)),
        one("github-oauth", lambda s: f"oauth {s}", "gho_" + r(ALNUM, 36)),
        one("gitlab", lambda s: f"CI_JOB_TOKEN {s}", "glpat-" + r(ALNUM, 20)),
        one("slack-bot", lambda s: f"slack {s}", "xoxb-" + r(string.digits, 12) + "-" + r(ALNUM, 24)),
        one("slack-webhook", lambda s: f"notify https://hooks.slack.com/services/{s}",
            f"T{r(string.ascii_uppercase, 8)}/B{r(string.ascii_uppercase, 8)}/{r(ALNUM, 24)}"),
        one("stripe-live", lambda s: f"stripe {s}", "sk_live_" + r(ALNUM, 24)),
        one("stripe-restricted", lambda s: f"stripe {s}", "rk_test_" + r(ALNUM, 24)),
        one("google-api-key", lambda s: f"key={s}", "AIza" + r(ALNUM + "_-", 35)),
        one("google-oauth", lambda s: f"access {s}", "ya29." + r(ALNUM + "_-", 60)),
        Plant("gcp-service-account", '{"type": "service_account", "private_key_id": "' + (kid := r(HEX, 40))
              + '", "private_key": "-----BEGIN PRIVATE KEY-----\\n' + (gk := "MII" + r(B64, 64))
              + '\\n-----END PRIVATE KEY-----\\n", "client_email": "x@y.iam.gserviceaccount.com"}', (kid, gk)),
        one("pem-rsa", lambda s: f"-----BEGIN RSA PRIVATE KEY----- {s} -----END RSA PRIVATE KEY-----", pem),
        one("pem-openssh", lambda s: f"-----BEGIN OPENSSH PRIVATE KEY----- {s} -----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjE" + r(B64, 50)),
        one("jwt", lambda s: f"token {s}", "eyJ" + r(ALNUM, 20) + "." + "eyJ" + r(ALNUM, 30) + "." + r(ALNUM + "_-", 43)),
        one("bearer-quoted", lambda s: f'headers={{"authorization": "Bearer {s}"}}', r(ALNUM, 32)),
        one("bearer-header", lambda s: f"Authorization: Bearer {s}", r(ALNUM + "._-", 40)),
        one("basic-auth", lambda s: f"Authorization: Basic {s}", basic),
        one("url-postgres", lambda s: f"DATABASE_URL=postgres://app:{s}@db.internal:5432/x", r(ALNUM, 16)),
        one("url-redis", lambda s: f"connecting to redis://:{s}@cache:6379/0", r(ALNUM, 16)),
        one("url-https", lambda s: f"Loading model from https://user:{s}@models.example.org/llama", r(ALNUM, 16)),
        one("url-model-load", lambda s: f"Starting to load model https://svc:{s}@hub.example.org/llama-3-8b",
            r(ALNUM, 16)),
        one("url-model-arg", lambda s: f"non-default args: {{'model': 'https://svc:{s}@hub.example.org/m'}}", r(ALNUM, 16)),
        one("url-mongodb", lambda s: f"mongodb+srv://admin:{s}@cluster0.example.net", r(ALNUM, 16)),
        one("cli-api-key-short", lambda s: f"args: --api-key {s} --port 8000", r(ALNUM, 5)),
        one("cli-hf-token", lambda s: f"--hf-token={s}", r(ALNUM, 12)),
        one("api-key-assign", lambda s: f"api_key={s}", "k3y-" + r(HEX, 20)),
        one("token-assign", lambda s: f"token={s}", "tok-" + r(HEX, 20)),
        one("password-assign", lambda s: f"password: {s}", r(ALNUM, 14)),
        one("x-api-key-header", lambda s: f"x-api-key: {s}", r(ALNUM, 32)),
        one("cookie", lambda s: f"Cookie: session={s}", r(ALNUM, 32)),
        one("npm", lambda s: f"//registry.npmjs.org/:_authToken={s}", "npm_" + r(ALNUM, 36)),
        one("pypi", lambda s: f"TWINE_PASSWORD={s}", "pypi-AgEIcHlwaS5vcmc" + r(ALNUM + "_-", 60)),
        one("azure-storage", lambda s: f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
            r(B64, 86) + "=="),
        one("azure-sas", lambda s: f"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={s}&se=2030", r(ALNUM, 43)),
        one("azure-client-secret", lambda s: f"client_secret={s}", r(ALNUM, 3) + "8Q~" + r(ALNUM + "_~.-", 34)),
        one("databricks", lambda s: f"DATABRICKS_HOST=x DATABRICKS_TOKEN {s}", "dapi" + r(HEX, 32)),
        one("sendgrid", lambda s: f"mail {s}", "SG." + r(ALNUM + "_-", 22) + "." + r(ALNUM + "_-", 43)),
        one("wandb-env", lambda s: f"WANDB_API_KEY={s}", r(HEX, 40)),
        one("prompt-vllm", lambda s: f"Received request cmpl-1: prompt: '{s}', params: SamplingParams(n=1)", words(6)),
        one("prompt-tgi", lambda s: f'generate{{parameters=GenerateParameters {{ }} inputs="{s}"}}', words(6)),
        one("prompt-sglang", lambda s: f"GenerateReqInput(text='{s}', sampling_params={{}})", words(6)),
        one("prompt-chat-content", lambda s: f"{{'role': 'user', 'content': '{s}'}}", words(6)),
        one("prompt-messages-json", lambda s: f'"messages": [{{"role": "user", "content": "{s}"}}]', words(6)),
        one("prompt-equals", lambda s: f'prompt="{s}"', words(6)),
    ]


def planted(seed: int = 7) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """Per kind: (log, control log, the secrets). The log has the secret at the end of an
    error line and on an INFO line just before another error line; the control log is the
    same with each secret replaced by a harmless word, so a scan of both must find the same."""
    out = {}
    for i, plant in enumerate(_kinds(random.Random(seed))):
        error = ERRORS[i % len(ERRORS)]
        clean = plant.text
        for secret in plant.secrets:
            clean = clean.replace(secret, "placeholder")
        logs = [
            f"INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.6.3\n"
            f"ERROR 01-01 00:00:01 [core.py:1] {error} {text}\n"
            f"INFO 01-01 00:00:02 [serving.py:1] {text}\n"
            f"ERROR 01-01 00:00:03 [core.py:2] {error}\n"
            for text in (plant.text, clean)
        ]
        out[plant.kind] = (logs[0], logs[1], plant.secrets)
    return out


def write(folder: Path, seed: int = 7) -> dict[str, tuple[str, ...]]:
    """One log per kind (``<kind>.log``) and its control (``control/<kind>.log``); the secrets."""
    (folder / "control").mkdir(parents=True, exist_ok=True)
    secrets = {}
    for kind, (log, control, values) in planted(seed).items():
        (folder / f"{kind}.log").write_text(log, encoding="utf-8")
        (folder / "control" / f"{kind}.log").write_text(control, encoding="utf-8")
        secrets[kind] = values
    return secrets


def leaks(output: str, secrets: dict[str, tuple[str, ...]], window: int = 10) -> list[str]:
    """The kinds whose secret, or any ``window`` characters of it, appear in ``output``."""
    found = []
    for kind, values in secrets.items():
        for value in values:
            pieces = {value[i:i + window] for i in range(max(1, len(value) - window + 1))}
            if any(piece in output for piece in pieces):
                found.append(kind)
                break
    return found


if __name__ == "__main__":
    kinds = write(Path(sys.argv[1]))
    print(f"{len(kinds)} kinds: {', '.join(kinds)}")
