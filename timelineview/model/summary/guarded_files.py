"""Reading a summary folder without trusting it: regular files only, inside the folder, of bounded size.

A summary folder is input like a trace: it may be cut short, edited, or hold a FIFO, a device or a
symbolic link where a file should be. Every file of it is opened here relative to the folder, one path
component at a time with ``O_NOFOLLOW`` (a symbolic link anywhere below the folder is refused, so a card
never reads another summary's files or ``/dev/urandom``), with ``O_NONBLOCK`` (opening a FIFO does not
wait for a writer), and checked on the opened descriptor to be a regular file no larger than what its
kind may be, before a byte is read. A violation is a :class:`SummaryFileError` naming the file. No Qt.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

MB = 1 << 20
# What a file of each kind may weigh: far above what summarize writes (an index ~0.5 kB a card, a manifest
# 14-50 kB, details 34-50 kB), far below what would exhaust a desktop's memory.
INDEX_MAX_BYTES = 256 * MB
MANIFEST_MAX_BYTES = 64 * MB
DETAILS_MAX_BYTES = 256 * MB
DIGEST_BYTES = 20

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


class SummaryFileError(ValueError):
    """A file of a summary folder that may not be read as it is; the message names it and says why."""


def digest(data: bytes) -> str:
    """The digest a summary records of a file's bytes (blake2b, hex)."""
    return hashlib.blake2b(data, digest_size=DIGEST_BYTES).hexdigest()


def checked_name(name: object, what: str) -> str:
    """``name`` when it is one plain path component (not absolute, not ``..``, no separator), else
    :class:`SummaryFileError` saying ``what`` it names."""
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
            or "\0" in name or (os.altsep and os.altsep in name):
        raise SummaryFileError(f"{what} {name!r} is not a name inside the summary folder")
    return name


def open_inside(folder: Path, parts: tuple[str, ...]) -> int:
    """A read-only descriptor of the regular file ``folder/parts…``: each part a plain name, no symbolic
    link followed below ``folder``, a FIFO or device refused without blocking. The caller closes it."""
    where = folder.joinpath(*parts) if parts else folder
    for part in parts:
        checked_name(part, "path")
    try:
        at = os.open(folder, os.O_RDONLY | _O_DIRECTORY)
    except OSError as exc:
        raise SummaryFileError(f"{folder}: {exc.strerror or exc}") from exc
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW, dir_fd=at)
            except OSError as exc:
                raise SummaryFileError(f"{where}: {_why(exc, 'a folder')}") from exc
            os.close(at)
            at = inner
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY, dir_fd=at)
        except OSError as exc:
            raise SummaryFileError(f"{where}: {_why(exc, 'a file')}") from exc
    finally:
        os.close(at)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise SummaryFileError(f"{where}: not a regular file ({_kind(mode)})")
    return fd


def _why(exc: OSError, what: str) -> str:
    import errno

    if exc.errno in (errno.ELOOP, errno.EMLINK) or (exc.errno == errno.ENOTDIR and what == "a folder"):
        return f"a symbolic link or not {what} (refused: a summary's files stay inside its folder)"
    return exc.strerror or str(exc)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a file"


def read_inside(folder: Path, parts: tuple[str, ...], max_bytes: int) -> bytes:
    """The whole of the regular file ``folder/parts…`` (see :func:`open_inside`), at most ``max_bytes``."""
    fd = open_inside(folder, parts)
    where = folder.joinpath(*parts)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise SummaryFileError(f"{where}: {size:,} bytes, more than such a file may hold ({max_bytes:,})")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)  # it may have grown since the fstat
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise SummaryFileError(f"{where}: more than {max_bytes:,} bytes, more than such a file may hold")
    return data
