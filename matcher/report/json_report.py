"""The JSON report: a stable contract (schema/report.schema.json) other tools read."""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from . import FileReport, file_dict


def render(reports: list[FileReport], catalog_version: str) -> str:
    return render_files([file_dict(r) for r in reports], catalog_version)


def render_files(files: list[dict[str, Any]], catalog_version: str) -> str:
    """The report from per-file dictionaries already built (e.g. by a batch job's workers)."""
    document = {"logkb_version": __version__, "catalog_version": catalog_version, "files": files}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
