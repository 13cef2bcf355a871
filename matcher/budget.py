"""The resource budget of catalog evaluation: what one catalog can make logkb compute.

A catalog is data, but an overlay comes from anyone, so everything it makes logkb do is
bounded: the size of an expression's values (a power tower would take hours and gigabytes),
the width and precision of a ``{name:spec}`` placeholder and the length of a filled text,
the characters a text may carry to a terminal, and the total time overlay regexes may search
in one scan (each search also has its own time limit). Going over a budget is an error that
names the file and key, reported like any other catalog error (exit 2).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

MAX_INT_BITS = 1024  # a value of an expression: beyond a float's range is no quantity a fix needs
MAX_FORMAT = 64  # width or precision of a format spec
MAX_TEXT = 8192  # characters of one filled text
REGEX_SECONDS_PER_LINE = 0.25  # one overlay regex on one line
REGEX_SECONDS_PER_SCAN = 5.0  # all overlay regexes, one input

_SPEC_NUMBERS = re.compile(r"(\d+)")
# C0 controls but tab and newline, DEL, and the C1 range (CSI U+009B starts terminal escapes).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class BudgetError(Exception):
    """A catalog went over a budget; the message says which and by how much."""


def check_int(value: Any) -> Any:
    """``value``, unless it is an integer over MAX_INT_BITS bits."""
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise BudgetError(f"expression value over the {MAX_INT_BITS}-bit budget")
    return value


def check_power(base: Any, exponent: Any) -> None:
    """Refuse an integer power whose result would be over MAX_INT_BITS bits, before computing it."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if (abs(base).bit_length() - 1) * exponent > MAX_INT_BITS:
            raise BudgetError(f"expression value over the {MAX_INT_BITS}-bit budget")


def check_spec(spec: str) -> None:
    """Refuse a format spec asking for more than MAX_FORMAT characters of width or precision."""
    for number in _SPEC_NUMBERS.findall(spec):
        if len(number) > 3 or int(number) > MAX_FORMAT:
            raise BudgetError(f"format spec {spec!r} is over the width and precision budget of {MAX_FORMAT}")


def check_text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise BudgetError(f"filled text of {len(text)} characters, over the {MAX_TEXT}-character budget")
    return text


def text_problems(doc: Any) -> Iterator[tuple[str, str]]:
    """(key, problem) for each string of a catalog document that is over the text budget,
    holds a control character (a terminal escape), or, outside ``match``, a placeholder whose
    format spec is over the budget."""
    import string

    for key, text in _strings(doc, ""):
        if len(text) > MAX_TEXT:
            yield key, f"text of {len(text)} characters, over the {MAX_TEXT}-character budget"
            continue
        control = _CONTROL.search(text)
        if control:
            yield key, f"control character U+{ord(control.group()):04X} is not allowed"
            continue
        if key.startswith("match"):
            continue  # regexes, not templates: their braces are repeats
        try:
            fields = [spec for _, name, spec, _ in string.Formatter().parse(text) if name is not None and spec]
        except ValueError:
            continue  # not a template: shown as written
        for spec in fields:
            try:
                check_spec(spec)
            except BudgetError as exc:
                yield key, str(exc)
                break


def _strings(doc: Any, key: str) -> Iterator[tuple[str, str]]:
    if isinstance(doc, str):
        yield key, doc
    elif isinstance(doc, dict):
        for name, value in doc.items():
            yield from _strings(name, key) if isinstance(name, str) else iter(())
            yield from _strings(value, f"{key}.{name}" if key else str(name))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _strings(value, f"{key}[{i}]")


class RegexBudget:
    """The time overlay regexes have left in the current scan (restarted by each scan)."""

    def __init__(self, seconds: float = REGEX_SECONDS_PER_SCAN) -> None:
        self.seconds = seconds
        self.spent = 0.0

    def restart(self) -> None:
        self.spent = 0.0

    def search(self, pattern: Any, text: str, sig: Any) -> Any:
        """``pattern.search(text)`` within the per-line limit, charged to the scan's total; a
        search that times out counts as no match. ``sig``: the catalog Signature it is from."""
        began = time.perf_counter()
        try:
            return pattern.search(text, timeout=REGEX_SECONDS_PER_LINE)
        except TimeoutError:
            return None
        finally:
            self.spent += time.perf_counter() - began
            if self.spent > self.seconds:
                source = getattr(pattern, "source", None) or getattr(pattern, "pattern", "")
                raise BudgetError(f"{sig.path}: {sig.regex_key(source)}: overlay regexes took over "
                                  f"{self.seconds:g} s in one scan (the budget per input)")


REGEX = RegexBudget()
