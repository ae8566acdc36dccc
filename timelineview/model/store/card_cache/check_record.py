"""A record that a file passed a full check, valid while the file keeps its identity, in this boot.

A full check (CRC-32 and the like) reads every byte; its verdict is a function of the bytes. The record
names the machine's boot, what the check compared against (``against``: e.g. the digest of the meta that
holds the checksums) and the checked file's identity: device, inode, size, modification and change times
(ns). Every way to change a file's bytes through the file system (a write, a truncation, a file put in its
place) sets its change time to the kernel's clock, which no program can set back, so a changed file no
longer matches the record and is checked in full again before any of it is used. A record is only written
when the file was last changed ``RACY_NS`` before the check began: a change in the same tick of a coarse
file-system clock as the last write could otherwise keep the identity the record holds. Bytes damaged below
the file system (on the disk itself, read back after the page cache dropped them) are caught after the next
boot, as the record names the boot; without a boot id (not Linux) nothing is trusted. A record that does
not match or cannot be read only means the full check runs; one that cannot be written is not written.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

import orjson

from timelineview.model.store.card_cache.whole_file import write_whole
from timelineview.model.store.regular_file import NotARegularFile, read_regular

RECORD_FORMAT = "timelineview-checked-1"
RACY_NS = 3_000_000_000  # files changed this recently are checked in full again (coarse file-system clocks)
_RECORD_LIMIT = 1 << 16  # a record is a few hundred bytes: a larger file is not one
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


_boot_ids: dict[Path, str | None] = {}  # read once per process (no process outlives its boot)


def boot_id() -> str | None:
    """This boot of the machine (Linux), None when unknown."""
    if BOOT_ID not in _boot_ids:  # every check of a file asks: read once, not once a file
        try:
            _boot_ids[BOOT_ID] = BOOT_ID.read_text().strip() or None
        except OSError:
            _boot_ids[BOOT_ID] = None
    return _boot_ids[BOOT_ID]


class Check(NamedTuple):
    """A full check about to run on ``path``: its identity taken before reading, the boot and the time."""

    path: Path
    identity: tuple[int, ...]
    boot: str | None
    started_ns: int

    @classmethod
    def of(cls, path: Path) -> Check:
        """Raises ``OSError`` when ``path`` cannot be stat-ed."""
        started = time.time_ns()
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block its reader (and has no bytes to check)
            raise NotARegularFile(f"not a regular file: {path}")
        return cls(Path(path), (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns), boot_id(), started)

    @property
    def size(self) -> int:
        return self.identity[2]

    def _record(self, against: str) -> bytes:
        return orjson.dumps({"format": RECORD_FORMAT, "boot": self.boot, "against": against,
                             "file": list(self.identity)})

    def passed_before(self, record: Path, against: str) -> bool:
        """Whether ``record`` says this file, as it is, passed the full check against ``against`` in this boot."""
        if self.boot is None:
            return False
        try:
            return read_regular(record, limit=_RECORD_LIMIT) == self._record(against)
        except OSError:
            return False

    def passed(self, record: Path, against: str) -> None:
        """Record that the check passed (unless the file changed too shortly before it began)."""
        mtime, ctime = self.identity[3], self.identity[4]
        if self.boot is None or max(mtime, ctime) > self.started_ns - RACY_NS:
            return
        try:
            write_whole(record, [self._record(against)])
        except OSError:
            pass  # a read-only cache: checked in full each time
