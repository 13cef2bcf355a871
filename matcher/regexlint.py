"""Static checks on catalog regexes: RE2-compatible syntax, linear-time shape, anchors.

Every catalog regex must run on RE2-class engines (log platforms, Hyperscan) and must not
backtrack catastrophically in Python's engines. We parse it with the standard library's
regex parser and walk the tree:

* no look-around, back-references, conditionals, atomic groups or possessive repeats
  (RE2 has none of them);
* no repeat count above 1000 (RE2's limit), no nested unbounded repeats (``(a+)+``, ``(\\w*x?)*``): the shape behind catastrophic
  backtracking;
* a *required literal*: a string of at least ``MIN_ANCHOR`` bytes of UTF-8 that every match
  contains (or a small set of them, one per alternative): four ASCII characters, or fewer of a
  script whose characters take several bytes ('已杀死', a Chinese shell's 'Killed'). The
  prefilter searches for these literals, as bytes, over whole chunks, so only lines that
  contain one reach the full regex.
"""

from __future__ import annotations

from typing import Any

import msgspec

try:  # Python >= 3.11
    import re._constants as _c
    import re._parser as _parser
except ImportError:  # Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _parser  # type: ignore[no-redef]

MIN_ANCHOR = 4  # bytes of UTF-8: what the prefilter's byte search is selective on
MIN_LEAD = 10  # a shorter start ('Error: ') is shared by too many messages to point at one
MAX_REPEAT_COUNT = 1000  # RE2 refuses larger {n,m}
MAX_ANCHORS = 8

_FORBIDDEN = {
    _c.ASSERT: "look-ahead/look-behind",
    _c.ASSERT_NOT: "negative look-around",
    _c.GROUPREF: "back-reference",
    _c.GROUPREF_EXISTS: "conditional group",
}
for _name, _what in (("ATOMIC_GROUP", "atomic group"), ("POSSESSIVE_REPEAT", "possessive repeat")):
    if hasattr(_c, _name):
        _FORBIDDEN[getattr(_c, _name)] = _what
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT} | ({_c.POSSESSIVE_REPEAT} if hasattr(_c, "POSSESSIVE_REPEAT") else set())
_MAXREPEAT = _c.MAXREPEAT


class RegexLintError(ValueError):
    pass


class Anchors(msgspec.Struct, frozen=True):
    """Literals one of which every match contains (lower-cased when ``ignore_case``), and the
    literal every match starts with, when it is long enough to stand for the wording (``lead``):
    a line cut short after it may still show the wording's start."""

    literals: tuple[str, ...]
    lead: str | None = None


def lint_shape(pattern: str, ignore_case: bool = False) -> Any:
    """Check a regex's syntax and shape (RE2 features, no nested unbounded repeats) without
    asking for an anchor: exclusions, frame patterns and fragments. Returns the parse tree."""
    flags = _c.SRE_FLAG_IGNORECASE if ignore_case else 0
    try:
        tree = _parser.parse(pattern, flags)
    except Exception as exc:  # re.error, OverflowError, RecursionError
        raise RegexLintError(f"does not compile: {exc}") from None
    _check_features(tree, inside_unbounded=False)
    return tree


def lint(pattern: str, ignore_case: bool = False) -> Anchors:
    """Check a catalog regex; return its anchors or raise RegexLintError saying why not."""
    tree = lint_shape(pattern, ignore_case)
    best = _best_required(tree)
    if best is None or min(len(s.encode("utf-8")) for s in best) < MIN_ANCHOR:
        raise RegexLintError(
            f"has no required literal of {MIN_ANCHOR}+ bytes (ASCII characters) "
            "(the prefilter needs one; spell out a fixed part of the message)"
        )
    if len(best) > MAX_ANCHORS:
        raise RegexLintError(f"needs more than {MAX_ANCHORS} alternative anchors; split it into patterns")
    literals = tuple(sorted({s.lower() for s in best} if ignore_case else best))
    lead = _leading_literal(tree)
    if ignore_case:
        lead = lead.lower()
    return Anchors(literals, lead if len(lead) >= MIN_LEAD else None)


def _items(tree):  # SubPattern or list of (op, av)
    return list(tree)


def _check_features(tree, inside_unbounded: bool) -> None:
    for op, av in _items(tree):
        if op in _FORBIDDEN:
            raise RegexLintError(f"uses a {_FORBIDDEN[op]}, which RE2 does not support")
        if op in _REPEATS:
            low, high, sub = av
            if low > MAX_REPEAT_COUNT or (high != _MAXREPEAT and high > MAX_REPEAT_COUNT):
                raise RegexLintError(f"has a repeat count above {MAX_REPEAT_COUNT}, RE2's limit")
            unbounded = high == _MAXREPEAT
            if unbounded and inside_unbounded:
                raise RegexLintError(
                    "nests an unbounded repeat inside another (catastrophic backtracking risk)"
                )
            _check_features(sub, inside_unbounded or unbounded)
        elif op == _c.SUBPATTERN:
            _check_features(av[-1], inside_unbounded)
        elif op == _c.BRANCH:
            for alt in av[1]:
                _check_features(alt, inside_unbounded)


def _best_required(tree) -> set[str] | None:
    """The best set of literals one of which every match of ``tree`` contains."""
    candidates: list[set[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            candidates.append({"".join(run)})
            run.clear()

    for op, av in _items(tree):
        if op == _c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op == _c.SUBPATTERN:
            inner = av[-1]
            exact = _exact_literal(inner)
            if exact is not None:
                candidates.append({exact})
            else:
                found = _best_required(inner)
                if found:
                    candidates.append(found)
        elif op in _REPEATS and av[0] >= 1:
            found = _best_required(av[2])
            if found:
                candidates.append(found)
        elif op == _c.BRANCH:
            alternatives = [_best_required(alt) for alt in av[1]]
            if all(alternatives):
                union: set[str] = set()
                for alt in alternatives:
                    union |= alt  # type: ignore[arg-type]
                candidates.append(union)
    flush()
    if not candidates:
        return None
    return max(candidates, key=lambda s: (min(len(x.encode("utf-8")) for x in s), -len(s)))


def _leading_literal(tree) -> str:
    """The text every match begins with: the literal characters (and exact literal groups)
    before the first other item, after any leading position assertion."""
    chars: list[str] = []
    for op, av in _items(tree):
        if op == _c.AT and not chars:
            continue
        if op == _c.LITERAL:
            chars.append(chr(av))
            continue
        if op == _c.SUBPATTERN and (exact := _exact_literal(av[-1])) is not None:
            chars.append(exact)
            continue
        break
    return "".join(chars)


def _exact_literal(tree) -> str | None:
    chars = []
    for op, av in _items(tree):
        if op != _c.LITERAL:
            return None
        chars.append(chr(av))
    return "".join(chars) or None
