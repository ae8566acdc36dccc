"""The arrays one scan writes into: allocated from ``scan_columns``, grown when the scanner asks.

The compiled scanner allocates nothing. When an array is full it stops and returns the
``ROOM_*`` bits of what must grow; ``ScanArrays.grow`` doubles those groups (rows
copied, hash tables rebuilt) and the scan resumes where it stopped.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from timelineview.model.decode.scan.byte_scan_tables import rehash_lanes, rehash_strings
from timelineview.model.decode.scan.scan_codes import MAX_COUNTER_KEYS
from timelineview.model.decode.scan.scan_columns import (
    ELEMENTS,
    GROUP_TYPES,
    LANES,
    LAST_LANE_FIELDS,
    MEMBER_FIELDS,
    PENDING_FIELDS,
    RANGES,
    SAMPLES,
    SERIES,
    SLOTS_PER_ROW,
    STRINGS,
    Scan,
    ScanGroup,
    group_arrays,
)

NO_LANE_YET = -7  # ``last_lane`` before the first lane: no token has this kind
MAX_DEPTH = 256  # nesting ``skip`` follows inside one value
MAX_PENDING = 16  # strings one element may hold for interning: its keys and a counter's members
META_SLOTS = 4096  # metadata records of a range compared for copies (not grown)
META_FIELDS = 3  # hash, element row, range generation


class Scratch(NamedTuple):
    """Work arrays of one scan, never grown: the stack of open containers, strings held
    until the element's phase is known, a counter's members, metadata copies, and the
    last lane found (pid kind, pid value, tid kind, tid value, id)."""

    stack: np.ndarray
    pending: np.ndarray
    members: np.ndarray
    meta_slots: np.ndarray
    last_lane: np.ndarray


def _doubled(rows: np.ndarray, count: int) -> np.ndarray:
    out = np.empty((2 * len(rows),) + rows.shape[1:], dtype=rows.dtype)
    out[:count] = rows[:count]
    return out


def _allocate(group: ScanGroup, rows: int, zeroed: bool = False):
    """The arrays of ``group`` for ``rows`` rows (hash tables: SLOTS_PER_ROW slots a row, empty)."""
    arrays = {}
    for a in group_arrays(group):
        shape = (rows * SLOTS_PER_ROW if a.slots else rows,) + ((a.width,) if a.width else ())
        arrays[a.name] = np.zeros(shape, a.dtype) if zeroed or a.slots else np.empty(shape, a.dtype)
    return GROUP_TYPES[group](**arrays)


class ScanArrays:
    """The arrays one scan writes into, grown here whenever the scanner stops to ask."""

    def __init__(self, n_ranges: int, total_bytes: int, smallest: bool = False) -> None:
        k = 1 if smallest else 64  # first room: k lanes and series, 16 k strings and samples
        cap = 1 if smallest else total_bytes // 128 + 16  # elements: most events are longer
        self.groups = {RANGES: _allocate(RANGES, n_ranges, zeroed=True), ELEMENTS: _allocate(ELEMENTS, cap),
                       STRINGS: _allocate(STRINGS, 16 * k), LANES: _allocate(LANES, k),
                       SAMPLES: _allocate(SAMPLES, 16 * k), SERIES: _allocate(SERIES, k)}
        self.work = Scratch(np.empty(MAX_DEPTH, np.int8), np.empty((MAX_PENDING, PENDING_FIELDS), np.int64),
                            np.empty((MAX_COUNTER_KEYS, MEMBER_FIELDS), np.int64),
                            np.zeros((META_SLOTS, META_FIELDS), np.int64),
                            np.full(LAST_LANE_FIELDS, NO_LANE_YET, np.int64))

    def grow(self, room: int, buf: np.ndarray, at: np.ndarray) -> None:
        """Double every group ``room`` asks for: its rows copied, its hash table rebuilt."""
        for group, arrays in self.groups.items():
            if not room & group.room:
                continue
            count = int(at[group.count])
            grown = {a.name: np.zeros((2 * len(arr),) + arr.shape[1:], arr.dtype) if a.slots else _doubled(arr, count)
                     for a, arr in zip(group_arrays(group), arrays)}
            arrays = GROUP_TYPES[group](**grown)
            if group == STRINGS:
                rehash_strings(buf, arrays.spans, count, arrays.string_slots)
            elif group == LANES:
                rehash_lanes(arrays.lane_rows, count, arrays.lane_slots)
            elif group == SERIES:
                rehash_lanes(arrays.series_rows, count, arrays.series_slots)
            self.groups[group] = arrays

    def result(self, at: np.ndarray) -> Scan:
        """The output: every array but the hash tables, cut to the rows used."""
        out = {}
        for group, arrays in self.groups.items():
            used = None if group.count < 0 else int(at[group.count])
            for a, arr in zip(group_arrays(group), arrays):
                if not a.slots:
                    out[a.name] = arr[:used]
        return Scan(**out)
