from pathlib import Path

import pytest

from matcher.catalog import (CatalogError, FactEntry, FactExtractor, FrameMap, PhaseMarker, ProblemSignature,
                             SymptomClass, load_catalog)

GOOD = """\
schema_version: 1
id: test.sample.thing
title: A sample problem for tests
kind: problem
severity: error
status: experimental
engines: [{name: vllm}]
match:
  patterns:
    - regex: 'Sample failure with (?P<free_gib>[\\d.]+) GiB'
summary: s
cause: c
checks: []
fixes:
  - id: one
    title: t
    change: "x {free_gib}"
    tradeoff: t
verify: v
references: [{url: "https://example.org"}]
"""


def write(root: Path, text: str, name: str = "sample.yaml") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    path = root / "test" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_builtin_catalog_loads(catalog):
    assert catalog.version
    assert "vllm.startup.free-memory-below-utilization" in catalog.signatures
    assert all(p.anchors for s in catalog.signatures.values() for p in s.patterns)


def test_each_kind_of_entry_is_its_own_class(catalog):
    classes = {"problem": ProblemSignature, "symptom": SymptomClass, "extractor": FactExtractor,
               "phase-marker": PhaseMarker, "frame-map": FrameMap}
    for sig in catalog.signatures.values():
        assert type(sig) is classes[sig.document["kind"]], sig.id
        assert sig.kind == sig.document["kind"]
    assert {type(s) for s in catalog.facts} == {FactExtractor, PhaseMarker, FrameMap}
    assert all(isinstance(s, FactEntry) for s in catalog.facts)
    assert not any(isinstance(s, FactEntry) for s in catalog.problems + catalog.symptoms)


FACT = """\
schema_version: 2
id: test.info.thing
title: A sample value for tests
kind: extractor
status: experimental
engines: [{name: vllm}]
match:
  patterns:
    - regex: 'Sample value (?P<gpu_count>\\d+) here'
"""


@pytest.mark.parametrize("extra", [
    "fixes: [{id: x, title: t, change: c, tradeoff: t}]\n", "cause: c\n", "phase: serving\n", "wrapper: true\n",
    "symptom: {prefixes: [x]}\n",
])
def test_a_key_that_only_another_kind_reads_is_refused(tmp_path, extra):
    write(tmp_path / "overlay", FACT + extra)
    key = extra.split(":")[0]
    with pytest.raises(CatalogError, match=rf"sample.yaml: {key}: an extractor entry has no such key"):
        load_catalog([tmp_path / "overlay"])


def test_an_extractor_without_keys_of_other_kinds_loads(tmp_path):
    write(tmp_path / "overlay", FACT)
    assert type(load_catalog([tmp_path / "overlay"]).signatures["test.info.thing"]) is FactExtractor


