from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from matcher.catalog import data_dir, load_catalog
from matcher.scan import Scanner

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def scanner(catalog):
    return Scanner(catalog)


@pytest.fixture
def kb_copy(tmp_path: Path) -> Path:
    """A writable copy of the built-in catalog, for tests that break it on purpose."""
    target = tmp_path / "kb"
    shutil.copytree(data_dir("kb"), target)
    return target


OVERLAY_ID = "test.overlay.thing"
OVERLAY_SIGNATURE = """\
schema_version: 1
id: test.overlay.thing
title: {title}
kind: problem
severity: error
status: experimental
engines: [{{name: vllm}}]
match:
  patterns:
    - regex: '{regex}'
summary: s
cause: c
checks: []
fixes:
  - id: one
    title: t
    change: "x"
    tradeoff: t
verify: v
references: [{{url: "https://example.org"}}]
"""


@pytest.fixture
def overlay() -> Callable[..., Path]:
    """Writes an overlay catalog directory holding one problem signature (id OVERLAY_ID, file
    ``test/thing.yaml``) and returns the directory; writing again replaces the signature."""

    def write(root: Path, title: str = "First title",
              regex: str = "Sample overlay failure (?P<free_gib>[0-9.]+) GiB") -> Path:
        (root / "test").mkdir(parents=True, exist_ok=True)
        (root / "catalog.yaml").write_text("catalog_version: 2026.11.0\nschema_version: 1\nchangelog: []\n")
        (root / "test" / "thing.yaml").write_text(OVERLAY_SIGNATURE.format(title=title, regex=regex))
        return root

    return write
