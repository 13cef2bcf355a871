"""Render a finding's checks and fixes with the numbers its log gives.

Values are computed by catalog expressions over facts; texts use ``{name}`` placeholders
(with an optional format spec such as ``{free_gib:.2f}``). A check whose condition cannot be
decided from the log is ``unknown`` and tells the operator what to run; a check whose ``when``
is false on the log is left out, as it means nothing there; a fix whose ``when``
is false, or whose ``applies_to`` excludes the finding's phase, engine or device, is dropped
(see applicability.py); fixes that lead in the finding's phase, or whose ``leads_when`` holds,
come first; a fix whose value cannot be computed falls back to its next wording.
No text is ever shown with a placeholder left in it: a wording the log cannot fill is skipped,
and a fix none of whose change wordings can be filled is left out.
"""

from __future__ import annotations

import math
import string
from typing import Any

import msgspec

from .applicability import Situation, fits, rank
from .catalog import Check, Fix, ProblemSignature, Value
from .budget import BudgetError, check_spec, check_text
from .expr import Unknown
from .scan import Finding


class ComputedValue(msgspec.Struct):
    name: str
    value: Any
    expression: str
    inputs: dict[str, Any]


class CheckResult(msgspec.Struct):
    id: str
    title: str
    look: str
    command: str | None
    status: str  # fail | pass | unknown
    detail: str | None


class FixResult(msgspec.Struct):
    id: str
    title: str
    change: str
    tradeoff: str
    verify: str | None
    applies: bool | None  # None: the log cannot tell
    values: list[ComputedValue] = msgspec.field(default_factory=list)
    computed: bool = False


class Checklist(msgspec.Struct):
    checks: list[CheckResult]
    fixes: list[FixResult]
    values: list[ComputedValue]


def build(finding: Finding, run_facts: dict[str, Any], foreign: frozenset[str] = frozenset()) -> Checklist:
    sig = finding.signature
    facts = finding.all_facts(run_facts, foreign)
    shared = _compute(sig, "values", sig.values, facts)
    scope = {**facts, **{v.name: v.value for v in shared}}
    situation = Situation.of(finding.phase, facts)
    checks = [_check(sig, i, item, scope) for i, item in enumerate(sig.checks)
              if fits(item.applies_to, situation) and _relevant(sig, i, item, scope)]
    statuses = {check.id: check.status for check in checks}
    ranked = []
    for i, item in enumerate(sig.fixes):
        if not fits(item.applies_to, situation):
            continue
        fix = _fix(sig, i, item, scope, shared, statuses)
        if fix is not None:
            leads = item.leads_when is not None and _holds(
                sig, f"fixes[{i}].leads_when", item.leads_when, item.lead_condition, scope, statuses) is True
            ranked.append((0 if leads else rank(item.applies_to, situation), i, fix))
    return Checklist(checks, [fix for _, _, fix in sorted(ranked, key=lambda r: r[:2])], shared)


def _compute(sig: ProblemSignature, prefix: str, sources: tuple[Value, ...], facts: dict[str, Any]) -> list[ComputedValue]:
    results = []
    scope = dict(facts)
    for name in (value.name for value in sources):
        parsed = sig.expressions[f"{prefix}.{name}"]
        try:
            value = _tidy(_evaluate(sig, f"{prefix}.{name}", scope))
        except Unknown:
            continue
        scope[name] = value
        inputs = {n: scope[n] for n in sorted(parsed.names) if n in scope}
        results.append(ComputedValue(name, value, parsed.source, inputs))
    return results


def _decide(sig: ProblemSignature, key: str, scope: dict[str, Any]) -> bool | None:
    try:
        return bool(_evaluate(sig, key, scope))
    except Unknown:
        return None


def _evaluate(sig: ProblemSignature, key: str, scope: dict[str, Any]) -> Any:
    """The expression at ``key``; over the budget, an error naming the file and key."""
    try:
        return sig.expressions[key].evaluate(scope)
    except BudgetError as exc:
        raise BudgetError(f"{sig.path}: {key}: {exc}") from None


def _relevant(sig: ProblemSignature, index: int, item: Check, scope: dict[str, Any]) -> bool:
    """False only when the check's ``when`` is false on this log (a log that cannot tell keeps it)."""
    return item.when is None or _decide(sig, f"checks[{index}].when", scope) is not False


