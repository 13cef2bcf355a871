"""``logkb new --from-log FILE[:LINE]``: scaffold a signature from a real log line.

The line is normalized the way the scanner sees it, then turned into an RE2-compatible regex:
a number followed by a size unit becomes a named group whose name carries the unit
(``allocate_mib`` for ``Tried to allocate 20.00 MiB``), a number after ``name=`` or ``name:``
or ``name (`` becomes a group named ``name``, any other number a wildcard; URLs, paths, hex values
and ids (letters and digits mixed, 8+ characters) become bounded wildcards; the rest is literal text,
escaped. The regex must pass :func:`matcher.regexlint.lint` and match the line.

It writes ``<kb>/<engine>/<slug>.yaml`` (status experimental, TODO placeholders that
``logkb validate`` reports until they are written) and, when the log has none, a sidecar beside
it expecting the new signature on that line. A proposed group name the vocabulary lacks gets
a declaration with a TODO meaning at the end of ``<kb>/facts.yaml``.
"""

from __future__ import annotations

import datetime
import re
import sys
from pathlib import Path
from typing import Any

import click
import msgspec
import regex as regex_engine
import yaml

from .. import facts as factlib
from ..catalog import data_dir
from ..catalog.vocabulary import load_vocabulary, suffix_unit
from ..normalize import normalize
from ..output import echo, write_file
from ..read import read_text
from ..redact import redact
from ..regexlint import RegexLintError, lint
from .common import EXIT_ERROR

MAX_MESSAGE = 240  # characters of the message the regex covers; the rest is left to search()
_ERROR_LINE = re.compile(r"(?i)error|out of memory|failed|not enough|insufficient|cannot allocate")
_TOKEN = re.compile(
    r"""
    (?P<secret>\[REDACTED\])
  | (?P<prompt>\[REDACTED-PROMPT\])
  | (?P<path>https?://[^\s'"<>]+|(?:[A-Za-z]:\\|~?/|\.{1,2}/)[^\s'"()\[\],;]+|(?=[\w./~-]{8,})[\w.~-]+/[\w./~-]+)
  | (?P<hex>\b0x[0-9a-fA-F]+\b)
  | (?P<ident>(?<![\w.-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{8,}(?![\w.-]))
  | (?P<number>(?<![\w.])-?\d+(?:[.,]\d+)*)(?P<unit>\ ?(?:[KMGT]i?B|bytes)\b)?
    """,
    re.VERBOSE,
)
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)+")  # the schema's id pattern
_KEYED = re.compile(r"([A-Za-z_][\w.]*)\s*[=:(]\s*$")  # "name=", "name: ", "name ("
_WORD = re.compile(r"[A-Za-z][A-Za-z_]*")
_STOP = frozenset("a an and are as at be by for from has have in is it its of on or the to was which with".split())
_UNIT_SUFFIX = {"G": "_gib", "M": "_mib", "K": "_bytes", "T": "_gib", "b": "_bytes"}
_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")
_WILDCARDS = {
    "secret": "[^\\s'\"@,;]{1,256}",
    "prompt": ".{0,1000}",
    "path": "[^\\s'\"]{1,256}",
    "hex": r"0x[0-9a-fA-F]{1,16}",
    "ident": r"[\w-]{1,128}",
    "number": r"-?\d[\d.,]*",
}


class Proposal(msgspec.Struct):
    """A regex for one message and the facts its named groups capture there."""

    message: str
    regex: str
    facts: dict[str, Any] = msgspec.field(default_factory=dict)


def propose(message: str, original: str | None = None) -> Proposal:
    """An RE2-compatible regex that matches ``message`` with its variable parts generalized;
    ``message`` may be redacted (its marks become wildcards), and the regex must then match
    the ``original`` line too."""
    text = _shorten(message)
    parts: list[str] = []
    names: set[str] = set()
    position = 0
    for token in _TOKEN.finditer(text):
        before = text[position : token.start()]
        parts.append(_escape(before))
        parts.append(_generalize(token, before, names))
        position = token.end()
    parts.append(_escape(text[position:]))
    source = "".join(parts).strip()
    lint(source)
    compiled = regex_engine.compile(source)
    match = compiled.search(message)
    if match is None or (original is not None and compiled.search(original) is None):  # a bug in the proposal
        raise RegexLintError(f"the proposed regex {source!r} does not match the line")
    return Proposal(message, source, factlib.from_match(match.groupdict()))


