"""Build small ``TraceStore``s directly from Python lists, for analysis tests."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.model.store.store_factory import store_from_columns
from timelineview.model.store.trace_store import LaneTable, ProcessTable, TraceStore

HW = "Ascend Hardware/Stream 2"
HW2 = "Ascend Hardware/Stream 3"
COMM = "HCCL/Group 0 Communication"
PLANE = "HCCL/Plane 0"


@dataclass
class Sl:
    """One slice: ``lane`` is "<process name>/<lane name>"."""

    lane: str
    name: str
    start: int
    dur: int
    task_type: str | None = None
    args: dict | None = None


@dataclass
class Layout:
    """Optional pids, labels and tids; defaults are made up in first-seen order."""

    pids: dict[str, str] = field(default_factory=dict)  # process name -> pid text
    labels: dict[str, str] = field(default_factory=dict)  # process name -> label
    tids: dict[str, str] = field(default_factory=dict)  # lane key -> tid text
    extra_lanes: list[str] = field(default_factory=list)  # lanes without slices


def _intern(strings: list[str], ids: dict[str, int], s: str) -> int:
    if s not in ids:
        ids[s] = len(strings)
        strings.append(s)
    return ids[s]


def build_store(slices: list[Sl], layout: Layout | None = None, card: str = "rank 0",
                rank: int | None = 0, paths: tuple[str, ...] = ("card.json",)) -> TraceStore:
    """A store holding ``slices`` (any order); args are served by a fake lazy reader."""
    layout = layout or Layout()
    lane_keys: list[str] = []
    for key in [s.lane for s in slices] + layout.extra_lanes:
        if key not in lane_keys:
            lane_keys.append(key)
    proc_names: list[str] = []
    for key in lane_keys:
        p = key.split("/", 1)[0]
        if p not in proc_names:
            proc_names.append(p)
    strings: list[str] = []
    ids: dict[str, int] = {}
    processes = ProcessTable(
        pid=[layout.pids.get(p, str(1000 + i)) for i, p in enumerate(proc_names)],
        name=list(proc_names),
        label=[layout.labels.get(p, "") for p in proc_names],
        sort_index=np.arange(len(proc_names), dtype=np.int64),
    )
    lanes = LaneTable(
        process=np.array([proc_names.index(k.split("/", 1)[0]) for k in lane_keys], dtype=np.int32),
        tid=[layout.tids.get(k, str(i)) for i, k in enumerate(lane_keys)],
        name=[k.split("/", 1)[1] for k in lane_keys],
        sort_index=np.arange(len(lane_keys), dtype=np.int64),
    )
    start = np.array([s.start for s in slices], dtype=np.int64)
    dur = np.array([s.dur for s in slices], dtype=np.int64)
    lane = np.array([lane_keys.index(s.lane) for s in slices], dtype=np.int32)
    name = np.array([_intern(strings, ids, s.name) for s in slices], dtype=np.int32)
    task_type = np.array([_intern(strings, ids, s.task_type) if s.task_type is not None else -1
                          for s in slices], dtype=np.int32)
    args = [s.args for s in slices]
    return store_from_columns(start, dur, lane, name, strings, processes, lanes, task_type=task_type,
                              card=card, rank=rank, paths=paths, args=lambda src: [args[int(i)] for i in src])


def msprof_card(compute: list[tuple[int, int]], comm: list[tuple[int, int]],
                other: list[tuple[int, int]] = (), extra: list[Sl] = (), **kw) -> TraceStore:
    """An msprof-style card: compute (start, end) alternate on two streams as AI_CORE tasks,
    communication operators on the HCCL group lane, ``other`` as Notify Wait tasks."""
    slices = [Sl(HW if k % 2 == 0 else HW2, f"op{k}", s, e - s, "AI_CORE")
              for k, (s, e) in enumerate(compute)]
    slices += [Sl(COMM, f"hcom_allReduce_{k}", s, e - s) for k, (s, e) in enumerate(comm)]
    slices += [Sl(HW, "Notify_Wait", s, e - s, "Notify Wait") for s, e in other]
    slices += list(extra)
    return build_store(slices, **kw)
