"""The CLI through its public interface: exit codes, stdin, JSON contract, catalog errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"


def run(*args, input=None, env=None):
    return CliRunner().invoke(main, list(map(str, args)), input=input, env=env, catch_exceptions=False)


def test_scan_failing_log_prints_checklist_and_exits_1():
    result = run("scan", FAILING)
    assert result.exit_code == 1
    out = result.output
    assert "ROOT CAUSE  vllm.startup.free-memory-below-utilization" in out
    assert "--gpu-memory-utilization 0.78" in out  # floor_to(3.22 / 4.0 - 0.02, 0.01)
    assert out.index("Check") < out.index("Fix, in this order") < out.index("Verify")


def test_scan_healthy_log_exits_0():
    result = run("scan", HEALTHY)
    assert result.exit_code == 0, result.output
    assert "no GPU-memory problem found" in result.output


def test_fail_on_never_and_warning():
    assert run("scan", "--fail-on", "never", FAILING).exit_code == 0


def test_stdin_is_the_default_input():
    result = run("scan", "-", input=FAILING.read_bytes())
    assert result.exit_code == 1
    assert "<stdin>" in result.output


def test_json_contract_for_several_files():
    result = run("scan", "--format", "json", FAILING, HEALTHY)
    doc = json.loads(result.output)
    assert set(doc) >= {"logkb_version", "catalog_version", "files"}
    first, second = doc["files"]
    assert first["root_cause"] == "vllm.startup.free-memory-below-utilization"
    assert first["phase"] == "device-check"
    finding = first["findings"][0]
    assert set(finding) >= {"id", "severity", "phase", "line", "confidence", "match", "facts", "checks", "fixes"}
    assert finding["severity"] in ("error", "warning", "info") and finding["match"] in ("regex", "fuzzy")
    fix = next(f for f in finding["fixes"] if f["computed"])
    assert fix["values"][0]["from"] == {"free_gib": 3.22, "total_gib": 4.0}
    assert second["root_cause"] is None


def test_missing_file_is_exit_2_with_one_line():
    result = CliRunner().invoke(main, ["scan", "does-not-exist.log"])
    assert result.exit_code == 2
    assert "does-not-exist.log: cannot open" in result.output


def test_broken_overlay_is_exit_2_naming_file_and_key(tmp_path):
    overlay = tmp_path / "overlay"
    (overlay / "x").mkdir(parents=True)
    (overlay / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    (overlay / "x" / "bad.yaml").write_text("schema_version: 1\nid: x.y.z\ntitle: Broken one\nkind: problem\n")
    result = CliRunner().invoke(main, ["scan", "--catalog", str(overlay), str(HEALTHY)])
    assert result.exit_code == 2
    assert "bad.yaml: (top level): 'status' is a required property" in result.output


def test_installed_entry_point_runs_from_any_directory(tmp_path):
    result = subprocess.run([sys.executable, "-m", "matcher", "scan", str(FAILING)], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "vllm.startup.free-memory-below-utilization" in result.stdout


@pytest.mark.parametrize("name", ["NO_COLOR"])
def test_no_color_env(name):
    result = run("scan", FAILING, env={name: "1"})
    assert "\x1b[" not in result.output
