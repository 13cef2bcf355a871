"""Project settings through the CLI: [tool.logkb] in pyproject.toml or .logkb.toml, found
upward from the current folder; the command line wins; a bad file is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "corpus/vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log"


def logkb(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "matcher", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)


def test_pyproject_settings_apply_from_a_subfolder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.logkb]\nformat = "json"\n'
                                             'fail-on = "never"\n')
    sub = tmp_path / "logs" / "today"
    sub.mkdir(parents=True)
    done = logkb(sub, "scan", str(FAILING))
    assert done.returncode == 0, done.stderr  # fail-on never
    assert json.loads(done.stdout)["files"][0]["root_cause"] == "vllm.kv-cache.max-model-len-exceeds-capacity"


def test_the_command_line_wins(tmp_path: Path) -> None:
    (tmp_path / ".logkb.toml").write_text('format = "json"\nfail-on = "never"\n')
    done = logkb(tmp_path, "scan", "--format", "text", "--fail-on", "error", str(FAILING))
    assert done.returncode == 1
    assert "ROOT CAUSE  vllm.kv-cache.max-model-len-exceeds-capacity" in done.stdout


def test_dotfile_comes_before_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.logkb]\nfail-on = "error"\n')
    (tmp_path / ".logkb.toml").write_text('fail-on = "never"\n')
    assert logkb(tmp_path, "scan", str(FAILING)).returncode == 0


def test_only_and_ignore_select_signatures(tmp_path: Path) -> None:
    (tmp_path / ".logkb.toml").write_text('ignore = ["vllm.kv-cache.*"]\nformat = "json"\n')
    done = logkb(tmp_path, "scan", str(FAILING))
    assert json.loads(done.stdout)["files"][0]["root_cause"] != "vllm.kv-cache.max-model-len-exceeds-capacity"


def test_catalog_paths_are_relative_to_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / ".logkb.toml").write_text('catalog = ["signatures"]\n')
    sub = tmp_path / "deep"
    sub.mkdir()
    done = logkb(sub, "scan", str(FAILING))
    assert done.returncode == 2
    assert str(tmp_path / "signatures") in done.stderr  # resolved beside the file, not in ./deep


def test_an_unknown_setting_names_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.logkb]\nfail_on = "never"\n')
    done = logkb(tmp_path, "scan", str(FAILING))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"logkb: {tmp_path / 'pyproject.toml'}: tool.logkb.fail_on: not a logkb setting "
        "(known: fail-on, format, catalog, only, ignore, status, include, exclude)"]


def test_invalid_toml_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / ".logkb.toml").write_text('fail-on = \n')
    done = logkb(tmp_path, "scan", str(FAILING))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and ".logkb.toml: invalid TOML" in done.stderr


def test_a_wrong_type_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".logkb.toml").write_text('fail-on = ["never"]\n')
    done = logkb(tmp_path, "scan", str(FAILING))
    assert done.returncode == 2 and "fail-on: must be a string" in done.stderr
