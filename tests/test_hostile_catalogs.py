"""Hostile overlay catalogs: the evaluation budget (matcher/budget.py) and the catalog reader
turn each into a one-line error naming the file (and key), exit 2, in bounded time; in pipe
mode every byte still passes through."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SIGNATURE = """\
schema_version: 1
id: x.y.hostile
title: "{title}"
kind: problem
severity: error
status: test
engines: [{{name: any}}]
match:
  patterns:
    - regex: '{regex}'
summary: s
cause: c
values:
  big: "{value}"
checks:
  - id: c
    title: t
    look: l
    fails_when: "big > 0"
    fail: "{fail}"
fixes:
  - id: f
    title: t
    change: "do it"
    tradeoff: none
verify: v
references: [{{url: "https://example.org"}}]
"""
LINE = "ERROR widget pool exhausted after 7 tries\n"
REGEX = r"widget pool exhausted after (?P<tries>\d+) tries"


def logkb(*args: str, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "matcher", *args], input=stdin, capture_output=True, timeout=timeout)


def overlay(tmp_path: Path, regex: str = REGEX, value: str = "tries * 2", fail: str = "{big} tries",
            title: str = "Widget pool") -> Path:
    root = tmp_path / "overlay"
    (root / "x").mkdir(parents=True, exist_ok=True)
    (root / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
    (root / "x" / "sig.yaml").write_text(SIGNATURE.format(regex=regex, value=value, fail=fail, title=title))
    return root


def log(tmp_path: Path, text: str = LINE) -> Path:
    path = tmp_path / "a.log"
    path.write_text(text)
    return path


def one_line_error(result: subprocess.CompletedProcess, *needles: str) -> str:
    stderr = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, stderr)
    assert "Traceback" not in stderr and stderr.count("\n") == 1, stderr
    for needle in needles:
        assert needle in stderr, stderr
    return stderr


def test_the_overlay_itself_is_fine(tmp_path):
    result = logkb("scan", "--catalog", str(overlay(tmp_path)), "--verbose", str(log(tmp_path)))
    assert result.returncode == 1 and "14 tries" in result.stdout.decode()


def test_a_constant_power_tower_fails_validate_and_scan(tmp_path):
    root = overlay(tmp_path, value="((10**64)**64)**64")
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "sig.yaml", "values.big", "budget")
    validate = logkb("validate", str(root), timeout=30)
    assert validate.returncode != 0 and "values.big" in validate.stdout.decode() + validate.stderr.decode()


def test_a_power_tower_over_a_fact_is_a_budget_error_naming_the_key(tmp_path):
    root = overlay(tmp_path, value="((tries**64)**64)**64")
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "sig.yaml", "values.big", "1024-bit budget")


def test_watch_passes_everything_through_when_an_expression_is_over_budget(tmp_path):
    root = overlay(tmp_path, value="((tries**64)**64)**64")
    data = (LINE + "INFO next line\n") * 50
    began = time.monotonic()
    result = logkb("watch", "--catalog", str(root), stdin=data.encode(), timeout=60)
    assert time.monotonic() - began < 30
    assert result.stdout == data.encode()
    assert "values.big" in result.stderr.decode()


@pytest.mark.parametrize("spec", ["{tries:>1000000000}", "{tries:.1000000000f}", "{tries:,.999999999999f}"])
def test_format_specs_over_budget_are_refused_when_the_catalog_loads(tmp_path, spec):
    root = overlay(tmp_path, fail=spec)
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "sig.yaml", "checks[0].fail", "format spec")


def test_overlay_regexes_have_a_time_budget_per_scan(tmp_path):
    root = overlay(tmp_path, regex=r"widget (?P<tries>\d+)\d+\d+\d+z")  # passes the linter, polynomial backtracking
    hostile = log(tmp_path, ("widget " + "1" * 3000 + "\n") * 60)
    began = time.monotonic()
    result = logkb("scan", "--catalog", str(root), str(hostile), timeout=120)
    elapsed = time.monotonic() - began
    one_line_error(result, "sig.yaml", "match.patterns[0].regex", "in one scan")
    assert elapsed < 12, elapsed  # without a total: 60 lines x 0.25 s


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_catalog_file_linked_to_dev_zero_is_refused(tmp_path):
    root = overlay(tmp_path)
    (root / "x" / "zero.yaml").symlink_to("/dev/zero")
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "zero.yaml", "not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_yaml_is_refused_not_waited_on(tmp_path):
    root = overlay(tmp_path)
    os.mkfifo(root / "x" / "pipe.yaml")
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "pipe.yaml", "not a regular file")


def test_a_catalog_file_that_is_not_utf8_is_one_line(tmp_path):
    root = overlay(tmp_path)
    (root / "x" / "latin.yaml").write_bytes(b"schema_version: 1\ntitle: caf\xe9\n")
    one_line_error(logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30),
                   "latin.yaml", "not UTF-8")


def test_terminal_escapes_in_catalog_text_never_reach_the_terminal(tmp_path):
    root = overlay(tmp_path, title="Widget \\e]0;owned\\a\\e[2J pool")
    result = logkb("scan", "--catalog", str(root), str(log(tmp_path)), timeout=30)
    assert b"\x1b" not in result.stdout + result.stderr
    one_line_error(result, "sig.yaml", "title", "control character U+001B")
