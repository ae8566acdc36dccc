"""Rows of one table found by the key another table's rows hold."""

from __future__ import annotations

import numpy as np

from timelineview.model.database.sqlite.tables import find_sorted


def join_one(keys: np.ndarray, table_keys: np.ndarray) -> np.ndarray:
    """Row of ``table_keys`` holding each of ``keys`` (-1 when none)."""
    if not len(table_keys):
        return np.full(len(keys), -1, np.int64)
    if len(table_keys) < 2 or bool((table_keys[1:] >= table_keys[:-1]).all()):  # ascending already (as written)
        return find_sorted(table_keys, keys)
    order = np.argsort(table_keys, kind="stable")
    pos = find_sorted(table_keys[order], keys)
    return np.where(pos >= 0, order[pos], -1)


def join_all(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``sorted_keys`` holding each of ``keys``: (the rows, key by key; how many each key has)."""
    lo = np.searchsorted(sorted_keys, keys, side="left")
    counts = np.searchsorted(sorted_keys, keys, side="right") - lo
    rows = np.repeat(lo, counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    return rows, counts
