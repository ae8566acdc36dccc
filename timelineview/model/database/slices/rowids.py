"""One block of slices' rowids of one table, held in the fewest bytes: one constant, runs of
consecutive rowids, or the values; with the slices that have no row apart (``GappedRowids``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.database.sqlite.pages import fits_int32

RUN_CHUNK = 1 << 20  # rowids compared at a time when finding runs (bounds the temporaries)
NO_ROW = -1
ABSENT_CHUNK = 256  # slices per count of those before without a row (a multiple of 8: whole bytes of bits)


@dataclass(frozen=True)
class Rowids:
    """One block's rowids of one table, slice by slice, held as the least of: one ``constant`` for all;
    runs of consecutive rowids (``run_at``, each run's first slice as an offset in the block, and
    ``run_row``, its rowid); the ``values`` themselves (int32 while they fit)."""

    count: int
    constant: int | None = None
    run_at: np.ndarray | None = None
    run_row: np.ndarray | None = None
    values: np.ndarray | None = None

    @classmethod
    def of(cls, rowids: np.ndarray) -> Rowids:
        """``rowids`` in whichever of the three forms holds them in fewer bytes."""
        n = len(rowids)
        if not n or bool((rowids == rowids[0]).all()):
            return cls(n, constant=int(rowids[0]) if n else NO_ROW)
        narrow = fits_int32(rowids)
        row_size = 4 if narrow else 8
        offset_type = np.int32 if n < (1 << 31) else np.int64
        per_run = np.dtype(offset_type).itemsize + row_size
        at = _run_starts(rowids, limit=(n * row_size - 1) // per_run)  # runs must cost less than the values
        if at is None:
            return cls(n, values=rowids.astype(np.int32) if narrow else rowids.copy())
        run_row = rowids[at]
        return cls(n, run_at=at.astype(offset_type), run_row=run_row.astype(np.int32) if narrow else run_row)

    def at(self, offsets: np.ndarray) -> np.ndarray:
        """The rowids (int64) of the slices at ``offsets`` in the block."""
        if self.constant is not None:
            return np.full(len(offsets), self.constant, np.int64)
        if self.values is not None:
            return self.values[offsets].astype(np.int64)
        run = np.searchsorted(self.run_at, offsets, side="right") - 1
        return self.run_row[run].astype(np.int64) + (offsets - self.run_at[run])

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.run_at, self.run_row, self.values) if a is not None)


@dataclass(frozen=True)
class AbsentBits:
    """Which slices of a block have no row: a bit each, and how many have none before each chunk of
    ``ABSENT_CHUNK`` slices (so that a slice's rank among those with a row is found without a scan)."""

    bits: np.ndarray  # uint8 (chunks, ABSENT_CHUNK // 8)
    before: np.ndarray  # per chunk: the slices without a row before it

    @classmethod
    def of(cls, absent: np.ndarray) -> AbsentBits:
        padded = np.zeros(-(-len(absent) // ABSENT_CHUNK) * ABSENT_CHUNK, bool)
        padded[:len(absent)] = absent
        per_chunk = padded.reshape(-1, ABSENT_CHUNK).sum(axis=1)
        before = np.concatenate([np.zeros(1, np.int64), np.cumsum(per_chunk)[:-1]])
        return cls(np.packbits(padded).reshape(-1, ABSENT_CHUNK // 8),
                   before.astype(np.int32) if len(absent) < (1 << 31) else before)

    def find(self, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per offset: whether its slice has no row, and its rank among the slices that have one."""
        chunk, within = offsets // ABSENT_CHUNK, offsets % ABSENT_CHUNK
        touched, which = distinct_ascending(chunk)  # only the chunks asked about are unpacked
        bits = np.unpackbits(self.bits[touched], axis=1)
        earlier = np.cumsum(bits, axis=1, dtype=np.int32) - bits  # absent slices before each in its chunk
        which = which.reshape(-1)
        absent = bits[which, within].astype(bool)
        return absent, offsets - (self.before[chunk].astype(np.int64) + earlier[which, within])

    @property
    def nbytes(self) -> int:
        return self.bits.nbytes + self.before.nbytes


@dataclass(frozen=True)
class GappedRowids:
    """One block's rowids where some slices have none (``NO_ROW``): which (``absent``), and the rowids
    of the others as ``Rowids`` (runs that the slices without a row no longer break)."""

    absent: AbsentBits
    present: Rowids

    def at(self, offsets: np.ndarray) -> np.ndarray:
        """The rowids (int64, ``NO_ROW`` for none) of the slices at ``offsets`` in the block."""
        absent, rank = self.absent.find(offsets)
        out = np.full(len(offsets), NO_ROW, np.int64)
        out[~absent] = self.present.at(rank[~absent])
        return out

    @property
    def nbytes(self) -> int:
        return self.absent.nbytes + self.present.nbytes


RowidColumn = Rowids | GappedRowids


def rowids_of(rowids: np.ndarray) -> RowidColumn:
    """``rowids`` (``NO_ROW``: none) as ``Rowids``, or as ``GappedRowids`` when some slices have no row
    and that is smaller."""
    plain = Rowids.of(rowids)
    if plain.constant is not None:
        return plain
    absent = rowids == NO_ROW
    if not absent.any():
        return plain
    gapped = GappedRowids(AbsentBits.of(absent), Rowids.of(rowids[~absent]))
    return gapped if gapped.nbytes < plain.nbytes else plain


def distinct_ascending(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``; one pass when ``values`` ascend (the slices asked for
    usually do), where ``unique`` would hash or sort them."""
    if len(values) < 2 or not (values[1:] >= values[:-1]).all():
        distinct, which = np.unique(values, return_inverse=True)
        return distinct, which.reshape(-1)
    starts = np.empty(len(values), bool)
    starts[0] = True
    np.not_equal(values[1:], values[:-1], out=starts[1:])
    which = np.cumsum(starts)
    which -= 1
    return values[starts], which


def _run_starts(rowids: np.ndarray, limit: int) -> np.ndarray | None:
    """The offsets where a run of consecutive rowids starts (0 first), or None when there are more
    than ``limit`` runs (then found no further)."""
    found = [np.zeros(1, np.int64)]
    runs = 1
    for a in range(0, len(rowids) - 1, RUN_CHUNK):
        part = rowids[a:a + RUN_CHUNK + 1]
        starts = np.flatnonzero(part[1:] != part[:-1] + 1) + (a + 1)
        runs += len(starts)
        if runs > limit:
            return None
        found.append(starts)
    return np.concatenate(found)

