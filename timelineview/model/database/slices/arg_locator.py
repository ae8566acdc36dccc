"""Where each slice's args live: the blocks of slices ``SliceParts.add`` appended, found by slice ordinal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from timelineview.model.database.slices.rowids import RowidColumn, distinct_ascending


class ArgBlock(NamedTuple):
    """The ``count`` slices from ``first`` that one ``SliceParts.add`` appended: the table their args
    are read from (``kind``), their rows' rowids and their info rows' (-1: none)."""

    first: int
    count: int
    kind: int
    row: RowidColumn
    info: RowidColumn


class ArgPlaces(NamedTuple):
    """Per slice asked for: its kind, its row's rowid (None when not asked for), its info row's rowid (-1:
    none)."""

    kind: np.ndarray
    row: np.ndarray | None
    info: np.ndarray


@dataclass(frozen=True)
class ArgLocator:
    """Slice ordinal → where its args live (``ArgPlaces``), from the card's blocks of slices."""

    blocks: tuple[ArgBlock, ...]  # the non-empty ones, in slice order
    starts: np.ndarray  # each block's first slice
    kinds: np.ndarray  # each block's kind
    n: int  # slices

    @classmethod
    def of(cls, blocks: list[ArgBlock]) -> ArgLocator:
        kept = tuple(b for b in blocks if b.count)
        return cls(kept, np.array([b.first for b in kept], np.int64), np.array([b.kind for b in kept], np.uint8),
                   max((b.first + b.count for b in kept), default=0))

    def __len__(self) -> int:
        return self.n

    def locate(self, ordinals: np.ndarray, rows: bool = True) -> ArgPlaces:
        """Where the args of ``ordinals`` (each in ``[0, len)``) live; ``rows=False``: their kinds and info rows
        only (``row`` None), for a reader of the info table alone."""
        ordinals = np.asarray(ordinals, dtype=np.int64)
        block = np.searchsorted(self.starts, ordinals, side="right") - 1
        row = np.empty(len(ordinals), np.int64) if rows else None
        info = np.empty(len(ordinals), np.int64)
        blocks = distinct_ascending(block)[0].tolist()
        for b in blocks:
            # a chunk of one block (the usual case): every ordinal, no mask
            here = slice(None) if len(blocks) == 1 else block == b
            offsets = ordinals[here] - self.blocks[b].first
            if row is not None:
                row[here] = self.blocks[b].row.at(offsets)
            info[here] = self.blocks[b].info.at(offsets)
        return ArgPlaces(self.kinds[block], row, info)

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays (the per-block records aside)."""
        return self.starts.nbytes + self.kinds.nbytes + sum(b.row.nbytes + b.info.nbytes for b in self.blocks)
