"""Compute tasks described by the host operator that launched each one, reached through the trace's launch
records (metrics.md §7.1, §13).

Both PyTorch producers tie a launch on a host thread to the device work it queued: torch_npu by an
``async_npu`` flow, Kineto by an ``ac2g`` flow or, without flows, the ``correlation`` id the launch and the
kernel share (:func:`~timelineview.producers.launches.launch_edges`, the join ``diff NPU GPU`` uses too). The
host operator holding the launch carries ``Input Dims`` / ``Input type`` args: the logical shapes and data
types of its inputs (``"32,3,224,224;\\r\\n64;\\r\\n…"`` from torch_npu, lists of lists from Kineto).

On the NPU the kernel's name says its op type (``…_MatMulV2``) and the outermost ATen operator gives the
shapes. A GPU kernel's name is its code's (``void cutlass::Kernel<…>``), so on those producers the op type is
the innermost host operator that launched it (``aten::mm``, or an outer module's operator when that is the
only one), its shapes and data types that operator's.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.kernels.flops_of_shapes.convolution_output import convolution_output_shape
from timelineview.analysis.kernels.flops_of_shapes.formulas import parse_shapes
from timelineview.analysis.kernels.table import NO_VALUE, Interner
from timelineview.analysis.kernels.task_sources.source_result import SourceResult
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import FRAMEWORK_OPERATOR, kineto
from timelineview.producers.launches import LaunchEdges, launch_edges, launching_operators
from timelineview.producers.slice_kinds import string_flags

SOURCE_HOST_FLOWS = "host operator (flows)"  # shapes from the launching operator, op type from the name
SOURCE_LAUNCHING_OPERATORS = "host operators through launch flows"  # op type and shapes from the operator
DIMS_KEY, TYPES_KEY, VALUES_KEY = kineto.INPUT_DIMS, kineto.INPUT_TYPES, kineto.CONCRETE_INPUTS
ARG_SEPARATOR = ";\r\n"
ATEN_PREFIX = "aten::"
PROBED = 64  # host operators read to learn whether shapes were recorded
MAX_HOST_OPERATORS = 1_000_000  # args read at most (each is a read of the file)


def host_flow_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner,
                           op_type_from_operator: bool = False) -> SourceResult | None:
    """The ``compute`` slices described by the host operators that launched them; None without launches.

    ``op_type_from_operator``: each task's op type is its innermost launching operator's name (every task
    with one is described, shapes recorded or not); else only the shapes and data types of its outermost
    ATen launching operator are taken, and only when the capture recorded shapes."""
    op_cat = store.string_id(FRAMEWORK_OPERATOR)
    recorded = op_cat >= 0 and _shapes_recorded(store, op_cat)
    if op_cat < 0 or not (op_type_from_operator or recorded):
        return None
    edges = launch_edges(store)  # binds the flows to the slices: only once they can be of use
    position = np.full(len(store.slices), -1, np.int64)
    position[compute] = np.arange(len(compute))
    keep = position[edges.device_slice] >= 0
    if not keep.any():
        return None
    edges = LaunchEdges(edges.src_lane[keep], edges.src_ts[keep], edges.device_slice[keep])
    sl = store.slices
    operators = np.flatnonzero(sl.cat == op_cat)
    if not op_type_from_operator:
        aten_name = string_flags(store, sl.name[operators], lambda s: s.startswith(ATEN_PREFIX))
        operators = operators[aten_name[sl.name[operators]]]
    host = launching_operators(store, edges, operators, innermost=op_type_from_operator)
    tasks, host = position[edges.device_slice[host >= 0]], host[host >= 0]
    uniq, inverse = np.unique(host, return_inverse=True)
    if not len(uniq) or len(uniq) > MAX_HOST_OPERATORS:
        return None
    inverse = inverse.reshape(-1)
    args = store.args_many(uniq) if recorded else [None] * len(uniq)  # no shapes recorded: no args to read
    dims = interner.ids([_shapes(a.get(DIMS_KEY)) if isinstance(a, dict) else None for a in args])
    types = interner.ids([_shapes(a.get(TYPES_KEY)) if isinstance(a, dict) else None for a in args])
    source = SOURCE_LAUNCHING_OPERATORS if op_type_from_operator else SOURCE_HOST_FLOWS
    result = SourceResult.empty(source, interner, len(compute))
    result.found.shapes[tasks] = dims[inverse]
    result.found.dtypes[tasks] = types[inverse]
    if op_type_from_operator:
        names = [store.strings[n] if n >= 0 else None for n in sl.name[uniq].tolist()]
        result.found.op_type[tasks] = interner.ids(names)[inverse]
        outputs = interner.ids([_convolution_output(n, a) for n, a in zip(names, args, strict=True)])
        result.found.out_shapes[tasks] = outputs[inverse]
        result.described[tasks] = result.found.op_type[tasks] != NO_VALUE
    else:
        result.described[tasks] = result.found.shapes[tasks] != NO_VALUE
    return result


def _convolution_output(operator: str | None, args: object) -> str | None:
    """A convolution operator's output shape from its input shapes and recorded argument values (its FLOPs
    count the output's positions); None for other operators or when the values were not recorded."""
    if not operator or not isinstance(args, dict) or not isinstance(args.get(VALUES_KEY), list):
        return None
    inputs = parse_shapes(_shapes(args.get(DIMS_KEY)) or "")
    shape = convolution_output_shape(operator, inputs, [str(v) for v in args[VALUES_KEY]])
    return ",".join(map(str, shape)) if shape else None


def _shapes_recorded(store: TraceStore, op_cat: int) -> bool:
    """Whether the capture recorded input shapes (``record_shapes``): some of ``PROBED`` host operators spread
    over the card carry ``Input Dims``. A few reads instead of binding every flow of a card that has none."""
    ops = np.flatnonzero(store.slices.cat == op_cat)
    if not len(ops):
        return False
    probe = ops[np.unique(np.linspace(0, len(ops) - 1, min(PROBED, len(ops))).astype(np.int64))]
    return any(isinstance(a, dict) and a.get(DIMS_KEY) for a in store.args_many(probe))


def _shapes(value: object) -> str | None:
    """``"32,3,224,224;\\r\\n64;\\r\\n"`` (torch_npu) → ``"32,3,224,224;64;"`` (an input without dims stays
    empty); Kineto's ``[[64], [32, 64], [], []]`` → ``"64;32,64"`` and its ``["float", "float"]`` →
    ``"float;float"``."""
    if isinstance(value, list):
        parts = [",".join(str(d) for d in p) if isinstance(p, list) else str(p) for p in value]
        while parts and not parts[-1]:  # trailing scalars (``alpha``, ``beta``): no shape
            parts.pop()
        joined = ";".join(parts)
    elif isinstance(value, str):
        parts = value.split(ARG_SEPARATOR) if ARG_SEPARATOR in value else value.split(";")
        joined = ";".join(p.strip() for p in parts)
    else:
        return None
    return joined if joined.strip(";") else None
