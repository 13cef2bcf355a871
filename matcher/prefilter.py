"""One pass over a whole chunk that finds the lines worth a full regex.

Each catalog pattern has required literals (see regexlint.py). The prefilter searches a
chunk for all of them at once and returns the candidate lines with the anchors each
contains; only those lines are decoded, normalized and confirmed with the full regex.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Anchor:
    literal: bytes
    caseless: bool


@dataclass
class Candidate:
    start: int
    end: int  # exclusive, before the newline
    anchors: set[int]
    first_pos: int


class PythonPrefilter:
    """Portable engine: ``bytes.find`` per distinct literal over the chunk (C speed per literal)."""

    name = "python"

    def __init__(self, anchors: Sequence[Anchor]) -> None:
        self._exact = [(i, a.literal) for i, a in enumerate(anchors) if not a.caseless]
        self._caseless = [(i, a.literal.lower()) for i, a in enumerate(anchors) if a.caseless]

    def candidates(self, data: bytes) -> list[Candidate]:
        found: dict[int, Candidate] = {}
        self._search(data, self._exact, found)
        if self._caseless:
            self._search(data.lower(), self._caseless, found)
        return sorted(found.values(), key=lambda c: c.start)

    @staticmethod
    def _search(data: bytes, anchors: list[tuple[int, bytes]], found: dict[int, Candidate]) -> None:
        find, rfind = data.find, data.rfind
        for index, literal in anchors:
            pos = find(literal)
            while pos >= 0:
                start = rfind(b"\n", 0, pos) + 1
                end = find(b"\n", pos)
                if end < 0:
                    end = len(data)
                candidate = found.get(start)
                if candidate is None:
                    found[start] = Candidate(start, end, {index}, pos)
                else:
                    candidate.anchors.add(index)
                pos = find(literal, end)


def make_prefilter(anchors: Sequence[Anchor]) -> PythonPrefilter:
    return PythonPrefilter(anchors)
