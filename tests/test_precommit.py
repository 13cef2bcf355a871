"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit tool on a temporary repo.

pre-commit installs logkb from a git snapshot of this repository (a local path, no network
but the package registry) into an environment of its own; the environment is built once and
shared by every hook run of this module."""

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"
ROOT_CAUSE = "vllm.startup.free-memory-below-utilization"
PACKAGE = ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "matcher", "kb", "schema", "corpus"]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "_data")
WIDGET_LOG = "INFO 01-02 10:00:00 worker.py:88] Loading model\nERROR 01-02 10:00:01 worker.py:91] " \
             "Widget pool exhausted: wanted 12.50 GiB of widget memory on device 0\n"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=logkb tests", "-c", "user.email=tests@logkb.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True, capture_output=True)


def commit_all(path: Path) -> Path:
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "snapshot")
    return path


def copied(path: Path, files: dict[str, Path]) -> Path:
    for name, source in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=IGNORED)
        else:
            shutil.copy(source, target)
    return path


def catalog_made_by_logkb_new(project: Path) -> Path:
    """kb/ and corpus/ as a contributor gets them: `logkb new`, then every TODO written."""
    log = project / "corpus" / "vllm" / "widget-pool.log"
    log.parent.mkdir(parents=True)
    log.write_text(WIDGET_LOG)
    result = CliRunner().invoke(main, ["new", "--from-log", f"{log}:2", "--id", "vllm.widget.pool-exhausted",
                                       "--kb", str(project / "kb"), "--url", "https://example.org/issues/1"])
    assert result.exit_code == 0, result.output
    for written in (project / "kb").rglob("*.yaml"), (project / "corpus").rglob("*.yaml"):
        for path in written:
            path.write_text(path.read_text().replace("TODO", "Written"))
    return project / "kb" / "vllm" / "pool-exhausted.yaml"


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """Runs one hook of this repository's snapshot on a project repository with pre-commit."""
    base = tmp_path_factory.mktemp("precommit")
    snapshot = commit_all(copied(base / "logkb", {name: ROOT / name for name in PACKAGE}))
    project = base / "project"
    copied(project, {"logs/failing.log": FAILING, "logs/healthy.log": HEALTHY, "logs/old.log.bak": FAILING,
                     "kb/vllm/broken.yaml": ROOT / "pyproject.toml", "config/settings.yaml": ROOT / "pyproject.toml"})
    (project / "logs/failing.log.gz").write_bytes(gzip.compress(FAILING.read_bytes()))
    (project / "docs").mkdir()
    (project / "docs/troubleshooting.txt").write_text(FAILING.read_text())
    catalog_made_by_logkb_new(project)
    commit_all(project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(base / "home"), "NO_COLOR": "1"}

    def run(hook: str, *files: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(snapshot), hook, "--files", *files],
                              cwd=project, env=env, capture_output=True, text=True, timeout=900)

    return run


def hook_output(done: subprocess.CompletedProcess, hook: str) -> list[str]:
    """The lines the hook itself printed (after pre-commit's own header)."""
    text = done.stdout.split(f"- hook id: {hook}", 1)[1]
    return [line for line in text.splitlines()[1:] if line.strip() and not line.startswith("- exit code")]


def test_scan_hook_fails_on_a_failing_log_with_one_line_per_log(hooks):
    done = hooks("logkb-scan", "logs/failing.log", "logs/failing.log.gz", "logs/healthy.log",
                 "docs/troubleshooting.txt")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = hook_output(done, "logkb-scan")
    assert [line.split(": ")[0].rsplit(":", 1)[0] for line in lines] == ["logs/failing.log", "logs/failing.log.gz"]
    assert all(f": error: {ROOT_CAUSE}: " in line for line in lines), lines


def test_scan_hook_passes_healthy_logs_and_leaves_other_files_alone(hooks):
    done = hooks("logkb-scan", "logs/healthy.log", "logs/old.log.bak", "docs/troubleshooting.txt")
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_hook_accepts_a_catalog_made_by_logkb_new(hooks):
    done = hooks("logkb-validate", "kb/vllm/pool-exhausted.yaml", "config/settings.yaml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_hook_rejects_a_broken_signature_file(hooks):
    done = hooks("logkb-validate", "kb/vllm/broken.yaml", "kb/vllm/pool-exhausted.yaml", "config/settings.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    shown = "\n".join(hook_output(done, "logkb-validate"))
    assert "kb/vllm/broken.yaml" in shown and "settings.yaml" not in shown
