"""Files written for an older schema version keep loading: matcher/upgrade.py converts them
step by step (0 -> 1 -> 2) before validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from matcher.catalog import CatalogError, load_catalog
from matcher.cli import main
from matcher.upgrade import upgrade
from overlays import dump, parse_each_catalog_file_once, run, signature, widget_overlay  # noqa: F401

LOG = """\
INFO Widget pool size 40
INFO Widget pool ready
Traceback (most recent call last):
  File "/app/pool.py", line 10, in fill_widgets
    pool.fill()
RuntimeError: Widget pool exhausted: requested 12
"""


def entry(sig_id: str, regex: str, **fields: Any) -> dict[str, Any]:
    return {"schema_version": 1, "id": sig_id, "title": f"Entry {sig_id}", "status": "stable",
            "engines": [{"name": "any"}], "match": {"patterns": [{"regex": regex}]}, **fields}


PROBLEM = entry("zz.pool.widgets", r"Widget pool exhausted: requested (?P<widgets>\d+)", kind="problem",
                severity="error", summary="The pool ran dry.", cause="Too many widgets.", checks=[],
                fixes=[{"id": "fewer", "title": "Ask for fewer", "change": "Request fewer widgets",
                        "tradeoff": "Less work per step."}],
                verify="No 'Widget pool exhausted'.", references=[{"url": "https://example.org/widgets"}])
# Version 1's three meanings of kind: fact
EXTRACTOR = entry("zz.info.pool-size", r"Widget pool size (?P<pool_size>\d+)", kind="fact")
MARKER = entry("zz.phase.pool-ready", r"Widget pool ready", kind="fact", enters_phase="serving")
FRAME_MAP = entry("zz.frame.fill", r"in fill_widgets\b", kind="fact", scope="frame", enters_phase="weight-loading")


def version_1_overlay(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    (root / "facts.yaml").write_text("facts:\n  widgets: {unit: count, engines: [any], meaning: widgets asked for}\n"
                                     "  pool_size: {unit: count, engines: [any], meaning: widgets in the pool}\n")
    for doc in (PROBLEM, EXTRACTOR, MARKER, FRAME_MAP):
        (root / f"{doc['id']}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return root


def test_version_1s_fact_becomes_an_extractor_a_phase_marker_or_a_frame_map() -> None:
    assert upgrade(EXTRACTOR, 2)["kind"] == "extractor"
    assert upgrade(MARKER, 2)["kind"] == "phase-marker"
    framed = upgrade(FRAME_MAP, 2)
    assert framed["kind"] == "frame-map" and "scope" not in framed and framed["schema_version"] == 2
    assert upgrade(PROBLEM, 2) == {**PROBLEM, "schema_version": 2}
    assert upgrade({**MARKER, "schema_version": 0, "phase_marker": "serving"}, 2)["kind"] == "phase-marker"


def test_a_version_1_overlay_validates_and_scans_through_the_cli(tmp_path: Path) -> None:
    root = version_1_overlay(tmp_path / "kb")
    runner = CliRunner()
    validated = runner.invoke(main, ["validate", str(root)])
    assert validated.exit_code == 0, validated.output
    log = tmp_path / "pool.log"
    log.write_text(LOG)
    scanned = runner.invoke(main, ["scan", "--catalog", str(root), "--format", "json", str(log)])
    assert scanned.exit_code == 1, scanned.output
    report = json.loads(scanned.stdout)["files"][0]
    assert report["root_cause"] == "zz.pool.widgets"
    assert report["phase"] == "weight-loading"  # from the frame map, not the marker's serving
    assert report["facts"]["pool_size"] == 40
    kinds = {sig.id: sig.kind for sig in load_catalog([root]).signatures.values() if sig.id.startswith("zz.")}
    assert kinds == {"zz.pool.widgets": "problem", "zz.info.pool-size": "extractor",
                     "zz.phase.pool-ready": "phase-marker", "zz.frame.fill": "frame-map"}
    explained = runner.invoke(main, ["explain", "--catalog", str(root), "zz.frame.fill"])
    assert "frame-map entry" in explained.output, explained.output


def test_a_schema_version_0_file_is_upgraded_on_load(tmp_path: Path) -> None:
    old = signature(schema_version=0)
    old["checks"] = [{"id": "size", "title": "Large?", "look": "Look.", "when_facts": "widgets > 2"}]
    marker = {"schema_version": 0, "id": "zz.phase.pool-ready", "title": "Widget pool ready", "kind": "fact",
              "status": "stable", "engines": [{"name": "any"}], "phase_marker": "serving",
              "match": {"patterns": [{"regex": r"Widget pool ready"}]}}
    kb = widget_overlay(tmp_path, old)
    dump(kb / "any" / "ready.yaml", marker)
    catalog = load_catalog([kb])
    assert catalog.signatures["zz.phase.pool-ready"].enters_phase == "serving"
    assert "checks[0].fails_when" in catalog.signatures["zz.pool.widgets"].expressions
    assert run("validate", kb).exit_code == 0
    marker["phase_marker"] = "nowhere"
    dump(kb / "any" / "ready.yaml", marker)
    with pytest.raises(CatalogError, match=r"ready\.yaml: enters_phase: 'nowhere'"):
        load_catalog([kb])
