"""Scan one large file on several cores: segments at line boundaries, searched in worker
processes, handled in order.

The file is cut into segments of ``SEGMENT_SIZE`` bytes. A worker owns the lines that *start*
inside its segment: it skips the line in progress at the segment's start (the previous
segment's owner reads past its own end to finish it) and reads past the end to the end of
the line in progress there. So the segments' lines partition the file exactly, whatever the
offsets, and no coordination is needed. Each worker reads its lines in blocks, runs the
prefilter and counts newlines; it sends back only the candidate lines (each cut to the
window the regexes would see), with their line offsets inside the segment and the segment's
newline count. The parent keeps every stateful step (facts, phases, tracebacks, findings) and
handles the segments strictly in file order, so line numbers and the report are the same as
a scan in one process. At most ``LOOKAHEAD_PER_JOB`` segments per worker are in flight, so
the parent's memory does not grow with the file.

Workers are forked on Linux, where they inherit the parent's prefilter, and spawned
elsewhere, where each builds its own (a Hyperscan database comes from the on-disk cache).
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from .prefilter import FOLLOW_BYTES, FOLLOW_LINES, Anchor, Candidate, Prefilter, line_before, make_prefilter, message_window
from .read import ReadError, read_blocks

if TYPE_CHECKING:
    from concurrent.futures import Future

SPLIT_MIN = 64 << 20  # smaller files are scanned in one process: starting workers costs more
SEGMENT_SIZE = 8 << 20  # 16 MiB: ~3% faster, ~4 MB more in each worker and in the parent
LOOKAHEAD_PER_JOB = 2
MAX_JOBS = 8
DENSE_SAMPLE = 1 << 20  # bytes at the file's start that decide whether workers pay
DENSE = 0.05  # candidate lines per line above which they do not


def default_jobs() -> int:
    """Worker processes for a large file: the CPUs this process may run on, at most MAX_JOBS."""
    return max(1, min(MAX_JOBS, _usable_cpus()))


def workers_for(path: str, jobs: int) -> int:
    """Worker processes for one input (``jobs`` 0: default_jobs()); 1 unless it is a regular,
    uncompressed file of at least SPLIT_MIN bytes and more than one job is allowed. Never
    more than the file has segments or the process has CPUs: more only cost memory."""
    jobs = jobs or default_jobs()
    if jobs < 2 or path == "-" or path.endswith(".gz"):
        return 1
    try:
        if not os.path.isfile(path) or os.path.getsize(path) < SPLIT_MIN:
            return 1
        size = os.path.getsize(path)
    except OSError:
        return 1
    return max(1, min(jobs, len(segments(size, SEGMENT_SIZE)), _usable_cpus()))


def candidates_dense(path: str, prefilter: Prefilter) -> bool:
    """Whether candidate lines are so dense at the start of ``path`` that workers would not
    pay: each sends its candidates back, so when most lines are candidates the parent does the
    work anyway, later and with several segments of them in memory (300 MB and slower than
    one process, measured on a log of nothing but error lines)."""
    try:
        with open(path, "rb") as handle:
            sample = handle.read(DENSE_SAMPLE)
    except OSError:
        return False
    sample = sample[: sample.rfind(b"\n") + 1]
    lines = sample.count(b"\n")
    return bool(lines) and sum(1 for _ in prefilter.candidates(sample)) > DENSE * lines


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Segment(msgspec.Struct):
    """What a worker found in one segment: the candidate lines (their windows concatenated in
    ``data``, ``candidates`` pointing into it, each after the line before it and followed by
    the lines after it, as the scanner reads them for a wrapped message) and where they lie."""

    data: bytes = b""
    candidates: list[Candidate] = msgspec.field(default_factory=list)
    line_offsets: list[int] = msgspec.field(default_factory=list)  # newlines before each candidate, in the segment
    newlines: int = 0
    size: int = 0  # bytes of the segment's own lines
    ends_with_newline: bool = True
    error: str | None = None  # a read failure after ``size`` bytes


def segments(size: int, segment_size: int = SEGMENT_SIZE) -> list[tuple[int, int]]:
    return [(start, min(start + segment_size, size)) for start in range(0, size, segment_size)] or [(0, 0)]


def scan_segments(path: str, anchors: Sequence[Anchor], engine: str, jobs: int,
                  segment_size: int = SEGMENT_SIZE) -> Iterator[Segment]:
    """Each segment of ``path`` in file order, searched by ``jobs`` worker processes.

    Forked workers inherit a prefilter built here, and the objects that exist now are frozen
    out of the garbage collector's reach meanwhile, so that a collection in a worker does not
    write to (and so copy) the pages it shares with this process."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _parent
    _parent = os.getpid()
    fork = sys.platform.startswith("linux")
    if fork:
        _start_worker(list(anchors), engine)
        options: dict[str, Any] = {"mp_context": multiprocessing.get_context("fork"), "initializer": _die_with_parent}
        gc.freeze()
    else:
        options = {"mp_context": multiprocessing.get_context("spawn"), "initializer": _start_spawned_worker,
                   "initargs": (list(anchors), engine, _parent)}
    try:
        with ProcessPoolExecutor(max_workers=jobs, **options) as pool:
            try:
                pending: deque[Future[Segment]] = deque()
                for start, end in segments(os.path.getsize(path), segment_size):
                    pending.append(pool.submit(search_segment, path, start, end))
                    if len(pending) >= jobs * LOOKAHEAD_PER_JOB:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            except BaseException:  # Ctrl-C, SIGTERM, an error, or the consumer stopped early
                _stop(pool)
                raise
    finally:
        if fork:
            gc.unfreeze()


