"""Which fixes fit a finding: the phase it happened in, and the engine and device of the log.

A fix may declare ``applies_to: {phases: [...], not_phases: [...], engines: [...], not_engines:
[...], devices: [...], leads_in: [...]}``. A fix is dropped when the log shows a phase, engine or
device outside its lists, a phase in ``not_phases`` (where it cannot help), or an engine in
``not_engines`` (which has its own variant of the fix); the engine name ``unknown`` stands
for a log whose engine logkb could not tell, so a fix that names one engine's knobs never
reaches a reader of another engine's log. An unknown phase or device drops nothing. Among the
fixes kept, those that lead in the finding's phase (``leads_in``) come first, the others
follow, each group in catalog order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from .catalog import Applicability

UNKNOWN_ENGINE = "unknown"


class Situation(msgspec.Struct, frozen=True):
    """What the log says about where a finding happened."""

    phase: str | None
    engine: str
    device: str | None

    @classmethod
    def of(cls, phase: str | None, facts: dict[str, Any]) -> Situation:
        device = facts.get("device")
        return cls(phase if phase and phase != "unknown" else None,
                   str(facts.get("engine") or UNKNOWN_ENGINE),
                   str(device).lower() if device else None)


def fits(applies_to: Applicability, situation: Situation) -> bool:
    phases, engines, devices = applies_to.phases, applies_to.engines, applies_to.devices
    if situation.phase is not None and (phases and situation.phase not in phases or situation.phase in applies_to.not_phases):
        return False
    if engines and situation.engine not in engines or situation.engine in applies_to.not_engines:
        return False
    return not (devices and situation.device is not None and situation.device not in devices)


def rank(applies_to: Applicability, situation: Situation) -> int:
    """0 for a fix that leads in the finding's phase, 1 for the others."""
    return 0 if situation.phase is not None and situation.phase in applies_to.leads_in else 1
