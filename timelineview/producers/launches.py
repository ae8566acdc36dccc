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
