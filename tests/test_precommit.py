"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit tool.

pre-commit installs logkb from a snapshot of this repository into an environment of its own,
which needs the package registry; this is the suite's one test that does, so it is one test.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"
PACKAGE = ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "matcher", "kb", "schema"]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "_data")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=logkb tests", "-c", "user.email=tests@logkb.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True, capture_output=True)


def committed_repo(path: Path, files: dict[str, Path]) -> Path:
    """A git repository at ``path`` whose one commit holds ``files`` (name in repo -> source)."""
    path.mkdir()
    for name, source in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=IGNORED)
        else:
            shutil.copy(source, target)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "snapshot")
    return path


def try_repo(hooks: Path, project: Path, hook: str, *files: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks), hook, "--files", *files],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_precommit_hooks_install_logkb_from_this_repository_and_gate_on_logs(tmp_path):
    hooks = committed_repo(tmp_path / "logkb", {name: ROOT / name for name in PACKAGE})
    project = committed_repo(tmp_path / "project", {
        "logs/failing.log": FAILING,
        "logs/healthy.log": HEALTHY,
        "logs/failing.log.bak": FAILING,
        "kb/vllm/broken.yaml": ROOT / "pyproject.toml",
        "config/settings.yaml": ROOT / "pyproject.toml",
    })
    home = tmp_path / "pre-commit-home"
    report = CliRunner().invoke(main, ["scan", "--format", "json", str(FAILING)])
    root_cause = json.loads(report.stdout)["files"][0]["root_cause"]

    failed = try_repo(hooks, project, "logkb-scan", "logs/failing.log", "logs/healthy.log", home=home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "- hook id: logkb-scan" in failed.stdout
    assert f"ROOT CAUSE  {root_cause}" in failed.stdout
    assert "logs/healthy.log: " in failed.stdout

    passed = try_repo(hooks, project, "logkb-scan", "logs/healthy.log", "logs/failing.log.bak", home=home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "ROOT CAUSE" not in passed.stdout

    invalid = try_repo(hooks, project, "logkb-validate", "kb/vllm/broken.yaml", "config/settings.yaml", home=home)
    assert invalid.returncode != 0, invalid.stdout + invalid.stderr
    assert "- hook id: logkb-validate" in invalid.stdout
    assert "broken.yaml" in invalid.stdout
    assert "settings.yaml" not in invalid.stdout.split("- hook id: logkb-validate", 1)[1]
