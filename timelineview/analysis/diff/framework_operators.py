"""Framework operators (``aten::conv2d``, ``aten::addmm`` …) with the device time of the work each
launched (metrics.md §13): the basis of comparing an NPU run with a GPU run operator by operator.

An operator is a ``cpu_op`` slice, keyed by its name and input shapes (``Input Dims``: a list of lists
in Kineto, ``"32,3,224,224;\\r\\n64,3,11,11;…"`` in torch_npu; trailing empty inputs, scalars, dropped).
Its device time is the duration of every device slice a launch flow (``ac2g``, ``async_npu``) ties to a
launch inside it, on its own thread: inclusive, so ``aten::conv2d`` holds the kernels of the
``aten::convolution`` it calls. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import FRAMEWORK_OPERATOR, kineto
from timelineview.producers.launches import launch_edges
from timelineview.producers.slice_kinds import string_flags

INPUT_DIMS = kineto.INPUT_DIMS


@dataclass(frozen=True)
class OperatorKey:
    """A framework operator by name and input shapes (``"[32, 9216], [9216, 4096]"``)."""

    name: str
    input_shapes: str


@dataclass
class OperatorTotal:
    """Calls of one operator and the device time (ns) of what they launched."""

    count: int = 0
    device_ns: int = 0


def input_shapes(dims: object) -> str:
    """The shapes of an ``Input Dims`` value as text, trailing empty inputs dropped."""
    if isinstance(dims, str):
        shapes = [[p.strip() for p in part.strip().split(",") if p.strip()] for part in dims.split(";")]
    elif isinstance(dims, list):
        shapes = [[str(d) for d in s] if isinstance(s, list) else [] for s in dims]
    else:
        return ""
    while shapes and not shapes[-1]:
        shapes.pop()
    return ", ".join("[" + ", ".join(s) + "]" for s in shapes)


def _device_ns_inside(store: TraceStore, ops: np.ndarray) -> np.ndarray:
    """Per operator of ``ops``: the summed duration of the device slices launched from inside it."""
    out = np.zeros(len(ops), dtype=np.int64)
    edges = launch_edges(store)
    if not len(edges) or not len(ops):
        return out
    sl = store.slices
    dur = sl.dur[edges.device_slice]
    op_lane, op_start, op_end = sl.lane[ops], sl.start[ops], sl.start[ops] + sl.dur[ops]
    for lane in np.unique(op_lane).tolist():
        on = edges.src_lane == lane
        if not np.any(on):
            continue
        order = np.argsort(edges.src_ts[on], kind="stable")
        ts, cum = edges.src_ts[on][order], np.concatenate(([0], np.cumsum(dur[on][order])))
        mine = np.flatnonzero(op_lane == lane)
        lo = np.searchsorted(ts, op_start[mine], side="left")
        hi = np.searchsorted(ts, op_end[mine], side="left")
        out[mine] = cum[hi] - cum[lo]
    return out


def framework_operators(store: TraceStore) -> dict[OperatorKey, OperatorTotal]:
    """Every framework operator of the card by name and input shapes, with its calls and device time."""
    sl = store.slices
    ops = np.flatnonzero(string_flags(store, sl.cat, lambda c: c == FRAMEWORK_OPERATOR)[sl.cat])
    # torch_npu writes its ProfilerStep#N as a cpu_op too: a step, holding every operator's work, not one of them
    ops = ops[~string_flags(store, sl.name[ops], lambda n: kineto.STEP_MARKER.match(n))[sl.name[ops]]]
    out: dict[OperatorKey, OperatorTotal] = {}
    if not len(ops):
        return out
    device = _device_ns_inside(store, ops)
    args = store.args_many(ops)
    for name_id, a, ns in zip(sl.name[ops].tolist(), args, device.tolist(), strict=True):
        key = OperatorKey(store.strings[name_id] if name_id >= 0 else "",
                          input_shapes((a or {}).get(INPUT_DIMS)))
        total = out.setdefault(key, OperatorTotal())
        total.count += 1
        total.device_ns += ns
    return out
