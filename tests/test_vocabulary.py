"""kb/facts.yaml: every capture and value name is declared with its unit, and validate says
where an undeclared one is written (file:line, exit 2), for the built-in catalog and overlays."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from matcher.catalog import load_catalog
from matcher.catalog.model import DERIVED_FACTS
from matcher.catalog.vocabulary import builtin_vocabulary, suffix_unit
from matcher.cli import main
from matcher.record import record_facts


def validate(*args: object):
    return CliRunner().invoke(main, ["validate", *map(str, args)])


def test_every_name_the_built_in_catalog_captures_or_computes_is_declared_with_its_suffix_unit() -> None:
    vocabulary = builtin_vocabulary()
    names = set(DERIVED_FACTS)
    catalog = load_catalog()
    for sig in catalog.signatures.values():
        names |= sig.fact_names
    for problem in catalog.problems:
        names |= {v.name for v in problem.values} | {v.name for f in problem.fixes for v in f.values}
    assert names - set(vocabulary.facts) == set()
    for name, fact in vocabulary.facts.items():
        assert suffix_unit(name) in (None, fact.unit), name


def test_the_run_record_lists_come_from_the_vocabulary() -> None:
    lists = record_facts()
    assert lists.settings[:4] == ("model", "dtype", "quantization", "gpu_memory_utilization")
    assert "tensor_parallel_size" in lists.hardware and "gpu_blocks" in lists.kv_cache
    assert all(name in builtin_vocabulary() for name in lists.settings + lists.hardware + lists.kv_cache)


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_an_overlay_capture_name_nobody_declared_fails_validate_with_file_and_line(overlay, tmp_path: Path) -> None:
    root = overlay(tmp_path / "kb", regex=r"Sample overlay failure (?P<free_gb>[0-9.]+) GiB")
    path = root / "test" / "thing.yaml"
    result = validate(root)
    assert result.exit_code == 2, result.output
    assert result.stdout.splitlines() == [
        f"{path}:{_line_of(path, 'free_gb')}: match.patterns[0].regex: capture 'free_gb' is not a declared fact "
        "(declare it with its unit, meaning and engines in facts.yaml)"]
    (root / "facts.yaml").write_text("facts:\n  free_gb: {unit: GB, engines: [vllm], meaning: free memory}\n")
    assert validate(root).exit_code == 0, validate(root).output


def test_an_undeclared_value_name_and_a_size_without_its_suffix_fail_validate(overlay, tmp_path: Path) -> None:
    root = overlay(tmp_path / "kb", regex=r"Sample overlay failure (?P<spare>[0-9.]+) GiB")
    path = root / "test" / "thing.yaml"
    path.write_text(path.read_text() + "values:\n  spare_share: \"spare / 2\"\n")
    (root / "facts.yaml").write_text("facts:\n  spare: {unit: GiB, engines: [vllm], meaning: spare memory}\n")
    lines = validate(root).stdout.splitlines()
    assert lines == [
        f"{path}:{_line_of(path, 'spare>')}: match.patterns[0].regex: capture 'spare' is in GiB, "
        "so its name must end in _gib",
        f"{path}:{_line_of(path, 'spare_share:')}: values.spare_share: value 'spare_share' is not a declared fact "
        "(declare it with its unit, meaning and engines in facts.yaml)"]


def test_a_vocabulary_whose_unit_contradicts_the_suffix_or_redeclares_a_name_fails(overlay, tmp_path: Path) -> None:
    root = overlay(tmp_path / "kb")
    (root / "facts.yaml").write_text("facts:\n  spare_gib: {unit: MiB, engines: [vllm], meaning: spare memory}\n")
    result = validate(root)
    assert result.exit_code == 2
    assert "facts.yaml: facts.spare_gib.unit: MiB, but the name's suffix means GiB" in result.stdout
    (root / "facts.yaml").write_text("facts:\n  free_gib: {unit: GiB, engines: [vllm], meaning: free memory}\n")
    result = validate(root)
    assert result.exit_code == 2 and "facts.free_gib: already declared by a catalog loaded before" in result.stdout


def test_logkb_new_declares_a_proposed_name_with_a_todo_that_validate_reports(tmp_path: Path) -> None:
    log = tmp_path / "corpus" / "vllm" / "spares.log"
    log.parent.mkdir(parents=True)
    log.write_text("ERROR 01-02 10:00:01 worker.py:91] Spare pool exhausted: wanted 12.50 GiB of spare memory\n")
    kb = tmp_path / "kb"
    made = CliRunner().invoke(main, ["new", "--from-log", f"{log}:1", "--id", "vllm.spare.pool-exhausted",
                                     "--kb", str(kb), "--url", "https://example.org/issues/1"])
    assert made.exit_code == 0, made.output
    declared = re.search(r"declared (\w+) in ", made.output)
    assert declared is not None, made.output
    facts = (kb / "facts.yaml").read_text()
    assert f"  {declared.group(1)}: {{unit: GiB, engines: [vllm], meaning: \"TODO" in facts
    assert f"{kb / 'facts.yaml'}: facts.{declared.group(1)}.meaning: still a TODO" in validate(kb).stdout
