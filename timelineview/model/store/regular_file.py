"""Open a file only when it is a regular file: a FIFO (or a device) where a cache entry's file or a data file
should be would block ``open`` forever (a FIFO's open waits for a writer). The file is opened non-blocking and
checked with ``fstat`` on the descriptor itself, so a file swapped for a FIFO between a check and the open is
still refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotARegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder, not a file of bytes."""


def regular_fd(path: str | os.PathLike, flags: int = os.O_RDONLY) -> int:
    """A descriptor of ``path`` opened with ``flags`` (blocking again once checked), if it is a regular file."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(f"not a regular file: {os.fspath(path)}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (``NotARegularFile`` otherwise)."""
    return os.fdopen(regular_fd(path), "rb")


def is_regular(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file now (following symlinks); False when it cannot be stat-ed."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of regular file ``path`` (at most ``limit``)."""
    with open_regular(Path(path)) as f:
        return f.read() if limit is None else f.read(limit)
