"""Open only what can be read: regular files, checked without blocking, side files read with a bound.

A folder may hold anything under a trace's name: a dangling or looping symbolic link, a FIFO
(opening it waits for a writer forever), a device (``/dev/zero`` never ends), a file the user
may not read. ``file_problem`` says what is wrong with one path without ever blocking;
``read_head`` reads at most a given number of bytes of a regular file.
"""

from __future__ import annotations

import errno
import os
import stat

SIDE_FILE_BYTES = 1 << 20  # info.json.* hold a few KB; nothing past this is read
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check opens at once
_OPEN_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_problem(path: str | os.PathLike, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.ENOENT:
        return "dangling symbolic link" if os.path.islink(path) else "file not found"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return f"cannot open ({exc.strerror or exc})"


def _open_regular(path: str | os.PathLike) -> tuple[int, str]:
    """(fd, "") for a readable regular file, else (-1, why). Non-regular files are never opened
    (opening a tape device may rewind it); the open itself does not block either."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return -1, _open_problem(path, exc)
    if not stat.S_ISREG(st.st_mode):
        return -1, f"not a regular file ({_kind(st.st_mode)})"
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        return -1, _open_problem(path, exc)
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        return -1, f"cannot read ({exc.strerror or exc})"
    if not stat.S_ISREG(mode):  # swapped between the two calls
        os.close(fd)
        return -1, f"not a regular file ({_kind(mode)})"
    return fd, ""


def file_problem(path: str | os.PathLike) -> str:
    """Why ``path`` cannot be read as a trace, or "" when it can (a regular file that opens and
    reads)."""
    fd, problem = _open_regular(path)
    if fd < 0:
        return problem
    try:
        os.read(fd, 1)
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc})"
    finally:
        os.close(fd)
    return ""


def read_head(path: str | os.PathLike, limit: int = SIDE_FILE_BYTES) -> tuple[bytes | None, str]:
    """(at most ``limit`` bytes of a regular file, "") or (None, why it was not read)."""
    fd, problem = _open_regular(path)
    if fd < 0:
        return None, problem
    parts: list[bytes] = []
    got = 0
    try:
        while got < limit:
            block = os.read(fd, limit - got)
            if not block:
                break
            parts.append(block)
            got += len(block)
    except OSError as exc:
        return None, f"cannot read ({exc.strerror or exc})"
    finally:
        os.close(fd)
    return b"".join(parts), ""
