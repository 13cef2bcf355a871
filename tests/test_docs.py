"""`logkb docs` (matcher/commands/docs.py): the committed pages are current and deterministic."""

from __future__ import annotations

from pathlib import Path

from overlays import parse_each_catalog_file_once, ROOT, run, widget_overlay  # noqa: F401 (the fixture is autouse)


DOCS = ROOT / "docs" / "signatures"


def test_committed_docs_are_current(tmp_path: Path) -> None:
    assert run("docs", "--out", tmp_path).exit_code == 0
    generated = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.md")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    assert sorted(committed) == sorted(generated), "docs/signatures is stale: run `logkb docs`"
    stale = [name for name in generated if generated[name] != committed[name]]
    assert not stale, f"docs/signatures is stale ({stale[:3]}): run `logkb docs`"


def test_docs_are_deterministic_and_drop_removed_signatures(tmp_path: Path, catalog) -> None:
    kb = widget_overlay(tmp_path)
    out = tmp_path / "docs"
    first = run("docs", "--catalog", kb, "--out", out)
    snapshot = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    again = run("docs", "--catalog", kb, "--out", out)
    assert "0 file(s) changed" in again.output and first.exit_code == again.exit_code == 0
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == snapshot
    assert len(snapshot) == len(catalog.problems) + 2  # every problem, the overlay's one, the index
    run("docs", "--out", out)
    assert not (out / "zz.pool.widgets.md").exists()
