"""Keep secrets and user prompts out of everything logkb prints or writes.

Two passes, one module:

* :func:`redact` is for text copied from a log (evidence lines, string facts, a line a new
  signature is drawn from): secrets of a known shape, the value of any key, flag or header
  whose name says it is a secret, passwords in URLs, and the text of prompts.
* :func:`scrub` runs over everything logkb writes (reports, ``watch``'s stderr, run records,
  signature files): the secrets of a known shape and URL passwords, which no catalog text
  has, so it cannot damage a report. It catches what reached the output by any other path.

Redaction is on by default; ``logkb scan --no-redact`` turns both off. Every pattern is a
bounded or single-pass regex (no nested unbounded repeats), so a hostile line costs linear time.
"""

from __future__ import annotations

import re
from typing import Any

from .normalize import ERRORISH_WORDS


class _OnFirstUse:
    """A regex compiled when first used: a run that writes no secret-shaped text never needs
    most of the patterns below, and compiling them all at import costs every start-up a few
    milliseconds. Methods (``sub``, ``search``, ...) are looked up on the compiled pattern once
    and kept."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags

    def __getattr__(self, name: str) -> Any:
        method = getattr(re.compile(self._source, self._flags), name)
        setattr(self, name, method)
        return method


MARK = "[REDACTED]"
PROMPT_MARK = "[REDACTED-PROMPT]"
MAX_EVIDENCE = 400

# Secrets recognisable by their shape alone.
_SHAPES = _OnFirstUse("|".join([
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\[nr])*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?",
    r"\bhf_[A-Za-z0-9]{20,}",  # Hugging Face
    r"\bsk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-)?[A-Za-z0-9_-]{16,}",  # OpenAI, Anthropic
    r"\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}", r"\bwhsec_[A-Za-z0-9]{20,}",  # Stripe
    r"\b(?:AKIA|ASIA|AROA|AIDA)[0-9A-Z]{16}\b(?::[A-Za-z0-9/+=]{20,})?",  # AWS key id[:secret]
    r"\bgh[pousr]_[A-Za-z0-9]{30,}", r"\bgithub_pat_[A-Za-z0-9_]{22,}", r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}", r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{10,}",  # Slack
    r"\bAIza[0-9A-Za-z_-]{35}", r"\bya29\.[0-9A-Za-z_-]{20,}",  # Google API key, OAuth token
    r"\bnpm_[A-Za-z0-9]{36}", r"\bpypi-[A-Za-z0-9_-]{50,}",  # npm, PyPI
    r"\b[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",  # Azure AD client secret
    r"\bdapi[0-9a-f]{32}", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", r"\br8_[A-Za-z0-9]{37}",
    r"\bgsk_[A-Za-z0-9]{40,}",  # Databricks, SendGrid, Replicate, Groq
    r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWT
]))
# Every shape above contains one of these; a text without any of them skips the alternation,
# which Python's regex engine would otherwise try at every position.
_SHAPE_MARKS = ("-----BEGIN", "hf_", "sk-", "k_live_", "k_test_", "whsec_", "AKIA", "ASIA", "AROA", "AIDA",
                "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "hooks.slack.com",
                "AIza", "ya29.", "npm_", "pypi-", "Q~", "dapi", "SG.", "r8_", "gsk_", "eyJ")
_BEARER = _OnFirstUse(r"(?i)(\bbearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}")
# user:password@ in a URL (postgres://, redis://:pw@, https://...): the password goes.
_URL_PASSWORD = _OnFirstUse(r"(?i)(\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@'\"]{0,100}:)[^\s/@'\"]{1,200}@")

# key=value, key: value, "key": "value", Authorization: Bearer x, --flag value.
_KEYED = _OnFirstUse(
    r"(?P<key>[A-Za-z_][A-Za-z0-9_.-]{0,63})(?P<sep>['\"]?[ \t]{0,4}[:=][ \t]{0,4}['\"]?"
    r"(?:(?i:bearer|basic|token)[ \t]+)?)(?P<value>[^\s'\",;}\])&\[][^\s'\",;}\])&]*)"
)
_FLAG = _OnFirstUse(r"(?P<key>--[A-Za-z][A-Za-z0-9-]{0,63})(?P<sep>[ \t]+['\"]?)(?P<value>[^\s'\"]+)")
_SECRET_WORDS = frozenset({
    "token", "secret", "password", "passwd", "pwd", "apikey", "accesskey", "privatekey", "accountkey",
    "credential", "credentials", "auth", "authorization", "signature", "sig", "sas", "cookie", "bearer",
})
_KEY_QUALIFIERS = frozenset({"api", "access", "private", "account", "auth", "master", "encryption", "signing",
                             "shared", "subscription", "secret", "session"})
_KEY_PARTS = _OnFirstUse(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_NUMBER = _OnFirstUse(r"-?[\d.]+[A-Za-z%]{0,3}")

# The text of a prompt or chat message: "prompt": "...", inputs="...", text='...', 'content': '...',
# prompt_token_ids: [...]. A quote that does not close (a clipped line) runs to the end.
_PROMPT_KEYS = r"(?:prompts?|prompt_token_ids|inputs?|input_ids|text|content|messages|query|instructions?)"
_PROMPT = _OnFirstUse(
    r"(?P<key>(?<![\w-])(?:system_)?" + _PROMPT_KEYS + r")(?P<sep>['\"]?[ \t]{0,4}[:=][ \t]{0,4})"
    r"(?P<value>'(?:[^'\\]|\\.)*(?:'|$)|\"(?:[^\"\\]|\\.)*(?:\"|$)|\[[^\]'\"]*\]|\[.*)",
    re.S,
)
_REQUEST_ECHO = _OnFirstUse(r"Received request \S{1,200}: prompt: ")
# Where a prompt may start: the key without its look-behind, whose literal first letters let the
# regex engine skip ahead; _PROMPT is then tried only at these places.
_PROMPT_KEY = _OnFirstUse(_PROMPT_KEYS + r"['\"]?[ \t]{0,4}[:=]")


def redact(text: str, limit: int | None = MAX_EVIDENCE) -> str:
    """Mask secrets and the text of any prompt in a log line; cut it to ``limit`` characters."""
    masked = _mask_prompts(redact_secrets(text))
    return masked if limit is None else clip(masked, limit)


def redact_secrets(text: str) -> str:
    """Mask secrets (but not prompts) in text copied from a log."""
    text = scrub(text)
    text = _KEYED.sub(_keyed_value, text)
    return _FLAG.sub(_keyed_value, text)


def scrub(text: str) -> str:
    """Mask the secrets of a known shape and URL passwords, anywhere in what logkb writes."""
    if any(mark in text for mark in _SHAPE_MARKS):
        text = _SHAPES.sub(MARK, text)
    if "bearer" in text.lower():
        text = _BEARER.sub(lambda m: m.group(1) + MARK, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: m.group(1) + MARK + "@", text)
    return text


def prompt_free(text: str) -> str | None:
    """A log line with the text of its prompts removed, so that a prompt that talks about an
    error is never taken for one while an error on the same line is still found; None for a
    request echo with nothing else on it."""
    if not _PROMPT_KEY.search(text):  # a cheap look first: most lines name no prompt field
        return text
    stripped = _cut_request_echo(text, "")
    if stripped is text:  # a vLLM request echo holds nothing else a user wrote but token ids
        stripped = _sub_prompts(text, "")
    if stripped == text:
        return text
    lowered = stripped.lower()
    if not any(word in lowered for word in ERRORISH_WORDS):
        return None
    return stripped


def is_secret_key(key: str) -> bool:
    """Whether a key, flag or variable name names a secret: hf_token, SecretAccessKey,
    OPENAI_API_KEY, --api-key (but not max_num_batched_tokens or tokenizer)."""
    parts = [p.lower() for p in _KEY_PARTS.findall(key)]
    if any(p in _SECRET_WORDS for p in parts):
        return True
    return any(a in _KEY_QUALIFIERS and b == "key" for a, b in zip(parts, parts[1:]))


def _keyed_value(match: re.Match[str]) -> str:
    value = match.group("value")
    if value == MARK or _NUMBER.fullmatch(value) or not is_secret_key(match.group("key")):
        return match.group(0)
    return match.group("key") + match.group("sep") + MARK


def _mask_prompts(text: str) -> str:
    return _sub_prompts(_cut_request_echo(text, PROMPT_MARK), PROMPT_MARK)


def _sub_prompts(text: str, inner: str) -> str:
    """``_PROMPT.sub`` with each value replaced by ``inner`` in its quotes, trying the pattern
    only where :data:`_PROMPT_KEY` finds a key (a plain ``sub`` costs tens of microseconds on
    every long line)."""
    parts: list[str] = []
    done = 0
    for key in _PROMPT_KEY.finditer(text):
        start = key.start()
        if start < done:
            continue
        if text.endswith("system_", 0, start):
            start -= len("system_")
        match = _PROMPT.match(text, start)
        if match is None:
            continue
        parts += [text[done:start], match.group("key"), match.group("sep"), _quote(match.group("value"), inner)]
        done = match.end()
    return "".join(parts) + text[done:] if parts else text


def _cut_request_echo(text: str, inner: str) -> str:
    """vLLM's request log ('Received request ID: prompt: ..., params: ...'): everything between
    'prompt: ' and the parameters is the prompt, whatever quotes it holds."""
    match = _REQUEST_ECHO.search(text)
    if match is None:
        return text
    end = text.find(", params: ", match.end())
    return text[:match.end()] + "'" + inner + "'" + (text[end:] if end >= 0 else "")


def _quote(value: str, inner: str = "") -> str:
    """The value's quotes or brackets around ``inner``."""
    opening = value[0]
    closing = {"[": "]"}.get(opening, opening)
    return opening + inner + (closing if len(value) > 1 and value.endswith(closing) else "")


def clip(text: str, limit: int = MAX_EVIDENCE) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 20] + f" ...[{len(text) - limit + 20} more chars]"
