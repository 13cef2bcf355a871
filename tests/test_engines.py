"""The scanning engines: Hyperscan and pure Python find the same candidate lines, so every
report is identical whichever runs; block reading and the look-ahead pipeline keep every
byte and exact line numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from logtext import as_read
from matcher.cli import main
from matcher.prefilter import Anchor, PythonPrefilter, make_prefilter, prefiltered
from matcher.read import MAX_LINE, read_blocks, read_chunks

ROOT = Path(__file__).resolve().parent.parent
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "23.65 GiB of which 1.06 GiB is free.")


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One cache for the module: the catalog is compiled once, not once per test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOGKB_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


def scan_json(monkeypatch: pytest.MonkeyPatch, engine: str, *paths: str) -> dict:
    monkeypatch.setenv("LOGKB_ENGINE", engine)
    result = CliRunner().invoke(main, ["scan", "-f", "json", "--fail-on", "never", *paths])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_version_names_logkb_catalog_and_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGKB_ENGINE", "python")
    lines = CliRunner().invoke(main, ["version"]).output.splitlines()
    assert lines[0].startswith("logkb ") and lines[1].startswith("catalog ") and "signatures" in lines[1]
    assert lines[2].startswith("engine python")


def test_unknown_engine_warns_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGKB_ENGINE", "grep")
    result = CliRunner().invoke(main, ["version"])
    assert result.exit_code == 0
    assert "LOGKB_ENGINE='grep'" in result.stderr
    assert "engine " in result.stdout


@given(
    literals=st.lists(st.tuples(st.binary(min_size=1, max_size=4).filter(lambda b: not b.startswith(b"\n")), st.booleans()),
                      max_size=6),
    data=st.binary(max_size=300),
)
@settings(max_examples=200, deadline=None)
def test_engines_find_the_same_candidates(literals: list[tuple[bytes, bool]], data: bytes) -> None:
    pytest.importorskip("hyperscan")
    anchors = [Anchor(lit.lower() if caseless else lit, caseless) for lit, caseless in literals]
    expected = PythonPrefilter(anchors).candidates(data)
    assert make_prefilter(anchors, "hyperscan").candidates(data) == expected


def test_engines_agree_on_text_with_mixed_case_and_repeats() -> None:
    pytest.importorskip("hyperscan")
    anchors = [Anchor(b"out of memory", True), Anchor(b"CUDA", False), Anchor(b"memory", False)]
    data = b"ok\nCUDA Out Of Memory x CUDA\n\nno\nmemory memory OUT OF MEMORY"
    found = make_prefilter(anchors, "hyperscan").candidates(data)
    assert found == PythonPrefilter(anchors).candidates(data)
    assert [(c.start, c.anchors, c.first_pos) for c in found] == [(3, {0, 1}, 3), (33, {0, 2}, 33)]


def test_whole_corpus_gives_identical_reports_with_both_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("hyperscan")
    python = scan_json(monkeypatch, "python", str(ROOT / "corpus"))
    hyperscan = scan_json(monkeypatch, "hyperscan", str(ROOT / "corpus"))
    assert sum(len(f["findings"]) for f in python["files"]) > 0
    assert hyperscan == python


@pytest.mark.parametrize("engine", ["python", "hyperscan"])
def test_line_numbers_stay_exact_across_blocks(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if engine == "hyperscan":
        pytest.importorskip("hyperscan")
    filler = "INFO 11-29 10:00:00 [logger.py:39] Added request cmpl-0123456789abcdef.\n"
    before = 3 * (1 << 20) // 2 // len(filler)  # the error sits in the second 1 MiB block
    log = tmp_path / "big.log"
    log.write_text(filler * before + OOM + "\n" + filler * 1000 + OOM + "\n", encoding="utf-8")
    report = scan_json(monkeypatch, engine, str(log))["files"][0]
    assert report["lines"] == before + 1002
    oom = next(f for f in report["findings"] if "OutOfMemoryError" in f["evidence"] or "out of memory" in f["evidence"])
    assert (oom["line"], oom["last_line"], oom["occurrences"]) == (before + 1, before + 1002, 2)


@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=60),
       final_newline=st.booleans(), size=st.integers(min_value=1, max_value=64))
@settings(max_examples=200, deadline=None)
def test_blocks_keep_every_byte_and_end_at_line_ends(lines: list[bytes], final_newline: bool, size: int) -> None:
    import io

    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    blocks = list(read_blocks(io.BytesIO(data), "x", size))
    assert b"".join(blocks) == as_read(data)
    assert all(block.endswith(b"\n") or len(block) >= MAX_LINE for block in blocks[:-1])
    chunks = list(read_chunks(io.BytesIO(data), "x", size))
    assert [c.first_line for c in chunks] == [1 + sum(b.count(b"\n") for b in blocks[:i]) for i in range(len(blocks))]


class _SlowEngine:
    """A stand-in engine that claims to release the GIL, so the pipeline uses threads."""

    name = "slow"
    releases_gil = True

    def candidates(self, data: bytes) -> list:
        return [len(data)]


def test_lookahead_keeps_order_and_raises_after_earlier_blocks() -> None:
    def source():
        yield from (b"a" * n for n in range(1, 30))
        raise OSError("disk gone")

    seen = []
    with pytest.raises(OSError, match="disk gone"):
        for block, candidates in prefiltered(lambda _size: _SlowEngine(), source()):
            seen.append((len(block), candidates))
    assert seen == [(n, [n]) for n in range(1, 30)]
