"""Logs shipped as JSON: every corpus log, wrapped line by line the way Docker's json-file
driver writes it (quotes and backslashes escaped, and <, > and & as \\u003c, \\u003e and
\\u0026, as Go's encoder does), gets the same diagnosis as the raw log. Anchors holding a
quote (Ollama's msg="...") or '<=' (TGI's token limits) must still reach the regexes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logtext import log_lines
from matcher.api import diagnose_lines, diagnose_path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
LOGS = sorted(CORPUS.rglob("*.log"))


def docker_json_file(line: str) -> str:
    body = json.dumps(line, ensure_ascii=False)
    body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return '{"log":%s,"stream":"stderr","time":"2026-01-01T00:00:00.000000000Z"}\n' % body


def outcome(report: dict) -> tuple:
    return report["root_cause"], report["phase"], sorted(f["id"] for f in report["findings"])


def test_the_wrapping_escapes_what_the_anchors_hold() -> None:
    line = 'level=WARN msg="model request too large for system" `max_new_tokens` must be <= 5'
    wrapped = docker_json_file(line)
    assert '\\"model request' in wrapped and "\\u003c=" in wrapped and "<" not in wrapped


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_a_log_wrapped_as_docker_json_is_diagnosed_like_the_raw_log(log: Path) -> None:
    wrapped = diagnose_lines([docker_json_file(line) for line in log_lines(log, keepends=True)], name=str(log))
    assert outcome(wrapped) == outcome(diagnose_path(str(log)))


def test_a_rich_console_record_is_read_with_the_lines_under_its_message_column() -> None:
    """Python's rich logging (RichHandler) prints a level column, the message and the source
    path right-aligned, and goes on with a long message under its own column: the record is
    read whole, without the path column, and a line indented elsewhere ends it."""
    from matcher.normalize import parse_line

    head = "[14:50:11.903191] ERROR    app.helpers: Error while loading offline chat model: Failed to create      config.py:80"
    first = parse_line(head)
    assert (first.text, first.error_level, first.header, first.hanging) == (
        "app.helpers: Error while loading offline chat model: Failed to create", True, True, 27)
    assert parse_line("ERROR    no path column here").hanging == 0
    lines = ["ERROR    worker ERROR: CUDA                                          handler.py:574",
             "         out of memory. Tried to allocate 3.88 GiB. GPU 0 has a total capacity of",
             "         44.42 GiB of which 920.81 MiB is free.                                    ",
             "         Traceback (most recent call last):                                        ",
             "           File \"serve.py\", line 3, in run"]
    report = diagnose_lines(lines)
    (root,) = [f for f in report["findings"] if f["id"] == report["root_cause"]]
    assert (root["id"], root["line"], root["tier"]) == ("pytorch.cuda.oom", 1, "partial")
    assert (root["facts"]["alloc_gib"], root["facts"]["device_free_gib"]) == (3.88, 0.8992)
    assert root["evidence"].endswith("920.81 MiB is free.")  # the traceback logged under it is no part of it
    assert diagnose_lines(lines[:1])["root_cause"] != "pytorch.cuda.oom"  # the first line alone is no allocator message
