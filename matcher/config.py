"""Project settings: ``[tool.logkb]`` in a ``pyproject.toml``, or a ``.logkb.toml``, found by
walking up from the current folder (the nearest wins; in one folder ``.logkb.toml`` before
``pyproject.toml``). They become click's defaults, so an option or an environment variable on
the command line always wins. Paths (``catalog``) are taken relative to the settings file.

    [tool.logkb]
    fail-on = "warning"
    format = "github"
    catalog = ["ops/logkb-signatures"]
    only = ["vllm.*"]
    exclude = ["archive/*"]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Setting -> (the commands that take it, their parameter name, whether it is a list)
SETTINGS: dict[str, tuple[tuple[str, ...], str, bool]] = {
    "fail-on": (("scan", "watch"), "fail_on", False),
    "format": (("scan",), "fmt", True),
    "catalog": (("scan", "watch", "facts", "compare", "explain", "test", "validate", "export", "docs"),
                "catalogs", True),
    "only": (("scan",), "only", True),
    "ignore": (("scan",), "ignore", True),
    "status": (("scan",), "statuses", True),
    "include": (("scan",), "includes", True),
    "exclude": (("scan",), "excludes", True),
}
_PATHS = {"catalog"}


class ConfigError(Exception):
    """A settings file that cannot be used; the message names the file and the key."""


def find(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest settings file at or above ``start`` and its logkb table."""
    for folder in (start, *start.parents):
        dotfile = folder / ".logkb.toml"
        if dotfile.is_file():
            return dotfile, _read(dotfile)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _mentions_logkb(pyproject):
            table = _read(pyproject).get("tool", {}).get("logkb")
            if table is not None:
                if not isinstance(table, dict):
                    raise ConfigError(f"{pyproject}: tool.logkb: must be a table")
                return pyproject, table
    return None


def default_map(start: Path) -> dict[str, dict[str, Any]]:
    """click's ``default_map`` from the settings that apply at ``start`` ({} when none)."""
    found = find(start)
    if found is None:
        return {}
    path, table = found
    where = "tool.logkb." if path.name == "pyproject.toml" else ""
    defaults: dict[str, dict[str, Any]] = {}
    for key, value in table.items():
        if key not in SETTINGS:
            raise ConfigError(f"{path}: {where}{key}: not a logkb setting (known: {', '.join(SETTINGS)})")
        commands, name, is_list = SETTINGS[key]
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, str) for v in values) or (not is_list and isinstance(value, list)):
            kind = "a string or a list of strings" if is_list else "a string"
            raise ConfigError(f"{path}: {where}{key}: must be {kind}")
        if key in _PATHS:
            values = [str((path.parent / v).resolve()) for v in values]
        for command in commands:
            defaults.setdefault(command, {})[name] = tuple(values) if is_list else values[0]
    return defaults


def _mentions_logkb(path: Path) -> bool:
    """A cheap look before parsing: most projects' pyproject.toml has no logkb table."""
    try:
        return b"logkb" in path.read_bytes()
    except OSError:
        return False


def _read(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
