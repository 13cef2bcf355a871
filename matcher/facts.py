"""Typed facts from named regex groups.

Catalog patterns capture numbers as named groups; the name's suffix says the unit the
expressions expect. ``*_gib`` facts are GiB (a captured ``512.00 MiB`` becomes 0.5),
``*_mib`` facts MiB, ``*_bytes`` bytes. Engines print "GB" for what they compute as
bytes / 2**30, so GB is read as GiB. Anything else is an int, a float or a string.
"""

from __future__ import annotations

import math
import re
from typing import Any

_SIZE = re.compile(r"^\s*(-?[\d.]+)\s*(bytes|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB|K|M|G)?\s*$")
_TO_BYTES = {
    None: None, "bytes": 1, "B": 1,
    "KiB": 2**10, "KB": 2**10, "K": 2**10,
    "MiB": 2**20, "MB": 2**20, "M": 2**20,
    "GiB": 2**30, "GB": 2**30, "G": 2**30,
    "TiB": 2**40, "TB": 2**40,
}
_UNIT_SUFFIXES = {"_gib": 2**30, "_mib": 2**20, "_bytes": 1}
MAX_DIGITS = 64  # a longer run of digits is no measurement: it stays text
_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def convert(name: str, raw: str) -> Any:
    """The typed value of a captured group."""
    text = raw.strip().replace(",", "") if raw else raw
    if text and sum(c.isdigit() for c in text) > MAX_DIGITS:
        return raw.strip()
    for suffix, unit in _UNIT_SUFFIXES.items():
        if name.endswith(suffix):
            match = _SIZE.match(text or "")
            if not match:
                return raw
            try:
                number = float(match.group(1))
            except ValueError:  # "98.66.00": digits and dots that are not a number
                return raw
            per = _TO_BYTES[match.group(2)]
            value = number if per is None else number * per / unit
            if not math.isfinite(value):
                return raw
            return int(value) if suffix == "_bytes" else round(value, 4)
    if text and _INT.match(text):
        return int(text)
    if text and _FLOAT.match(text) and math.isfinite(float(text)):
        return float(text)
    if text in ("True", "False"):
        return text == "True"
    return raw.strip() if isinstance(raw, str) else raw


def from_match(groupdict: dict[str, str | None]) -> dict[str, Any]:
    return {k: convert(k, v) for k, v in groupdict.items() if v is not None and v != ""}
