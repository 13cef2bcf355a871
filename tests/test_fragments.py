"""Shared catalog parts (kb/_fragments/): a pattern's (?&name) is the fragment's text and a fix
list's ``use: <id>`` the shared fix, one edit changes every signature that uses either, and
validate names unknown or malformed parts (exit 2, file:line) and unused ones (a warning)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from matcher.catalog import load_catalog
from matcher.cli import main

ROOT = Path(__file__).resolve().parent.parent
FRAGMENT = "fragments:\n  pool_size:\n    meaning: the pool's size\n    regex: 'size (?P<pool_gib>[0-9.]+) GiB'\n"


def run(*args: object):
    return CliRunner().invoke(main, [*map(str, args)])


def test_one_edit_of_a_built_in_fragment_changes_every_pattern_that_uses_it(kb_copy: Path) -> None:
    users = {path.relative_to(ROOT / "kb").as_posix() for path in (ROOT / "kb").rglob("*.yaml")
             if "(?&torch_oom_tried)" in path.read_text(encoding="utf-8")}
    assert len(users) >= 4, users
    fragments = kb_copy / "_fragments" / "pytorch.yaml"
    fragments.write_text(fragments.read_text().replace("has a total capac(?:i)?ty of", "has a total capacity of"))
    before, after = load_catalog(), load_catalog([kb_copy], builtin=False)
    changed = {sig.path.relative_to(kb_copy).as_posix() for sig in after.signatures.values()
               if [p.source for p in sig.patterns] != [p.source for p in before.signatures[sig.id].patterns]}
    assert changed == users


def test_a_resolved_pattern_reads_the_numbers_of_a_real_message(catalog) -> None:
    pattern = catalog.signatures["pytorch.cuda.oom"].patterns[0]
    assert "(?&" not in pattern.source
    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
            "23.65 GiB of which 3.06 MiB is free. Process 1 has 23.64 GiB memory in use.")
    found = pattern.compiled.search(line)
    assert found and found.group("alloc_gib") == "20.00 MiB" and found.group("device_free_gib") == "3.06 MiB"


def _overlay_with_fragment(overlay, tmp_path: Path, regex: str) -> Path:
    root = overlay(tmp_path / "kb", regex=regex)
    (root / "_fragments").mkdir()
    (root / "_fragments" / "pool.yaml").write_text(FRAGMENT)
    (root / "facts.yaml").write_text("facts:\n  pool_gib: {unit: GiB, engines: [vllm], meaning: pool size}\n")
    return root


def _misspell_and_expect_error(root: Path, key: str) -> None:
    """The overlay's one reference to pool_size misspelled: validate exits 2 with one line,
    the file and line of the reference and the key that holds it."""
    thing = root / "test" / "thing.yaml"
    thing.write_text(thing.read_text().replace("(?&pool_size)", "(?&pool_sizes)"))
    result = run("validate", root)
    assert result.exit_code == 2
    line = next(i for i, text in enumerate(thing.read_text().splitlines(), 1) if "(?&pool_sizes)" in text)
    assert result.stdout.splitlines() == [
        f"{thing}:{line}: {key}: unknown fragment 'pool_sizes' (fragments live in kb/_fragments/)"]


def test_an_overlay_uses_its_own_fragment_and_an_unknown_one_fails_with_file_and_line(overlay, tmp_path: Path) -> None:
    root = _overlay_with_fragment(overlay, tmp_path, r"Sample overlay failure (?&pool_size)")
    result = run("validate", root)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    log = tmp_path / "x.log"
    log.write_text("ERROR Sample overlay failure size 2.50 GiB\n")
    scanned = run("scan", "--catalog", root, "--format", "json", log)
    assert '"pool_gib": 2.5' in scanned.stdout, scanned.output

    _misspell_and_expect_error(root, "match.patterns[0].regex")


def test_an_unused_fragment_is_a_warning_and_a_bad_one_an_error(overlay, tmp_path: Path) -> None:
    root = _overlay_with_fragment(overlay, tmp_path, r"Sample overlay failure (?P<pool_gib>[0-9.]+) GiB")
    result = run("validate", root)
    assert result.exit_code == 0, result.output
    assert f"warning: {root / '_fragments' / 'pool.yaml'}:2: fragments.pool_size: no pattern uses it" in result.output
    (root / "_fragments" / "pool.yaml").write_text(FRAGMENT.replace("[0-9.]+", "(?:[0-9]+)+"))
    result = run("validate", root)
    assert result.exit_code == 2
    assert re.search(r"pool\.yaml:2: fragments\.pool_size\.regex: regex .*", result.stdout), result.stdout


def test_an_exclusion_refers_to_a_fragment_and_an_unknown_one_fails_with_file_and_line(overlay, tmp_path: Path) -> None:
    """An exclusion may name a fragment too, so a wording that several signatures exclude is
    one edit; a name no fragment has is an error at the exclusion's line."""
    root = _overlay_with_fragment(overlay, tmp_path, r"Sample overlay failure (?P<pool_gib>[0-9.]+) GiB")
    thing = root / "test" / "thing.yaml"
    thing.write_text(thing.read_text().replace("summary: s\n", "  exclude:\n    - '(?&pool_size)'\nsummary: s\n"))
    assert run("validate", root).exit_code == 0
    log = tmp_path / "x.log"
    log.write_text("ERROR Sample overlay failure 2.50 GiB\nERROR Sample overlay failure 3.00 GiB, size 9.00 GiB\n")
    scanned = run("scan", "--catalog", root, "--format", "json", "--only", "test.overlay.thing", log)
    (finding,) = json.loads(scanned.stdout)["files"][0]["findings"]
    assert [incident["line"] for incident in finding["incidents"]] == [1], scanned.output
    _misspell_and_expect_error(root, "match.exclude[0]")


