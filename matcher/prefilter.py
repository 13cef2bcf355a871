"""One pass over a whole chunk that finds the lines worth a full regex.

Each catalog pattern has required literals (see regexlint.py). The prefilter searches a
chunk for all of them at once and returns the candidate lines with the anchors each
contains; only those lines are decoded, normalized and confirmed with the full regex.

Two engines return exactly the same candidates: ``hyperscan`` (all anchors in one
database, one scan per chunk, about 2 GiB/s per core, the GIL released while it scans)
when the wheel is importable, else ``python`` (``bytes.find`` per literal). The
environment variable ``LOGKB_ENGINE=python|hyperscan`` chooses one explicitly.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:
    from concurrent.futures import Future

ENGINE_ENV = "LOGKB_ENGINE"
ENGINES = ("hyperscan", "python")
WORKERS = min(4, os.cpu_count() or 1)  # threads searching ahead (engines that release the GIL)
LOOKAHEAD = WORKERS + 1  # blocks in flight: memory stays LOOKAHEAD x (block + its candidates)
# An input of one block this small is searched by the python engine unless LOGKB_ENGINE names
# one: its bytes.find per literal takes ~1.5 ms on 16 KiB, less than importing Hyperscan and
# loading its database (~2 ms), and both engines find the same candidates.
SMALL_INPUT = 16 * 1024
MATCH_WINDOW = 64 * 1024  # bytes of a very long line that reach the regexes
FOLLOW_LINES = 6  # lines after a candidate that a wrapped message may continue on
FOLLOW_BYTES = 4096  # bytes of each such line that are read


class Anchor(msgspec.Struct, frozen=True):
    literal: bytes
    caseless: bool


class Candidate(msgspec.Struct):
    start: int
    end: int  # exclusive, before the newline
    anchors: set[int]
    first_pos: int  # where the earliest anchor occurrence on the line starts


def message_window(candidate: Candidate) -> tuple[int, int]:
    """The part of a candidate line that the regexes see: all of it, or for a line longer than
    MATCH_WINDOW the window around its first anchor."""
    start, end = candidate.start, candidate.end
    if end - start > MATCH_WINDOW:
        start = max(start, candidate.first_pos - MATCH_WINDOW // 2)
        end = min(end, start + MATCH_WINDOW)
    return start, end


def line_before(data: bytes, end: int | None = None) -> bytes:
    """The line that ends at offset ``end`` of ``data`` (default: its end), without its newline."""
    end = len(data) if end is None else end
    stop = end - 1 if end and data[end - 1:end] == b"\n" else end
    return data[data.rfind(b"\n", 0, stop) + 1:stop]


class Prefilter(Protocol):
    name: str
    releases_gil: bool

    def candidates(self, data: bytes) -> list[Candidate]: ...


class PythonPrefilter:
    """Portable engine: ``bytes.find`` per distinct literal over the chunk (C speed per literal)."""

    name = "python"
    releases_gil = False

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
                    candidate.first_pos = min(candidate.first_pos, pos)
                pos = find(literal, max(end, pos + 1))


class HyperscanPrefilter:
    """All anchors, as escaped literals, in one Hyperscan block-mode database.

    Every occurrence is reported (no SINGLEMATCH: the same anchor occurs on many lines) and
    mapped to its line by the start offset. Each thread scans with its own scratch space.
    """

    name = "hyperscan"
    releases_gil = True

    def __init__(self, anchors: Sequence[Anchor], serialized: bytes | None = None) -> None:
        import hyperscan

        self._hs = hyperscan
        self._lengths = [len(a.literal) for a in anchors]
        self._db: Any = None
        if anchors:
            if serialized is not None:
                self._db = hyperscan.loadb(serialized, hyperscan.HS_MODE_BLOCK)
            else:
                self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                self._db.compile(
                    expressions=[_escape(a.literal) for a in anchors],
                    ids=list(range(len(anchors))),
                    flags=[hyperscan.HS_FLAG_CASELESS if a.caseless else 0 for a in anchors],
                )
        self._local = threading.local()

    def serialize(self) -> bytes | None:
        """The compiled database, for the on-disk cache (None when there are no anchors)."""
        return self._hs.dumpb(self._db) if self._db is not None else None

    def candidates(self, data: bytes) -> list[Candidate]:
        if self._db is None or not data:
            return []
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._db)
        found: dict[int, Candidate] = {}
        lengths = self._lengths
        find, rfind = data.find, data.rfind
        size = len(data)
        current: list[Any] = [None, -1, -1]  # the line of the last match: candidate, start, end

        def on_match(index: int, _from: int, to: int, _flags: int, _context: Any) -> None:
            pos = to - lengths[index]
            candidate, start, end = current
            if not start <= pos <= end:
                start = rfind(b"\n", 0, pos) + 1
                candidate = found.get(start)
                if candidate is None:
                    end = find(b"\n", pos)
                    if end < 0:
                        end = size
                    candidate = found[start] = Candidate(start, end, set(), pos)
                end = candidate.end
                current[:] = candidate, start, end
            candidate.anchors.add(index)
            if pos < candidate.first_pos:
                candidate.first_pos = pos

        self._db.scan(data, match_event_handler=on_match, scratch=scratch)
        return sorted(found.values(), key=lambda c: c.start)


def _escape(literal: bytes) -> bytes:
    """A Hyperscan expression matching exactly ``literal``: every byte but letters and digits
    as ``\\xHH`` (the binding passes expressions as C strings, so even NUL must be escaped)."""
    return b"".join(bytes([byte]) if chr(byte).isalnum() and byte < 128 else b"\\x%02x" % byte for byte in literal)


def hyperscan_available() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


def engine_name() -> str:
    """The engine a scan uses: LOGKB_ENGINE if set, else hyperscan when importable. Both find
    the same candidates, so a request that cannot be met warns and falls back."""
    wanted = os.environ.get(ENGINE_ENV, "").strip().lower()
    automatic = "hyperscan" if hyperscan_available() else "python"
    if not wanted or wanted == automatic:
        return automatic
    if wanted not in ENGINES:
        _warn(f"{ENGINE_ENV}={wanted!r} is not one of {', '.join(ENGINES)}; using {automatic}")
        return automatic
    if wanted == "hyperscan":
        _warn(f"{ENGINE_ENV}=hyperscan, but the hyperscan package is not installed; using python")
        return "python"
    return wanted


def _warn(message: str) -> None:
    print(f"logkb: warning: {message}", file=sys.stderr)


def make_prefilter(anchors: Sequence[Anchor], engine: str | None = None) -> Prefilter:
    """The prefilter for ``anchors``; a Hyperscan database comes from the on-disk cache when
    it holds one for these anchors, else it is compiled (about 1 ms per 6 anchors) and kept."""
    if (engine or engine_name()) != "hyperscan":
        return PythonPrefilter(anchors)
    import hyperscan

    from . import cache

    key = cache.database_key(((a.literal, a.caseless) for a in anchors), hyperscan.__version__)
    serialized = cache.load_database(key)
    if serialized is not None:
        try:
            return HyperscanPrefilter(anchors, serialized)
        except hyperscan.error:
            pass  # written by another build of the library: compile afresh
    prefilter = HyperscanPrefilter(anchors)
    database = prefilter.serialize()
    if database is not None:
        cache.store_database(key, database)
    return prefilter


def small_input_engine(size: int | None) -> str | None:
    """The engine for an input that is one block of ``size`` bytes (None: several blocks):
    'python' for a small one when LOGKB_ENGINE is unset, else None (the configured engine)."""
    if size is not None and size <= SMALL_INPUT and not os.environ.get(ENGINE_ENV, "").strip():
        return "python"
    return None


def prefiltered(engine: Callable[[int | None], Prefilter], blocks: Iterable[bytes]) -> Iterator[tuple[bytes, list[Candidate]]]:
    """Each block with its candidate lines, in order.

    ``engine`` gives the prefilter, told the input's size when it is a single block (see
    :func:`small_input_engine`) and None otherwise. An engine that releases the GIL searches up to ``LOOKAHEAD`` blocks ahead in worker
    threads while the caller handles earlier blocks, so both run at once on two cores. A
    one-block input never starts a thread. An error from ``blocks`` is raised after the
    blocks read before it have been handed on.
    """
    source = iter(blocks)
    first = next(source, None)
    if first is None:
        return
    second = next(source, None)
    prefilter = engine(len(first) if second is None else None)
    if second is None or not prefilter.releases_gil or WORKERS < 1:
        yield first, prefilter.candidates(first)
        for block in itertools.chain(() if second is None else (second,), source):
            yield block, prefilter.candidates(block)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="logkb-prefilter") as pool:
        pending: deque[tuple[bytes, Future[list[Candidate]]]] = deque()
        failure: Exception | None = None
        try:
            for block in itertools.chain((first, second), source):
                pending.append((block, pool.submit(prefilter.candidates, block)))
                if len(pending) >= LOOKAHEAD:
                    done, future = pending.popleft()
                    yield done, future.result()
        except Exception as exc:  # noqa: BLE001 - re-raised below, once the blocks before it are out
            failure = exc
        while pending:
            done, future = pending.popleft()
            yield done, future.result()
        if failure is not None:
            raise failure
