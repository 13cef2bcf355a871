"""Catalog files on disk: where the built-in data lives, which files a root holds, and how a
file is read (bounded, safely, as UTF-8 YAML without aliases)."""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import budget
from .errors import CatalogError

MAX_FILE_BYTES = 256 * 1024
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """``kb``, ``schema`` or ``corpus``: inside the installed wheel, else beside the source package."""
    packaged = _PACKAGE_DIR / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE_DIR.parent / name


def source_checkout() -> Path | None:
    """The source tree the package runs from (an editable install), or None for a wheel."""
    return None if (_PACKAGE_DIR / "_data").is_dir() else _PACKAGE_DIR.parent


def yaml_files(root: Path) -> list[Path]:
    """The catalog files below ``root`` in load order (sorted by path components; symbolic
    links to directories are not entered)."""
    return [Path(path) for _, path in yaml_entries(root)]


# Files at a catalog root that are not signatures: the manifest and the fact vocabulary; and
# the folder of shared regex fragments (matcher/catalog/fragments.py).
ROOT_FILES = ("catalog.yaml", "facts.yaml")
FRAGMENTS_FOLDER = "_fragments"


def signature_files(root: Path) -> list[Path]:
    """The signature files below ``root`` in load order: every catalog file but ROOT_FILES
    and the fragment files."""
    fragments = root / FRAGMENTS_FOLDER
    return [path for path in yaml_files(root)
            if not (path.parent == root and path.name in ROOT_FILES) and fragments not in path.parents]


def yaml_entries(root: str | Path) -> list[tuple[str, str]]:
    """(path relative to ``root`` with '/' separators, path) of each catalog file, in load order."""
    found: list[tuple[list[str], str]] = []
    top = os.fspath(root)
    for folder, _dirs, files in os.walk(top):
        below = os.path.relpath(folder, top).split(os.sep) if folder != top else []
        found += [(below + [name], os.path.join(folder, name)) for name in files if name.endswith(".yaml")]
    return [("/".join(parts), path) for parts, path in sorted(found)]


def read_yaml(path: Path) -> Any:
    """Safe-load one YAML file, refusing oversize files, anything but a regular file (a FIFO
    would block, /dev/zero never ends), text that is not UTF-8, alias expansion bombs, and
    strings over the evaluation budget (matcher/budget.py)."""
    data = read_catalog_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    import yaml

    try:
        doc = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader (or CSafeLoader) subclass
    except yaml.YAMLError as exc:
        raise CatalogError(yaml_problem(path, exc)) from None
    if _shares_nodes(doc):
        raise CatalogError(f"{path}: invalid YAML: aliases are not allowed in catalog files")
    for key, problem in budget.text_problems(doc):
        raise CatalogError(f"{path}: {key}: {problem}")
    return doc


def yaml_problem(path: Path, exc: Exception) -> str:
    """One line for a YAML parse error: the file, the line the parser stopped at, the problem."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{path}: {where}invalid YAML: {problem}"


def located(path: Path, pattern: str, start: int = 1) -> str:
    """``path:line`` of the first line at or after ``start`` on which the regex ``pattern``
    matches, or just ``path`` when none does: where an error points a contributor to."""
    import re

    found = re.compile(pattern)
    lines = read_catalog_bytes(path).decode("utf-8", "replace").splitlines()
    number = next((i for i, line in enumerate(lines[start - 1:], start) if found.search(line)), 0)
    return f"{path}:{number}" if number else str(path)


def read_catalog_bytes(path: Path) -> bytes:
    """The bytes of a catalog file, at most MAX_FILE_BYTES of them; opened without blocking,
    so that a FIFO named *.yaml is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CatalogError(f"{path}: not a regular file")
        try:
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        size = max(len(data), os.path.getsize(path))
        raise CatalogError(f"{path}: file is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for a catalog file")
    return data


@lru_cache(maxsize=1)
def _loader() -> type:
    """Safe loading (libyaml's parser when present: catalogs load several times faster) with
    dates kept as the strings the schema expects, and a key written twice in one mapping
    refused (YAML would keep the last silently, so a second ``note:`` or ``phase:`` would
    replace the first). Built on first use: a scan that finds the compiled catalog in the
    cache never imports yaml."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    resolvers = {
        key: [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:timestamp"]
        for key, entries in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = key_node.value if key_node.tag == "tag:yaml.org,2002:str" else key_node.start_mark
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark)
            seen.add(key)
        return base.construct_mapping(loader, node, deep)

    return type("CatalogLoader", (base,),
                {"yaml_implicit_resolvers": resolvers, "construct_mapping": construct_mapping})


def _shares_nodes(doc: Any) -> bool:
    """True when one mapping or list appears twice: that is what an alias builds. Catalog
    files never need aliases, and alias expansion is the classic YAML bomb; the walk stops at
    the first shared node, so it stays linear even on a bomb."""
    seen: set[int] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False
