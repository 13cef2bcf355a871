"""The contributor loop and the catalog lifecycle, through the CLI: new, validate, test --bless,
explain, docs, schema upgrades, overlays and signature selection on scan."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import matcher.catalog.load as catalog_load
import matcher.commands.validate as validate_module
from matcher.catalog import CatalogError, load_catalog
from matcher.cli import main
from matcher.commands.new import propose
from matcher.corpus import run_corpus
from matcher.normalize import normalize
from matcher.regexlint import RegexLintError, lint

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DOCS = ROOT / "docs" / "signatures"
SECTIONS = ("WHAT IT MEANS", "PHASE", "WHY IT HAPPENS", "CHECKS", "FIXES, IN ORDER", "HOW TO VERIFY",
            "REFERENCES", "VERSIONS AND ENGINES", "STATUS", "RELATED")
_LOAD_SIGNATURE = catalog_load.load_signature
_SIGNATURES: dict[tuple[str, bytes, bool], Any] = {}
WIDGET_LINE = "ERROR 05-01 10:00:00 [pool.py:12] Widget pool exhausted: requested 3 widgets, 0 left"


@pytest.fixture(autouse=True)
def _parse_each_catalog_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command here loads the built-in catalog again; reuse the compiled signature of a
    file whose path and bytes are unchanged (a broken file raises and is never kept)."""
    for module in (catalog_load, validate_module):
        monkeypatch.setattr(module, "load_signature", _cached_load_signature)


def _cached_load_signature(path: Path, validator: Any = None, reviewed: bool = False, fragments: Any = None) -> Any:
    shared = None if fragments is None else tuple(sorted(fragments.items()))  # a fragment edit is a new key
    key = (str(Path(path).resolve()), Path(path).read_bytes(), reviewed, shared)
    if key not in _SIGNATURES:
        _SIGNATURES[key] = _LOAD_SIGNATURE(path, validator, reviewed, fragments)
    return _SIGNATURES[key]


def run(*args: Any, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def dump(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=4096), encoding="utf-8")
    return path


def signature(sig_id: str = "zz.pool.widgets", regex: str = r"Widget pool exhausted: requested (?P<widgets>\d+)",
              **fields: Any) -> dict[str, Any]:
    doc = {
        "schema_version": 1, "id": sig_id, "title": "Widget pool exhausted", "kind": "problem",
        "severity": "error", "status": "experimental", "engines": [{"name": "any"}],
        "match": {"patterns": [{"regex": regex}]},
        "summary": "The widget pool ran dry.", "cause": "More widgets were requested than the pool holds.",
        "checks": [{"id": "size", "title": "Is the request large?", "look": "Compare the request with the pool.",
                    "fails_when": "widgets > 2"}],
        "fixes": [{"id": "smaller", "title": "Ask for fewer widgets", "change": "Request at most 2 widgets",
                   "tradeoff": "Less work per step."}],
        "verify": "The next log has no 'Widget pool exhausted'.",
        "references": [{"url": "https://example.org/widgets", "title": "Widgets"}],
    }
    doc.update(fields)
    return doc


def widget_overlay(tmp_path: Path, *docs: dict[str, Any], example: str | None = "zz.pool.widgets") -> Path:
    """tmp/kb with the given signatures, and tmp/corpus beside it with one widget log whose
    sidecar expects ``example``."""
    kb = tmp_path / "kb"
    for doc in docs or (signature(),):
        dump(kb / "any" / f"{doc['id'].rsplit('.', 1)[-1]}.yaml", doc)
    dump(kb / "facts.yaml", {"facts": {name: {"unit": "count", "engines": ["any"], "meaning": f"widgets {name}"}
                                       for name in ("widgets", "left")}})
    log = tmp_path / "corpus" / "any" / "widgets.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"INFO starting\n{WIDGET_LINE}\n", encoding="utf-8")
    if example is not None:
        dump(log.with_suffix(".yaml"), {"generated_by": "tests/test_contrib.py", "engine": "any", "kind": "failure",
                                        "expect": {"root_cause": example, "line": 2}})
    return kb


def fill_placeholders(value: Any) -> Any:
    if isinstance(value, str):
        return "https://example.org/thread" if value.startswith("https://TODO") else value.replace("TODO", "Done")
    if isinstance(value, dict):
        return {k: fill_placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_placeholders(v) for v in value]
    return value


