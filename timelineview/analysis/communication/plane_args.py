"""The ``args`` of many plane tasks at once: the seven keys of metrics.md §6.

The store keeps no plane-task args (only ``Task Type``), and reading them one event at a time
decodes each as a whole dict. ``TraceStore.args_many_as`` reads each chunk holding wanted events
once and decodes only these keys (``PlaneArgs``); a trace file that changed since the load raises
(the store's reader says so) rather than giving another event's args.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np

from timelineview.analysis.communication import names as nm
from timelineview.model.store.trace_store import TraceStore


class PlaneArgs(msgspec.Struct, gc=False):
    """The args keys a plane task is analysed by (values as written: int, float, text or null)."""

    task_type: Any = msgspec.field(default=None, name=nm.ARG_TASK_TYPE)
    src: Any = msgspec.field(default=None, name=nm.ARG_SRC_RANK)
    dst: Any = msgspec.field(default=None, name=nm.ARG_DST_RANK)
    transport: Any = msgspec.field(default=None, name=nm.ARG_TRANSPORT)
    link_type: Any = msgspec.field(default=None, name=nm.ARG_LINK_TYPE)
    size: Any = msgspec.field(default=None, name=nm.ARG_SIZE)
    bandwidth: Any = msgspec.field(default=None, name=nm.ARG_BANDWIDTH)


_EMPTY = PlaneArgs()


def from_dict(args: dict | None) -> PlaneArgs:
    """The same record from an args dict (what the bulk read must equal: the tests compare with it)."""
    if not isinstance(args, dict):
        return _EMPTY
    return PlaneArgs(args.get(nm.ARG_TASK_TYPE), args.get(nm.ARG_SRC_RANK), args.get(nm.ARG_DST_RANK),
                     args.get(nm.ARG_TRANSPORT), args.get(nm.ARG_LINK_TYPE), args.get(nm.ARG_SIZE),
                     args.get(nm.ARG_BANDWIDTH))


def read_plane_args(store: TraceStore, slices: np.ndarray) -> list[PlaneArgs]:
    """``PlaneArgs`` of each slice in ``slices`` (empty records where an event has no args)."""
    got = store.args_many_as(np.asarray(slices, dtype=np.int64), PlaneArgs)
    return [a if a is not None else _EMPTY for a in got]
