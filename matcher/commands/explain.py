"""``logkb explain ID|"message"``: one signature as a page, or a search by message text.

A page has fixed sections, the same in the terminal and in ``logkb docs``: what the message
means, the phase, why it happens, the checks, the fixes in order with their trade-offs, how to
verify, references, versions and engines, status, related signatures. Text that is not an id
is scored with rapidfuzz against every entry's title, summary, fuzzy templates and the literal
parts of its patterns; the best few are listed with their scores. A text longer than the
query may contain it anywhere (partial ratio); a shorter one must match the query as a whole
(plain ratio), so a short literal such as "CUDA out of memory" does not outrank a template
that matches the whole message.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator

import click
import msgspec

from ..catalog import Applicability, Catalog, Check, Fix, FrameMap, PhaseMarker, ProblemSignature, Signature, condition_expression
from ..output import echo
from ..redact import redact
from .common import EXIT_CLEAN, EXIT_ERROR, catalog_option, load

SEARCH_LIMIT = 5
SEARCH_CUTOFF = 60.0  # 0-100, see _similarity
WIDTH = 92


class Item(msgspec.Struct):
    """One numbered entry of a section (a check, a fix, a reference): a title and its lines."""

    title: str
    lines: list[tuple[str, str]] = msgspec.field(default_factory=list)  # (label, text); label "$" = command


class Section(msgspec.Struct):
    heading: str
    text: str = ""
    items: list[Item] = msgspec.field(default_factory=list)
    numbered: bool = False


def page(sig: Signature, catalog: Catalog) -> list[Section]:
    """The sections of a signature's page, in their fixed order (a fact entry's cause, checks,
    fixes and verification are empty)."""
    problem = sig if isinstance(sig, ProblemSignature) else None
    return [
        Section("What it means", sig.summary or sig.title),
        Section("Phase", _phase(sig)),
        Section("Why it happens", problem.cause if problem else ""),
        Section("Checks", items=[_check(c) for c in problem.checks] if problem else [], numbered=True),
        Section("Fixes, in order", items=[_fix(f) for f in problem.fixes] if problem else [], numbered=True),
        Section("How to verify", problem.verify if problem else ""),
        Section("References", items=[Item(r.url if r.title is None else r.title, [] if r.title is None else [("", r.url)])
                                     for r in sig.references]),
        Section("Versions and engines", items=list(_versions(sig))),
        Section("Status", _status(sig)),
        Section("Related", items=list(_related(sig, catalog))),
    ]


def _phase(sig: Signature) -> str:
    if isinstance(sig, (PhaseMarker, FrameMap)):
        return f"the run is in {sig.enters_phase} after this line"
    if isinstance(sig, ProblemSignature) and sig.phase:
        return f"{sig.phase} (always reported in this phase)"
    phases = sorted(sig.context_phases) if isinstance(sig, ProblemSignature) else []
    only = f"; counted only during {', '.join(phases)}" if phases else ""
    return f"the phase in force where it appears (traceback frames, else the last phase marker){only}"


def _check(check: Check) -> Item:
    lines = [("", check.look)]
    if check.command is not None:
        lines.append(("$", check.command))
    if check.when is not None:
        lines.append(("only when", check.when))
    if check.fails_when is not None:
        lines.append(("fails when", check.fails_when))
    lines.extend(_scope(check.applies_to))
    return Item(check.title, lines)


def _scope(applies_to: Applicability) -> list[tuple[str, str]]:
    """The lines that say where a check or fix is shown, and where a fix comes first."""
    return [(label, ", ".join(names)) for names, label in (
        (applies_to.phases, "only in phases"), (applies_to.not_phases, "not in phases"),
        (applies_to.engines, "only for engines"),
        (applies_to.not_engines, "not for engines"), (applies_to.devices, "only on devices"),
        (applies_to.leads_in, "first in phases")) if names]


_CHECK_VERBS = {"failed": "fails", "passed": "passes", "unknown": "cannot tell"}


def _fix(fix: Fix) -> Item:
    lines = [("change", fix.change)]
    lines.extend(("without the numbers", text) for text in fix.change_fallback)
    for label, condition, reference in (("only when", fix.when, fix.check_condition),
                                        ("first when", fix.leads_when, fix.lead_condition)):
        if condition is not None:
            rest = condition_expression(condition)
            lines.append((label, condition if reference is None else
                          f"the check '{reference[0]}' {_CHECK_VERBS[reference[1]]}" + (f" and {rest}" if rest else "")))
    lines.extend(_scope(fix.applies_to))
    lines.append(("trade-off", fix.tradeoff))
    if fix.verify is not None:
        lines.append(("verify", fix.verify))
    return Item(fix.title, lines)


def _versions(sig: Signature) -> Iterator[Item]:
    for name, spec in sig.engines.items():
        yield Item(name, [("versions", "any" if spec is None else spec.text)])
    for i, pattern in enumerate(sig.patterns):
        if pattern.versions is not None:
            yield Item(f"pattern {i + 1}", [("versions", pattern.versions.text)])


def _status(sig: Signature) -> str:
    kind = f"problem, severity {sig.severity}" if isinstance(sig, ProblemSignature) else f"{sig.kind} entry"
    parts = [f"{sig.status} ({kind})"]
    if sig.date is not None:
        parts.append(f"added {sig.date}")
    if sig.modified is not None:
        parts.append(f"modified {sig.modified}")
    if sig.tags:
        parts.append(f"tags: {', '.join(sig.tags)}")
    return "; ".join(parts)


def _related(sig: Signature, catalog: Catalog) -> Iterator[Item]:
    def title(sig_id: str) -> str:
        other = catalog.signatures.get(sig_id)
        return other.title if other else "not in this catalog"

    for link in sig.related:
        yield Item(link.id, [(link.type, title(link.id))])
    for target in sig.explains if isinstance(sig, ProblemSignature) else ():
        yield Item(target, [("explains", title(target))])
    for other in sorted(catalog.problems, key=lambda s: s.id):
        if sig.id in other.explains:
            yield Item(other.id, [("explained by", other.title)])


def render_text(sig: Signature, catalog: Catalog) -> str:
    out = [f"{sig.id} - {sig.title}", ""]
    for section in page(sig, catalog):
        out.append(section.heading.upper())
        if section.text:
            out += _wrap(section.text, "  ")
        for n, item in enumerate(section.items, 1):
            marker = f"{n}. " if section.numbered else "- "
            out += _wrap(item.title, "  " + marker, "  " + " " * len(marker))
            for label, text in item.lines:
                prefix = "$ " if label == "$" else (f"{label}: " if label else "")
                out += _wrap(prefix + text, "  " + " " * len(marker))
        if not section.text and not section.items:
            out.append("  (none)")
        out.append("")
    return "\n".join(out)


def _wrap(text: str, first: str, rest: str | None = None) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), WIDTH, initial_indent=first,
                         subsequent_indent=first if rest is None else rest, break_on_hyphens=False) or [first]


def render_markdown(sig: Signature, catalog: Catalog) -> str:
    out = [f"# `{sig.id}`", "", sig.title, ""]
    for section in page(sig, catalog):
        out += [f"## {section.heading}", ""]
        if section.text:
            out += [" ".join(section.text.split()), ""]
        for n, item in enumerate(section.items, 1):
            marker = f"{n}. " if section.numbered else "- "
            pad = " " * len(marker)
            rows = [_md_title(item.title, section, catalog)] + [_md_line(label, text) for label, text in item.lines]
            out.append(marker + f"  \n{pad}".join(rows))  # two trailing spaces: a line break
            out.append("")
        if not section.text and not section.items:
            out += ["(none)", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _md_title(title: str, section: Section, catalog: Catalog) -> str:
    if section.heading == "Related" and title in catalog.signatures:
        return f"[`{title}`]({title}.md)"
    if section.heading == "Related":
        return f"`{title}`"
    return f"**{title}**"


def _md_line(label: str, text: str) -> str:
    text = " ".join(text.split())
    if label == "$" or label in ("only when", "fails when", "versions"):
        text = f"`{text}`" if "`" not in text else f"`` {text} ``"
    elif text.startswith("https://"):
        text = f"<{text}>"
    return text if label in ("", "$") else f"*{label}:* {text}"


def search(catalog: Catalog, text: str, limit: int = SEARCH_LIMIT) -> list[tuple[ProblemSignature, float, str]]:
    """The problem signatures whose texts are closest to ``text``: (signature, score, what
    matched). Fact entries are left out: a message someone searches for is a failure."""
    from rapidfuzz import process, utils

    choices: list[str] = []
    owners: list[tuple[ProblemSignature, str]] = []
    for sig in catalog.problems:
        for what, candidate in _searchable(sig):
            choices.append(candidate)
            owners.append((sig, what))
    scored = process.extract(text, choices, scorer=_similarity, processor=utils.default_process,
                             limit=None, score_cutoff=SEARCH_CUTOFF)
    best: dict[str, tuple[ProblemSignature, float, str]] = {}
    for _, score, index in scored:
        sig, what = owners[index]
        if sig.id not in best or score > best[sig.id][1]:
            best[sig.id] = (sig, round(score, 1), what)
    return sorted(best.values(), key=lambda hit: (-hit[1], hit[0].id))[:limit]


def _similarity(query: str, choice: str, *, score_cutoff: float | None = None, **_: object) -> float:
    from rapidfuzz import fuzz

    scorer = fuzz.partial_ratio if len(choice) >= len(query) else fuzz.ratio
    return scorer(query, choice, score_cutoff=score_cutoff)


def _searchable(sig: ProblemSignature) -> Iterator[tuple[str, str]]:
    yield "title", sig.title
    if sig.summary:
        yield "summary", sig.summary
    for item in sig.fuzzy:
        yield "template", item.template
    for pattern in sig.patterns:
        for literal in pattern.anchors:
            yield "pattern", literal


@click.command("explain")
@click.argument("query")
@catalog_option
def command(query: str, catalogs: tuple[str, ...]) -> None:
    """Show signature ID as a page, or find signatures by the text of a log message."""
    catalog = load(catalogs)
    sig = catalog.resolve(query.strip())
    if sig is not None:
        if sig.id != query.strip():
            echo(f"{redact(query.strip())} was renamed to {sig.id}\n")
        echo(render_text(sig, catalog))
        sys.exit(EXIT_CLEAN)
    hits = search(catalog, query)
    if not hits:
        echo(f"logkb: no signature has the id {redact(query)!r} or a message like it", err=True)
        sys.exit(EXIT_ERROR)
    echo(f"Signatures whose messages look like {redact(query)!r}:")
    for hit_sig, score, what in hits:
        echo(f"  {score:5.1f}  {hit_sig.id:52} {hit_sig.title}  ({what})")
    echo(f"\nShow one with: logkb explain {hits[0][0].id}")
    sys.exit(EXIT_CLEAN)