def _check(sig: ProblemSignature, index: int, item: Check, scope: dict[str, Any]) -> CheckResult:
    status, detail = "unknown", None
    if item.fails_when is not None:
        verdict = _decide(sig, f"checks[{index}].fails_when", scope)
        if verdict is not None:
            status = "fail" if verdict else "pass"
            detail = fill(item.detail(status), scope)
    return CheckResult(item.id, fill(item.title, scope) or item.title, item.look, item.command, status, detail)


# A check's status -> whether a fix whose ``when`` names it in that state applies (None: unknown).
_CHECK_STATES = {
    "failed": {"fail": True, "pass": False, "unknown": None},
    "passed": {"fail": False, "pass": True, "unknown": None},
    "unknown": {"fail": False, "pass": False, "unknown": True},
}


def _holds(sig: ProblemSignature, key: str, condition: str | None, reference: tuple[str, str] | None,
           scope: dict[str, Any], statuses: dict[str, str]) -> bool | None:
    """A fix's ``when`` or ``leads_when``: a check in a state, an expression at ``key``, or
    both (None: the log cannot tell; no condition holds). A check left out of the checklist
    (its ``applies_to`` excludes this log) decides nothing here, so a condition on it fails."""
    if condition is None:
        return True
    verdicts = [_decide(sig, key, scope)] if key in sig.expressions else []
    if reference is not None:
        check, state = reference
        verdicts.append(_CHECK_STATES[state][statuses[check]] if check in statuses else False)
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _fix(sig: ProblemSignature, index: int, item: Fix, scope: dict[str, Any],
         shared: list[ComputedValue], statuses: dict[str, str]) -> FixResult | None:
    applies = _holds(sig, f"fixes[{index}].when", item.when, item.check_condition, scope, statuses)
    if applies is False:
        return None
    values = _compute(sig, f"fixes[{index}].values", item.values, scope)
    local = {**scope, **{v.name: v.value for v in values}}
    filled = _first_fillable(item.change_templates, local)
    title = fill(item.title, local)
    tradeoff = fill(item.tradeoff, local)
    if filled is None or title is None or tradeoff is None:
        return None
    template, change = filled
    used = placeholders(template)
    return FixResult(item.id, title, change, tradeoff, fill(item.verify, local), applies,
                     [v for v in shared + values if v.name in used], bool(used))


def generic_change(fix: Fix) -> str:
    """The change for a reader without a log: the first wording that needs no numbers."""
    found = _first_fillable(fix.change_templates, {})
    return found[1] if found else ""


def _first_fillable(templates: tuple[str, ...], scope: dict[str, Any]) -> tuple[str, str] | None:
    """The first template whose placeholders the log can fill, and its text."""
    for template in templates:
        text = fill(template, scope)
        if text is not None:
            return template, text
    return None


def fill(template: str | None, scope: dict[str, Any]) -> str | None:
    """Format ``{name}`` placeholders from scope; None if any is missing or malformed."""
    if template is None:
        return None
    out = []
    try:
        for literal, name, spec, conversion in string.Formatter().parse(template):
            out.append(literal)
            if name is None:
                continue
            if conversion or not name.isidentifier() or name not in scope:
                return None
            value = scope[name]
            if spec:
                check_spec(spec)
            out.append(clip_value(format(value, spec)) if spec else display(value))
    except (ValueError, TypeError):
        return None
    return check_text("".join(out))


MAX_SHOWN = 48  # characters of one value shown in a checklist; a longer one came from a hostile or broken log


def display(value: Any) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return clip_value(format(round(value, 4), "g") if abs(value) < 1e6 else str(int(value)))
    return clip_value(str(value))


def clip_value(text: str) -> str:
    """A value as shown: one too long to be a real setting or size keeps its start and its length."""
    return text if len(text) <= MAX_SHOWN else f"{text[:16]}...({len(text)} characters)"


def placeholders(template: str) -> set[str]:
    """The fact names a template needs."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}
    except ValueError:
        return set()


def _tidy(value: Any) -> Any:
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return int(value)
        return round(value, 4)
    return value
