"""What a producer says each slice of a card is: compute, communication, a copy (metrics.md §1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from timelineview.model.store.trace_store import TraceStore



def string_flags(store: TraceStore, ids: np.ndarray, test: Callable[[str], object]) -> np.ndarray:
    """``test(str)`` evaluated once per distinct string id of ``ids``, as a lookup table indexed by
    string id (its last slot, id -1, is False)."""
    n = len(store.strings)
    flags = np.zeros(n + 1, dtype=bool)
    ids = np.asarray(ids)
    if len(ids):
        used = np.flatnonzero(np.bincount(ids[ids >= 0], minlength=n))
        for i in used:
            flags[i] = bool(test(store.strings[i]))
    return flags


def strings_used(store: TraceStore, ids: np.ndarray) -> set[str]:
    """The distinct strings behind the ids ``ids`` (-1, absent, left out)."""
    ids = np.asarray(ids)
    if not len(ids):
        return set()
    used = np.flatnonzero(np.bincount(ids[ids >= 0], minlength=len(store.strings)))
    return {store.strings[i] for i in used}


def lanes_holding(store: TraceStore, mask: np.ndarray) -> np.ndarray:
    """The lanes (int64, ascending) holding at least one slice of ``mask``."""
    lanes = store.slices.lane[mask]
    return np.unique(lanes).astype(np.int64) if len(lanes) else np.zeros(0, np.int64)
