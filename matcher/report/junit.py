"""JUnit XML, for CI test views: each log is a test case, each problem finding a failure in it.

A log without an error or warning finding passes; one that could not be read has an
``<error>``. The text checklist travels in ``<system-out>``, which CI test views show
beside the failure.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .. import __version__
from . import FileReport
from . import text as text_report
from .annotation import PROBLEM_SEVERITIES, details, headline

# Characters XML 1.0 cannot carry at all, not even escaped (ANSI escapes in logs are some).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def render(reports: list[FileReport], catalog_version: str) -> str:
    cases = [_testcase(report) for report in reports]
    failed = sum(1 for case in cases if case.find("failure") is not None)
    errors = sum(1 for case in cases if case.find("error") is not None)
    counts = {"tests": str(len(cases)), "failures": str(failed), "errors": str(errors)}
    suites = ET.Element("testsuites", name="logkb", **counts)
    suite = ET.SubElement(suites, "testsuite", name="logkb scan", skipped="0", **counts)
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="logkb_version", value=__version__)
    ET.SubElement(properties, "property", name="catalog_version", value=catalog_version)
    suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def xml_text(value: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def _testcase(report: FileReport) -> ET.Element:
    case = ET.Element("testcase", classname="logkb.scan", name=xml_text(report.path))
    if report.error:
        ET.SubElement(case, "error", type="logkb.input-error", message=xml_text(report.error))
    for finding in report.diagnosis.findings:
        if finding.severity in PROBLEM_SEVERITIES:
            failure = ET.SubElement(case, "failure", type=finding.id, message=xml_text(headline(report, finding)))
            failure.text = xml_text(details(report, finding))
    if report.diagnosis.findings:
        ET.SubElement(case, "system-out").text = xml_text(text_report.render([report]))
    return case
