"""Input shapes and data types of a JSON trace's compute tasks from the host operator that launched each one.

torch_npu draws an ``async_npu`` flow from the Python lane, at the instant the framework launched a kernel,
to that kernel's hardware task. The launching operator is the innermost host operator (``cpu_op``) that
holds the flow's start; its ``Input Dims`` / ``Input type`` args (``32,3,224,224;\\r\\n64;\\r\\n…``) are the
logical shapes of its inputs (not the device's padded formats). The op type stays the kernel's name's.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.kernels.source_result import SourceResult
from timelineview.analysis.kernels.table import NO_VALUE, Interner
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import kineto, torch_npu

SOURCE_HOST_FLOWS = "host operator (flows)"
LAUNCH_FLOW = torch_npu.LAUNCH_FLOW  # the flow category from a framework launch to its kernel
HOST_OPERATOR = torch_npu.FRAMEWORK_OPERATOR  # the framework's operators, which carry the input shapes
DIMS_KEY, TYPES_KEY = kineto.INPUT_DIMS, kineto.INPUT_TYPES
ARG_SEPARATOR = ";\r\n"
ATEN_PREFIX = "aten::"
PROBED = 64  # host operators read to learn whether shapes were recorded
MAX_HOST_OPERATORS = 1_000_000  # args read at most (each is a read of the file)


def host_flow_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner) -> SourceResult | None:
    """Shapes and data types of the ``compute`` slices launched through ``async_npu`` flows; None without them."""
    flow_cat, op_cat = store.string_id(LAUNCH_FLOW), store.string_id(HOST_OPERATOR)
    if flow_cat < 0 or op_cat < 0 or not _shapes_recorded(store, op_cat):
        return None
    flows = store.flows  # bound to the slices on first use: only once shapes are known to be there
    cat, dst = np.asarray(flows.cat), np.asarray(flows.dst_slice, dtype=np.int64)
    position = np.full(len(store.slices), -1, np.int64)
    position[compute] = np.arange(len(compute))
    edges = np.flatnonzero((cat == flow_cat) & (dst >= 0))
    edges = edges[position[dst[edges]] >= 0]
    if not len(edges):
        return None
    host = _launching_operator(store, op_cat, np.asarray(flows.src_lane)[edges], np.asarray(flows.src_ts)[edges])
    edges, host = edges[host >= 0], host[host >= 0]
    uniq, inverse = np.unique(host, return_inverse=True)
    if not len(uniq) or len(uniq) > MAX_HOST_OPERATORS:
        return None
    args = store.args_many(uniq)
    dims = interner.ids([_shapes(a.get(DIMS_KEY)) if isinstance(a, dict) else None for a in args])
    types = interner.ids([_shapes(a.get(TYPES_KEY)) if isinstance(a, dict) else None for a in args])
    result = SourceResult.empty(SOURCE_HOST_FLOWS, interner, len(compute))
    tasks = position[dst[edges]]
    result.found.shapes[tasks] = dims[inverse.reshape(-1)]
    result.found.dtypes[tasks] = types[inverse.reshape(-1)]
    result.described[tasks] = result.found.shapes[tasks] != NO_VALUE
    return result


def _shapes_recorded(store: TraceStore, op_cat: int) -> bool:
    """Whether the capture recorded input shapes (``record_shapes``): some of ``PROBED`` host operators spread
    over the card carry ``Input Dims``. A few reads instead of binding every flow of a card that has none."""
    ops = np.flatnonzero(store.slices.cat == op_cat)
    if not len(ops):
        return False
    probe = ops[np.unique(np.linspace(0, len(ops) - 1, min(PROBED, len(ops))).astype(np.int64))]
    return any(isinstance(a, dict) and a.get(DIMS_KEY) for a in store.args_many(probe))


def _launching_operator(store: TraceStore, op_cat: int, lanes: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Per launch instant, the outermost ATen operator on its lane that holds it (-1: none)."""
    sl = store.slices
    aten_name = np.array([s.startswith(ATEN_PREFIX) for s in store.strings] + [False], bool)  # [-1]: no name
    out = np.full(len(ts), -1, np.int64)
    for lane in np.unique(lanes).tolist():
        ops = np.flatnonzero((sl.lane == lane) & (sl.cat == op_cat))
        ops = ops[aten_name[sl.name[ops]]]
        here = np.flatnonzero(lanes == lane)
        if not len(ops):
            continue
        ops = ops[np.lexsort((-sl.dur[ops], sl.start[ops]))]  # by start, the enclosing one first at a tie
        starts, ends = sl.start[ops], sl.start[ops] + sl.dur[ops]
        # the outermost operators: those that start after every earlier one has ended; they do not overlap
        ended_before = np.concatenate([[np.iinfo(np.int64).min], np.maximum.accumulate(ends)[:-1]])
        top = starts >= ended_before
        ops, starts, ends = ops[top], starts[top], ends[top]
        at = np.searchsorted(starts, ts[here], side="right") - 1
        found = (at >= 0) & (ends[np.maximum(at, 0)] >= ts[here])
        out[here[found]] = ops[at[found]]
    return out


def _shapes(text: object) -> str | None:
    """``"32,3,224,224;\\r\\n64;\\r\\n"`` → ``"32,3,224,224;64;"`` (an input without dims stays empty)."""
    if not isinstance(text, str):
        return None
    parts = text.split(ARG_SEPARATOR) if ARG_SEPARATOR in text else text.split(";")
    joined = ";".join(p.strip() for p in parts)
    return joined if joined.strip(";") else None
