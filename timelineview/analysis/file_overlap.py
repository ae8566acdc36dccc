"""Totals of the producer's own overlap lanes (``file_overlap`` of metrics.md §5).

msprof ``Overlap Analysis`` (Computing, Communication, Communication(Not Overlapped), Free)
and MindSpore ≤ 2.1 pid 12000 ``Op Overlap Analyse`` lanes are a cross-check only: they are
never inputs of our own metrics. Each lane's total is the length of the union of its slices,
so duplicated slices from merged per-iteration files are not counted twice.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.intervals import union
from timelineview.model.store.trace_store import TraceStore

FILE_OVERLAP_KINDS = ("compute", "communication", "pure_communication", "free")


def file_overlap(store: TraceStore, classification: Classification | None = None) -> dict | None:
    """{"compute_us", "communication_us", "pure_communication_us", "free_us"} or None."""
    cls = classification if classification is not None else classify(store)
    if not cls.overlap_lanes:
        return None
    sl = store.slices
    out = {}
    for kind in FILE_OVERLAP_KINDS:
        lanes = cls.overlap_lanes.get(kind)
        if lanes is None or not len(lanes):
            out[f"{kind}_us"] = 0.0
            continue
        on = np.isin(sl.lane, lanes)
        out[f"{kind}_us"] = union(sl.start[on], sl.end[on]).total() / 1000.0
    return out
