"""Which signatures a scan uses (matcher/selection.py and overlays): status, --only/--ignore
globs, overlay id clashes and LOGKB_CATALOG."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from matcher.catalog import load_catalog
from overlays import dump, parse_each_catalog_file_once, run, signature, widget_overlay  # noqa: F401 (the fixture is autouse)


def test_overlay_id_clash_is_an_error_unless_overridden(tmp_path: Path, catalog) -> None:
    builtin = sorted(catalog.problems, key=lambda s: s.id)[0]
    kb = widget_overlay(tmp_path, signature(builtin.id))
    clash = run("scan", "--catalog", kb, tmp_path / "corpus" / "any" / "widgets.log")
    assert clash.exit_code == 2
    assert f"id: '{builtin.id}' is already defined" in clash.output
    dump(kb / "catalog.yaml", {"catalog_version": "2026.1.0", "schema_version": 1, "changelog": [],
                               "overrides": [builtin.id]})
    replaced = load_catalog([kb]).signatures[builtin.id]
    assert replaced.title == "Widget pool exhausted" and replaced.path.is_relative_to(kb)


def test_logkb_catalog_env_takes_several_directories(tmp_path: Path) -> None:
    first = widget_overlay(tmp_path / "one")
    second = widget_overlay(tmp_path / "two", signature("zz.pool.gadgets", r"Gadget pool exhausted"))
    env = {"LOGKB_CATALOG": os.pathsep.join([str(first), str(second)])}
    assert run("explain", "zz.pool.widgets", env=env).exit_code == 0
    assert run("explain", "zz.pool.gadgets", env=env).exit_code == 0


@pytest.mark.parametrize(("options", "expected"), [
    ((), {"zz.pool.widgets", "zz.pool.left"}),
    (("--status", "stable", "--status", "test"), {"zz.pool.left"}),
    (("--status", "deprecated"), {"zz.pool.gone"}),
    (("--only", "zz.pool.w*"), {"zz.pool.widgets"}),
    (("--only", "leftovers"), {"zz.pool.left"}),
    (("--ignore", "leftovers"), {"zz.pool.widgets"}),
])
def test_scan_selects_signatures_by_status_id_and_tag(tmp_path: Path, options: tuple[str, ...],
                                                      expected: set[str]) -> None:
    kb = widget_overlay(
        tmp_path, signature(),
        signature("zz.pool.left", r"widgets, (?P<left>\d+) left", status="stable", tags=["leftovers"]),
        signature("zz.pool.gone", r"Widget pool", status="deprecated"),
    )
    result = run("scan", "--format", "json", "--catalog", kb, *options, tmp_path / "corpus" / "any" / "widgets.log")
    found = {f["id"] for f in json.loads(result.stdout)["files"][0]["findings"]}
    assert found == expected


def test_a_glob_written_for_a_renamed_id_still_selects_the_signature() -> None:
    """torch.cuda.oom is pytorch.cuda.oom since catalog 2026.12.19: settings that say
    --only 'torch.*' keep their meaning, and --ignore of the old id still leaves it out."""
    log = Path(__file__).resolve().parent.parent / "corpus" / "pytorch" / "torch.cuda.oom--lm-sys-FastChat-2198.log"
    kept = json.loads(run("scan", "--format", "json", "--only", "torch.*", log).stdout)["files"][0]
    assert kept["root_cause"] == "pytorch.cuda.oom"
    left = json.loads(run("scan", "--format", "json", "--exit-zero", "--ignore", "torch.cuda.oom", log).stdout)["files"][0]
    assert "pytorch.cuda.oom" not in {f["id"] for f in left["findings"]}
