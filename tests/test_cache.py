"""The on-disk catalog cache: a hit gives the same catalog without YAML or jsonschema, and
any change to a catalog file means a fresh, fully validated load."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matcher import cache
from matcher.catalog import cache as catalog_cache
from matcher.catalog import Catalog, CatalogError, ProblemSignature, Signature, SymptomClass, load_catalog
from matcher.scan import Scanner

OVERLAY_ID = "test.overlay.thing"  # the id the overlay fixture (conftest.py) writes

ROOT = Path(__file__).resolve().parent.parent
@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LOGKB_CACHE_DIR", str(folder))
    monkeypatch.delenv("LOGKB_NO_CACHE", raising=False)
    return folder


def catalog_entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("catalog-*.json"))


def test_second_load_is_a_hit_without_yaml_parsing_or_jsonschema(cache_dir: Path) -> None:
    probe = ("import sys; from matcher.catalog import load_catalog; c = load_catalog(); "
             "print(len(c.signatures), 'jsonschema' in sys.modules)")
    env = {**os.environ, "LOGKB_CACHE_DIR": str(cache_dir)}
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
            for _ in range(2)]
    first, second = (r.stdout.split() for r in runs)
    assert first[1] == "True" and second[1] == "False"
    assert first[0] == second[0]
    assert len(catalog_entries(cache_dir)) == 1


def test_cached_catalog_scans_like_a_fresh_one(cache_dir: Path) -> None:
    fresh = load_catalog()
    cached = load_catalog()
    assert catalog_entries(cache_dir)
    assert cached.version == fresh.version and cached.manifest == fresh.manifest
    assert list(cached.signatures) == list(fresh.signatures)
    for sig_id, sig in fresh.signatures.items():
        again = cached.signatures[sig_id]
        assert _typed(again) == _typed(sig)
    log = next((ROOT / "corpus" / "vllm").glob("*.log"))
    runs = []
    for catalog in (fresh, cached):
        with log.open("rb") as stream:
            run = Scanner(catalog).run(stream, str(log))
        runs.append([(f.id, f.line, f.facts, f.phase) for f in run.findings])
    assert runs[0] == runs[1] and runs[0]


def _typed(sig: Signature) -> tuple[object, ...]:
    """What a consumer reads of a signature, in comparable form."""
    patterns = [(p.source, p.anchors, p.ignore_case, p.versions and p.versions.text, p.phase, p.severity, p.engine,
                 p.form) for p in sig.patterns]
    common = (type(sig), sig.path, sig.title, sig.summary, sig.tags, patterns, sig.references, sig.related,
              [r.source for r in sig.exclude], list(sig.expressions),
              {name: spec and spec.text for name, spec in sig.engines.items()})
    if isinstance(sig, ProblemSignature):
        return (*common, sig.cause, sig.verify, sig.checks, sig.fixes, sig.values, sig.fuzzy, sig.wrapper,
                [r.source for r in sig.frames])
    if isinstance(sig, SymptomClass):
        return (*common, sig.symptom)
    return (*common, getattr(sig, "enters_phase", None), getattr(sig, "names_engine", None),
            getattr(sig, "continues_event", None), getattr(sig, "harmless", None))


def test_editing_a_catalog_file_invalidates_the_entry(cache_dir: Path, tmp_path: Path, overlay) -> None:
    root = overlay(tmp_path / "overlay")
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "First title"
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "First title"  # from the cache
    overlay(root, title="Second title")
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "Second title"
    assert len(catalog_entries(cache_dir)) == 2


def _count_hashing(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    content_key = catalog_cache._content_key
    monkeypatch.setattr(catalog_cache, "_content_key", lambda inputs: calls.append(1) or content_key(inputs))
    return calls


def test_unchanged_files_are_known_by_their_stamp_without_hashing(cache_dir: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch, overlay) -> None:
    root = overlay(tmp_path / "overlay")
    monkeypatch.setattr(catalog_cache, "RACY_NS", 0)
    hashed = _count_hashing(monkeypatch)
    load_catalog([root], builtin=False)
    assert hashed == [1]
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "First title"
    assert hashed == [1]


def test_files_written_just_before_hashing_are_hashed_again(cache_dir: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch, overlay) -> None:
    root = overlay(tmp_path / "overlay")  # written now: within RACY_NS of the first hash
    hashed = _count_hashing(monkeypatch)
    load_catalog([root], builtin=False)
    load_catalog([root], builtin=False)
    assert hashed == [1, 1]


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(cache_dir: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch, overlay) -> None:
    monkeypatch.setattr(catalog_cache, "RACY_NS", 0)
    root = overlay(tmp_path / "overlay")
    path = root / "test" / "thing.yaml"
    before = path.stat()
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "First title"
    time.sleep(0.05)  # past one tick of the file system's coarse clock, which RACY_NS=0 no longer waits for
    overlay(root, title="Other title")  # same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert load_catalog([root], builtin=False).signatures[OVERLAY_ID].title == "Other title"


def test_a_broken_edit_is_reported_not_hidden_by_the_cache(cache_dir: Path, tmp_path: Path, overlay) -> None:
    root = overlay(tmp_path / "overlay")
    load_catalog([root], builtin=False)
    overlay(root, regex="(?P<x>a+)+ no anchor")
    with pytest.raises(CatalogError, match="thing.yaml"):
        load_catalog([root], builtin=False)


def test_a_corrupt_entry_is_ignored_and_rewritten(cache_dir: Path, tmp_path: Path, overlay) -> None:
    root = overlay(tmp_path / "overlay")
    load_catalog([root], builtin=False)
    (entry,) = catalog_entries(cache_dir)
    entry.write_text('{"format": 1, "signatures": [')
    assert OVERLAY_ID in load_catalog([root], builtin=False).signatures
    assert OVERLAY_ID in load_catalog([root], builtin=False).signatures


def test_no_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overlay) -> None:
    monkeypatch.setenv("LOGKB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LOGKB_NO_CACHE", "1")
    load_catalog([overlay(tmp_path / "overlay")], builtin=False)
    assert cache.directory() is None
    assert not (tmp_path / "cache").exists()


def test_xdg_cache_home_is_the_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOGKB_CACHE_DIR", raising=False)
    monkeypatch.delenv("LOGKB_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.directory() == tmp_path / "xdg" / "logkb"


def test_hyperscan_database_is_cached_and_a_bad_one_recompiled(cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                               catalog: Catalog) -> None:
    pytest.importorskip("hyperscan")
    monkeypatch.setenv("LOGKB_ENGINE", "hyperscan")
    text = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    expected = Scanner(catalog).prefilter.candidates(text)
    (database,) = cache_dir.glob("hyperscan-*.db")
    assert Scanner(catalog).prefilter.candidates(text) == expected  # loaded from the cache
    database.write_bytes(b"not a database")
    assert Scanner(catalog).prefilter.candidates(text) == expected
    assert database.read_bytes() != b"not a database"