def _stop(pool: Any) -> None:
    """End the workers now rather than after the segments in flight."""
    pool.shutdown(wait=False, cancel_futures=True)
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


# -- in the worker --------------------------------------------------------------------------

_parent = 0  # the scanning process, which the workers must not outlive

def _die_with_parent() -> None:
    """A worker ends at once on SIGTERM (the parent's ``_stop``), and on Linux gets one when
    the parent dies, even by SIGKILL; Ctrl-C, which the whole process group receives, is the
    parent's to handle."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != _parent:  # the parent died before the line above
        os._exit(0)


_prefilter: Prefilter | None = None


def _start_worker(anchors: list[Anchor], engine: str) -> None:
    global _prefilter
    _prefilter = make_prefilter(anchors, engine)


def _start_spawned_worker(anchors: list[Anchor], engine: str, parent: int) -> None:
    global _parent
    _parent = parent
    _die_with_parent()
    _start_worker(anchors, engine)


def search_segment(path: str, start: int, end: int, prefilter: Prefilter | None = None) -> Segment:
    """The candidate lines among the lines that start in [start, end) of ``path``."""
    prefilter = prefilter or _prefilter
    assert prefilter is not None, "worker not started"
    segment = Segment()
    parts: list[bytes] = []
    offset = 0  # length of segment.data so far
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        segment.error = f"cannot open: {exc.strerror or exc}"
        return segment
    with handle:
        region = _Region(handle, start, end)
        tail = _read_line_before(handle, region.start)  # the line before the block being read
        try:
            for block in read_blocks(region, path, whole=False):
                line, position = segment.newlines, 0
                block_end = region.start + segment.size + len(block)
                for candidate in prefilter.candidates(block):
                    line += block.count(b"\n", position, candidate.start)
                    position = candidate.start
                    low, high = message_window(candidate)
                    before = _bounded(line_before(block, candidate.start) if candidate.start else tail) + b"\n"
                    follow = _following(block, candidate, high, handle, block_end)
                    parts += (before, block[low:high], follow)
                    offset += len(before)
                    segment.candidates.append(
                        Candidate(offset, offset + high - low, candidate.anchors, candidate.first_pos - low))
                    segment.line_offsets.append(line)
                    offset += high - low + len(follow)
                segment.newlines = line + block.count(b"\n", position)
                segment.size += len(block)
                segment.ends_with_newline = block.endswith(b"\n")
                tail = _bounded(line_before(block))
        except ReadError as exc:
            segment.error = exc.problem
    segment.data = b"".join(parts)
    return segment


class _Region:
    """A reader over the lines of a file that start in [start, end)."""

    def __init__(self, handle: BinaryIO, start: int, end: int) -> None:
        self._handle = handle
        self._end = end
        self._position = self.start = _line_start_in(handle, start, end)
        self._done = self._position >= end
        self._last = b"\n"
        handle.seek(self._position)

    def readinto(self, target: memoryview) -> int:
        if self._done:
            return 0
        if self._position < self._end:
            count = self._handle.readinto(target[: min(len(target), self._end - self._position)])
            if count:
                self._position += count
                self._last = bytes(target[count - 1: count])
            else:
                self._done = True
            return count
        if self._last == b"\n":  # the segment ends at a line end: nothing in progress
            self._done = True
            return 0
        count = self._handle.readinto(target)  # finish the line in progress at the end
        cut = bytes(target[:count]).find(b"\n")
        if cut >= 0 or not count:
            self._done = True
            count = cut + 1 if cut >= 0 else 0
        self._position += count
        return count


def _following(block: bytes, candidate: Candidate, high: int, handle: BinaryIO, block_end: int) -> bytes:
    """The lines after a candidate, as the scanner reads them to rejoin a wrapped message
    (scan.FOLLOW_LINES, each at most FOLLOW_BYTES), read on past the segment's end when
    needed; an empty line ends them, so the next candidate's window is never taken for one."""
    if high < candidate.end:  # a window inside a very long line: nothing follows it
        return b"\n\n"
    tail = block[candidate.end + 1: candidate.end + 1 + FOLLOW_LINES * FOLLOW_BYTES]
    if tail.count(b"\n") < FOLLOW_LINES and candidate.end + 1 + len(tail) >= len(block):
        tail += os.pread(handle.fileno(), FOLLOW_LINES * FOLLOW_BYTES, block_end)
    lines = tail.split(b"\n")[:FOLLOW_LINES]
    return b"\n" + b"\n".join(line[:FOLLOW_BYTES] for line in lines) + b"\n\n"


