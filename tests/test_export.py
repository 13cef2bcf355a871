"""logkb export: Sigma rules that pySigma accepts and converts for Loki and Elasticsearch, and
regexes in each dialect that select the same corpus lines as the catalog's own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import re2
import yaml
from click.testing import CliRunner

from logtext import log_lines
from matcher.catalog import FactEntry
from matcher.cli import main
from matcher.export import SERVING_ENGINES, logsource, rule_id, to_ere, to_lucene

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
FREE_MEMORY = "vllm.startup.free-memory-below-utilization"
SIGMA_EXTRA = "needs the sigma extra: pip install -e '.[sigma]'"


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def corpus_lines() -> list[str]:
    lines: list[str] = []
    for path in sorted(CORPUS.rglob("*.log")):
        lines += log_lines(path, errors="replace")
    return lines


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return corpus_lines()


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, Path]:
    """Rules as the README tells an operator to write them: keyword rules for Loki, field rules
    in the Lucene dialect for Elasticsearch, and the Loki stream pipeline."""
    base = tmp_path_factory.mktemp("sigma")
    run("export", "-f", "sigma", "--out", str(base / "loki"))
    run("export", "-f", "sigma", "--field", "message", "--dialect", "lucene", "--out", str(base / "es"))
    (base / "loki-pipeline.yml").write_text(run("export", "-f", "loki-pipeline"), encoding="utf-8")
    return {"loki": base / "loki", "es": base / "es", "pipeline": base / "loki-pipeline.yml"}


@pytest.fixture(scope="module")
def problems(catalog):
    return {sig.id: sig for sig in catalog.problems if sig.status != "deprecated"}


@pytest.fixture(scope="module")
def sigma():
    """pySigma and the two backends, imported only when the extra is installed."""
    pytest.importorskip("sigma.backends.loki", reason=SIGMA_EXTRA)
    pytest.importorskip("sigma.backends.elasticsearch", reason=SIGMA_EXTRA)
    from sigma.collection import SigmaCollection

    return SigmaCollection


def load(sigma, directory: Path):
    return sigma.load_ruleset([directory])


def by_id(collection) -> dict:
    return {rule.custom_attributes["custom"]["logkb_id"]: rule for rule in collection.rules}


def logql_regex(query: str) -> str:
    """The regex of a LogQL line filter ``|~ `...` `` or ``|~ "..."`` (a Go string)."""
    literal = query.split(" |~ ", 1)[1]
    if literal.startswith("`"):
        return literal[1:literal.index("`", 1)]
    return json.loads(literal[:_end_of_go_string(literal) + 1])


def _end_of_go_string(literal: str) -> int:
    index = 1
    while literal[index] != '"':
        index += 2 if literal[index] == "\\" else 1
    return index


def test_one_rule_file_per_problem_signature(exported, problems):
    assert sorted(p.stem for p in exported["loki"].glob("*.yml")) == sorted(problems)
    assert sorted(p.stem for p in exported["es"].glob("*.yml")) == sorted(problems)


def test_every_rule_parses_and_passes_every_pysigma_validator(sigma, exported, problems):
    from sigma.plugins import InstalledSigmaPlugins
    from sigma.validation import SigmaValidator

    for kind in ("loki", "es"):
        validator = SigmaValidator(InstalledSigmaPlugins.autodiscover().validators.values())
        collection = load(sigma, exported[kind])
        assert sorted(by_id(collection)) == sorted(problems)
        assert [rule.errors for rule in collection.rules if rule.errors] == []
        issues = validator.validate_rules(collection.rules)
        assert [(type(i).__name__, [r.title for r in i.rules]) for i in issues] == []


def test_rule_metadata_comes_from_the_signature(sigma, exported, problems):
    rules = by_id(load(sigma, exported["loki"]))
    levels = {"error": "high", "warning": "medium", "info": "low"}
    for sig_id, rule in rules.items():
        sig = problems[sig_id]
        assert str(rule.id) == rule_id(sig_id)
        assert rule.title == sig.title
        assert rule.status.name.lower() == sig.status
        assert rule.level.name.lower() == levels[sig.severity]
        assert rule.description.endswith(f"Checklist: logkb explain {sig_id}")
        assert sig.cause is not None and " ".join(sig.cause.split()) in rule.description
        assert rule.references == [r.url for r in sig.references]
        assert rule.logsource.product == logsource(sig).get("product")
    assert rules[FREE_MEMORY].logsource.product == "vllm"
    several = [sig_id for sig_id, sig in problems.items() if len(sig.engines) > 1]
    assert several and all(rules[sig_id].logsource.product is None for sig_id in several)


def test_rule_ids_are_uuid5_of_the_signature_id_and_never_change():
    assert rule_id(FREE_MEMORY) == "a2cd502d-c256-547f-8597-53292c84c906"
    assert rule_id("vllm.kv-cache.no-available-memory") != rule_id(FREE_MEMORY)


def test_loki_conversion_of_every_rule_with_the_stream_pipeline(sigma, exported, problems):
    from sigma.backends.loki import LogQLBackend
    from sigma.processing.pipeline import ProcessingPipeline

    collection = load(sigma, exported["loki"])
    pipeline = ProcessingPipeline.from_yaml(exported["pipeline"].read_text(encoding="utf-8"))
    queries = LogQLBackend(pipeline).convert(collection)
    assert len(queries) == len(collection.rules) == len(problems)
    for rule, query in zip(collection.rules, queries):
        product = rule.logsource.product
        selector = f"{{app=`{product}`}}" if product in SERVING_ENGINES else "{app=~`.+`}"
        assert query.startswith(selector + " |~ "), query
        assert logql_regex(query)


def test_loki_ruler_alerts_carry_the_explain_command(sigma, exported, problems):
    from sigma.backends.loki import LogQLBackend
    from sigma.processing.pipeline import ProcessingPipeline

    collection = load(sigma, exported["loki"])
    pipeline = ProcessingPipeline.from_yaml(exported["pipeline"].read_text(encoding="utf-8"))
    ruler = yaml.safe_load(LogQLBackend(pipeline).convert(collection, "ruler"))
    alerts = ruler["groups"][0]["rules"]
    assert len(alerts) == len(problems)
    for rule, alert in zip(collection.rules, alerts):
        sig_id = rule.custom_attributes["custom"]["logkb_id"]
        assert alert["annotations"]["description"].endswith(f"logkb explain {sig_id}")
        assert alert["labels"]["severity"] == rule.level.name.lower()
        assert "count_over_time(" in alert["expr"] and "|~" in alert["expr"]


def test_elasticsearch_conversion_of_every_rule(sigma, exported, problems):
    from sigma.backends.elasticsearch import LuceneBackend
    from sigma.processing.pipeline import ProcessingPipeline

    collection = load(sigma, exported["es"])
    queries = LuceneBackend(ProcessingPipeline()).convert(collection)
    dsl = LuceneBackend(ProcessingPipeline(), index_names=["logs-*"]).convert(collection, "dsl_lucene")
    assert len(queries) == len(dsl) == len(problems)
    for rule, query, body in zip(collection.rules, queries, dsl):
        count = len(problems[rule.custom_attributes["custom"]["logkb_id"]].patterns)
        assert query.count("message:/") == count
        assert body["query"]["bool"]["must"][0]["query_string"]["query"] == query


def test_free_memory_logql_query_matches_the_corpus_lines_under_re2(sigma, exported, problems):
    """The LogQL regex, read back from the converted query, evaluated by RE2 (Loki's engine
    is Go's RE2): it matches the line each sidecar names, and only the lines logkb matches."""
    from sigma.backends.loki import LogQLBackend

    rules = by_id(load(sigma, exported["loki"]))
    query = LogQLBackend().convert(sigma([rules[FREE_MEMORY]]))[0]
    compiled = re2.compile(logql_regex(query))
    logs = sorted(CORPUS.glob(f"vllm/{FREE_MEMORY}--*.log"))
    assert logs
    for log in logs:
        raw = log_lines(log, errors="replace")
        meta = yaml.safe_load(log.with_suffix(".yaml").read_text(encoding="utf-8"))
        matched = {n for n, text in enumerate(raw, 1) if compiled.search(text)}
        by_logkb = {n for n, text in enumerate(raw, 1) if any(p.compiled.search(text) for p in problems[FREE_MEMORY].patterns)}
        # A log platform matches one line at a time: a message a terminal hard-wrapped over
        # several lines is found by logkb, which rejoins it, and by no line-based query. An
        # excerpt cut before its error line names none.
        if "wrapped" not in (meta.get("variants") or []) and meta["expect"].get("line"):
            assert meta["expect"]["line"] in matched, log.name
        assert matched == by_logkb, log.name


@pytest.mark.parametrize("kind, search", [("loki", re2.search), ("es", re2.fullmatch)])
def test_exported_regexes_select_the_same_corpus_lines_as_the_catalog(exported, problems, lines, kind, search):
    """Every regex of every rule, under RE2: the Loki form searches a line, the Lucene form
    must match the whole line (as Lucene does)."""
    for path in exported[kind].glob("*.yml"):
        rule = yaml.safe_load(path.read_text(encoding="utf-8"))
        (regexes,) = rule["detection"]["selection"].values()
        for pattern, exported_regex in zip(problems[path.stem].patterns, regexes, strict=True):
            compiled = re2.compile(exported_regex)
            want = [n for n, text in enumerate(lines) if pattern.compiled.search(text)]
            assert [n for n, text in enumerate(lines) if search(compiled, text)] == want, (path.stem, exported_regex)


def test_lucene_form_spells_out_what_lucene_lacks():
    assert to_lucene(r"Free (?P<gib>[\d.]+) GiB") == r".*Free ([0-9\.]+) GiB.*"
    assert to_lucene("no memory", ignore_case=True) == ".*[nN][oO] [mM][eE][mM][oO][rR][yY].*"
    assert to_lucene(r"^Killed\s*$") == "Killed[ \t\n\r\f\v]*"
    assert to_lucene(r"(?:^|\] )Killed") == r"(|.*\] )Killed.*"
    assert to_lucene(r"\bOOMKilled\b") == ".*OOMKilled.*"  # no word boundary in Lucene
    with pytest.raises(ValueError, match="anchor"):
        to_lucene(r"a(?:b|^c)")


def _own_lines(pattern, distinct: list[str], everywhere: list[str]) -> list[str]:
    """The corpus lines that test one pattern: distinct lines it selects and distinct lines
    holding one of its anchors that it does not select (near misses), each kind up to
    SAMPLE_CAP, then the lines of ``everywhere``. Only a line with an anchor can match (the
    scan's prefilter rests on that too), so the others are not searched."""
    selected, near = [], []
    for line in distinct:
        folded = line.lower() if pattern.ignore_case else line
        if pattern.anchors and not any(anchor in folded for anchor in pattern.anchors):
            continue
        kind = selected if pattern.compiled.search(line) else near
        if len(kind) < SAMPLE_CAP:
            kind.append(line)
        if len(selected) == len(near) == SAMPLE_CAP:
            break
    return [*selected, *near, *everywhere]


SAMPLE_CAP = 5  # lines a pattern selects, and near misses, that the grep check feeds it
EVERYWHERE = 1000  # corpus lines, evenly spaced, that every pattern's grep check also reads


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_patterns_export_selects_with_grep_what_logkb_selects(catalog, lines, tmp_path):
    """GNU grep reads each exported pattern as logkb reads the catalog's: on the lines the
    pattern selects, its near misses and a slice of the whole corpus. (ripgrep reads every
    corpus line, below; grep is held to a sample because its automaton for the patterns with
    long bounded gaps, PyTorch's out-of-memory message with its optional parts, takes a fifth of
    a second per line that holds the message.)"""
    everything = run("export", "-f", "patterns", "--facts").rstrip("\n").split("\n")
    problems_only = run("export", "-f", "patterns").rstrip("\n").split("\n")
    originals = [(isinstance(sig, FactEntry), p) for sig in catalog.signatures.values() for p in sig.patterns]
    assert len(everything) == len(originals)
    assert problems_only == [ere for ere, (is_fact, _) in zip(everything, originals) if not is_fact]
    distinct = list(dict.fromkeys(lines))
    everywhere = distinct[::len(distinct) // EVERYWHERE]

    def grep(ere: str, own: list[str], name: str, locale: str) -> list[int]:
        text = tmp_path / name
        text.write_text("\n".join(own) + "\n", encoding="utf-8")
        # -a: a few corpus lines hold NUL bytes, after which grep would call the file binary
        done = subprocess.run(["grep", "-a", "-nE", "-e", ere, str(text)], capture_output=True,
                              env={**os.environ, "LC_ALL": locale}, check=False)
        assert done.returncode in (0, 1), done.stderr
        return [int(line.split(b":", 1)[0]) - 1 for line in done.stdout.split(b"\n")[:-1]]  # lines may hold carriage returns

    def check(index: int) -> str | None:
        pattern, ere = originals[index][1], everything[index]
        own = _own_lines(pattern, distinct, everywhere)
        # ASCII lines in the C locale (GNU grep's multibyte DFA is slow on bounded repeats);
        # the others in a UTF-8 one, as an operator's grep reads them: there '.{0,100}' counts
        # characters, as logkb does, not the bytes of a progress bar's box drawing.
        ascii_only = [n for n, line in enumerate(own) if line.isascii()]
        other = [n for n, line in enumerate(own) if not line.isascii()]
        got = sorted([ascii_only[n] for n in grep(ere, [own[n] for n in ascii_only], f"ascii-{index}.txt", "C")]
                     + ([other[n] for n in grep(ere, [own[n] for n in other], f"utf8-{index}.txt", "C.UTF-8")] if other else []))
        want = [n for n, line in enumerate(own) if pattern.compiled.search(line)]
        return None if got == want else ere

    with ThreadPoolExecutor(max_workers=8) as pool:
        differing = [ere for ere in pool.map(check, range(len(originals))) if ere is not None]
    assert not differing, differing[:5]


@pytest.mark.skipif(shutil.which("rg") is None, reason="needs ripgrep")
def test_ripgrep_reads_the_patterns_export_and_selects_what_logkb_selects(catalog, lines, tmp_path):
    """The export is written for grep -E and ripgrep alike: ripgrep's syntax differs inside
    bracket expressions (a '[' there opens a nested class), which GNU grep does not check.
    Every pattern at once, on every corpus line, with ASCII classes (--no-unicode), as grep
    reads them under LC_ALL=C: in its Unicode mode ripgrep builds an automaton of gigabytes
    for the long bounded gaps."""
    patterns = tmp_path / "patterns.txt"
    patterns.write_text(run("export", "-f", "patterns", "--facts"), encoding="utf-8")
    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(["rg", "--text", "-n", "--no-heading", "--no-unicode", "-f", str(patterns), str(text)],
                          capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    got = [int(line.split(b":", 1)[0]) - 1 for line in done.stdout.split(b"\n")[:-1]]
    compiled = [p.compiled for sig in catalog.signatures.values() for p in sig.patterns]
    assert got == [n for n, line in enumerate(lines) if any(c.search(line) for c in compiled)]


def test_loki_pipeline_label_is_the_operators_choice_for_every_alert(sigma, exported, problems):
    from sigma.backends.loki import LogQLBackend
    from sigma.processing.pipeline import ProcessingPipeline

    pipeline = ProcessingPipeline.from_yaml(run("export", "-f", "loki-pipeline", "--label", "container"))
    queries = LogQLBackend(pipeline).convert(load(sigma, exported["loki"]))
    assert len(queries) == len(problems)
    assert all(query.startswith("{container=") for query in queries), [q[:40] for q in queries]
    several = [q for q in queries if q.startswith("{container=~`.+`}")]
    assert several and len(several) < len(queries)


def test_sigma_to_stdout_is_a_yaml_stream_of_all_rules(problems):
    documents = list(yaml.safe_load_all(run("export", "-f", "sigma")))
    assert sorted(d["custom"]["logkb_id"] for d in documents) == sorted(problems)


def test_newline_classes_become_line_safe_in_ere() -> None:
    """grep reads one line at a time: '[^\\n]' is any character there, and a pattern file
    must never receive a real newline inside a pattern."""
    from matcher.export import to_ere

    assert to_ere(r"a[^\n]{1,3}b") == "a.{1,3}b"
    assert to_ere(r"x[^\n\d]y") == "x[^0-9]y"
    assert "\n" not in to_ere(r"GPU name: +(?P<gpu_name>[^\n]{1,80}?)\s*$")


@pytest.mark.skipif(shutil.which("rg") is None or shutil.which("grep") is None, reason="needs ripgrep and grep")
def test_a_bracket_holding_an_opening_bracket_reads_the_same_in_grep_and_ripgrep(tmp_path):
    """Python reads '(?:\\(|\\[)' as one class; ripgrep would take a bare '[' inside brackets
    for a nested class, so the export writes it outside them."""
    ere = to_ere(r"returns: 39 (?:\(|\[)UR_RESULT")
    lines = tmp_path / "lines.txt"
    lines.write_text("returns: 39 (UR_RESULT\nreturns: 39 [UR_RESULT\nreturns: 39 {UR_RESULT\n", encoding="utf-8")
    for tool in (["rg", "-n", "-e"], ["grep", "-n", "-E", "-e"]):
        done = subprocess.run([*tool, ere, str(lines)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, (tool[0], done.stderr)
        assert [line.split(":")[0] for line in done.stdout.splitlines()] == ["1", "2"], tool[0]
