"""`logkb explain` (matcher/commands/explain.py): a signature as a page, or found by text."""

from __future__ import annotations

from pathlib import Path

from overlays import dump, parse_each_catalog_file_once, run, signature, widget_overlay  # noqa: F401 (the fixture is autouse)


SECTIONS = ("WHAT IT MEANS", "PHASE", "WHY IT HAPPENS", "CHECKS", "FIXES, IN ORDER", "HOW TO VERIFY",
            "REFERENCES", "VERSIONS AND ENGINES", "STATUS", "RELATED")


def test_explain_an_id_prints_the_fixed_sections(catalog) -> None:
    sig = sorted(catalog.problems, key=lambda s: s.id)[0]
    result = run("explain", sig.id)
    assert result.exit_code == 0
    headers = [line for line in result.stdout.splitlines() if line in SECTIONS]  # a header is a line of its own
    assert headers == list(SECTIONS)
    assert sig.fixes[0].title.split()[0] in result.stdout


def test_explain_by_message_text_finds_the_signature(catalog) -> None:
    sig = next(s for s in sorted(catalog.problems, key=lambda s: s.id) if s.fuzzy)
    query = sig.fuzzy[0].template
    result = run("explain", query)
    assert result.exit_code == 0
    hits = [line.split() for line in result.stdout.split("\n\n")[0].splitlines()[1:]]
    assert float(hits[0][0]) == 100.0
    assert any(h[1] == sig.id and float(h[0]) == 100.0 for h in hits)


def test_explain_unknown_text_exits_2() -> None:
    result = run("explain", "qqqq zzzz xxxx")
    assert result.exit_code == 2


def test_explain_shows_related_links(tmp_path: Path, catalog) -> None:
    other = sorted(catalog.problems, key=lambda s: s.id)[0]
    kb = widget_overlay(tmp_path, signature(related=[{"id": other.id, "type": "similar"}]))
    result = run("explain", "--catalog", kb, "zz.pool.widgets")
    related = result.stdout.split("RELATED", 1)[1]
    assert other.id in related and other.title.split()[0] in related and "similar" in related
