"""Live byte sources for ``logkb watch``: a pipe passed through, or a file being written.

Both offer the ``read(size)`` that :func:`matcher.read.read_chunks` consumes, so a live
input is cut into lines exactly as a file is. Each calls ``on_tick()`` after every read and
every ``tick`` seconds while it waits, so that the caller can act on time passing (announce
a problem whose end no later line shows) even when no complete line arrives.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable

TICK = 0.1  # seconds between on_tick calls while a source waits
_TAIL = 64  # bytes of the open file's last read kept to notice a rewrite


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class Tee:
    """Standard input to standard output: each read is written on before it is returned.

    The output closing (``| head``) ends the input: that read is still returned, the next
    reads nothing. After :meth:`drain` (a first Ctrl-C) the input ends once it has been
    quiet for ``drain_quiet`` seconds since then, so the last words of a stopping server
    pass through.
    """

    def __init__(self, fd_in: int, fd_out: int, on_tick: Callable[[], None], drain_quiet: float = 1.0,
                 tick: float = TICK) -> None:
        self.fd_in, self.fd_out = fd_in, fd_out
        self.on_tick = on_tick
        self.drain_quiet = drain_quiet
        self._tick_ms = max(1, int(tick * 1000))
        self.output_closed = False
        self._drain_from: float | None = None
        self._poll = select.poll()
        self._poll.register(fd_in, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._last = time.monotonic()

    def close(self) -> None:
        """After the output closed, point it at /dev/null: the exit flush must not fail."""
        if self.output_closed:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.fd_out)
            os.close(devnull)

    def drain(self) -> None:
        self._drain_from = time.monotonic()

    def read(self, size: int) -> bytes:
        if self.output_closed:
            return b""
        while not self._poll.poll(self._tick_ms):
            now = time.monotonic()
            if self._drain_from is not None and now - max(self._last, self._drain_from) >= self.drain_quiet:
                return b""
            self.on_tick()
        data = os.read(self.fd_in, size)
        self._last = time.monotonic()
        try:
            _write_all(self.fd_out, data)
        except BrokenPipeError:
            self.output_closed = True
        self.on_tick()
        return data


class Follow:
    """A log file still being written, read from its start and followed like ``tail -F``.

    A new file at the path (rotation by rename) is read from its start once the old one is
    read to its end; if by then ``<path>.1`` is a file not read yet (two rotations in quick
    succession), it is read first. A file truncated in place (copytruncate) is read again from
    its start, also when the server has already written past the old offset: the bytes last
    read must still be where they were. A path that does not exist yet is waited for. With
    ``idle_exit`` the input ends after that many seconds without new data.
    """

    def __init__(self, path: str, on_tick: Callable[[], None], idle_exit: float | None = None,
                 tick: float = TICK) -> None:
        self.path = path
        self.on_tick = on_tick
        self.idle_exit = idle_exit
        self.tick = tick
        self._fd: int | None = None
        self._last = time.monotonic()
        self._tail = b""  # the last bytes read from the open file, where they should still be
        self._seen: set[tuple[int, int]] = set()  # (inode, device) of every file opened

    def read(self, size: int) -> bytes:
        while True:
            if self._fd is None:
                self._fd = self._open()
            if self._fd is not None:
                if self._rewritten():
                    os.lseek(self._fd, 0, os.SEEK_SET)
                    self._tail = b""
                data = os.read(self._fd, size)
                if data:
                    self._tail = (self._tail + data)[-_TAIL:]
                    self._last = time.monotonic()
                    self.on_tick()
                    return data
                if self._reopen_if_replaced():
                    continue
            if self.idle_exit is not None and time.monotonic() - self._last >= self.idle_exit:
                return b""
            self.on_tick()
            time.sleep(self.tick)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int | None:
        """The unread previous generation if there is one, else the file at the path."""
        for candidate in (f"{self.path}.1", self.path) if self._seen else (self.path,):
            try:
                fd = os.open(candidate, os.O_RDONLY)
            except FileNotFoundError:
                continue
            held = os.fstat(fd)
            if candidate != self.path and (held.st_ino, held.st_dev) in self._seen:
                os.close(fd)
                continue
            self._seen.add((held.st_ino, held.st_dev))
            self._tail = b""
            return fd
        return None

    def _rewritten(self) -> bool:
        """True when the bytes last read are no longer just before the offset: the file was
        truncated and written again (copytruncate) since."""
        assert self._fd is not None
        if not self._tail:
            return False
        offset = os.lseek(self._fd, 0, os.SEEK_CUR)
        return os.pread(self._fd, len(self._tail), offset - len(self._tail)) != self._tail

    def _reopen_if_replaced(self) -> bool:
        """At the end of the open file: True when reading should go on from a start."""
        assert self._fd is not None
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False  # moved away, no successor yet: keep the old file
        held = os.fstat(self._fd)
        if (now.st_ino, now.st_dev) != (held.st_ino, held.st_dev):
            self.close()
            return True
        if now.st_size < os.lseek(self._fd, 0, os.SEEK_CUR):
            os.lseek(self._fd, 0, os.SEEK_SET)
            return True
        return False