def real_number_line() -> tuple[Path, int]:
    """A real line with sizes in GiB from a healthy vLLM log: no built-in problem signature
    matches it, so a new signature on it is the root cause of its log."""
    for log in sorted((CORPUS / "healthy").glob("healthy-vllm--*.log")):
        for number, line in enumerate(log.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\d+(?:\.\d+)? ?GiB", line):
                return log, number
    raise AssertionError("the corpus has no healthy vLLM log with a GiB figure")


# -- the whole loop -------------------------------------------------------------------------


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
    message = normalize(source.read_text(encoding="utf-8").splitlines()[line_no - 1])
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


# -- validate: one precise line per broken input ----------------------------------------------


def _widgets(tmp: Path, *docs: dict[str, Any], **options: Any) -> Path:
    """An overlay; the file the validate message must name (the widget signature's)."""
    return widget_overlay(tmp, *docs, **options) / "any" / "widgets.yaml"


def _duplicate(tmp: Path) -> Path:
    dump(_widgets(tmp).parent / "copy.yaml", signature())
    return tmp / "kb" / "any" / "widgets.yaml"  # loaded after copy.yaml, so the one reported


def _shadowed(tmp: Path) -> Path:
    """zz.pool.left's only example is a log where zz.pool.widgets (an error) is the root cause."""
    left = signature("zz.pool.left", r"requested \d+ widgets, (?P<left>\d+) left", severity="warning")
    return _widgets(tmp, signature(status="deprecated"), left, example="zz.pool.left").parent / "left.yaml"


BROKEN = {
    "bad regex": (lambda tmp: _widgets(tmp, signature(regex=r"Widget pool (exhausted")),
                  "match.patterns[0].regex", "does not compile"),
    "lookbehind": (lambda tmp: _widgets(tmp, signature(regex=r"(?<=ERROR )Widget pool exhausted")),
                   "match.patterns[0].regex", "look-behind"),
    "RE2 repetition limit": (
        lambda tmp: _widgets(tmp, signature(regex=r"exhausted: requested (?P<widgets>\d+).{0,5000}?left")),
        "match.patterns[0].regex", "repeat count above 1000"),
    "unknown fact": (lambda tmp: _widgets(tmp, signature(checks=[
        {"id": "size", "title": "Large?", "look": "Look.", "fails_when": "gizmos_requested > 2"}])),
        "checks[0].fails_when", "unknown fact 'gizmos_requested'"),
    "duplicate id": (_duplicate, "id", "already defined"),
    "missing example": (lambda tmp: _widgets(tmp, example=None), "examples", "no positive corpus example"),
    "no fixes": (lambda tmp: _widgets(tmp, signature(fixes=[])), "fixes", "at least one entry"),
    "shadowed": (_shadowed, "examples", "never the root cause"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_validate_broken_input_gives_exit_2_and_one_line(tmp_path: Path, case: str) -> None:
    make, key, words = BROKEN[case]
    path = make(tmp_path)
    result = run("validate", tmp_path / "kb")
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}: {key}: "), lines[0]
    assert words in lines[0]


def test_validate_accepts_the_valid_overlay_and_single_files(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path)
    assert run("validate", kb).exit_code == 0
    assert run("validate", kb / "any" / "widgets.yaml").exit_code == 0


def test_validate_skips_corpus_checks_without_a_corpus_unless_given(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path / "a", example=None)
    lone = tmp_path / "lone"
    shutil.copytree(kb, lone)
    assert run("validate", lone).exit_code == 0
    result = run("validate", lone, "--corpus", tmp_path / "a" / "corpus")
    assert result.exit_code == 2
    assert "no positive corpus example" in result.stdout


def test_validate_accepts_examples_listed_in_the_signature(tmp_path: Path) -> None:
    kb = widget_overlay(tmp_path, signature(examples=["corpus/any/widgets.log"]), example=None)
    assert run("validate", kb).exit_code == 0, run("validate", kb).output
    dump(kb / "any" / "widgets.yaml", signature(examples=["corpus/any/missing.log"]))
    result = run("validate", kb)
    assert result.exit_code == 2 and "examples[0]: 'corpus/any/missing.log' is not a file" in result.stdout


# -- test --bless -------------------------------------------------------------------------------


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


# -- explain --------------------------------------------------------------------------------------


def test_explain_an_id_prints_the_fixed_sections(catalog) -> None:
    sig = sorted(catalog.problems, key=lambda s: s.id)[0]
    result = run("explain", sig.id)
    assert result.exit_code == 0
    headers = [line for line in result.stdout.splitlines() if line in SECTIONS]  # a header is a line of its own
    assert headers == list(SECTIONS)
    assert sig.fixes[0].title.split()[0] in result.stdout


def test_explain_by_message_text_finds_the_signature(catalog) -> None:
    sig = next(s for s in sorted(catalog.problems, key=lambda s: s.id) if s.fuzzy)
    query = sig.fuzzy[0].template
    result = run("explain", query)
    assert result.exit_code == 0
    hits = [line.split() for line in result.stdout.split("\n\n")[0].splitlines()[1:]]
    assert float(hits[0][0]) == 100.0
    assert any(h[1] == sig.id and float(h[0]) == 100.0 for h in hits)


def test_explain_unknown_text_exits_2() -> None:
    result = run("explain", "qqqq zzzz xxxx")
    assert result.exit_code == 2


def test_explain_shows_related_links(tmp_path: Path, catalog) -> None:
    other = sorted(catalog.problems, key=lambda s: s.id)[0]
    kb = widget_overlay(tmp_path, signature(related=[{"id": other.id, "type": "similar"}]))
    result = run("explain", "--catalog", kb, "zz.pool.widgets")
    related = result.stdout.split("RELATED", 1)[1]
    assert other.id in related and other.title.split()[0] in related and "similar" in related


# -- docs -----------------------------------------------------------------------------------------


def test_committed_docs_are_current(tmp_path: Path) -> None:
    assert run("docs", "--out", tmp_path).exit_code == 0
    generated = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.md")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    assert sorted(committed) == sorted(generated), "docs/signatures is stale: run `logkb docs`"
    stale = [name for name in generated if generated[name] != committed[name]]
    assert not stale, f"docs/signatures is stale ({stale[:3]}): run `logkb docs`"


def test_docs_are_deterministic_and_drop_removed_signatures(tmp_path: Path, catalog) -> None:
    kb = widget_overlay(tmp_path)
    out = tmp_path / "docs"
    first = run("docs", "--catalog", kb, "--out", out)
    snapshot = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    again = run("docs", "--catalog", kb, "--out", out)
    assert "0 file(s) changed" in again.output and first.exit_code == again.exit_code == 0
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == snapshot
    assert len(snapshot) == len(catalog.problems) + 2  # every problem, the overlay's one, the index
    run("docs", "--out", out)
    assert not (out / "zz.pool.widgets.md").exists()


# -- new: the proposed regex ---------------------------------------------------------------------


@pytest.mark.parametrize(("message", "names"), [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
     "23.65 GiB of which 5.06 MiB is free.", {"allocate_mib", "capacity_gib", "value_mib"}),
    ("ValueError: No available memory for the cache blocks. See https://docs.vllm.ai/en/latest/ for more", set()),
    ("Loading weights from /models/llama-3-8b/model-00001.safetensors failed at 0x7ffd1234 with max_num_seqs=256",
     {"max_num_seqs"}),
    ("request cmpl-3f9a8b7c6d5e4f30 needs 4,096 tokens but only 1,024 bytes remain", {"only_bytes"}),
])
def test_propose_generalizes_numbers_paths_and_ids(message: str, names: set[str]) -> None:
    proposal = propose(message)
    lint(proposal.regex)
    assert set(re.compile(proposal.regex).groupindex) == names
    assert re.compile(proposal.regex).search(message)
    assert not [fragment for fragment in ("/models", "0x7ffd", "3f9a8b", "docs") if fragment in proposal.regex]


def test_propose_converts_units_in_the_facts() -> None:
    facts = propose("CUDA out of memory. Tried to allocate 512.00 MiB of 2 GiB").facts
    assert facts == {"allocate_mib": 512.0, "value_gib": 2.0}


_WORDS = st.sampled_from(["memory", "failed", "cache", "blocks", "GPU", "error:", "(rank", "=", "x", "of", "[0]"])
_PIECES = st.one_of(
    _WORDS,
    st.builds(lambda n, u: f"{n}{u}", st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.2f}"),
              st.sampled_from(["", " GiB", "MiB", " bytes", " KB"])),
    st.sampled_from(["/tmp/a/b.py", "0xdeadbeef", "req-12ab34cd56", "max_num_seqs=", "a|b", "f(x)*y+"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=12).map(" ".join))
def test_propose_always_lints_and_matches(message: str) -> None:
    try:
        proposal = propose(message)
    except RegexLintError as exc:
        assert "required literal" in str(exc)  # no fixed text to anchor on: the command says so
        return
    lint(proposal.regex)
    assert re.compile(proposal.regex).search(message)


def test_new_refuses_a_line_without_an_anchor(tmp_path: Path) -> None:
    log = tmp_path / "n.log"
    log.write_text("12 34 56\n", encoding="utf-8")
    result = run("new", "--from-log", f"{log}:1", "--engine", "vllm", "--kb", tmp_path / "kb")
    assert result.exit_code == 2
    assert "cannot propose a regex" in result.output and not (tmp_path / "kb").exists()


# -- lifecycle: schema upgrade, overlays, selection ----------------------------------------------


def test_a_schema_version_0_file_is_upgraded_on_load(tmp_path: Path) -> None:
    old = signature(schema_version=0)
    old["checks"] = [{"id": "size", "title": "Large?", "look": "Look.", "when_facts": "widgets > 2"}]
    marker = {"schema_version": 0, "id": "zz.phase.pool-ready", "title": "Widget pool ready", "kind": "fact",
              "status": "stable", "engines": [{"name": "any"}], "phase_marker": "serving",
              "match": {"patterns": [{"regex": r"Widget pool ready"}]}}
    kb = widget_overlay(tmp_path, old)
    dump(kb / "any" / "ready.yaml", marker)
    catalog = load_catalog([kb])
    assert catalog.signatures["zz.phase.pool-ready"].enters_phase == "serving"
    assert "checks[0].fails_when" in catalog.signatures["zz.pool.widgets"].expressions
    assert run("validate", kb).exit_code == 0
    marker["phase_marker"] = "nowhere"
    dump(kb / "any" / "ready.yaml", marker)
    with pytest.raises(CatalogError, match=r"ready\.yaml: enters_phase: 'nowhere'"):
        load_catalog([kb])


def test_overlay_id_clash_is_an_error_unless_overridden(tmp_path: Path, catalog) -> None:
    builtin = sorted(catalog.problems, key=lambda s: s.id)[0]
    kb = widget_overlay(tmp_path, signature(builtin.id))
    clash = run("scan", "--catalog", kb, tmp_path / "corpus" / "any" / "widgets.log")
    assert clash.exit_code == 2
    assert f"id: '{builtin.id}' is already defined" in clash.output
    dump(kb / "catalog.yaml", {"catalog_version": "2026.1.0", "schema_version": 1, "changelog": [],
                               "overrides": [builtin.id]})
    replaced = load_catalog([kb]).signatures[builtin.id]
    assert replaced.title == "Widget pool exhausted" and replaced.path.is_relative_to(kb)


def test_logkb_catalog_env_takes_several_directories(tmp_path: Path) -> None:
    first = widget_overlay(tmp_path / "one")
    second = widget_overlay(tmp_path / "two", signature("zz.pool.gadgets", r"Gadget pool exhausted"))
    env = {"LOGKB_CATALOG": os.pathsep.join([str(first), str(second)])}
    assert run("explain", "zz.pool.widgets", env=env).exit_code == 0
    assert run("explain", "zz.pool.gadgets", env=env).exit_code == 0


@pytest.mark.parametrize(("options", "expected"), [
    ((), {"zz.pool.widgets", "zz.pool.left"}),
    (("--status", "stable", "--status", "test"), {"zz.pool.left"}),
    (("--status", "deprecated"), {"zz.pool.gone"}),
    (("--only", "zz.pool.w*"), {"zz.pool.widgets"}),
    (("--only", "leftovers"), {"zz.pool.left"}),
    (("--ignore", "leftovers"), {"zz.pool.widgets"}),
])
def test_scan_selects_signatures_by_status_id_and_tag(tmp_path: Path, options: tuple[str, ...],
                                                      expected: set[str]) -> None:
    kb = widget_overlay(
        tmp_path, signature(),
        signature("zz.pool.left", r"widgets, (?P<left>\d+) left", status="stable", tags=["leftovers"]),
        signature("zz.pool.gone", r"Widget pool", status="deprecated"),
    )
    result = run("scan", "--format", "json", "--catalog", kb, *options, tmp_path / "corpus" / "any" / "widgets.log")
    found = {f["id"] for f in json.loads(result.stdout)["files"][0]["findings"]}
    assert found == expected
