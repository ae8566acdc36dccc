"""Which device work each host launch queued: the edges from a launch (its thread and time) to the
device slice it started, as the producers record them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import kineto, torch_npu
from timelineview.producers.slice_kinds import string_flags

# Kineto's ``ac2g``, torch_npu's ``async_npu``: a flow from the launch to the device work
LAUNCH_FLOWS = frozenset({kineto.LAUNCH_FLOW, torch_npu.LAUNCH_FLOW})


@dataclass(frozen=True)
class LaunchEdges:
    """One row per launch → device slice."""

    src_lane: np.ndarray  # int32: the launching thread's lane
    src_ts: np.ndarray  # int64 ns: when the launch happened
    device_slice: np.ndarray  # int64: the device slice it queued

    def __len__(self) -> int:
        return len(self.src_ts)


def _empty() -> LaunchEdges:
    return LaunchEdges(np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64))


def _flow_edges(store: TraceStore) -> LaunchEdges:
    flows = store.flows
    if flows is None or not len(flows):
        return _empty()
    cat = np.asarray(flows.cat)
    dst = np.asarray(flows.dst_slice, dtype=np.int64)
    keep = string_flags(store, cat, lambda c: c in LAUNCH_FLOWS)[cat] & (dst >= 0)
    # a flow from a synchronise call ends on the GPU's wait, which that call did not queue
    slice_cat = store.slices.cat
    is_wait = string_flags(store, slice_cat, lambda c: c == kineto.SYNC_CATEGORY)  # per category id
    keep[keep] = ~is_wait[slice_cat[dst[keep]]]
    return LaunchEdges(np.asarray(flows.src_lane)[keep], np.asarray(flows.src_ts)[keep], dst[keep])


def launch_edges(store: TraceStore) -> LaunchEdges:
    """The card's launch edges: its launch flows, else (a Kineto trace written without ``ac2g`` flows)
    the launches and device slices that share a ``correlation`` id."""
    edges = _flow_edges(store)
    if len(edges):
        return edges
    pairs = kineto.correlated_launches(store)
    if pairs is None:
        return _empty()
    launch, device = pairs
    sl = store.slices
    return LaunchEdges(sl.lane[launch], sl.start[launch], device)


def launching_operators(store: TraceStore, edges: LaunchEdges, operators: np.ndarray, innermost: bool) -> np.ndarray:
    """Per launch edge, the slice of ``operators`` (host operators, e.g. the ``cpu_op`` slices) on the launch's
    lane that holds the launch instant, -1 where none does: the innermost one (``aten::addmm`` inside
    ``aten::linear``: the operator that really queued the work) or the outermost one (the call the user made).

    Host operators nest properly on their thread, so they are peeled in levels: level 0 are those that start
    after every earlier one ended, level 1 the same among the rest, and so on; the innermost holder is the one
    found at the deepest level."""
    sl = store.slices
    out = np.full(len(edges), -1, np.int64)
    lanes, ts = np.asarray(edges.src_lane), np.asarray(edges.src_ts)
    for lane in np.unique(lanes).tolist():
        here = np.flatnonzero(lanes == lane)
        ops = operators[sl.lane[operators] == lane]
        if not len(ops):
            continue
        ops = ops[np.lexsort((-sl.dur[ops], sl.start[ops]))]  # by start, the enclosing one first at a tie
        at_ts = ts[here]
        while len(ops):
            starts, ends = sl.start[ops], sl.start[ops] + sl.dur[ops]
            ended_before = np.concatenate([[np.iinfo(np.int64).min], np.maximum.accumulate(ends)[:-1]])
            level = starts >= ended_before  # none of these overlap: a sorted search finds the holder
            lv_ops, lv_starts, lv_ends = ops[level], starts[level], ends[level]
            at = np.searchsorted(lv_starts, at_ts, side="right") - 1
            found = (at >= 0) & (lv_ends[np.maximum(at, 0)] >= at_ts)
            out[here[found]] = lv_ops[at[found]]
            if not innermost or not found.any():
                break
            ops = ops[~level]
    return out
