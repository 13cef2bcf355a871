"""Start-up: a scan imports only what it needs. Each heavy library is imported by the command
that uses it (jsonschema and YAML on a cache miss, rapidfuzz when fuzzy matching runs,
Hyperscan for inputs past one small block, packaging when a version range is judged, regex
for overlay signatures), so `logkb scan` on a short log stays quick. Timing is measured by
bench/run.py; this checks the imports, which do not flake."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHORT_LOG = ROOT / "corpus" / "vllm" / "vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"
HEAVY = ("jsonschema", "yaml", "rapidfuzz", "hyperscan", "regex", "packaging")
OVERLAY_ID = "test.overlay.thing"  # the id the overlay fixture (conftest.py) writes


def imported(args: list[str], stdin: bytes, cache_dir: Path) -> tuple[set[str], subprocess.CompletedProcess[bytes]]:
    """The top-level modules a `logkb` run imports (from -X importtime), and the run."""
    env = {**os.environ, "LOGKB_CACHE_DIR": str(cache_dir)}
    env.pop("LOGKB_ENGINE", None)
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "matcher", *args], input=stdin,
                         capture_output=True, env=env, cwd=ROOT, check=False)
    names = {line.split("|")[-1].strip().split(".")[0]
             for line in run.stderr.decode().splitlines() if line.startswith("import time:")}
    return names, run


@pytest.fixture
def warm_cache(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    imported(["scan", "--fail-on", "never", "-"], b"", folder)
    return folder


def test_short_scan_with_a_warm_cache_imports_no_heavy_library(warm_cache: Path) -> None:
    head = b"".join(SHORT_LOG.read_bytes().splitlines(keepends=True)[:10])
    names, run = imported(["scan", "--fail-on", "never", "-"], head, warm_cache)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "click" in names and "matcher" in names
    assert not names & set(HEAVY), sorted(names & set(HEAVY))


def test_first_scan_validates_and_a_long_input_uses_the_configured_engine(tmp_path: Path, warm_cache: Path) -> None:
    names, _ = imported(["scan", "--fail-on", "never", str(SHORT_LOG)], b"", tmp_path / "cold")
    assert {"yaml", "jsonschema"} <= names  # a cache miss validates the catalog in full
    long_log = tmp_path / "long.log"
    long_log.write_bytes(SHORT_LOG.read_bytes() * 40)
    names, run = imported(["scan", "--format", "json", str(long_log)], b"", warm_cache)
    assert run.returncode == 1 and b'"vllm.kv-cache.max-model-len-exceeds-capacity"' in run.stdout
    engine = subprocess.run([sys.executable, "-m", "matcher", "version"], capture_output=True, text=True,
                            cwd=ROOT, check=True).stdout
    if "engine hyperscan" in engine:
        assert "hyperscan" in names


def test_overlay_regexes_run_on_the_regex_library_with_a_time_budget(tmp_path: Path, warm_cache: Path,
                                                                      overlay) -> None:
    root = overlay(tmp_path / "overlay")
    line = b"ERROR 05-01 10:00:00 [pool.py:12] Sample overlay failure 1.50 GiB\n"
    names, run = imported(["scan", "--catalog", str(root), "--format", "json", "-"], line, warm_cache)
    assert run.returncode == 1 and OVERLAY_ID.encode() in run.stdout
    assert "regex" in names
