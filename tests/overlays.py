"""Helpers the CLI tests of the contributor's commands share: an overlay catalog of widget
signatures with a corpus beside it, and a signature loader that parses each catalog file once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

import matcher.catalog.load as catalog_load
import matcher.commands.validate as validate_module
from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
_LOAD_SIGNATURE = catalog_load.load_signature
_SIGNATURES: dict[tuple[Any, ...], Any] = {}
WIDGET_LINE = "ERROR 05-01 10:00:00 [pool.py:12] Widget pool exhausted: requested 3 widgets, 0 left"


@pytest.fixture(autouse=True)
def parse_each_catalog_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command here loads the built-in catalog again; reuse the compiled signature of a
    file whose path and bytes are unchanged (a broken file raises and is never kept)."""
    for module in (catalog_load, validate_module):
        monkeypatch.setattr(module, "load_signature", _cached_load_signature)


def _cached_load_signature(path: Path, validator: Any = None, reviewed: bool = False, shared: Any = None) -> Any:
    parts = None if shared is None else repr(shared)  # an edit of a shared part is a new key
    key = (str(Path(path).resolve()), Path(path).read_bytes(), reviewed, parts)
    if key not in _SIGNATURES:
        _SIGNATURES[key] = _LOAD_SIGNATURE(path, validator, reviewed, shared)
    return _SIGNATURES[key]


def run(*args: Any, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def dump(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=4096), encoding="utf-8")
    return path


def signature(sig_id: str = "zz.pool.widgets", regex: str = r"Widget pool exhausted: requested (?P<widgets>\d+)",
              **fields: Any) -> dict[str, Any]:
    doc = {
        "schema_version": 1, "id": sig_id, "title": "Widget pool exhausted", "kind": "problem",
        "severity": "error", "status": "experimental", "engines": [{"name": "any"}],
        "match": {"patterns": [{"regex": regex}]},
        "summary": "The widget pool ran dry.", "cause": "More widgets were requested than the pool holds.",
        "checks": [{"id": "size", "title": "Is the request large?", "look": "Compare the request with the pool.",
                    "fails_when": "widgets > 2"}],
        "fixes": [{"id": "smaller", "title": "Ask for fewer widgets", "change": "Request at most 2 widgets",
                   "tradeoff": "Less work per step."}],
        "verify": "The next log has no 'Widget pool exhausted'.",
        "references": [{"url": "https://example.org/widgets", "title": "Widgets"}],
    }
    doc.update(fields)
    return doc


def widget_overlay(tmp_path: Path, *docs: dict[str, Any], example: str | None = "zz.pool.widgets") -> Path:
    """tmp/kb with the given signatures, and tmp/corpus beside it with one widget log whose
    sidecar expects ``example``."""
    kb = tmp_path / "kb"
    for doc in docs or (signature(),):
        dump(kb / "any" / f"{doc['id'].rsplit('.', 1)[-1]}.yaml", doc)
    dump(kb / "facts.yaml", {"facts": {name: {"unit": "count", "engines": ["any"], "meaning": f"widgets {name}"}
                                       for name in ("widgets", "left")}})
    log = tmp_path / "corpus" / "any" / "widgets.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"INFO starting\n{WIDGET_LINE}\n", encoding="utf-8")
    if example is not None:
        dump(log.with_suffix(".yaml"), {"generated_by": "tests/overlays.py", "engine": "any", "kind": "failure",
                                        "expect": {"root_cause": example, "line": 2}})
    return kb


def fill_placeholders(value: Any) -> Any:
    if isinstance(value, str):
        return "https://example.org/thread" if value.startswith("https://TODO") else value.replace("TODO", "Done")
    if isinstance(value, dict):
        return {k: fill_placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_placeholders(v) for v in value]
    return value


def real_number_line() -> tuple[Path, int]:
    """A real line with sizes in GiB from a healthy vLLM log: no built-in problem signature
    matches it, so a new signature on it is the root cause of its log."""
    for log in sorted((CORPUS / "healthy").glob("healthy-vllm--*.log")):
        # numbered as logkb numbers lines: by newline ('\r' in a progress bar ends no line)
        for number, line in enumerate(log.read_bytes().decode("utf-8").split("\n"), 1):
            if re.search(r"\d+(?:\.\d+)? ?GiB", line):
                return log, number
    raise AssertionError("the corpus has no healthy vLLM log with a GiB figure")