SHARED_FIX = """\
fixes:
  smaller-pool:
    title: Shrink the pool
    when: "has(free_gib)"
    change: "Lower pool_size below {free_gib} GiB"
    change_fallback: "Lower pool_size"
    tradeoff: "Fewer widgets at once."
    verify: "The pool is created."
"""


def _overlay_with_shared_fix(overlay, tmp_path: Path) -> tuple[Path, Path]:
    root = overlay(tmp_path / "kb")
    (root / "_fragments").mkdir()
    (root / "_fragments" / "pool.yaml").write_text(SHARED_FIX)
    thing = root / "test" / "thing.yaml"
    thing.write_text(thing.read_text().replace("fixes:\n", "fixes:\n  - use: smaller-pool\n"))
    return root, thing


def test_a_shared_fix_is_one_edit_for_every_built_in_signature_that_uses_it(kb_copy: Path) -> None:
    users = {path.relative_to(ROOT / "kb").as_posix() for path in (ROOT / "kb").rglob("*.yaml")
             if "- use: compile-without-cudagraphs" in path.read_text(encoding="utf-8")}
    assert len(users) >= 2, users
    before = load_catalog()
    fixes = [fix for sig in before.signatures.values() if sig.path.relative_to(ROOT / "kb").as_posix() in users
             for fix in sig.fixes if fix.id == "compile-without-cudagraphs"]
    assert len(fixes) == len(users) and len({fix.title for fix in fixes}) == 1
    shared = kb_copy / "_fragments" / "pytorch.yaml"
    shared.write_text(shared.read_text().replace("Let torch.compile record fewer CUDA graphs", "Record fewer graphs"))
    after = load_catalog([kb_copy], builtin=False)
    changed = {sig.path.relative_to(kb_copy).as_posix() for sig in after.signatures.values()
               if any(fix.id == "compile-without-cudagraphs" and fix.title.startswith("Record fewer graphs") for fix in getattr(sig, "fixes", ()))}
    assert changed == users


def test_an_overlay_uses_its_own_shared_fix_and_an_unknown_one_fails_with_file_and_line(overlay, tmp_path: Path) -> None:
    root, thing = _overlay_with_shared_fix(overlay, tmp_path)
    result = run("validate", root)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    log = tmp_path / "x.log"
    log.write_text("ERROR Sample overlay failure 2.50 GiB\n")
    report = json.loads(run("scan", "--catalog", root, "--format", "json", log).stdout)
    (finding,) = report["files"][0]["findings"]
    assert [fix["id"] for fix in finding["fixes"]] == ["smaller-pool", "one"]
    assert finding["fixes"][0]["change"] == "Lower pool_size below 2.5 GiB"

    thing.write_text(thing.read_text().replace("use: smaller-pool", "use: smaller-pools"))
    result = run("validate", root)
    assert result.exit_code == 2
    line = next(i for i, text in enumerate(thing.read_text().splitlines(), 1) if "smaller-pools" in text)
    assert result.stdout.splitlines() == [
        f"{thing}:{line}: fixes[0].use: unknown shared fix 'smaller-pools' (shared fixes live under 'fixes' in kb/_fragments/)"]


def test_a_malformed_or_unused_shared_fix_is_named_at_its_own_line(overlay, tmp_path: Path) -> None:
    root, thing = _overlay_with_shared_fix(overlay, tmp_path)
    shared = root / "_fragments" / "pool.yaml"
    shared.write_text(SHARED_FIX.replace('    tradeoff: "Fewer widgets at once."\n', ""))
    result = run("validate", root)
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [f"{shared}:2: fixes.smaller-pool: 'tradeoff' is a required property"]

    shared.write_text(SHARED_FIX + "  unused-fix:\n    title: t\n    change: c\n    tradeoff: t\n")
    result = run("validate", root)
    assert result.exit_code == 0, result.output
    assert f"warning: {shared}:9: fixes.unused-fix: no signature uses it" in result.output


def test_a_shared_fix_names_only_checks_of_the_signature_that_uses_it(overlay, tmp_path: Path) -> None:
    """A shared fix's ``when: checks.<id>...`` is checked in each signature that uses it: a
    signature without that check fails validation with its own file."""
    root, thing = _overlay_with_shared_fix(overlay, tmp_path)
    shared = root / "_fragments" / "pool.yaml"
    shared.write_text(SHARED_FIX.replace('when: "has(free_gib)"', 'when: "checks.pool-free.failed"'))
    result = run("validate", root)
    assert result.exit_code == 2
    assert result.stdout.startswith(f"{thing}"), result.stdout
    assert "fixes[0].when" in result.stdout and "pool-free" in result.stdout, result.stdout
