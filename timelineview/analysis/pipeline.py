"""Pipeline-parallel indicators: receive-only communication and stage time.

With pipeline parallelism a stage waits for activations from the previous stage in receive
operators (``hcom_receive*`` in msprof files, ``Receive-op`` in MindSpore ones). Following
MindSpore's cluster analysis, the time the card does nothing but receive is not the card's
own cost: stage time = step time − receive-only communication. Here, consistently with
``pure_communication_us`` (metrics.md §2), receive-only time is measured over the whole window:

* ``receive_only_us`` = |U(receive) − (U(compute) ∪ U(other communication))|
* ``other_pure_communication_us`` = ``pure_communication_us`` − ``receive_only_us``
* ``pipeline_stage_us`` = |W| − ``receive_only_us`` (MindSpore's stage time; the producer's
  ``step_trace_time.csv`` Stage is another quantity, ``stage_us`` of the step, metrics.md §3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.intervals import Intervals, complement, intersect, merge, union
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import mindspore, msprof

# msprof's and MindSpore's spellings of a receive operator, or "receive" as a whole word of the name
RECEIVE_NAME = re.compile(rf"{msprof.RECEIVE_OPERATOR}|{mindspore.RECEIVE_OPERATOR}|(?:^|[/_])receive(?:$|[-_\d])",
                          re.IGNORECASE)


@dataclass
class PipelineIntervals:
    """Receive operators of one card and the part of them nothing else covers."""

    receive: Intervals
    receive_only: Intervals


def derive_pipeline(store: TraceStore, derived: DerivedIntervals) -> PipelineIntervals | None:
    """Receive-only intervals, or None when the card has no receive operator (no pipeline)."""
    sl = store.slices
    comm = derived.classification.communication
    ids = sl.name[comm]
    is_receive = np.zeros(len(store.strings) + 1, dtype=bool)  # last slot: id -1
    for i in np.flatnonzero(np.bincount(ids[ids >= 0], minlength=len(store.strings))):
        is_receive[i] = bool(RECEIVE_NAME.search(store.strings[i]))
    receive_mask = comm.copy()
    receive_mask[comm] = is_receive[ids]
    if not receive_mask.any():
        return None
    other_mask = comm & ~receive_mask
    receive = union(sl.start[receive_mask], sl.end[receive_mask])
    other = union(sl.start[other_mask], sl.end[other_mask])
    busy = merge(derived.compute, other)
    if not len(busy):
        return PipelineIntervals(receive, receive)
    lo, hi = min(int(receive.starts[0]), int(busy.starts[0])), max(int(receive.ends[-1]), int(busy.ends[-1]))
    return PipelineIntervals(receive, intersect(receive, complement(busy, lo, hi)))


def pipeline_metrics(derived: DerivedIntervals, pipeline: PipelineIntervals, t0: int, t1: int) -> dict:
    """Receive-only time, the rest of pure communication, and stage time over [t0, t1) (µs)."""
    width = max(int(t1) - int(t0), 0)
    receive_only = pipeline.receive_only.measure(t0, t1)
    pure = derived.communication.measure(t0, t1) - derived.overlapped.measure(t0, t1)
    return {
        "receive_only_us": receive_only / 1000.0,
        "other_pure_communication_us": (pure - receive_only) / 1000.0,
        "pipeline_stage_us": (width - receive_only) / 1000.0,
    }
