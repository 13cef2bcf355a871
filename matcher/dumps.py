"""Settings as engines print them, read generically: no list of known names.

Every engine dumps its arguments in its own language's literal syntax, and each dump is a
list of ``name <separator> value`` items between brackets:

* vLLM V1 ``non-default args: {'max_model_len': 8192, 'kv_cache_dtype': 'fp8'}`` (a Python dict),
* vLLM V0 ``args: Namespace(model='m', ...)``, SGLang ``server_args=ServerArgs(model_path='m', ...)``
  (Python reprs) and vLLM's ``with config: model='m', ...`` (the same, without brackets),
* TGI ``Args { model_id: "m", max_total_tokens: 2048, ... }`` (Rust's Debug format),
* command lines (``vllm serve m --kv-cache-dtype fp8``, Ollama's runner ``cmd="... --ctx-size 8192"``),
* llama.cpp's one-setting lines (``llama_context: n_ctx = 4096``),
* environment listings (``NAME=value`` lines, ``export``, Ollama's ``env="map[NAME:value ...]"``).

Names are kept as printed, dashes turned into underscores; values become int, float, bool,
None or text. A value whose name says it is a secret is replaced by the redaction mark, and
every text value passes :func:`matcher.redact.redact_secrets`.
"""

from __future__ import annotations

import re
from typing import Any

from .redact import MARK, clip, is_secret_key, redact_secrets

MAX_DUMP = 64 * 1024  # characters of one dump that are read
MAX_ITEMS = 512  # items taken from one dump
MAX_VALUE = 200  # characters kept of one value

_CLOSERS = {"{": "}", "(": ")", "[": "]"}
_NAME = re.compile(r"""^\s*['"]?([A-Za-z_][\w.-]{0,80})['"]?\s*$""")
_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_WRAPPED = re.compile(r"^Some\((.*)\)$", re.S)  # Rust's Option

# Where a dump's items start: after the opening bracket, or after "with config: ".
DUMP_OPENERS = (
    ("non-default args", re.compile(r"non-default args: \{")),
    ("ServerArgs", re.compile(r"\bServerArgs\(")),
    ("Namespace", re.compile(r"\bNamespace\(")),
    ("Args", re.compile(r"\bArgs \{")),
    ("engine config", re.compile(r"with config: ")),
)
_LLAMA_SETTING = re.compile(r"^(?:llama_context|llama_new_context_with_model): +(?P<name>[a-z_]\w{0,40}) *= *(?P<value>\S{1,80})\s*$")
_COMMAND = re.compile(
    r"""(?:^|[\s"'$>/])(?P<program>vllm serve|python3? -m (?:vllm\.entrypoints\.\S+|sglang\.launch_server)|sglang\.launch_server"""
    r"|text-generation-launcher|llama-server|ollama_llama_server runner|ollama runner|trtllm-serve(?: serve)?)(?=\s|$)"
)
_ENV_NAME = re.compile(
    r"(?:PYTORCH_|CUDA_|HIP_|ROCR_|ROCM_|HSA_|VLLM_|NCCL_|OLLAMA_|SGLANG_|GGML_|TRTLLM_|TLLM_|TORCH_|NVIDIA_VISIBLE_DEVICES"
    r"|GPU_DEVICE_ORDINAL|MAX_\w|OMP_NUM_THREADS)[A-Z0-9_]*"
)
_ENV_ASSIGNMENT = re.compile(r"^(?:export\s+)?(?P<name>[A-Z][A-Z0-9_]{1,80})=(?P<value>.*)$")
_ENV_MAP = re.compile(r'env="?map\[(?P<body>.*?)\]"?(?:\s|$)')
_ENV_MAP_ITEM = re.compile(r"(?P<name>[A-Z][A-Z0-9_]{1,80}):(?P<value>\S*(?:\[[^\]]*\])?)")


def value_of(raw: str) -> Any:
    """A printed value as int, float, bool, None or (unquoted, clipped) text."""
    text = raw.strip()
    wrapped = _WRAPPED.match(text)
    if wrapped:
        text = wrapped.group(1).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return clip(text[1:-1], MAX_VALUE)
    if text[:1] in ("'", '"'):  # a quote the cut line never closes
        return clip(text[1:], MAX_VALUE)
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text in ("True", "true", "False", "false"):
        return text.lower() == "true"
    if text in ("None", "none", "null"):
        return None
    return clip(text, MAX_VALUE)