def _bounded(line: bytes) -> bytes:
    """A line before a candidate, as the scanner reads it back (a wrap that cut an anchor may
    have left its first part there): empty when it is longer than any line a terminal wraps."""
    return line if len(line) <= FOLLOW_BYTES else b""


def last_line(path: str) -> bytes:
    """The file's last line, read back as the scanner reads a line before a block (see
    _read_line_before): what a paste cut short ends with."""
    with open(path, "rb") as handle:
        return _read_line_before(handle, os.fstat(handle.fileno()).st_size)


def _read_line_before(handle: BinaryIO, start: int) -> bytes:
    """The line that ends just before offset ``start`` (a line start), read back from the file
    as far as a line the scanner reads back can reach (longer ones come back empty)."""
    if start == 0:
        return b""
    size = min(start, FOLLOW_BYTES + 2)
    return _bounded(line_before(os.pread(handle.fileno(), size, start - size)))


def _line_start_in(handle: BinaryIO, start: int, end: int) -> int:
    """The first offset in [start, end) where a line starts, else ``end``: the search stops at
    ``end``, so a segment inside one very long line costs one segment's read, not the rest
    of the file."""
    if start == 0:
        return 0
    handle.seek(start - 1)
    position = start - 1
    while position < end - 1:
        data = handle.read(min(1 << 16, end - 1 - position))
        if not data:
            return end
        cut = data.find(b"\n")
        if cut >= 0:
            return position + cut + 1
        position += len(data)
    return end
