"""Distinct values of an integer column without a sort: a column of ids drawn from a bounded range (string
ids, packed keys) is mapped through a presence table over that range, one pass each way. A sort of ten
million values takes a second; this takes tens of milliseconds."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MAX_TABLE_PER_VALUE = 4  # a presence table larger than this many entries per value costs more than a sort


def distinct_inverse(values: np.ndarray, inverse_dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values ascending, each value's position among them), as ``np.unique(return_inverse)``;
    the positions as ``inverse_dtype`` (int32 halves the largest array when the caller keeps them so)."""
    values = np.asarray(values)
    if not len(values):
        return values[:0].copy(), np.zeros(0, inverse_dtype)
    low, high = int(values.min()), int(values.max())
    span = high - low + 1
    if span > MAX_TABLE_PER_VALUE * len(values) + 1024:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.reshape(-1).astype(inverse_dtype, copy=False)
    present = np.zeros(span, bool)
    for a in range(0, len(values), CHUNK):  # a chunk at a time: no shifted copy of the values
        present[values[a:a + CHUNK] - low] = True
    used = np.flatnonzero(present)
    del present
    rank = np.zeros(span, inverse_dtype)
    rank[used] = np.arange(len(used))
    inverse = np.empty(len(values), inverse_dtype)
    for a in range(0, len(values), CHUNK):
        inverse[a:a + CHUNK] = rank[values[a:a + CHUNK] - low]
    return (used + low).astype(values.dtype), inverse


def first_positions(inverse: np.ndarray, n_distinct: int) -> np.ndarray:
    """The first position of each distinct value (``np.unique(return_index)``) from its inverse."""
    first = np.full(n_distinct, len(inverse), np.int64)
    for a in range(0, len(inverse), CHUNK):
        np.minimum.at(first, inverse[a:a + CHUNK], np.arange(a, min(a + CHUNK, len(inverse)), dtype=np.int64))
    return first


CHUNK = 1 << 18  # values marked or turned at once: each step's temporaries are a few MB


def turn_distinct_in_place(values: np.ndarray, turn: Callable[[int], int]) -> None:
    """``values`` (int32) each replaced by ``turn(value)``, called once per distinct value in ascending order
    (as over ``distinct_inverse``'s values), through a presence table and a lookup table over the values'
    range a chunk at a time: no temporary as long as ``values``."""
    if not len(values):
        return
    low, high = int(values.min()), int(values.max())
    span = high - low + 1
    if span > MAX_TABLE_PER_VALUE * len(values) + 1024:  # too sparse for a table over their range
        uniq, inverse = distinct_inverse(values)
        values[:] = np.array([turn(u) for u in uniq.tolist()], np.int32)[inverse]
        return
    present = np.zeros(span, bool)
    for a in range(0, len(values), CHUNK):
        present[values[a:a + CHUNK] - low] = True
    used = np.flatnonzero(present)
    del present
    lookup = np.zeros(span, np.int32)
    lookup[used] = [turn(u + low) for u in used.tolist()]
    for a in range(0, len(values), CHUNK):
        values[a:a + CHUNK] = lookup[values[a:a + CHUNK] - low]
