"""Digest of every byte of a file, taken from the reads a load makes, so that a file is read once.

The digest is one of the file's size and of the digests of its aligned blocks of ``BLOCK`` bytes, in order.
:func:`content_digest` reads a file for it; :func:`watch_reads` gathers the blocks while the loader reads
the file (``chunk_decode.read_range`` tells every read it makes to :func:`seen`), and reads afterwards only
the blocks no load read covered whole (at the seams between the loader's ranges, or all of them for a card
that came from the card cache). Both give the same digest of the same bytes. A file that changed while it
was watched has no digest (``OSError``): the bytes read before and after the change are not one file.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from timelineview.model.store.file_stamp import FileStamp, file_stamp, open_regular

BLOCK = 4 << 10  # small against a load's ranges (256 kB or more): a seam leaves at most one block to read again
READ_BYTES = 1 << 20  # what a read of the whole file asks for at once
BLOCK_DIGEST_SIZE = 16
DIGEST_SIZE = 20


def _block(data) -> bytes:
    return hashlib.blake2b(data, digest_size=BLOCK_DIGEST_SIZE).digest()


def _combine(size: int, blocks: Iterator[bytes]) -> str:
    h = hashlib.blake2b(str(size).encode(), digest_size=DIGEST_SIZE)
    for b in blocks:
        h.update(b)
    return h.hexdigest()


def _read_blocks(fd: int, size: int, first: int, count: int) -> list[bytes]:
    """The digests of ``count`` blocks from block ``first``, read in reads of ``READ_BYTES``."""
    out: list[bytes] = []
    per_read = READ_BYTES // BLOCK
    k = first
    while k < first + count:
        n = min(per_read, first + count - k)
        data = os.pread(fd, n * BLOCK, k * BLOCK)
        if len(data) < min(n * BLOCK, size - k * BLOCK):
            raise OSError("the file got shorter while it was read")
        view = memoryview(data)
        out += [_block(view[i * BLOCK:(i + 1) * BLOCK]) for i in range(n)]
        k += n
    return out


def content_digest(path: str | os.PathLike) -> tuple[int, str]:
    """(size, digest of every byte) of a regular file; ``OSError`` when it cannot be read (a FIFO or a device
    is not read: it would never end) or changed size while it was."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        return size, _combine(size, iter(_read_blocks(fd, size, 0, -(-size // BLOCK))))
    finally:
        os.close(fd)


class WatchedFile:
    """The block digests of one file gathered from the reads of it while it is watched."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stamp: FileStamp | None = file_stamp(path)
        self.blocks: dict[int, bytes] = {}
        self.read_bytes = 0  # what the reads told here covered (for measuring)

    def seen(self, offset: int, data: memoryview) -> None:
        """``data`` was read from ``offset``: keep the digests of the blocks it holds whole."""
        if self.stamp is None:
            return
        end = min(offset + len(data), self.stamp.size)
        self.read_bytes += len(data)
        k = -(-offset // BLOCK)
        while k * BLOCK < end:
            b_end = min((k + 1) * BLOCK, self.stamp.size)
            if b_end > end:
                break
            if k not in self.blocks:
                self.blocks[k] = _block(data[k * BLOCK - offset:b_end - offset])
            k += 1

    def digest(self) -> tuple[int, str]:
        """(size, digest of every byte), reading the blocks the load did not; ``OSError`` when the file
        cannot be read or is no longer the one watched."""
        if self.stamp is None:
            raise OSError(f"{self.path}: cannot be read")
        size = self.stamp.size
        count = -(-size // BLOCK)
        fd = open_regular(self.path)
        try:
            blocks = self.blocks
            k = 0
            while k < count:  # runs of blocks not seen, each read at once
                if k in blocks:
                    k += 1
                    continue
                run = k
                while run < count and run not in blocks:
                    run += 1
                for i, digest in enumerate(_read_blocks(fd, size, k, run - k)):
                    blocks[k + i] = digest
                k = run
        finally:
            os.close(fd)
        if file_stamp(self.path) != self.stamp:
            raise OSError(f"{self.path}: changed while it was read")
        return size, _combine(size, (blocks[k] for k in range(count)))


_watched: dict[str, WatchedFile] = {}
_lock = threading.Lock()


def seen(path: str, offset: int, data: memoryview) -> None:
    """A read of ``path`` (called by the loader's range reads; nothing when the file is not watched)."""
    watched = _watched.get(path)
    if watched is not None:
        watched.seen(offset, data)


@contextmanager
def watch_reads(paths: Sequence[str | os.PathLike]) -> Iterator[dict[str, WatchedFile]]:
    """Watch the reads of ``paths`` (as the loader names them: ``str(path)``) while the block runs."""
    files = {str(p): WatchedFile(str(p)) for p in paths}
    with _lock:
        _watched.update(files)
    try:
        yield files
    finally:
        with _lock:
            for p, w in files.items():
                if _watched.get(p) is w:
                    del _watched[p]