def test_overlay_adds_a_signature(tmp_path):
    write(tmp_path / "overlay", GOOD)
    catalog = load_catalog([tmp_path / "overlay"])
    assert "test.sample.thing" in catalog.signatures


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("severity: error", "severity: fatal"), r"sample.yaml: severity: 'fatal' is not one of"),
        (("title: A sample problem for tests\n", ""), r"sample.yaml: \(top level\): 'title' is a required property"),
        (("change: \"x {free_gib}\"", "chnage: x"), r"sample.yaml: fixes\[0\]"),
        (("'Sample failure with (?P<free_gib>", "'(?<=a)Sample failure with (?P<free_gib>"),
         r"sample.yaml: match.patterns\[0\].regex: regex uses a look-ahead/look-behind"),
        (("'Sample failure with (?P<free_gib>[\\d.]+) GiB'", "'(a+)+Sample failure'"),
         r"match.patterns\[0\].regex: regex nests an unbounded repeat"),
        (("'Sample failure with (?P<free_gib>[\\d.]+) GiB'", "'\\d+ x'"),
         r"match.patterns\[0\].regex: regex has no required literal"),
        (("checks: []", "checks: [{id: c, title: t, look: l, fails_when: 'nonexistent_fact > 1'}]"),
         r"checks\[0\].fails_when: unknown fact 'nonexistent_fact'"),
        (("checks: []", "checks: [{id: c, title: t, look: l, fails_when: 'x.__class__'}]"),
         r"checks\[0\].fails_when: Attribute is not allowed"),
        (("checks: []", "checks: [{id: c, title: t, look: l, when: 'not has(nonexistent_fact)'}]"),
         r"checks\[0\].when: unknown fact 'nonexistent_fact'"),
        (("summary: s\n", "summary: s\nsummary: again\n"),
         r"sample.yaml: line 12: invalid YAML: key 'summary' appears twice in one mapping"),
    ],
)
def test_broken_signature_names_file_and_key(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    write(tmp_path / "overlay", GOOD.replace(old, new))
    with pytest.raises(CatalogError, match=message):
        load_catalog([tmp_path / "overlay"])


def test_duplicate_id_is_an_error_unless_overridden(tmp_path):
    overlay = tmp_path / "overlay"
    write(overlay, GOOD.replace("test.sample.thing", "vllm.startup.free-memory-below-utilization"))
    with pytest.raises(CatalogError, match="is already defined"):
        load_catalog([overlay])
    (overlay / "catalog.yaml").write_text(
        "catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n"
        "overrides: [vllm.startup.free-memory-below-utilization]\n"
    )
    replaced = load_catalog([overlay]).signatures["vllm.startup.free-memory-below-utilization"]
    assert replaced.title == "A sample problem for tests"


def test_yaml_aliases_and_oversize_files_are_refused(tmp_path):
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    write(tmp_path / "o1", bomb)
    with pytest.raises(CatalogError, match="aliases are not allowed"):
        load_catalog([tmp_path / "o1"])
    write(tmp_path / "o2", GOOD + "#" * 300_000 + "\n")
    with pytest.raises(CatalogError, match="over the 262144-byte limit"):
        load_catalog([tmp_path / "o2"])


def test_python_tags_are_not_constructed(tmp_path):
    write(tmp_path / "o", "!!python/object/apply:os.system ['true']\n")
    with pytest.raises(CatalogError, match="invalid YAML"):
        load_catalog([tmp_path / "o"])


# -- renamed ids: related: [{id: <old>, type: renamed}] keeps the old id working ------------------

RENAMED = {"torch.cuda.oom": "pytorch.cuda.oom", "llamacpp.cuda.alloc-failed": "llamacpp.gpu.alloc-failed"}


def test_a_renamed_id_resolves_in_the_catalog_and_in_explain(catalog):
    from click.testing import CliRunner

    from matcher.cli import main

    for old, new in RENAMED.items():
        assert old not in catalog.signatures and catalog.resolve(old) is catalog.signatures[new]
        page = CliRunner().invoke(main, ["explain", old])
        assert page.exit_code == 0, page.output
        assert page.output.startswith(f"{old} was renamed to {new}\n")
        assert new in page.output and "renamed" in page.output


def test_an_overlay_that_names_an_old_id_gets_the_renamed_signature(tmp_path):
    explaining = GOOD.replace("test.sample.thing", "test.sample.explainer").replace(
        "engines: [{name: vllm}]", "engines: [{name: vllm}]\nexplains: [torch.cuda.oom]")
    write(tmp_path, explaining)
    replacement = GOOD.replace("test.sample.thing", "torch.cuda.oom").replace("A sample problem", "A local OOM page")
    write(tmp_path, replacement, "oom.yaml")
    (tmp_path / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n"
                                           "overrides: [torch.cuda.oom]\n")
    catalog = load_catalog([tmp_path])
    assert "torch.cuda.oom" not in catalog.signatures
    replaced = catalog.signatures["pytorch.cuda.oom"]
    assert replaced.title.startswith("A local OOM page") and replaced.path.is_relative_to(tmp_path)
    assert catalog.signatures["test.sample.explainer"].explains == ("pytorch.cuda.oom",)


def test_sidecars_and_first_seen_rows_with_an_old_id_still_count(tmp_path, scanner):
    import importlib.util
    import shutil
    import sys

    import yaml

    from matcher.corpus import Sample, check

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("first_seen", root / "bench" / "first_seen.py")
    first_seen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(first_seen)
    log = root / "corpus" / "vllm" / "torch.cuda.oom--vllm-project-vllm-26863.log"
    batch = tmp_path / "batch"
    batch.mkdir()
    shutil.copy(log, batch / log.name)
    sidecar = batch / log.with_suffix(".yaml").name
    sidecar.write_text((log.with_suffix(".yaml")).read_text().replace("pytorch.cuda.oom", "torch.cuda.oom"))
    assert "root_cause: torch.cuda.oom\n" in sidecar.read_text()
    sample = Sample(batch / log.name, sidecar, yaml.safe_load(sidecar.read_text()))
    assert check(scanner, sample).problems == []
    counts = first_seen.score(str(Path(sys.executable).parent / "logkb"), [batch], details=False)
    assert (counts["failures"], counts["right"]) == (1, 1)
    assert (counts["shown"], counts["shown_right"]) == (1, 1)  # its excerpt holds the decisive line


def test_a_required_literal_is_measured_in_the_bytes_the_prefilter_searches() -> None:
    """Four bytes of UTF-8: three ASCII characters are too few to select lines, a Chinese
    shell's three-character 'Killed' (nine bytes) is enough."""
    from matcher.regexlint import RegexLintError, lint

    assert lint(r"^\s*已杀死\s*$").literals == ("已杀死",)
    with pytest.raises(RegexLintError, match="no required literal"):
        lint(r"^\s*abc\s*$")
