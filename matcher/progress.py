"""Progress of a long ``logkb scan`` on stderr: files and bytes done, and the rate.

Shown only when stderr is a terminal outside CI, and only once a scan has run for half a
second, so pipes, CI logs and short scans never see it. The bar is tqdm's, imported only
then. The bytes of a plain file are counted as the scanner reads them; a compressed file
or one searched by worker processes counts when it is done; stdin has no total.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

DELAY_S = 0.5
_CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")


def wanted() -> bool:
    return sys.stderr.isatty() and not any(os.environ.get(name) for name in _CI_VARIABLES)


class Tracker:
    """Counts what the scan of a list of files has done; ``bar`` is a tqdm bar or None."""

    def __init__(self, files: list[str], bar: Any | None) -> None:
        self.sizes = {path: _size(path) for path in files} if bar is not None else {}
        self.files = len(files)
        self.bar = bar
        self.finished = 0
        self.expected = 0  # bytes of the files finished, by their sizes
        if bar is not None:
            bar.set_postfix_str(f"0/{self.files} files", refresh=False)

    def reading(self, path: str) -> Callable[[BinaryIO], BinaryIO] | None:
        """A wrapper for the stream of ``path`` that reports bytes as they are read, or None."""
        if self.bar is None or path.endswith(".gz"):
            return None
        return lambda stream: _Counted(stream, self.bar.update)

    def done(self, report: Any, path: str) -> Any:
        if self.bar is not None:
            self.finished += 1
            self.expected += self.sizes.get(path, 0)
            self.bar.n = max(self.bar.n, self.expected)
            self.bar.set_postfix_str(f"{self.finished}/{self.files} files", refresh=False)
            self.bar.refresh()
        return report


@contextmanager
def progress(files: list[str]) -> Iterator[Tracker]:
    if not wanted():
        yield Tracker(files, None)
        return
    from tqdm import tqdm

    total = sum(_size(path) for path in files)
    with tqdm(total=total or None, unit="iB", unit_scale=True, unit_divisor=1024, file=sys.stderr, leave=False,
              delay=DELAY_S, desc="logkb scan", dynamic_ncols=True) as bar:
        tracker = Tracker(files, bar)
        yield tracker


def _size(path: str) -> int:
    try:
        return 0 if path == "-" else os.path.getsize(path)
    except OSError:
        return 0


class _Counted:
    """A binary stream that reports how many bytes each read returned."""

    def __init__(self, stream: BinaryIO, count: Callable[[int], Any]) -> None:
        self._stream, self._count = stream, count

    def readinto(self, target: memoryview) -> int:
        got = self._stream.readinto(target) or 0
        self._count(got)
        return got

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self._count(len(data))
        return data

    def close(self) -> None:
        self._stream.close()
