"""The fuzzy fallback: lines with error words that no signature matched, scored against
the catalog's fuzzy templates (rapidfuzz, imported only when a line needs scoring)."""

from __future__ import annotations

from ..catalog import ProblemSignature, Signature
from ..findings import Incident
from .incidents import Seen, hit_incident
from .lines import search

MAX_FUZZY_LINES = 2000  # gated lines per run that the fuzzy fallback may score
FUZZY_TEXT = 400  # characters of a gated line that the fuzzy fallback scores
FUZZY_MIN_LENGTH = 0.6  # a gated line must be at least this fraction of the template's length
FUZZY_CONFIDENCE = 0.7  # a fuzzy hit's confidence is its score x this


class Fuzzy:
    def __init__(self, signatures: list[Signature]) -> None:
        self.templates = [
            (sig, item.template, item.threshold)
            for sig in signatures if isinstance(sig, ProblemSignature) for item in sig.fuzzy
        ]
        self.scored = 0
        self._best: dict[str, tuple[str, float, int] | None] = {}  # a crash loop repeats its lines

    def score(self, lines: list[Seen], found: set[str]) -> list[tuple[ProblemSignature, Incident]]:
        """Fuzzy hits among ``lines``; ``found``: ids already diagnosed in this run, skipped."""
        if not lines or not self.templates:
            return []
        from rapidfuzz import fuzz, process

        choices = [template for _, template, _ in self.templates]
        floor = min(threshold for _, _, threshold in self.templates)
        hits: list[tuple[ProblemSignature, Incident]] = []
        for seen in lines:
            if self.scored >= MAX_FUZZY_LINES:
                break
            self.scored += 1
            key = seen.text[:FUZZY_TEXT]
            if key not in self._best:
                if len(self._best) >= 4096:
                    self._best.clear()
                self._best[key] = process.extractOne(key, choices, scorer=fuzz.partial_ratio, score_cutoff=floor)
            best = self._best[key]
            if best is None:
                continue
            _, score, index = best
            sig, template, threshold = self.templates[index]
            if score < threshold or sig.id in found or len(seen.text) < FUZZY_MIN_LENGTH * len(template):
                continue  # partial_ratio scores a short line 100 against any template containing it
            if any(search(ex, seen.text, sig) for ex in sig.exclude):
                continue
            found.add(sig.id)
            hits.append((sig, hit_incident(sig, {}, seen, None, "fuzzy", score / 100 * FUZZY_CONFIDENCE,
                                           f"fuzzy: {score:.0f}% like the template", [])))
        return hits
