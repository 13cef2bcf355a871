"""The Dask batch job: the same JSON report as ``logkb scan --format json``, file for file."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="needs the cluster extra: pip install -e '.[cluster]'")

from distributed import Client, LocalCluster

from matcher.batch import Selection, scan_files, scan_tree

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


def logkb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], capture_output=True, text=True, check=False)


def batch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher.batch", *args], capture_output=True, text=True,
                          check=False)


@pytest.fixture(scope="module")
def client():
    """Two in-process workers, reachable over TCP so that a second process can use them too."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster, Client(cluster) as dask_client:
        yield dask_client


@pytest.fixture(scope="module")
def cli_report() -> subprocess.CompletedProcess:
    return logkb("scan", "--format", "json", "--exit-zero", str(CORPUS))


def test_scan_tree_on_a_cluster_equals_the_cli_file_for_file(client, cli_report):
    files = json.loads(cli_report.stdout)["files"]
    results = scan_tree(client, [str(CORPUS)])
    assert list(results) == [entry["path"] for entry in files]
    assert len(results) == len(list(CORPUS.rglob("*.log")))
    for entry in files:
        assert results[entry["path"]] == entry, entry["path"]
    assert any(entry["findings"] for entry in files) and any(not entry["findings"] for entry in files)


def test_selection_is_applied_on_the_workers(client):
    log = str(next(CORPUS.glob("vllm/vllm.startup.free-memory-below-utilization--*.log")))
    everything = scan_files(client, [log])[log]
    none = scan_files(client, [log], Selection(ignore=("vllm.startup.*",)))[log]
    assert everything["root_cause"] == "vllm.startup.free-memory-below-utilization"
    assert "vllm.startup.free-memory-below-utilization" not in [f["id"] for f in none["findings"]]


def test_entry_point_on_a_scheduler_address_prints_the_cli_report(client, cli_report):
    done = batch(str(CORPUS), "--scheduler", client.scheduler.address)
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli_report.stdout


def test_entry_point_on_a_local_cluster_reports_unreadable_files_like_the_cli(tmp_path):
    for log in sorted(CORPUS.glob("vllm/vllm.startup.free-memory-below-utilization--*.log"))[:2]:
        shutil.copy(log, tmp_path / log.name)
    (tmp_path / "truncated.log.gz").write_bytes(gzip.compress(b"CUDA out of memory\n" * 50)[:40])
    cli = logkb("scan", "--format", "json", str(tmp_path))
    done = batch(str(tmp_path), "--scheduler", "local", "--workers", "1")
    assert (cli.returncode, done.returncode) == (2, 2), done.stderr
    assert done.stdout == cli.stdout
    errors = {Path(entry["path"]).name: entry["error"] for entry in json.loads(done.stdout)["files"]}
    assert len(errors) == 3 and [name for name, error in errors.items() if error] == ["truncated.log.gz"]
