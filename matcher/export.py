"""The catalog in other tools' terms: Sigma rules for log platforms, plain regex lists for grep.

A Sigma rule per problem signature: the logsource is the engine, the detection is the
signature's patterns as regular expressions, the level comes from the severity, the
description from the cause (ending with the ``logkb explain`` command that gives the
checklist) and the rule id is a UUID derived from the signature id, so it never changes while
the signature lives. The catalog's lifecycle statuses are Sigma's own; deprecated signatures
are not exported.

Two regex dialects, because log platforms disagree:

* ``re2`` (Loki, and any PCRE/RE2 engine): the catalog's regex with group names dropped and
  case folding written as a ``(?i:...)`` group. ``field=None`` writes keyword rules, which
  Loki turns into line filters.
* ``lucene`` (Elasticsearch, with ``field="message"``): Lucene regexes match a whole value and
  have no ``(?:``, no ``\\d`` and more reserved characters, so the regex is rewritten as
  ``.*<regex>.*`` with groups plain, classes spelled out, case folding as ``[aA]`` and every
  punctuation mark escaped; word boundaries (``\\b``) have no Lucene form and are dropped.
  Such a regex means the same in RE2 and Python too.

:func:`loki_pipeline` is a pySigma processing pipeline (YAML form) that gives each rule the
Loki stream selector of its engine.
"""

from __future__ import annotations

import re
import string
import uuid
from typing import Any, ClassVar

import yaml

from .catalog import Catalog, ProblemSignature, Signature
from .regexlint import _c, _parser

RULE_NAMESPACE = uuid.UUID("6f1d6a52-3c1e-5b8e-9a57-6c6f676b6200")
DIALECTS = ("re2", "lucene")
SERVING_ENGINES = ("vllm", "sglang", "tgi", "trtllm", "llamacpp", "ollama")
_LEVELS = {"error": "high", "warning": "medium", "info": "low"}
_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_IGNORE_CASE_FLAG = "(?i)"
_START, _END = (_c.AT, _c.AT_BEGINNING), (_c.AT, _c.AT_END)
_ANCHORS = {_c.AT_BEGINNING: "^", _c.AT_END: "$", _c.AT_BOUNDARY: "\\b", _c.AT_NON_BOUNDARY: "\\B"}


def rule_id(signature_id: str) -> str:
    return str(uuid.uuid5(RULE_NAMESPACE, signature_id))


def sigma_rule(sig: ProblemSignature, field: str | None = None, dialect: str = "re2") -> dict[str, Any]:
    key = f"{field}|re" if field else "|re"
    rule: dict[str, Any] = {
        "title": sig.title,
        "id": rule_id(sig.id),
        "status": sig.status,
        "description": description(sig),
        "references": [r.url for r in sig.references],
        "author": "logkb catalog",
    }
    if sig.date:
        rule["date"] = sig.date
    if sig.modified:
        rule["modified"] = sig.modified
    rule.update({
        "logsource": logsource(sig),
        "detection": {"selection": {key: [regex(p.source, p.ignore_case, dialect) for p in sig.patterns]},
                      "condition": "selection"},
        "falsepositives": (["Log lines that quote this message, e.g. in a prompt"] if sig.falsepositives is None
                           else list(sig.falsepositives)),
        "level": _LEVELS[sig.severity],
        "custom": {"logkb_id": sig.id, "engines": list(sig.engines), "phase": sig.phase},
    })
    if sig.related:
        # The catalog's relation types are Sigma's.
        rule["related"] = [{"id": rule_id(r.id), "type": r.type} for r in sig.related]
    return rule


def description(sig: ProblemSignature) -> str:
    """The cause, then the command an operator runs on an alert to get the checklist."""
    text = sig.cause or sig.summary or sig.title
    return f"{' '.join(text.split())} Checklist: logkb explain {sig.id}"


def logsource(sig: Signature) -> dict[str, str]:
    """``product`` is the engine when the signature names exactly one; a signature of several
    engines (or of 'any') has none, so a pipeline gives it the selector of all streams."""
    source = {"category": "application"}
    engines = [e for e in sig.engines if e != "any"]
    if len(sig.engines) == 1 and engines:
        source["product"] = engines[0]
    return source


def sigma_rules(catalog: Catalog, field: str | None = None, dialect: str = "re2") -> dict[str, str]:
    """File name -> YAML text, one rule per non-deprecated problem signature."""
    rules = {}
    for sig in catalog.problems:
        if sig.status == "deprecated":
            continue
        try:
            rule = sigma_rule(sig, field, dialect)
        except ValueError as exc:
            raise ValueError(f"{sig.id}: {exc}") from None
        rules[f"{sig.id}.yml"] = yaml.safe_dump(rule, sort_keys=False, allow_unicode=True)
    return rules


