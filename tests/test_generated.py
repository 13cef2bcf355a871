"""The generated corpus (corpus/generated): rendered from the GPU-memory reference's templates.

Three promises are checked here: the committed samples are exactly what ``render.py`` writes
today (nobody edited a sample by hand or forgot to re-run the script); every sample is matched
by the signature its sidecar names, as root cause, on its line and in its phase, by a pattern
whose ``versions`` range holds the sample's release; and every problem entry of the reference
that the script lists has at least one sample.

Samples whose table row carries a ``gap`` are known catalog gaps: they are strict xfails, so a
catalog change that closes the gap makes the test fail until the ``gap`` text is removed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from matcher.corpus import Sample as CorpusSample
from matcher.corpus import check
from matcher.normalize import normalize

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "corpus" / "generated"
SCRIPT = GENERATED / "render.py"


def _load_render():
    spec = importlib.util.spec_from_file_location("logkb_generated_render", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        sys.dont_write_bytecode = saved
    return module


render = _load_render()
NAMED = render.named(render.all_samples())


def _version(text: str) -> Version:
    """A release as PEP 440 sees it: 'v0.5.7' and llama.cpp's 'b3000' lose their prefix."""
    return Version(str(text).lstrip("vb"))


def _params():
    for name, sample in NAMED:
        marks = [pytest.mark.xfail(strict=True, reason=sample.gap)] if sample.gap else []
        yield pytest.param(name, sample, id=name, marks=marks)


def _corpus_sample(name: str) -> CorpusSample:
    sidecar = GENERATED / f"{name}.yaml"
    return CorpusSample(GENERATED / f"{name}.log", sidecar, yaml.safe_load(sidecar.read_text(encoding="utf-8")))


def _line(name: str, number: int) -> str:
    return normalize((GENERATED / f"{name}.log").read_text(encoding="utf-8").splitlines()[number - 1])


def _first_pattern(sig, text: str):
    """The pattern the scanner credits for a line: the first of the signature's that matches it."""
    return next((p for p in sig.patterns if p.compiled.search(text)), None)


# -- (a) the committed files are what the script writes ----------------------------------------------


def test_committed_samples_are_what_render_writes(tmp_path: Path) -> None:
    assert render.main(["--out", str(tmp_path)]) == 0
    fresh = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in GENERATED.iterdir()
                 if p.is_file() and p.suffix in (".log", ".yaml")}
    assert sorted(committed) == sorted(fresh), "corpus/generated is stale: run corpus/generated/render.py"
    changed = sorted(name for name in fresh if committed[name] != fresh[name])
    assert not changed, f"stale generated samples (run corpus/generated/render.py): {changed[:10]}"


def test_render_is_deterministic(tmp_path: Path) -> None:
    render.main(["--out", str(tmp_path / "a")])
    render.main(["--out", str(tmp_path / "b")])
    first = {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    assert first == {p.name: p.read_bytes() for p in (tmp_path / "b").iterdir()}


def test_no_path_of_a_build_machine_in_the_samples() -> None:
    for path in GENERATED.iterdir():
        if path.is_file() and path.suffix in (".log", ".yaml", ".py"):
            text = path.read_text(encoding="utf-8")
            assert "/work/" not in text and "/home/" not in text, path.name


# -- (b) every sample is matched by the right signature, in the right version range ---------------------


@pytest.mark.parametrize(("name", "sample"), list(_params()))
def test_generated_sample(name: str, sample, scanner, catalog) -> None:
    corpus_sample = _corpus_sample(name)
    outcome = check(scanner, corpus_sample)
    assert outcome.ok, f"{name}: {'; '.join(outcome.problems)}"
    if sample.expect in ("uncatalogued", None):
        return  # no catalog wording to check: the sample's point is that none matches
    text = _line(name, sample.line)
    sig = catalog.signatures[sample.expect]
    pattern = _first_pattern(sig, text)
    assert pattern is not None, f"{name}: no pattern of {sig.id} matches line {sample.line}: {text!r}"
    if sample.kind == "healthy":
        spec = sig.engines.get(sample.engine)
        if spec is not None:
            assert spec.contains(str(_version(sample.version))), f"{sig.id} is for {sample.engine} {spec}, not {sample.version}"
        return
    root = outcome.diagnosis.root_cause
    wording_engine = pattern.engine or next(iter(sig.engines))
    if pattern.versions is not None and wording_engine == sample.engine:
        assert pattern.versions.contains(str(_version(sample.version))), (
            f"{name}: the {sig.id} pattern that matches line {sample.line} is for versions {pattern.versions}, "
            f"the sample is {sample.engine} {sample.version}")
    off_range = [note for note in root.notes if "outside the versions" in note]
    assert not off_range, f"{name}: {off_range}"


def test_sidecars_say_what_the_table_says() -> None:
    for name, sample in NAMED:
        meta = _corpus_sample(name).meta
        assert meta["generated_by"] == "corpus/generated/render.py" and "source" not in meta
        assert (meta["reference_id"], meta["engine"], str(meta["engine_version"])) == (
            sample.ref, sample.engine, sample.version)
        assert meta["kind"] == ("healthy" if sample.kind == "healthy" else "failure")
        if sample.kind == "failure":
            assert meta["expect"] == {"root_cause": sample.expect, "phase": sample.phase, "line": sample.line}


@pytest.mark.parametrize(("name", "sample"), [pytest.param(n, s, id=n) for n, s in NAMED if s.versions])
def test_sample_release_is_inside_the_wording_range(name: str, sample) -> None:
    try:
        version = _version(sample.version)
    except InvalidVersion:
        pytest.fail(f"{name}: {sample.version!r} is not a version")
    assert version in SpecifierSet(sample.versions), f"{name}: {sample.version} not in {sample.versions}"


# -- (c) every problem entry of the reference has a sample ---------------------------------------------


def test_every_problem_entry_has_a_sample() -> None:
    refs = {s.ref for _, s in NAMED if s.kind == "failure"}
    missing = [ref for ref in render.PROBLEM_IDS if ref not in refs]
    assert not missing, f"problem entries without a generated sample: {missing}"
    on_disk = {yaml.safe_load(p.read_text(encoding="utf-8"))["reference_id"] for p in GENERATED.glob("*.yaml")}
    assert set(render.PROBLEM_IDS) <= on_disk


def test_reference_ids_are_listed_once() -> None:
    problems, facts = render.PROBLEM_IDS, render.FACT_IDS
    assert len(problems) == len(set(problems)) and len(facts) == len(set(facts))
    assert not set(problems) & set(facts)
    assert set(render.FACTS_WITHOUT_ENTRY) <= set(facts)
    unknown = {s.ref for _, s in NAMED} - set(problems) - set(facts)
    assert not unknown, f"samples for ids the table does not list: {sorted(unknown)}"
    no_sample = set(facts) - {s.ref for _, s in NAMED} - set(render.FACTS_WITHOUT_ENTRY)
    assert not no_sample, f"informational entries with neither a sample nor a reason: {sorted(no_sample)}"
