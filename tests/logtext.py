"""An input's bytes, text and lines as logkb reads them, for tests that rewrap or re-slice logs."""

from __future__ import annotations

from pathlib import Path

from matcher.read import UTF16_BOMS


def as_read(data: bytes) -> bytes:
    """What logkb's reader hands on for an input: its bytes, or a UTF-16 input's text in UTF-8."""
    return data.decode("utf-16", "replace").encode("utf-8") if data[:2] in UTF16_BOMS else data


def log_text(path: Path, errors: str = "surrogateescape") -> str:
    """UTF-16 by its byte-order mark (what Windows PowerShell's '>' writes), else UTF-8, with
    bytes that do not decode handled by ``errors``."""
    data = path.read_bytes()
    return data.decode("utf-16", errors) if data[:2] in UTF16_BOMS else data.decode("utf-8", errors)


def log_lines(path: Path, keepends: bool = False, errors: str = "surrogateescape") -> list[str]:
    """The lines as logkb numbers them: split at newlines only, so that a progress bar's
    carriage returns stay inside their line."""
    parts = log_text(path, errors).split("\n")
    ending = "\n" if keepends else ""
    return [part + ending for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
