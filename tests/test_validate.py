"""`logkb validate` (matcher/commands/validate.py): one precise line per broken input, exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from overlays import dump, parse_each_catalog_file_once, run, signature, widget_overlay  # noqa: F401 (the fixture is autouse)


def _widgets(tmp: Path, *docs: dict[str, Any], **options: Any) -> Path:
    """An overlay; the file the validate message must name (the widget signature's)."""
    return widget_overlay(tmp, *docs, **options) / "any" / "widgets.yaml"


def _duplicate(tmp: Path) -> Path:
    dump(_widgets(tmp).parent / "copy.yaml", signature())
    return tmp / "kb" / "any" / "widgets.yaml"  # loaded after copy.yaml, so the one reported


def _shadowed(tmp: Path) -> Path:
    """zz.pool.left's only example is a log where zz.pool.widgets (an error) is the root cause."""
    left = signature("zz.pool.left", r"requested \d+ widgets, (?P<left>\d+) left", severity="warning")
    return _widgets(tmp, signature(status="deprecated"), left, example="zz.pool.left").parent / "left.yaml"


BROKEN = {
    "bad regex": (lambda tmp: _widgets(tmp, signature(regex=r"Widget pool (exhausted")),
                  "match.patterns[0].regex", "does not compile"),
    "lookbehind": (lambda tmp: _widgets(tmp, signature(regex=r"(?<=ERROR )Widget pool exhausted")),
                   "match.patterns[0].regex", "look-behind"),
    "RE2 repetition limit": (
        lambda tmp: _widgets(tmp, signature(regex=r"exhausted: requested (?P<widgets>\d+).{0,5000}?left")),
        "match.patterns[0].regex", "repeat count above 1000"),
    "unknown fact": (lambda tmp: _widgets(tmp, signature(checks=[
        {"id": "size", "title": "Large?", "look": "Look.", "fails_when": "gizmos_requested > 2"}])),
        "checks[0].fails_when", "unknown fact 'gizmos_requested'"),
    "duplicate id": (_duplicate, "id", "already defined"),
    "missing example": (lambda tmp: _widgets(tmp, example=None), "examples", "no positive corpus example"),
    "no fixes": (lambda tmp: _widgets(tmp, signature(fixes=[])), "fixes", "at least one entry"),
    "shadowed": (_shadowed, "examples", "never the root cause"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_validate_broken_input_gives_exit_2_and_one_line(tmp_path: Path, case: str) -> None:
    make, key, words = BROKEN[case]
    path = make(tmp_path)
    result = run("validate", tmp_path / "kb")
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}: {key}: "), lines[0]
    assert words in lines[0]


def test_validate_accepts_the_valid_overlay_and_single_files(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path)
    assert run("validate", kb).exit_code == 0
    assert run("validate", kb / "any" / "widgets.yaml").exit_code == 0


def test_validate_skips_corpus_checks_without_a_corpus_unless_given(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path / "a", example=None)
    lone = tmp_path / "lone"
    shutil.copytree(kb, lone)
    assert run("validate", lone).exit_code == 0
    result = run("validate", lone, "--corpus", tmp_path / "a" / "corpus")
    assert result.exit_code == 2
    assert "no positive corpus example" in result.stdout


def test_validate_accepts_examples_listed_in_the_signature(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path, signature(examples=["corpus/any/widgets.log"]), example=None)
    assert run("validate", kb).exit_code == 0, run("validate", kb).output
    dump(kb / "any" / "widgets.yaml", signature(examples=["corpus/any/missing.log"]))
    result = run("validate", kb)
    assert result.exit_code == 2 and "examples[0]: 'corpus/any/missing.log' is not a file" in result.stdout