def loki_pipeline(label: str = "app") -> dict[str, Any]:
    """A pySigma pipeline (the YAML form ``sigma convert -p`` reads) choosing each rule's Loki
    stream selector: ``{<label>="<engine>"}`` for the rules of one serving engine, every stream
    that has the label (``{<label>=~".+"}``) for the others. Operators edit it to match their
    labels."""
    items: list[dict[str, Any]] = [
        {"id": "logkb_all_streams", "type": "set_custom_log_source", "selection": {f"{label}|re": ".+"}},
    ]
    items += [
        {"id": f"logkb_{engine}_stream", "type": "set_custom_log_source", "selection": {label: engine},
         "rule_conditions": [{"type": "logsource", "product": engine}]}
        for engine in SERVING_ENGINES
    ]
    return {"name": "logkb engine log streams", "priority": 20, "allowed_backends": ["loki"],
            "transformations": items}


def regex(source: str, ignore_case: bool = False, dialect: str = "re2") -> str:
    """A catalog regex in a log platform's dialect (see the module docstring)."""
    if dialect == "lucene":
        return to_lucene(source, ignore_case)
    if dialect != "re2":
        raise ValueError(f"unknown regex dialect {dialect!r} (one of {', '.join(DIALECTS)})")
    body = _NAMED_GROUP.sub("(", source)
    if body.startswith(_IGNORE_CASE_FLAG):
        body, ignore_case = body[len(_IGNORE_CASE_FLAG):], True
    return f"(?i:{body})" if ignore_case else body


def patterns(catalog: Catalog, kinds: tuple[str, ...] = ("problem",)) -> list[str]:
    """One regex per line for ``grep -E -f`` / ``rg -f`` (same lines match as in logkb)."""
    return [
        to_ere(pattern.source, pattern.ignore_case)
        for sig in catalog.signatures.values() if sig.kind in kinds
        for pattern in sig.patterns
    ]


def to_ere(source: str, ignore_case: bool = False) -> str:
    """Rewrite a catalog regex (RE2 subset) as POSIX ERE: no group names, no non-capturing
    groups, no lazy repeats, no ``\\d``-style escapes, case folding spelled out as ``[aA]``;
    ``\\b`` stays (GNU grep and ripgrep read it). A line matches the ERE exactly when it
    matches the original."""
    tree = _parser.parse(source)
    return _Ere(ignore_case or _folds_case(tree)).seq(tree)


def to_lucene(source: str, ignore_case: bool = False) -> str:
    """Rewrite a catalog regex as a Lucene regex that matches a whole value (a log line)
    exactly when the original matches somewhere in it, word boundaries aside."""
    tree = _parser.parse(source)
    items, tail = list(tree), ".*"
    if items and items[-1] == _END:
        items, tail = items[:-1], ""
    return _Lucene(ignore_case or _folds_case(tree)).from_any_start(items) + tail


def _leading_branches(item) -> list | None:
    """The alternatives of an alternation, bare (``(?:a|b)``) or in a group (``(a|b)``)."""
    op, av = item
    if op == _c.SUBPATTERN and len(av[-1]) == 1:
        op, av = av[-1][0]
    return [list(b) for b in av[1]] if op == _c.BRANCH else None


def _folds_case(tree) -> bool:
    return bool(tree.state.flags & _c.SRE_FLAG_IGNORECASE)


