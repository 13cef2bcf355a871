"""logkb as a user gets it: the wheel built from this tree, installed into a fresh virtual
environment outside it, every subcommand run from an empty folder.

The wheel is built and installed once for the module (it needs the package registry for the
build backend and the dependencies, as CI has)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"
SIG_ID = "vllm.startup.free-memory-below-utilization"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    built, = out.glob("logkb-*.whl")
    return built


@pytest.fixture(scope="module")
def logkb(wheel, tmp_path_factory):
    """Runs the installed ``logkb`` in an empty folder; returns the finished process."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True,
                   timeout=600)
    empty = tmp_path_factory.mktemp("empty")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOGKB_CATALOG", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def run(*args: str, stdin: bytes | None = None, cwd: Path = empty) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin" / "logkb"), *map(str, args)], cwd=cwd, env=env, input=stdin,
                              capture_output=True, timeout=300)

    run.empty = empty  # type: ignore[attr-defined]
    run.python = venv / "bin" / "python"  # type: ignore[attr-defined]
    return run


def test_the_wheel_carries_the_catalog_schemas_and_corpus_but_no_tests(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "matcher/_data/kb/catalog.yaml" in names
    assert "matcher/_data/schema/signature.schema.json" in names
    assert any(n.startswith("matcher/_data/corpus/vllm/") and n.endswith(".yaml") for n in names)
    assert not any(n.startswith("tests/") for n in names)


def test_the_installed_package_does_not_read_the_source_tree(logkb):
    done = subprocess.run([str(logkb.python), "-c", "import matcher, matcher.catalog as c; "
                           "print(matcher.__file__); print(c.data_dir('kb'))"],
                          cwd=logkb.empty, capture_output=True, text=True, check=True)
    assert str(ROOT) not in done.stdout and "_data" in done.stdout


def test_every_subcommand_from_an_empty_folder(logkb, tmp_path):
    gz = tmp_path / "failing.log.gz"
    gz.write_bytes(gzip.compress(FAILING.read_bytes()))
    expected = [
        (["scan", FAILING], 1), (["scan", HEALTHY], 0), (["scan", gz], 1), (["scan", "missing.log"], 2),
        (["scan", "-f", "sarif", "--exit-zero", FAILING], 0),
        (["facts", FAILING], 0), (["facts", "missing.log"], 2),
        (["compare", FAILING, HEALTHY], 0), (["compare", FAILING, logkb.empty], 2),
        (["explain", SIG_ID], 0), (["explain", "out of memory"], 0), (["explain", "no.such.signature.anywhere"], 2),
        (["validate"], 0), (["test"], 0), (["test", logkb.empty], 2),
        (["docs"], 2), (["docs", "--out", tmp_path / "pages"], 0),
        (["export", "-f", "patterns"], 0), (["export", "-f", "sigma", "--out", tmp_path / "rules"], 0),
        (["export", "-f", "loki-pipeline"], 0),
        (["version"], 0), (["--version"], 0),
        (["new", "--from-log", f"{FAILING}:1", "--engine", "vllm", "--kb", tmp_path / "kb"], 0),
    ]
    for args, code in expected:
        done = logkb(*args)
        assert done.returncode == code, (args, done.stdout[-2000:], done.stderr[-2000:])
    assert sorted(os.listdir(logkb.empty)) == [], "a command wrote into the folder it ran in"
    assert len(list((tmp_path / "pages").glob("*.md"))) > 30
    tested = logkb("test").stdout.decode()
    passed = int(tested.strip().splitlines()[-1].split()[0])
    assert passed > 400 and tested.strip().endswith(f"{passed} passed, 0 failed")


def test_pipe_mode_and_stdin_from_the_installed_command(logkb):
    done = logkb("watch", stdin=FAILING.read_bytes())
    assert done.returncode == 1 and done.stdout == FAILING.read_bytes()
    assert SIG_ID.encode() in done.stderr
    report = json.loads(logkb("scan", "-f", "json", "-", stdin=gzip.compress(FAILING.read_bytes())).stdout)
    assert report["files"][0]["root_cause"] == SIG_ID
