"""PEP 440 version ranges of the catalog (``versions: ">=0.6,<0.9"``), parsed on first use.

Importing ``packaging`` costs a few milliseconds, and a short log often never reaches a
range (no version banner, or no finding to judge), so a range read from the on-disk cache
stays text until a scan asks whether a version lies inside it. A range loaded from YAML is
parsed at once by :meth:`VersionRange.checked`, so a bad specifier is a catalog error.
"""

from __future__ import annotations

from typing import Any

MAX_VERSION = 64  # characters


class InvalidRange(ValueError):
    """The text is not a PEP 440 version specifier."""


class VersionRange:
    __slots__ = ("text", "_spec")

    def __init__(self, text: str) -> None:
        self.text = text
        self._spec: Any = None

    @classmethod
    def checked(cls, text: str) -> VersionRange:
        """A range whose text is proven to parse (raises :class:`InvalidRange`)."""
        version_range = cls(text)
        version_range._specifier()
        return version_range

    def contains(self, version: str) -> bool | None:
        """Whether ``version`` lies in the range; None when it is not a PEP 440 version (or is
        longer than any real one: packaging turns each part into an int)."""
        from packaging.version import InvalidVersion, Version

        if len(version) > MAX_VERSION:
            return None
        try:
            return Version(version) in self._specifier()
        except (InvalidVersion, ValueError):
            return None

    def _specifier(self) -> Any:
        if self._spec is None:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                self._spec = SpecifierSet(self.text)
            except InvalidSpecifier:
                raise InvalidRange(self.text) from None
        return self._spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VersionRange) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"VersionRange({self.text!r})"
