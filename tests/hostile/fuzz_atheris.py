"""Coverage-guided fuzzing of the reader, normalizer, matcher and every report format.

Run by hand (not part of the test suite):

    pip install atheris
    mkdir /tmp/seeds && cp corpus/*/*.log /tmp/seeds/    # libFuzzer adds its finds to this folder
    python tests/hostile/fuzz_atheris.py /tmp/seeds -atheris_runs=100000

Each input is fed as a log to the whole pipeline: chunked reading, normalization, matching,
diagnosis, checklists and all seven renderers. Any exception is a crash; libFuzzer's
``-timeout`` (default 25 s per input here) catches hangs.
"""

from __future__ import annotations

import io
import sys

import atheris

with atheris.instrument_imports():
    from matcher.api import scanner
    from matcher.normalize import normalize
    from matcher.read import read_chunks
    from matcher.report import build_report
    from matcher.report import github, gitlab, json_report, junit, markdown, sarif, text

SCANNER = scanner()
RENDERERS = (
    lambda r: text.render(r), lambda r: json_report.render(r, "fuzz"), lambda r: markdown.render(r, "fuzz"),
    lambda r: sarif.render(r, "fuzz"), lambda r: junit.render(r, "fuzz"), github.render, gitlab.render,
)


def one_input(data: bytes) -> None:
    chunks = list(read_chunks(io.BytesIO(data), "fuzz", size=4096))
    assert b"".join(c.data for c in chunks) == data
    normalize(data.decode("utf-8", "replace"))
    report = build_report(SCANNER.run(io.BytesIO(data), "fuzz"))
    for render in RENDERERS:
        render([report])


def main() -> None:
    argv = list(sys.argv)
    if not any(a.startswith("-timeout") for a in argv):
        argv.append("-timeout=25")
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
