"""The Dask batch job: the same JSON report as ``logkb scan --format json``, file for file."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="needs the cluster extra: pip install -e '.[cluster]'")

from distributed import Client, LocalCluster

from matcher.batch import Selection, scan_files, scan_tree

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
# Trees the cluster scans: a slice of the corpus, one of them with a folder inside (the whole
# corpus is compared with the command line elsewhere: test_report_digests).
TREES = [str(CORPUS / name) for name in ("tgi", "nccl", "trtllm", "generated")]


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
    return logkb("scan", "--format", "json", "--exit-zero", *TREES)


def test_scan_tree_on_a_cluster_equals_the_cli_file_for_file(client, cli_report):
    files = json.loads(cli_report.stdout)["files"]
    results = scan_tree(client, TREES)
    assert list(results) == [entry["path"] for entry in files]
    assert len(results) == sum(len(list(Path(tree).rglob("*.log"))) for tree in TREES)
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
    done = batch(*TREES, "--scheduler", client.scheduler.address, "--exit-zero")
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli_report.stdout


@pytest.fixture(scope="module")
def separate_cluster(tmp_path_factory):
    """A real scheduler and worker, each a process started in its own empty folder."""
    base = tmp_path_factory.mktemp("cluster")
    address_file = base / "scheduler.json"
    folders = {name: base / name for name in ("scheduler", "worker")}
    for folder in folders.values():
        folder.mkdir()
    common = ["--no-dashboard"]
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", "0", "--scheduler-file", str(address_file), *common],
                                 cwd=folders["scheduler"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                   str(address_file), "--nworkers", "1", "--nthreads", "1", *common],
                                  cwd=folders["worker"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        address = json.loads(address_file.read_text())["address"]
        with Client(address, timeout=60) as probe:
            probe.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def test_relative_paths_on_workers_started_in_another_folder(separate_cluster, tmp_path):
    logs = tmp_path / "logs"
    for log in [*sorted(CORPUS.glob("vllm/*.log"))[:6], *sorted(CORPUS.glob("healthy/*.log"))[:2]]:
        (logs / log.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(log, logs / log.parent.name / log.name)
    cli = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", "logs"], cwd=tmp_path,
                         capture_output=True, text=True)
    done = subprocess.run([sys.executable, "-m", "matcher.batch", "logs", "--scheduler", separate_cluster],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert (cli.returncode, done.returncode) == (1, 1), done.stderr
    assert done.stdout == cli.stdout
    files = json.loads(done.stdout)["files"]
    assert len(files) == 8 and all(entry["path"].startswith("logs/") and not entry["error"] for entry in files)
    healthy = [str(Path("logs/healthy") / log.name) for log in sorted(CORPUS.glob("healthy/*.log"))[:2]]
    clean = subprocess.run([sys.executable, "-m", "matcher.batch", *healthy, "--scheduler", separate_cluster],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0, clean.stderr


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