class _Ere:
    """Renders a parsed regex; the subclass changes escaping, classes and anchors."""

    special: ClassVar[frozenset[str]] = frozenset(".[]()*+?{}|^$\\")
    line_based: ClassVar[bool] = True  # grep and ripgrep match one line at a time
    classes: ClassVar[dict[int, str]] = {_c.CATEGORY_DIGIT: "0-9", _c.CATEGORY_SPACE: "[:space:]", _c.CATEGORY_WORD: "[:alnum:]_"}
    not_classes: ClassVar[dict[int, str]] = {_c.CATEGORY_NOT_DIGIT: "0-9", _c.CATEGORY_NOT_SPACE: "[:space:]", _c.CATEGORY_NOT_WORD: "[:alnum:]_"}

    def __init__(self, ignore_case: bool) -> None:
        self.ignore_case = ignore_case

    def seq(self, tree) -> str:
        return "".join(self.item(op, av) for op, av in tree)

    def item(self, op, av) -> str:
        if op == _c.LITERAL:
            return self.literal(chr(av))
        if op == _c.NOT_LITERAL:
            if chr(av) == "\n" and self.line_based:
                return "."  # a line holds no newline: [^\n] is any character
            return self.bracket([self.member(chr(av))], negate=True)
        if op == _c.ANY:
            return "."
        if op == _c.IN:
            return self.klass(av)
        if op == _c.CATEGORY:
            if av in self.not_classes:
                return self.bracket([self.not_classes[av]], negate=True)
            return self.bracket([self.classes[av]], negate=False)
        if op == _c.SUBPATTERN:
            body = av[-1]
            return self.seq(body) if len(body) == 1 and body[0][0] == _c.BRANCH else "(" + self.seq(body) + ")"
        if op == _c.BRANCH:
            return "(" + "|".join(self.seq(alt) for alt in av[1]) + ")"
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, high, sub = av
            body = self.seq(sub)
            if not (len(sub) == 1 and sub[0][0] in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY, _c.SUBPATTERN)):
                body = "(" + body + ")"
            return body + _bound(low, high)
        if op == _c.AT:
            return self.anchor(av)
        raise ValueError(f"no {type(self).__name__[1:]} form for {op}")

    def anchor(self, at) -> str:
        if at not in _ANCHORS:
            raise ValueError(f"no {type(self).__name__[1:]} form for anchor {at}")
        return _ANCHORS[at]

    def literal(self, char: str) -> str:
        if self.ignore_case and char.lower() != char.upper():
            return self.bracket([char.lower(), char.upper()], negate=False)
        return "\\" + char if char in self.special else char

    def member(self, char: str) -> str:
        return char

    def klass(self, items) -> str:
        negate = bool(items) and items[0][0] == _c.NEGATE
        if len(items) == 1 and items[0][0] == _c.CATEGORY and items[0][1] in self.not_classes:
            return self.bracket([self.not_classes[items[0][1]]], negate=True)  # \S, \D, \W
        members: list[str] = []
        for op, av in items[1:] if negate else items:
            if op == _c.LITERAL and chr(av) == "\n" and self.line_based:
                continue  # a line holds no newline: the member changes nothing
            if op == _c.LITERAL:
                char = chr(av)
                members.append(self.member(char))
                if self.ignore_case and char.lower() != char.upper():
                    members.append(self.member(char.swapcase()))
            elif op == _c.RANGE:
                members.append(f"{self.member(chr(av[0]))}-{self.member(chr(av[1]))}")
            elif op == _c.CATEGORY and av in self.classes:
                members.append(self.classes[av])
            else:
                raise ValueError(f"no {type(self).__name__[1:]} form for class member {op}")
        if not members:
            if negate:
                return "."
            raise ValueError(f"no {type(self).__name__[1:]} form for a class that only holds a newline")
        return self.bracket(members, negate)

    def bracket(self, members: list[str], negate: bool) -> str:
        """ERE brackets have no escapes: ']' goes first, '-' last, '^' not first. A '[' member
        goes outside, as an escaped literal in an alternation: ripgrep reads '[' inside a
        bracket as the start of a nested class, grep -E as itself. A backslash member is written
        twice: ripgrep reads '\\\\' as one escaped backslash (and a lone one as an escape, so
        '[\\/]' would be only '/' to it), grep -E reads each as itself."""
        if "[" in members and not negate:
            others = [m for m in members if m != "["]
            return "\\[" if not others else "(\\[|" + self.bracket(others, negate) + ")"
        members = ["\\\\" if m == "\\" else m for m in members]
        close = "]" if "]" in members else ""
        dash = "-" if "-" in members else ""
        caret = "^" if "^" in members else ""
        rest = "".join(m for m in members if m not in ("]", "-", "^"))
        return "[" + ("^" if negate else "") + close + rest + caret + dash + "]"


class _Lucene(_Ere):
    """Lucene regexes: a backslash escapes any character, in classes too; more reserved
    characters (``#@&<>~"``); no ``\\d``-style escapes, no anchors, no word boundaries."""

    special: ClassVar[frozenset[str]] = frozenset(string.punctuation) - {"/"}  # the backend escapes '/'
    line_based: ClassVar[bool] = False  # a field value may hold newlines
    classes: ClassVar[dict[int, str]] = {_c.CATEGORY_DIGIT: "0-9", _c.CATEGORY_SPACE: " \t\n\r\f\v", _c.CATEGORY_WORD: "a-zA-Z0-9_"}
    not_classes: ClassVar[dict[int, str]] = {_c.CATEGORY_NOT_DIGIT: "0-9", _c.CATEGORY_NOT_SPACE: " \t\n\r\f\v", _c.CATEGORY_NOT_WORD: "a-zA-Z0-9_"}

    def from_any_start(self, items: list) -> str:
        """``.*`` and the items, unless the regex is anchored at its start: a leading ``^``
        drops the ``.*``; a leading alternation with an anchored branch, ``(?:^|x)y``, takes
        the ``.*`` into each branch, ``(|.*x)y``."""
        if items and items[0] == _START:
            return self.seq(items[1:])
        branches = _leading_branches(items[0]) if items else None
        if branches and any(branch[:1] == [_START] for branch in branches):
            return "(" + "|".join(self.from_any_start(list(b)) for b in branches) + ")" + self.seq(items[1:])
        return ".*" + self.seq(items)

    def anchor(self, at) -> str:
        if at in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY):
            return ""
        raise ValueError("no Lucene form for an anchor inside a regex (only at its start or end)")

    def member(self, char: str) -> str:
        return "\\" + char if char in self.special else char

    def bracket(self, members: list[str], negate: bool) -> str:
        return "[" + ("^" if negate else "") + "".join(members) + "]"


def _bound(low: int, high: int) -> str:
    if (low, high) == (0, _c.MAXREPEAT):
        return "*"
    if (low, high) == (1, _c.MAXREPEAT):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high == _c.MAXREPEAT:
        return f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"
