"""The ``args`` of many plane tasks at once, read from the trace file in one pass.

The store keeps no plane-task args (only ``Task Type``), and reading them one event at a time
decodes each as a whole dict. Here the chunks holding the wanted events are read once each,
split into raw elements (msgspec scans, builds nothing), and only the wanted elements are
decoded, into a struct that keeps the seven keys of metrics.md §6. A store without a chunk
table (built in memory), a damaged chunk or an odd element goes through the store's public
``args_many`` instead, with the same result. A trace file that changed since the load raises
(the store's reader says so) rather than giving another event's args.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np

from timelineview.analysis.communication import names as nm
from timelineview.model.decode.chunk_decode import read_range
from timelineview.model.decode.event_types import raw_list_decoder
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


class _Event(msgspec.Struct, gc=False):
    args: PlaneArgs | None = None


_EMPTY = PlaneArgs()
_event_decoder = msgspec.json.Decoder(_Event)


def from_dict(args: dict | None) -> PlaneArgs:
    """The same record from an args dict (the slow path, and tests)."""
    if not isinstance(args, dict):
        return _EMPTY
    return PlaneArgs(args.get(nm.ARG_TASK_TYPE), args.get(nm.ARG_SRC_RANK), args.get(nm.ARG_DST_RANK),
                     args.get(nm.ARG_TRANSPORT), args.get(nm.ARG_LINK_TYPE), args.get(nm.ARG_SIZE),
                     args.get(nm.ARG_BANDWIDTH))


def read_plane_args(store: TraceStore, slices: np.ndarray) -> list[PlaneArgs]:
    """``PlaneArgs`` of each slice in ``slices`` (empty records where an event has no args)."""
    slices = np.asarray(slices, dtype=np.int64)
    reader = store._args_reader  # the store's lazy reader: its chunk table says where events are
    chunks = getattr(reader, "chunks", None)
    if chunks is None or not len(slices):
        return [from_dict(a) for a in store.args_many(slices)]
    ordinals = store.slices.src[slices]
    chunk_of = np.searchsorted(chunks.first, ordinals, side="right") - 1
    order = np.argsort(chunk_of, kind="stable")
    bounds = np.flatnonzero(np.diff(chunk_of[order])) + 1
    out = np.full(len(slices), _EMPTY, dtype=object)
    decode = _event_decoder.decode
    for group in np.split(order, bounds):
        c = int(chunk_of[group[0]])
        if c < 0:
            continue
        elems = _raw_elements(reader, chunks, c)
        ks = (ordinals[group] - chunks.first[c]).tolist()
        got = None
        if elems is not None and 0 <= min(ks) and max(ks) < len(elems):
            try:
                got = [decode(elems[k]).args for k in ks]
            except msgspec.DecodeError:  # one odd element: this chunk's events one by one below
                got = None
        if got is None:
            got = [_one(decode, elems, k, reader, o) for k, o in zip(ks, ordinals[group].tolist(), strict=True)]
        out[group] = got
    result = out.tolist()
    if None in result:  # events without args
        result = [a if a is not None else _EMPTY for a in result]
    return result


def _one(decode, elems, k: int, reader, ordinal: int) -> PlaneArgs:
    """One element's args: decoded from its raw bytes, else through the store's reader."""
    if elems is not None and 0 <= k < len(elems):
        try:
            args = decode(elems[k]).args
            return args if args is not None else _EMPTY
        except msgspec.DecodeError:
            pass
    return from_dict(reader(np.array([ordinal], dtype=np.int64))[0])


def _raw_elements(reader, chunks, c: int) -> list | None:
    """Raw elements of a chunk that the loader read on its fast path, else None. A reader that
    checks its file (``read_chunk``) raises when the file changed since the load."""
    if not chunks.fast[c]:
        return None
    read_chunk = getattr(reader, "read_chunk", None)
    if read_chunk is not None:
        buf = read_chunk(c)
    else:
        try:
            buf = read_range(chunks.path[c], int(chunks.start[c]), int(chunks.end[c]))
        except OSError:
            return None
    try:
        return raw_list_decoder.decode(buf)
    except msgspec.DecodeError:
        return None
