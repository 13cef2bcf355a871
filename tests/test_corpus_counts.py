"""README.md's corpus figures are the ones bench/corpus_counts.py counts from the files, so a
batch added to the corpus without updating them fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_quotes_the_corpus_as_it_is() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "corpus_counts.py")], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    counted = dict(line.split(": ", 1) for line in out.splitlines())
    real = counted["real logs"]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert (f"Version {counted['catalog']} (schema 2) has {counted['entries problem']} problem signatures, "
            f"{counted['entries symptom']} symptom classes, {counted['entries extractor']} value extractors, "
            f"{counted['entries phase-marker']} phase markers and {counted['entries frame-map']} traceback-frame maps") in readme
    assert f"`corpus/` holds {real} real log excerpts" in readme
    assert f"{counted['real failure']} failures (kernel" in readme
    assert f"{counted['real non-memory']} failures that are not memory problems" in readme
    assert f"{counted['real healthy']} logs that must produce no error or warning" in readme
    assert f"{counted['real with a gap line']} sidecars carry a `gap:` line" in readme
    assert f"holds {counted['rendered samples']} samples rendered" in readme
    assert f"`corpus/generated/gpu/` holds {counted['samples produced on a GPU']} logs that PyTorch programs printed" in readme
    assert f"corpus: {counted['all samples']} samples, 0 failed" in readme
    assert (f"exact wording {counted['root cause exact']} times, on a symptom class in its phase and engine {counted['root cause class']} "
            f"times, on a cut or wrapped message {counted['root cause partial']} times, and {counted['root cause uncatalogued']} times on "
            f"an uncatalogued error; {counted['root cause none']} (the healthy logs among them) name none") in readme
