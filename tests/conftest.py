from __future__ import annotations

import shutil
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
