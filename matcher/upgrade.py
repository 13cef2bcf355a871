"""Bring a signature file written for an older schema version to the current one.

The loader calls :func:`upgrade` on every file before schema validation, so files written
for a previous ``schema_version`` keep loading. Each step converts version N to N + 1 and
is a small pure function over the parsed YAML; nothing is written back to disk.

Version 0 is version 1 with two older key names: ``phase_marker`` (now ``enters_phase``)
and, in checks, ``when_facts`` (now ``fails_when``). Version 1 says ``kind: fact`` for three
things that version 2 names apart: a traceback-frame map (``scope: frame``) is ``frame-map``,
an entry that moves the run into a phase (``enters_phase``) is ``phase-marker``, and one that
only reads values is ``extractor``; ``scope`` is gone (a frame map is the only frame entry).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Document = dict[str, Any]


def _from_0(doc: Document) -> Document:
    renamed = {("enters_phase" if key == "phase_marker" else key): value for key, value in doc.items()}
    checks = renamed.get("checks")
    if isinstance(checks, list):
        renamed["checks"] = [
            {("fails_when" if key == "when_facts" else key): value for key, value in check.items()}
            if isinstance(check, dict) else check
            for check in checks
        ]
    return renamed


def _from_1(doc: Document) -> Document:
    if doc.get("kind") != "fact":
        return doc
    upgraded = {key: value for key, value in doc.items() if key != "scope"}
    if doc.get("scope") == "frame":
        upgraded["kind"] = "frame-map"
    elif "enters_phase" in doc:
        upgraded["kind"] = "phase-marker"
    else:
        upgraded["kind"] = "extractor"
    return upgraded


# from-version -> the step that produces from-version + 1
_STEPS: dict[int, Callable[[Document], Document]] = {0: _from_0, 1: _from_1}


def upgrade(doc: Any, target: int) -> Any:
    """``doc`` converted step by step to ``target``; anything else is returned unchanged
    (a missing or unknown ``schema_version`` is for schema validation to report)."""
    if not isinstance(doc, dict):
        return doc
    version = doc.get("schema_version")
    while isinstance(version, int) and not isinstance(version, bool) and version < target and version in _STEPS:
        doc = {**_STEPS[version](doc), "schema_version": version + 1}
        version += 1
    return doc
