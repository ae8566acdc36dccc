"""Collects a card's ground truth step by step while its file is written."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.synthetic.comm.comm_truth import CommTruth
from timelineview.synthetic.truth import CATEGORIES, PHASE_X, GroundTruth


@dataclass
class _Lane:
    pid: str
    tid: str
    process: str
    thread: str
    process_sort: int
    thread_sort: int


class TruthBuilder:
    """Lanes are declared by the layout; slices are added per step as numpy chunks."""

    def __init__(self, layout: str, rank: int, device_id: int) -> None:
        self.layout, self.rank, self.device_id = layout, rank, device_id
        self._lanes: list[_Lane] = []
        self._lane_ids: dict[tuple[str, str], int] = {}
        self._names: dict[str, int] = {}
        self._types: dict[str, int] = {"": 0}
        self._chunks: list[tuple[np.ndarray, ...]] = []
        self._steps: list[tuple[int, int, int, int]] = []
        self._series: set[tuple[str, str, str]] = set()
        self.counter_events = self.flow_edges = self.instant_events = self.open_b_events = 0
        self.aux_x_events: dict[str, int] = {}
        self.comm = CommTruth()

    def lane(self, pid: int | str, tid: int | str, process: str, thread: str,
             process_sort: int, thread_sort: int) -> int:
        """Declare (or find) the lane of (pid, tid) with its display names and sort keys."""
        key = (str(pid), str(tid))
        if key not in self._lane_ids:
            self._lane_ids[key] = len(self._lanes)
            self._lanes.append(_Lane(key[0], key[1], process, thread, process_sort, thread_sort))
        return self._lane_ids[key]

    def intern(self, names: list[str]) -> np.ndarray:
        """Name ids for ``names`` (use once per distinct list, e.g. an operator pool)."""
        ids = self._names
        return np.array([ids.setdefault(n, len(ids)) for n in names], np.int32)

    def task_type(self, name: str) -> int:
        return self._types.setdefault(name, len(self._types))

    def add(self, lane, start, dur, names, category: str, task_types=0, copies=1,
            phase: int = PHASE_X) -> None:
        """Add slices: ``lane``/``task_types``/``copies`` per row or scalar; ``names`` are name
        ids (array) or one string for all rows."""
        start = np.asarray(start, np.int64)
        n = len(start)
        if not n:
            return
        if isinstance(names, str):
            names = np.full(n, self.intern([names])[0], np.int32)
        cols = (
            start,
            np.asarray(dur, np.int64),
            np.broadcast_to(np.asarray(lane, np.int32), (n,)).copy(),
            np.asarray(names, np.int32),
            np.broadcast_to(np.asarray(task_types, np.int16), (n,)).copy(),
            np.full(n, CATEGORIES.index(category), np.uint8),
            np.broadcast_to(np.asarray(copies, np.uint8), (n,)).copy(),
            np.full(n, phase, np.uint8),
        )
        if (cols[1] < 0).any():
            raise AssertionError("negative duration")
        self._chunks.append(cols)

    def step(self, start: int, end: int, fp: int, bp: int) -> None:
        self._steps.append((start, end, fp, bp))

    def counters(self, pid: int | str, name: str, key: str, n: int) -> None:
        self._series.add((str(pid), name, key))
        self.counter_events += n

    def finish(self, **meta) -> GroundTruth:
        """Build the GroundTruth: lanes in display order, lanes without slices dropped."""
        cols = [np.concatenate([c[i] for c in self._chunks]) for i in range(8)] if self._chunks else \
            [np.zeros(0, t) for t in (np.int64, np.int64, np.int32, np.int32, np.int16, np.uint8,
                                      np.uint8, np.uint8)]
        used = np.unique(cols[2])
        order = sorted(used.tolist(), key=lambda i: _sort_key(self._lanes[i]))
        remap = np.full(len(self._lanes), -1, np.int32)
        remap[order] = np.arange(len(order), dtype=np.int32)
        lanes = [self._lanes[i] for i in order]
        steps = np.array(self._steps, np.int64).reshape(-1, 4)
        copies = cols[6]
        is_x = cols[7] == PHASE_X
        return GroundTruth(
            layout=self.layout, rank=self.rank, device_id=self.device_id,
            lane_pid=[x.pid for x in lanes], lane_tid=[x.tid for x in lanes],
            lane_process=[x.process for x in lanes], lane_thread=[x.thread for x in lanes],
            start_ns=cols[0], dur_ns=cols[1], lane=remap[cols[2]], name=cols[3], task_type=cols[4],
            category=cols[5], copies=copies, phase=cols[7],
            names=list(self._names), task_types=list(self._types),
            step_start_ns=steps[:, 0].copy(), step_end_ns=steps[:, 1].copy(),
            step_fp_ns=steps[:, 2].copy(), step_bp_ns=steps[:, 3].copy(),
            counter_events=self.counter_events, counter_series=len(self._series),
            flow_edges=self.flow_edges, instant_events=self.instant_events,
            open_b_events=self.open_b_events,
            x_events=int(copies[is_x].sum()), duplicate_x=int((copies[is_x] - 1).sum()),
            aux_x_events=dict(self.aux_x_events), comm_ops=self.comm.ops, links=self.comm.links(), **meta,
        )


def _sort_key(lane: _Lane) -> tuple[int, int, int, int]:
    """Display order: process sort index, pid, thread sort index, tid (docs/trace-format.md §9.3)."""
    return (lane.process_sort, _num(lane.pid), lane.thread_sort, _num(lane.tid))


def _num(token: str) -> int:
    try:
        return int(token)
    except ValueError:
        return 0
