"""Turn a raw log line into the message text that signatures match.

Logs reach logkb wrapped in whatever the platform adds: ANSI colours, Docker Compose
service prefixes (``vllm-1  | ``), Kubernetes CRI, ``kubectl --timestamps`` and
``kubectl logs --prefix`` prefixes, vLLM's process tags (``(EngineCore_DP0 pid=1)``),
logging headers, and JSON log records.
Patterns are written against the engine's own message, so the wrapping goes first.
"""

from __future__ import annotations

import json
import re

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Prefixes that wrap a message, stripped repeatedly from the start of the line.
_PREFIXES = re.compile(
    r"""^(?:
      [\w.-]{1,64}\ +\|\ ?                                                   # docker compose: "vllm-1  | ", "ollama  | "
    | \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\ (?:std(?:out|err)\ [FP]\ )?  # k8s CRI / kubectl
    | \[pod/[\w.-]{1,253}/[\w.-]{1,63}\]\                                    # kubectl logs --prefix: "[pod/vllm-0/vllm] "
    | \[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?:\ [\w-]{1,16}){0,3}\]\ ?  # SGLang "[2024-01-01 00:00:00 TP0]"
    | \(\w[\w-]{0,63}(?:\ \w{1,16}=\w{1,32}){0,3}\)\ ?                    # vLLM "(EngineCore_DP0 pid=1)", "(VllmWorker rank=3 pid=9)"
    | (?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\ \d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?\ (?:\[[^\]]{1,80}\]|[\w./-]{1,80}:\d+\])\ ?  # vLLM logging header
    )""",
    re.VERBOSE,
)

_JSON_MESSAGE_KEYS = ("message", "msg", "log", "MESSAGE", "textPayload", "text")

def normalize(line: str) -> str:
    """The message a line carries, without colour codes, wrappers or JSON framing."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = line.rstrip("\r\n")
    stripped = line.lstrip()
    if stripped.startswith("{") and stripped.endswith("}"):
        line = _json_message(stripped, depth=0) or line
    previous = None
    while previous != line:
        previous = line
        line = _PREFIXES.sub("", line, count=1)
    return line


def _json_message(text: str, depth: int) -> str | None:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return None
    if not isinstance(record, dict):
        return None
    fields = record.get("fields")
    candidates = [record] + ([fields] if isinstance(fields, dict) else [])
    for holder in candidates:
        for key in _JSON_MESSAGE_KEYS:
            value = holder.get(key)
            if isinstance(value, str):
                value = value.rstrip("\r\n")
                inner = value.strip()
                if depth == 0 and inner.startswith("{") and inner.endswith("}"):
                    return _json_message(inner, depth + 1) or value
                return value
    return None
