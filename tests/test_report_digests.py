"""The whole corpus gives byte-identical JSON reports: every log's `logkb scan --format json`
output hashes to the digest stored in tests/data/report-digests.txt (bench/report_digests.py).
A change meant to change reports regenerates the file with its --update mode."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("report_digests", ROOT / "bench" / "report_digests.py")
assert _spec is not None and _spec.loader is not None
digests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(digests)


def test_every_corpus_log_gives_the_report_its_digest_records() -> None:
    problems = digests.differences(digests.stored(), digests.current())
    assert not problems, (f"{len(problems)} JSON reports differ from tests/data/report-digests.txt "
                          f"(if the change is meant, run `{digests.UPDATE_COMMAND}`):\n" + "\n".join(problems[:50]))


@pytest.mark.parametrize("log", ["corpus/vllm/vllm.kv-cache.max-model-len-exceeds-capacity--vllm-project-vllm-10517.log",
                                 "corpus/vllm/vllm.healthy--vllm-project-vllm-10517.log"])
def test_a_digest_is_of_the_bytes_the_command_line_prints(log: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["scan", "--format", "json", "--fail-on", "never", log])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(result.stdout_bytes).hexdigest() == digests.stored()[log]


def test_a_changed_added_or_removed_report_is_named(tmp_path: Path) -> None:
    path = tmp_path / "digests.txt"
    digests.write({"corpus/a.log": "1" * 64, "corpus/b.log": "2" * 64}, path)
    assert digests.stored(path) == {"corpus/a.log": "1" * 64, "corpus/b.log": "2" * 64}
    actual = {"corpus/a.log": "1" * 64, "corpus/b.log": "3" * 64, "corpus/c.log": "4" * 64}
    assert digests.differences(digests.stored(path), actual) == ["changed: corpus/b.log", "new log, no digest: corpus/c.log"]
    assert digests.differences(actual, {"corpus/a.log": "1" * 64}) == [
        "digest of a log that is gone: corpus/b.log", "digest of a log that is gone: corpus/c.log"]