def _shorten(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message.strip()
    cut = message.rfind(" ", 0, MAX_MESSAGE)
    return message[: cut if cut > 0 else MAX_MESSAGE].strip()


def _escape(literal: str) -> str:
    return _SPECIAL.sub(r"\\\1", literal)


def _generalize(token: re.Match[str], before: str, names: set[str]) -> str:
    kind = token.lastgroup if token.lastgroup != "unit" else "number"
    if kind != "number":
        return _WILDCARDS[kind]
    unit = token.group("unit")
    if unit:
        name = _unique(_name_before(before) + _UNIT_SUFFIX.get(unit.strip()[0], "_bytes"), names)
        if unit.strip() == "bytes":
            return rf"(?P<{name}>\d[\d.,]* bytes)"
        return rf"(?P<{name}>\d[\d.,]*{' ?' if unit.startswith(' ') else ''}[KMGT]i?B)"
    keyed = _KEYED.search(before)
    if keyed:
        name = _unique(_identifier(keyed.group(1).rsplit(".", 1)[-1]), names)
        return rf"(?P<{name}>{_WILDCARDS['number']})"
    return _WILDCARDS["number"]


def _name_before(before: str) -> str:
    """The last meaningful word of the text since the previous token: ``Tried to allocate``
    -> ``allocate``."""
    words = [w for w in _WORD.findall(before) if w.lower() not in _STOP]
    return _identifier(words[-1]) if words else "value"


def _identifier(word: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", word)
    return re.sub(r"[^a-z0-9_]+", "_", snake.lower()).strip("_") or "value"


def _unique(name: str, names: set[str]) -> str:
    candidate, n = name, 2
    while candidate in names:
        candidate, n = f"{name}_{n}", n + 1
    names.add(candidate)
    return candidate


def slug_of(message: str, words: int = 5) -> str:
    """A file-name slug from the first meaningful words: ``no-available-memory-cache-blocks``."""
    picked = [w.lower() for w in _WORD.findall(message)
              if w.lower() not in _STOP and not w.endswith(("Error", "Exception"))]
    return "-".join(picked[:words]) or "message"


def _engines() -> list[str]:
    import json

    schema = json.loads((data_dir("schema") / "signature.schema.json").read_text(encoding="utf-8"))
    return schema["properties"]["engines"]["items"]["properties"]["name"]["enum"]


def _pick_line(lines: list[str], wanted: int | None, log: Path) -> int:
    if wanted is not None:
        if not 1 <= wanted <= len(lines):
            raise click.BadParameter(f"{log} has {len(lines)} lines, not {wanted}", param_hint="--from-log")
        return wanted
    for number, line in enumerate(lines, 1):
        if _ERROR_LINE.search(normalize(line)):
            return number
    raise click.BadParameter(f"{log}: no error line found; give one as FILE:LINE", param_hint="--from-log")


def _split_location(value: str) -> tuple[Path, int | None]:
    path, _, line = value.rpartition(":")
    if path and line.isdigit():
        return Path(path), int(line)
    return Path(value), None


def sidecar_for(log: Path) -> Path:
    for suffix in (".log.gz", ".log", ".txt"):
        if log.name.endswith(suffix):
            return log.with_name(log.name[: -len(suffix)] + ".yaml")
    return log.with_suffix(".yaml")


def signature_doc(sig_id: str, engine: str, proposal: Proposal, url: str | None, example: str | None,
                  today: str) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": 2,
        "id": sig_id,
        "title": "TODO: what failed, in a few words",
        "kind": "problem",
        "severity": "error",
        "status": "experimental",
        "date": today,
        "engines": [{"name": engine}],
        "match": {"patterns": [{"regex": proposal.regex}]},
        "summary": "TODO: what the message means, in one sentence",
        "cause": "TODO: why it happens, and what decides between the fixes",
        "checks": [{"id": "todo", "title": "TODO: a question the operator can answer",
                    "look": "TODO: what to look at, and how it decides between the fixes"}],
        "fixes": [{"id": "todo", "title": "TODO: the cheapest likely fix first",
                   "change": "TODO: the concrete change", "tradeoff": "TODO: what it costs"}],
        "verify": "TODO: what the next log must show",
        "references": [{"url": url or "https://TODO.invalid/the-thread-this-log-comes-from"}],
    }
    if example:
        doc["examples"] = [example]
    return doc


def sidecar_doc(sig_id: str, engine: str, line: int, url: str | None, today: str) -> dict[str, Any]:
    return {
        "source": {"url": url or "TODO: the public URL of the thread", "where": "TODO: whose comment, which block",
                   "retrieved": today},
        "engine": engine,
        "kind": "failure",
        "expect": {"root_cause": sig_id, "line": line},
        "notes": "TODO: what happened, in your own words",
    }


def _dump(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096)


@click.command("new")
@click.option("--from-log", "location", required=True, metavar="FILE[:LINE]",
              help="The log and the line of the message (default: the sidecar's expect.line, else the first "
              "error line).")
@click.option("--engine", type=click.Choice(_engines()), help="Engine that prints the message "
              "(default: the sidecar's engine, else the log's folder name).")
@click.option("--id", "sig_id", help="Signature id <engine>.<area>.<slug> (default: <engine>.error.<slug>).")
@click.option("--kb", "kb_dir", default="kb", show_default=True, type=click.Path(file_okay=False),
              help="Catalog directory to write the signature into.")
@click.option("--url", help="Public URL the log was copied from (default: the sidecar's source.url).")
def command(location: str, engine: str | None, sig_id: str | None, kb_dir: str, url: str | None) -> None:
    """Scaffold a signature and its corpus sidecar from a real log line."""
    log, wanted = _split_location(location)
    if not log.is_file():
        raise click.BadParameter(f"{log} is not a file", param_hint="--from-log")
    sidecar = sidecar_for(log)
    existing = (yaml.safe_load(sidecar.read_text(encoding="utf-8")) or {}) if sidecar.is_file() else {}
    # numbered as a scan numbers them, by newline: a progress bar's carriage returns end no line
    lines = read_text(log).split("\n")
    if lines[-1] == "":
        lines.pop()
    line_no = _pick_line(lines, wanted or (existing.get("expect") or {}).get("line"), log)
    original = normalize(lines[line_no - 1])
    message = redact(original, limit=None)  # neither the signature nor the terminal gets a secret or a prompt
    try:
        proposal = propose(message, original)
    except RegexLintError as exc:
        echo(f"logkb: {log}:{line_no}: cannot propose a regex: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    engine = engine or existing.get("engine") or (log.parent.name if log.parent.name in _engines() else None)
    if engine is None:
        raise click.UsageError(f"say which engine prints this message: --engine ({', '.join(_engines())})")
    if engine not in _engines():
        raise click.UsageError(f"{sidecar}: engine: {str(engine)[:80]!r} is not one of {', '.join(_engines())}")
    url = url or (existing.get("source") or {}).get("url")
    slug = slug_of(message)
    sig_id = sig_id or f"{engine}.error.{slug}"
    if not _ID.fullmatch(sig_id):
        raise click.BadParameter(f"{sig_id[:80]!r} is not an id like <engine>.<area>.<slug> (a-z, 0-9, '-')",
                                 param_hint="--id")
    kb = Path(kb_dir)
    target = kb / engine / f"{sig_id.rsplit('.', 1)[-1]}.yaml"
    if target.exists():
        echo(f"logkb: {target} exists; choose another --id", err=True)
        sys.exit(EXIT_ERROR)
    today = datetime.date.today().isoformat()
    example = _relative(log, kb.resolve().parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, _dump(signature_doc(sig_id, engine, proposal, url, example, today)))
    echo(f"wrote {target}")
    if not sidecar.exists():
        write_file(sidecar, _dump(sidecar_doc(sig_id, engine, line_no, url, today)))
        echo(f"wrote {sidecar}")
    elif (existing.get("expect") or {}).get("root_cause") != sig_id:
        echo(f"note: {sidecar} expects {(existing.get('expect') or {}).get('root_cause')}, not {sig_id}")
    for name in declare_facts(kb, engine, proposal.facts):
        echo(f"declared {name} in {kb / 'facts.yaml'}")
    echo(f"line {line_no}: {message}")
    echo(f"regex: {proposal.regex}")
    for name, value in proposal.facts.items():
        echo(f"  {name} = {value!r}")
    overlay = "" if kb.resolve() == data_dir("kb").resolve() else f" --catalog {kb}"
    echo(f"next: replace the TODO text, then `logkb validate {kb}` and `logkb test{overlay} {log.parent}`")


def declare_facts(kb: Path, engine: str, facts: dict[str, Any]) -> list[str]:
    """Append a declaration (unit from the suffix or the value, TODO meaning) to
    ``<kb>/facts.yaml`` for each proposed fact name neither it nor the built-in catalog declares."""
    roots = {root.resolve(): root for root in (kb, data_dir("kb"))}
    known = load_vocabulary(roots.values())
    new = [name for name in facts if name not in known]
    if not new:
        return []
    path = kb / "facts.yaml"
    text = path.read_text(encoding="utf-8").rstrip("\n") if path.is_file() else "facts:"
    for name in new:
        unit = suffix_unit(name) or ("number" if isinstance(facts[name], (int, float)) else "text")
        text += f'\n  {name}: {{unit: {unit}, engines: [{engine}], meaning: "TODO: what this number is"}}'
    write_file(path, text + "\n")
    return new


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return None

