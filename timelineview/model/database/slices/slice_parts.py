"""Slices gathered table by table as columns, with their flow endpoints and where their args live."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.model.database.devices import DeviceScope
from timelineview.model.database.lanes import LaneBook
from timelineview.model.database.progress import RowMeter
from timelineview.model.database.slices.arg_locator import ArgBlock, ArgLocator
from timelineview.model.database.slices.rowids import NO_ROW, Rowids, rowids_of
from timelineview.model.database.strings import CardStrings
from timelineview.model.store.interval_index import slice_index_dtype

# kinds of slice (where their args are read from)
KIND_HARDWARE, KIND_PLANE, KIND_OPERATOR, KIND_CANN, KIND_FRAMEWORK, KIND_OVERLAP, KIND_STEP = range(7)


def slice_numbers(positions: np.ndarray, first: int) -> np.ndarray:
    """``positions + first`` as slice numbers (int32 while the card's slices fit it: flows keep them)."""
    return (positions + first).astype(slice_index_dtype(first + len(positions)), copy=False)


@dataclass
class Endpoints:
    """Flow endpoints by side: connection id and slice, per side ("host", "framework", "device")."""

    cid: dict[str, list[np.ndarray]] = field(default_factory=dict)
    slice: dict[str, list[np.ndarray]] = field(default_factory=dict)

    def add(self, side: str, cid: np.ndarray, first_slice: int) -> None:
        keep = cid >= 0
        self.cid.setdefault(side, []).append(cid[keep])
        self.slice.setdefault(side, []).append(slice_numbers(np.flatnonzero(keep), first_slice))

    def of(self, side: str) -> tuple[np.ndarray, np.ndarray]:
        if side not in self.cid:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(self.cid[side]), np.concatenate(self.slice[side])


@dataclass
class SliceParts:
    """Slices gathered table by table (lanes provisional until ``LaneBook.finish``)."""

    strings: CardStrings
    book: LaneBook = field(default_factory=LaneBook)
    cols: dict[str, list[np.ndarray]] = field(default_factory=dict)
    n: int = 0
    ends: Endpoints = field(default_factory=Endpoints)
    read: dict[str, int] = field(default_factory=dict)  # table -> rows read
    notes: list[str] = field(default_factory=list)
    meter: RowMeter = field(default_factory=RowMeter)  # rows read, as the load's progress
    scope: DeviceScope | None = None  # the device this card is of, in a database of several
    task_devices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # TASK's distinct deviceId
    blocks: list[ArgBlock] = field(default_factory=list)  # one per ``add``: where its slices' args live

    def add(self, *, start: np.ndarray, end: np.ndarray, lane: np.ndarray, name: np.ndarray, kind: int,
            row: np.ndarray, info: np.ndarray | None = None, cat: np.ndarray | int = -1,
            task_type: np.ndarray | int = -1) -> int:
        """Append slices; returns the index of the first. Negative durations become 0."""
        k = len(start)
        first = self.n
        dur = np.subtract(end, start, dtype=np.int64)
        np.maximum(dur, 0, out=dur)
        for key, value, dtype in (("start", start, np.int64), ("dur", dur, np.int64),
                                  ("lane", lane, np.int32), ("name", name, np.int32),
                                  ("cat", cat, np.int32), ("task_type", task_type, np.int32)):
            arr = np.broadcast_to(np.asarray(value, dtype=dtype), (k,)) if np.ndim(value) == 0 else \
                np.asarray(value, dtype=dtype)
            self.cols.setdefault(key, []).append(np.ascontiguousarray(arr))
        del dur
        self.blocks.append(ArgBlock(first, k, int(kind), rowids_of(_integers(row)),
                                    rowids_of(_integers(info)) if info is not None else Rowids(k, constant=NO_ROW)))
        self.n += k
        return first

    def column(self, key: str, dtype) -> np.ndarray:
        """The whole column, each part let go as it is copied (together, the load's peak would hold the
        column twice)."""
        parts = self.cols.pop(key, None) or []
        out = np.empty(sum(len(p) for p in parts), parts[0].dtype if parts else dtype)
        at = 0
        parts.reverse()
        while parts:
            part = parts.pop()
            out[at:at + len(part)] = part
            at += len(part)
            del part
        return out

    def names_of(self, kind: int) -> list[np.ndarray]:
        """The names of the slices of ``kind``, one array per ``add`` of that kind (before ``column("name")``)."""
        return [name for name, block in zip(self.cols.get("name", []), self.blocks, strict=True) if block.kind == kind]

    def locator(self) -> ArgLocator:
        """Where every slice's args live, from the blocks ``add`` recorded."""
        return ArgLocator.of(self.blocks)


def _integers(values: np.ndarray) -> np.ndarray:
    """``values`` as an integer array, int32 ones as they are."""
    values = np.asarray(values)
    return values if values.dtype in (np.int32, np.int64) else values.astype(np.int64)

