"""`logkb test` (matcher/commands/test.py): the corpus against its sidecars, and --bless."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from matcher.corpus import run_corpus
from overlays import CORPUS, dump, parse_each_catalog_file_once, run, signature, widget_overlay  # noqa: F401 (the fixture is autouse)


def test_bless_rewrites_only_expect_and_prints_a_diff(tmp_path: Path, scanner) -> None:
    outcome = next(o for o in run_corpus(scanner, [CORPUS])
                   if o.ok and not o.sample.healthy and o.sample.expect.get("line") == o.diagnosis.root_cause.line
                   and "phase" in o.sample.expect)
    original = outcome.sample.sidecar.read_text(encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(outcome.sample.log, corpus / outcome.sample.log.name)
    sidecar = corpus / outcome.sample.sidecar.name
    expect = outcome.sample.expect
    tampered = original.replace(f"line: {expect['line']}\n", f"line: {expect['line'] + 1000}\n", 1)
    tampered = tampered.replace(f"phase: {expect['phase']}\n", "phase: warmup\n" if expect["phase"] != "warmup"
                                else "phase: serving\n", 1)
    assert tampered != original
    sidecar.write_text(tampered, encoding="utf-8")
    assert run("test", corpus).exit_code == 1

    blessed = run("test", "--bless", corpus)
    assert blessed.exit_code == 0, blessed.output
    assert f"--- {sidecar}" in blessed.stdout
    assert f"+  line: {expect['line']}" in blessed.stdout and f"-  line: {expect['line'] + 1000}" in blessed.stdout
    after = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    before = yaml.safe_load(original)
    assert after["expect"]["root_cause"] == before["expect"]["root_cause"]
    assert (after["expect"]["line"], after["expect"]["phase"]) == (expect["line"], expect["phase"])
    assert list(after) == list(before)  # key order kept
    assert {k: v for k, v in after.items() if k != "expect"} == {k: v for k, v in before.items() if k != "expect"}
    outside = [line for line in sidecar.read_text(encoding="utf-8").splitlines() if not line.startswith("  ")]
    assert outside == [line for line in original.splitlines() if not line.startswith("  ")]
    assert run("test", "--bless", corpus).stdout.count("--- ") == 0  # nothing left to bless


def test_bless_leaves_healthy_samples_alone(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path)
    sidecar = tmp_path / "corpus" / "any" / "widgets.yaml"
    dump(sidecar, {"generated_by": "tests", "engine": "any", "kind": "healthy", "expect": {"root_cause": None}})
    before = sidecar.read_text(encoding="utf-8")
    result = run("test", "--bless", "--catalog", kb, tmp_path / "corpus")
    assert result.exit_code == 1
    assert sidecar.read_text(encoding="utf-8") == before


def test_a_broken_sidecar_is_one_line_naming_its_file_and_line(tmp_path: Path) -> None:
    """An unescaped quote inside a single-quoted note (the slip a hand edit makes): `logkb test`
    and `logkb validate --corpus` say where, with exit 2, instead of a YAML traceback."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "broken.log").write_text("RuntimeError: CUDA error: out of memory\n")
    (corpus / "broken.yaml").write_text("kind: failure\nexpect:\n  root_cause: cuda.runtime.out-of-memory\n"
                                        "notes: 'the engine's own words'\n")
    for args in (("test", corpus), ("validate", "--corpus", corpus)):
        result = run(*args)
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert any(f"{corpus / 'broken.yaml'}: line 4: invalid YAML" in line for line in lines), result.output
        assert "Traceback" not in result.output
