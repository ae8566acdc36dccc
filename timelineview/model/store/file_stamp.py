"""What a trace file was when a card was read from it: its identity and a sample of its bytes.

The card cache keys on both; the args reader compares the identity before and after every
read, so that a card never shows args from a file other than the one its slices came from.

The identity is size, modification and status-change times (ns), inode and device. An edit
in place changes the status-change time even when ``touch -r`` puts the modification time
back (no ordinary tool can set it), and a rename over the file changes the inode. The
sample (head, tail and blocks spread through the file) adds the content, for file systems
whose times or inodes say less. Hashing a whole 300 MB file costs 0.17-0.38 s from the
page cache (sha1 / blake2b on this 2-core VM), more than a 250 MB card takes to reopen from
the cache; the sample costs about 2 ms.
"""

from __future__ import annotations

import hashlib
import os
from typing import NamedTuple

from timelineview.model.store.regular_file import regular_fd

SAMPLE_BLOCKS = 16  # blocks spread between the head and the tail
SAMPLE_BYTES = 64 << 10  # bytes of each block (and of the head and of the tail)


class FileStamp(NamedTuple):
    """A file's identity as ``os.stat`` gives it."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int


def file_stamp(path: str | os.PathLike) -> FileStamp | None:
    """The file's identity now, or None when it cannot be stat'ed (removed, …)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileStamp(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def sample_offsets(size: int, blocks: int = SAMPLE_BLOCKS, block: int = SAMPLE_BYTES) -> list[int]:
    """Start offsets of the sampled blocks: the head, ``blocks`` evenly spread, the tail."""
    if size <= block * (blocks + 2):
        return list(range(0, size, block)) or [0]
    last = size - block
    return [0, *(last * k // (blocks + 1) for k in range(1, blocks + 1)), last]


def open_regular(path: str | os.PathLike) -> int:
    """A read-only descriptor of ``path``, which must be a regular file: opened without blocking (a FIFO
    would wait for a writer) and refused when it is not one (a FIFO or a device would never end).
    Raises ``OSError``."""
    return regular_fd(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))


def sample_digest(path: str | os.PathLike, size: int, block: int = SAMPLE_BYTES) -> str:
    """Hash of the size and the sampled blocks of ``block`` bytes (the whole file when it is small).
    Raises ``OSError`` when the file cannot be read."""
    h = hashlib.blake2b(str(size).encode(), digest_size=16)
    fd = open_regular(path)
    try:
        for offset in sample_offsets(size, block=block):
            h.update(os.pread(fd, block, offset) if hasattr(os, "pread") else _read_at(fd, offset, block))
    finally:
        os.close(fd)
    return h.hexdigest()


def _read_at(fd: int, offset: int, block: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, block)
