"""The plane tasks of one card as columns: where they run, what they move, over which link.

A plane lane is a ``Plane N`` thread of a process classified as ``HCCL`` / ``Communication``
(``analysis.classify``). Each plane lane belongs to the operator-level thread of its process
that precedes it in display order (the group thread is listed before its planes), else to the
first one of the process. Exact duplicates (same lane, start, duration, name and args) are kept
once, whether or not the loader already dropped them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter

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
    copy: np.ndarray  # bool: a Memcpy or Reduce_Inline task (whatever it moves, and between whom)
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


def _field(args: list[PlaneArgs], name: str) -> list:
    return list(map(attrgetter(name), args))


def _distinct(values: list) -> tuple[np.ndarray, list]:
    """int32 code of each value and the distinct values in first-seen order (hashable ones;
    anything else counts as None). The lookups run in C: no Python code per value."""
    try:
        table = {v: i for i, v in enumerate(dict.fromkeys(values))}
    except TypeError:  # a list or object where a number or text belongs
        values = [v if isinstance(v, (int, float, str)) or v is None else None for v in values]
        table = {v: i for i, v in enumerate(dict.fromkeys(values))}
    codes = np.fromiter(map(table.__getitem__, values), dtype=np.int32, count=len(values))
    return codes, list(table)


def _as_int(v, missing: int) -> int:
    """A JSON rank or size as an int: integers, integral numbers and digit strings; else ``missing``."""
    if isinstance(v, bool):
        return missing
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)
    return missing


def _ints(values: list, missing: int) -> np.ndarray:
    """int64 column (each distinct value converted once)."""
    if values and set(map(type, values)) == {int}:  # the usual case, converted in C
        return np.array(values, dtype=np.int64)
    codes, table = _distinct(values)
    return np.array([_as_int(v, missing) for v in table], dtype=np.int64)[codes] if table else \
        np.zeros(0, dtype=np.int64)


def _codes(values: list) -> tuple[np.ndarray, list[str]]:
    """int16 codes of text values (upper case; anything else is ``UNKNOWN``) and their table."""
    raw_codes, raw = _distinct(values)
    table: dict[str, int] = {}
    remap = np.array([table.setdefault(v.strip().upper() if isinstance(v, str) else nm.UNKNOWN, len(table))
                      for v in raw], dtype=np.int16)
    return (remap[raw_codes] if len(raw) else np.zeros(0, dtype=np.int16)), list(table)


def _floats(values: list) -> np.ndarray:
    if values and set(map(type, values)) <= {int, float}:
        return np.array(values, dtype=np.float64)
    codes, table = _distinct(values)
    if not table:
        return np.zeros(0, dtype=np.float64)
    converted = [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan for v in table]
    return np.array(converted, dtype=np.float64)[codes]


def _type_flags(values: list, is_kind: Callable[[str], bool]) -> np.ndarray:
    """Per task: is its task type of a kind (tested once per distinct type)."""
    codes, table = _distinct(values)
    if not table:
        return np.zeros(0, dtype=bool)
    return np.array([isinstance(v, str) and is_kind(v) for v in table], dtype=bool)[codes]


def plane_tasks(store: TraceStore, cls: Classification) -> PlaneTasks:
    """Every plane task of ``store`` with its args decoded into columns."""
    planes, owners = plane_lanes(store, cls)
    sl = store.slices
    owner_of_lane = np.full(len(store.lanes) + 1, -2, dtype=np.int32)
    owner_of_lane[planes] = owners
    idx = np.flatnonzero(owner_of_lane[sl.lane] != -2) if len(planes) and len(sl) else np.zeros(0, np.int64)
    args: list[PlaneArgs] = read_plane_args(store, idx)
    size = _ints(_field(args, "size"), 0)
    src = _ints(_field(args, "src"), -1)
    dst = _ints(_field(args, "dst"), -1)
    transport, transports = _codes(_field(args, "transport"))
    link_type, link_types = _codes(_field(args, "link_type"))
    task_types = _field(args, "task_type")
    wait = _name_flags(store, sl.name[idx], nm.is_wait_task) | _type_flags(task_types, nm.is_wait_task)
    copy = _name_flags(store, sl.name[idx], nm.is_copy_task) | _type_flags(task_types, nm.is_copy_task)
    real = (src >= 0) & (src < nm.INVALID_RANK) & (dst >= 0) & (dst < nm.INVALID_RANK)
    tasks = PlaneTasks(
        slice=idx.astype(np.int64), lane=sl.lane[idx].astype(np.int32), owner_lane=owner_of_lane[sl.lane[idx]],
        start=sl.start[idx], end=sl.end[idx], wait=wait, copy=copy,
        transfer=(size > 0) & real & (src != dst), src=src, dst=dst, size=size,
        transport=transport, link_type=link_type, bandwidth=_floats(_field(args, "bandwidth")),
        transports=transports, link_types=link_types,
    )
    return _drop_duplicates(tasks, sl.name[idx], sl.dur[idx])


def _name_flags(store: TraceStore, name_ids: np.ndarray, is_kind: Callable[[str], bool]) -> np.ndarray:
    """Per task: is its name of a kind (tested once per distinct name)."""
    flags = np.zeros(len(store.strings) + 1, dtype=bool)  # last slot: id -1
    for i in np.unique(name_ids[name_ids >= 0]).tolist():
        flags[i] = is_kind(store.strings[i])
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
                      t.copy[keep], t.transfer[keep], t.src[keep], t.dst[keep], t.size[keep], t.transport[keep],
                      t.link_type[keep], t.bandwidth[keep], t.transports, t.link_types)
