"""The plane tasks of one card as columns: where they run, what they move, over which link.

A plane lane is a ``Plane N`` thread of a process classified as ``HCCL`` / ``Communication``
(``analysis.classify``). Each plane lane belongs to the operator-level thread of its process
that precedes it in display order (the group thread is listed before its planes), else to the
first one of the process. Exact duplicates (same lane, start, duration, name and args) are kept
once, whether or not the loader already dropped them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.classify import COMMUNICATION, Classification
from timelineview.analysis.communication import names as nm
from timelineview.analysis.communication.plane_args import PlaneArgs, read_plane_args
from timelineview.model.store.trace_store import TraceStore


@dataclass
class PlaneTasks:
    """One row per plane task (times in int64 ns, as in the file)."""

    slice: np.ndarray  # int64 slice index in the store
    lane: np.ndarray  # int32
    owner_lane: np.ndarray  # int32: the operator-level lane this task's plane belongs to (-1: none)
    start: np.ndarray  # int64
    end: np.ndarray  # int64
    wait: np.ndarray  # bool: a Notify_Wait task
    transfer: np.ndarray  # bool: moves bytes between two different real ranks
    src: np.ndarray  # int64 rank, -1 when missing or not a number
    dst: np.ndarray  # int64
    size: np.ndarray  # int64 bytes, 0 when missing
    transport: np.ndarray  # int16 index into ``transports``
    link_type: np.ndarray  # int16 index into ``link_types``
    bandwidth: np.ndarray  # float64: the producer's own GB/s (NaN when missing)
    transports: list[str]
    link_types: list[str]

    def __len__(self) -> int:
        return len(self.slice)


def plane_lanes(store: TraceStore, cls: Classification) -> tuple[np.ndarray, np.ndarray]:
    """(plane lanes, the operator-level lane each belongs to or -1)."""
    lanes = store.lanes
    roles = cls.process_roles
    comm_lanes = set(cls.comm_lanes.tolist())
    planes, owners = [], []
    for ln in range(len(lanes)):
        p = int(lanes.process[ln])
        if roles[p] != COMMUNICATION or ln in comm_lanes or not nm.PLANE_LANE.match(lanes.name[ln].strip()):
            continue
        same = [c for c in sorted(comm_lanes) if int(lanes.process[c]) == p]
        before = [c for c in same if c < ln]
        planes.append(ln)
        owners.append(before[-1] if before else (same[0] if same else -1))
    return np.array(planes, dtype=np.int32), np.array(owners, dtype=np.int32)


def _ints(values: list, missing: int) -> np.ndarray:
    """int64 column of JSON values: integers as they are, integral numbers or digit strings
    converted, anything else ``missing``."""
    out = np.full(len(values), missing, dtype=np.int64)
    for i, v in enumerate(values):
        if type(v) is int:
            out[i] = v
        elif isinstance(v, float) and v.is_integer():
            out[i] = int(v)
        elif isinstance(v, str) and v.strip().isdigit():
            out[i] = int(v)
    return out


def _ints_fast(values: list, missing: int) -> np.ndarray:
    if all(type(v) is int for v in values):
        return np.array(values, dtype=np.int64) if values else np.zeros(0, dtype=np.int64)
    return _ints(values, missing)


def _codes(values: list) -> tuple[np.ndarray, list[str]]:
    """int16 codes of text values (upper case; anything else is ``UNKNOWN``) and their table."""
    table: dict[str, int] = {}
    codes = [table.setdefault(v.strip().upper() if isinstance(v, str) else nm.UNKNOWN, len(table))
             for v in values]
    return np.array(codes, dtype=np.int16), list(table)


def _floats(values: list) -> np.ndarray:
    return np.array([float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan
                     for v in values], dtype=np.float64)


def plane_tasks(store: TraceStore, cls: Classification) -> PlaneTasks:
    """Every plane task of ``store`` with its args decoded into columns."""
    planes, owners = plane_lanes(store, cls)
    sl = store.slices
    owner_of_lane = np.full(len(store.lanes) + 1, -2, dtype=np.int32)
    owner_of_lane[planes] = owners
    idx = np.flatnonzero(owner_of_lane[sl.lane] != -2) if len(planes) and len(sl) else np.zeros(0, np.int64)
    args: list[PlaneArgs] = read_plane_args(store, idx)
    size = _ints_fast([a.size for a in args], 0)
    src = _ints_fast([a.src for a in args], -1)
    dst = _ints_fast([a.dst for a in args], -1)
    transport, transports = _codes([a.transport for a in args])
    link_type, link_types = _codes([a.link_type for a in args])
    wait_name = _wait_flags(store, sl.name[idx])
    wait_type = np.array([isinstance(a.task_type, str) and nm.is_wait_task(a.task_type) for a in args], bool)
    real = (src >= 0) & (src < nm.INVALID_RANK) & (dst >= 0) & (dst < nm.INVALID_RANK)
    tasks = PlaneTasks(
        slice=idx.astype(np.int64), lane=sl.lane[idx].astype(np.int32), owner_lane=owner_of_lane[sl.lane[idx]],
        start=sl.start[idx], end=sl.end[idx], wait=wait_name | wait_type,
        transfer=(size > 0) & real & (src != dst), src=src, dst=dst, size=size,
        transport=transport, link_type=link_type, bandwidth=_floats([a.bandwidth for a in args]),
        transports=transports, link_types=link_types,
    )
    return _drop_duplicates(tasks, sl.name[idx], sl.dur[idx])


def _wait_flags(store: TraceStore, name_ids: np.ndarray) -> np.ndarray:
    """Per task: is its name a wait task name (tested once per distinct name)."""
    flags = np.zeros(len(store.strings) + 1, dtype=bool)  # last slot: id -1
    for i in np.unique(name_ids[name_ids >= 0]).tolist():
        flags[i] = nm.is_wait_task(store.strings[i])
    return flags[name_ids]


def _drop_duplicates(t: PlaneTasks, name: np.ndarray, dur: np.ndarray) -> PlaneTasks:
    if len(t) < 2:
        return t
    keys = (t.bandwidth, t.link_type, t.transport, t.size, t.dst, t.src, name, dur, t.start, t.lane)
    order = np.lexsort(keys)
    same = np.ones(len(order) - 1, dtype=bool)
    for k in keys:
        a, b = k[order[1:]], k[order[:-1]]
        same &= (a == b) | (np.isnan(a) & np.isnan(b)) if k.dtype.kind == "f" else a == b
    if not same.any():
        return t
    keep = np.sort(order[np.concatenate(([True], ~same))])
    return PlaneTasks(t.slice[keep], t.lane[keep], t.owner_lane[keep], t.start[keep], t.end[keep], t.wait[keep],
                      t.transfer[keep], t.src[keep], t.dst[keep], t.size[keep], t.transport[keep],
                      t.link_type[keep], t.bandwidth[keep], t.transports, t.link_types)
