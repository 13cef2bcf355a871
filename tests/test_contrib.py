"""The contributor loop of CONTRIBUTING.md end to end, through the CLI: new, validate, test,
explain and docs on an overlay."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from matcher.normalize import normalize
from matcher.regexlint import lint
from overlays import dump, fill_placeholders, parse_each_catalog_file_once, real_number_line, run  # noqa: F401 (the fixture is autouse)


SECTIONS = ("WHAT IT MEANS", "PHASE", "WHY IT HAPPENS", "CHECKS", "FIXES, IN ORDER", "HOW TO VERIFY",
            "REFERENCES", "VERSIONS AND ENGINES", "STATUS", "RELATED")


def test_contributor_loop_in_an_overlay(tmp_path: Path) -> None:
    source, line_no = real_number_line()
    log = tmp_path / "corpus" / "vllm" / "sample.log"
    log.parent.mkdir(parents=True)
    shutil.copy(source, log)
    kb = tmp_path / "kb"

    created = run("new", "--from-log", f"{log}:{line_no}", "--kb", kb, "--id", "vllm.test.budget-line")
    assert created.exit_code == 0, created.output
    sig_file = kb / "vllm" / "budget-line.yaml"
    sidecar = log.with_suffix(".yaml")
    doc = yaml.safe_load(sig_file.read_text(encoding="utf-8"))
    assert doc["status"] == "experimental"
    regex = doc["match"]["patterns"][0]["regex"]
    lint(regex)
    message = normalize(source.read_bytes().decode("utf-8").split("\n")[line_no - 1])
    assert re.search(r"_gib>", regex) and re.compile(regex).search(message)
    assert yaml.safe_load(sidecar.read_text(encoding="utf-8"))["expect"] == {"root_cause": "vllm.test.budget-line",
                                                                            "line": line_no}

    unfinished = run("validate", kb)
    assert unfinished.exit_code == 2
    lines = unfinished.stdout.splitlines()
    assert lines and all("still a TODO placeholder" in line for line in lines)
    assert any(line.startswith(f"{sig_file}: cause: ") for line in lines)

    dump(sig_file, fill_placeholders(doc))
    dump(sidecar, fill_placeholders(yaml.safe_load(sidecar.read_text(encoding="utf-8"))))
    facts = kb / "facts.yaml"  # the proposed names logkb new declared, each with a TODO meaning
    assert any(line.startswith(f"{facts}: facts.") for line in lines)
    facts.write_text(facts.read_text(encoding="utf-8").replace("TODO: what this number is", "a size the line gives"))
    valid = run("validate", kb)
    assert valid.exit_code == 0, valid.output
    assert valid.stdout == ""

    tested = run("test", "--catalog", kb, tmp_path / "corpus")
    assert tested.exit_code == 0, tested.output
    assert "1 passed, 0 failed" in tested.output

    page = run("explain", "--catalog", kb, "vllm.test.budget-line")
    assert page.exit_code == 0
    assert [h for h in SECTIONS if h in page.stdout] == list(SECTIONS)
    assert page.stdout.index("WHAT IT MEANS") < page.stdout.index("FIXES, IN ORDER") < page.stdout.index("STATUS")
    assert "experimental" in page.stdout

    out = tmp_path / "docs"
    assert run("docs", "--catalog", kb, "--out", out).exit_code == 0
    assert "## Fixes, in order" in (out / "vllm.test.budget-line.md").read_text(encoding="utf-8")
    assert "[`vllm.test.budget-line`](vllm.test.budget-line.md)" in (out / "README.md").read_text(encoding="utf-8")
