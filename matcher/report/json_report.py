"""The JSON report: a stable contract (schema/report.schema.json) other tools read."""

from __future__ import annotations

import json

from .. import __version__
from . import FileReport, file_dict


def render(reports: list[FileReport], catalog_version: str) -> str:
    document = {
        "logkb_version": __version__,
        "catalog_version": catalog_version,
        "files": [file_dict(r) for r in reports],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
