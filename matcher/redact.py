"""Keep secrets and user prompts out of everything logkb prints.

Evidence lines are copied from logs into reports, CI annotations and PR comments, so tokens
and keys that a log happens to contain must not travel with them. Redaction is on by
default; ``--no-redact`` turns it off.
"""

from __future__ import annotations

import re

MARK = "[REDACTED]"
MAX_EVIDENCE = 400

_SECRETS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
]
_KEYED = re.compile(
    r"(?i)(\b(?:authorization|bearer|api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd"
    r"|aws_secret_access_key|hf_token|hugging_face_hub_token|openai_api_key)\b['\"]?\s*[:=]?\s*(?:bearer\s+)?['\"]?)"
    r"([^\s'\",;}]{6,})"
)
_PROMPT = re.compile(r"""(?i)(\bprompt(?:_token_ids)?\b['"]?\s*[:=]\s*)(['"\[]).*""")


def redact(text: str) -> str:
    """Mask secrets and the text of any prompt; cut very long evidence."""
    for pattern in _SECRETS:
        text = pattern.sub(MARK, text)
    text = _KEYED.sub(lambda m: m.group(1) + MARK, text)
    text = _PROMPT.sub(lambda m: m.group(1) + m.group(2) + "[prompt redacted]", text)
    return clip(text)


def clip(text: str, limit: int = MAX_EVIDENCE) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 20] + f" ...[{len(text) - limit + 20} more chars]"