def safe(name: str, value: Any) -> Any:
    """The value as it may be shown: a secret's name hides it, text is redacted."""
    if is_secret_key(name) and value not in (None, "", False):
        return MARK
    return redact_secrets(value) if isinstance(value, str) else value


def parse_items(text: str, start: int) -> dict[str, Any]:
    """``name: value`` / ``name=value`` items from ``text[start:]`` up to the bracket that
    closes the dump (or the end of the text: a dump cut short keeps what it shows)."""
    items: dict[str, Any] = {}
    depth: list[str] = []
    quote = ""
    piece_start = start
    end = min(len(text), start + MAX_DUMP)
    i = start
    while i < end:
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in _CLOSERS:
            depth.append(_CLOSERS[char])
        elif depth and char == depth[-1]:
            depth.pop()
        elif not depth and (char == "," or char in ")}]"):  # an unmatched closer ends the dump too
            _add_item(items, text[piece_start:i])
            piece_start = i + 1
            if char != "," or len(items) >= MAX_ITEMS:
                return items
        i += 1
    _add_item(items, text[piece_start:end])
    return items


def _add_item(items: dict[str, Any], piece: str) -> None:
    cut = _separator(piece)
    if cut < 0:
        return
    name = _NAME.match(piece[:cut])
    if name is None:
        return
    key = name.group(1).replace("-", "_")
    items[key] = safe(key, value_of(piece[cut + 1:]))


def _separator(piece: str) -> int:
    """Where the first ``=`` or ``:`` outside quotes is."""
    quote = ""
    for i, char in enumerate(piece):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "=:":
            return i
    return -1


def argument_dump(message: str) -> tuple[str, dict[str, Any]] | None:
    """The kind of dump a message holds and its items, or None."""
    for kind, opener in DUMP_OPENERS:
        found = opener.search(message)
        if found is not None:
            return kind, parse_items(message, found.end())
    setting = _LLAMA_SETTING.match(message)
    if setting is not None:
        name = setting.group("name")
        return "llama.cpp context", {name: safe(name, value_of(setting.group("value")))}
    return None


def command_line(message: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The flags (``--name value``, ``--name=value``, ``--flag``; a model given first as
    ``model``) and the environment assignments before the program of a pasted server command."""
    found = _COMMAND.search(message)
    if found is None:
        return None
    before = message[:found.start()].split()
    environment = {}
    for word in before:
        assignment = _ENV_ASSIGNMENT.match(word)
        if assignment and _ENV_NAME.fullmatch(assignment.group("name")):
            environment[assignment.group("name")] = str(safe(assignment.group("name"), value_of(assignment.group("value"))))
    words = message[found.end():found.end() + MAX_DUMP].split()
    flags: dict[str, Any] = {}
    i = 0
    if words and not words[0].startswith("-") and found.group("program") == "vllm serve":
        flags["model"] = safe("model", value_of(words[0].strip("\"'")))
        i = 1
    while i < len(words) and len(flags) < MAX_ITEMS:
        word = words[i].strip("\"'")
        i += 1
        if not word.startswith("--") or len(word) < 3:
            continue
        name, equals, value = word[2:].partition("=")
        key = name.replace("-", "_")
        if not _NAME.match(key):
            continue
        if not equals:
            if i < len(words) and not words[i].startswith("-"):
                value = words[i].strip("\"'")
                i += 1
            else:
                value = "True"
        flags[key] = safe(key, value_of(value))
    return flags, environment


def environment(message: str) -> dict[str, str]:
    """Memory-relevant environment variables a message lists: a ``NAME=value`` line (``env``,
    ``export``) or Ollama's ``env="map[NAME:value ...]"``. Other names are left out; a secret's
    value is hidden."""
    found: dict[str, str] = {}
    listing = _ENV_MAP.search(message)
    if listing is not None:
        for item in _ENV_MAP_ITEM.finditer(listing.group("body")):
            name, value = item.group("name"), item.group("value")
            if value and _ENV_NAME.fullmatch(name):
                found[name] = str(safe(name, value_of(value)))
        return found
    assignment = _ENV_ASSIGNMENT.match(message.strip())
    if assignment and _ENV_NAME.fullmatch(assignment.group("name")):
        name = assignment.group("name")
        found[name] = str(safe(name, value_of(assignment.group("value"))))
    return found
