"""Per communication operator, the producer's own transit / wait / synchronisation / idle (metrics.md §6).

The Ascend producers (``communication.json``, the ``CommAnalyzerTime`` table of ``analysis.db``) measure
an operator on one plane, its master (main) plane, and sum durations there rather than take unions
over every plane. That rule, as reproduced here:

* the main plane is the lowest-numbered plane holding a ``Notify_Wait`` of the operator (the plane of
  the master stream; a trace does not say which stream that is). An operator without any wait task
  has none, and no figures.
* The operator's tasks on that plane are read in start order. A ``Memcpy`` / ``Reduce_Inline`` over
  SDMA whose link is not ``ON_CHIP`` adds its duration to transit.
* RDMA: a run of payload sends, then the closing notifies and waits (two notify / wait pairs for a
  collective, one for a send or receive), adds the time from the first payload's start to the last
  closing task's end to transit; the closing waits are not waits. The producer names the payloads
  in an arg the trace format does not carry, so they are found by position: in a run of RDMA tasks
  followed by a wait, every task but the last (the notify) is a payload. When the operator ends
  before the closing tasks, the payloads count for nothing (as the producer skips them).
* Every other ``Notify_Wait`` adds its duration to wait; synchronisation is the part of that sum
  before the first transit (SDMA copy or RDMA payload) on the plane.
* idle = elapse − transit − wait (it may be negative when the plane's tasks overlap or outlive
  the operator: the producer does not clip them either).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from timelineview.analysis.communication import names as nm
from timelineview.analysis.communication.plane_tasks import PlaneTasks
from timelineview.model.store.trace_store import TraceStore

NO_PLANE = -1
# Tasks that close an RDMA payload run: notify, wait, notify, wait for a collective (with its
# barrier); notify, wait for a point-to-point send or receive.
RDMA_CLOSING_COLLECTIVE = 4
RDMA_CLOSING_POINT_TO_POINT = 2
_NUMBER = re.compile(r"\d+")
_NONE_KEY = np.iinfo(np.int64).max


@dataclass
class MainPlane:
    """One row per operator (the rows of ``CommOps``); times int64 ns, 0 where ``plane`` is -1."""

    plane: np.ndarray  # int32: N of the operator's main "Plane N", -1 when it has no wait task
    transit: np.ndarray
    wait: np.ndarray
    synchronization: np.ndarray
    idle: np.ndarray

    def __len__(self) -> int:
        return len(self.plane)

    @property
    def present(self) -> np.ndarray:
        """bool per operator: it has a main plane (and these figures)."""
        return self.plane >= 0


@dataclass(frozen=True)
class MainPlaneTotals:
    """Sums over the operators that have a main plane (ns)."""

    count: int
    transit: int
    wait: int
    synchronization: int
    idle: int


def main_plane_totals(main: MainPlane) -> MainPlaneTotals:
    rows = main.present
    return MainPlaneTotals(int(rows.sum()), int(main.transit[rows].sum()), int(main.wait[rows].sum()),
                           int(main.synchronization[rows].sum()), int(main.idle[rows].sum()))


def plane_numbers(store: TraceStore) -> np.ndarray:
    """int64 per lane of ``store``: the number in its name ("Plane 3" → 3), -1 for none."""
    out = np.full(len(store.lanes) + 1, NO_PLANE, dtype=np.int64)  # last slot: lane -1
    for ln, name in enumerate(store.lanes.name):
        m = _NUMBER.search(name) if nm.PLANE_LANE.match(name.strip()) else None
        if m:
            out[ln] = int(m.group())
    return out


def _runs(flag: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first position, length) of each maximal run of ``flag`` inside one group."""
    n = len(flag)
    same_as_prev = np.zeros(n, dtype=bool)
    same_as_prev[1:] = flag[:-1] & (group[1:] == group[:-1])
    starts = np.flatnonzero(flag & ~same_as_prev)
    if not len(starts):
        return starts, starts
    run_of = np.cumsum(flag & ~same_as_prev) - 1
    lengths = np.bincount(run_of[flag], minlength=len(starts))
    return starts, lengths


def main_plane_times(store: TraceStore, tasks: PlaneTasks, task_op: np.ndarray, op_names: list[str],
                     elapse: np.ndarray) -> MainPlane:
    """The producer's figures of each operator (rows of ``elapse``), from the tasks ``task_op`` assigns."""
    n_ops = len(elapse)
    zeros = np.zeros(n_ops, dtype=np.int64)
    empty = MainPlane(np.full(n_ops, NO_PLANE, dtype=np.int32), zeros, zeros.copy(), zeros.copy(), zeros.copy())
    rows = np.flatnonzero(task_op >= 0)
    if not n_ops or not len(rows):
        return empty
    lanes_n = len(store.lanes) + 1
    number = plane_numbers(store)
    g = task_op[rows]
    lane = tasks.lane[rows].astype(np.int64)
    # The lowest plane number wins; between two lanes of one number (two HCCL processes), the first.
    key = np.maximum(number[lane], 0) * lanes_n + lane
    best = np.full(n_ops, _NONE_KEY, dtype=np.int64)
    waits = tasks.wait[rows]
    np.minimum.at(best, g[waits], key[waits])
    present = best < _NONE_KEY
    main_lane = np.where(present, best % lanes_n, -1)
    on = present[g] & (lane == main_lane[g])
    m, mg = rows[on], g[on]
    order = np.lexsort((m, tasks.start[m], mg))
    m, mg = m[order], mg[order]
    count = len(m)
    pos = np.arange(count)
    dur = tasks.end[m] - tasks.start[m]
    wait = tasks.wait[m]
    sdma = tasks.transports.index(nm.TRANSPORT_SDMA) if nm.TRANSPORT_SDMA in tasks.transports else -1
    rdma = tasks.transports.index(nm.TRANSPORT_RDMA) if nm.TRANSPORT_RDMA in tasks.transports else -1
    on_chip = tasks.link_types.index(nm.LINK_ON_CHIP) if nm.LINK_ON_CHIP in tasks.link_types else -1
    copy = tasks.copy[m] & (tasks.transport[m] == sdma) & (tasks.link_type[m] != on_chip)
    rdma_task = (tasks.transport[m] == rdma) & ~wait
    # The end (exclusive) of each operator's run of positions.
    op_end = np.searchsorted(mg, np.arange(n_ops), side="right")

    # RDMA payload runs: a run of RDMA tasks followed by a wait of the same operator; all but its last
    # task are payloads.
    first, length = _runs(rdma_task, mg)
    after = first + length
    followed = (length >= 2) & (after < count)
    followed[followed] &= wait[after[followed]] & (mg[after[followed]] == mg[first[followed]])
    first, length = first[followed], length[followed]
    payloads = length - 1
    op = mg[first]
    p2p = np.array([bool(nm.POINT_TO_POINT.search(name)) for name in op_names], dtype=bool)
    closing = first + payloads + np.where(p2p[op], RDMA_CLOSING_POINT_TO_POINT, RDMA_CLOSING_COLLECTIVE) - 1
    closed = closing < op_end[op]
    covered_end = np.where(closed, closing, first + payloads - 1)
    # A run that starts inside an earlier run's span is never reached by the producer's pass.
    reach = np.maximum.accumulate(covered_end) if len(covered_end) else covered_end
    before = np.concatenate(([-1], reach[:-1]))
    kept = first > before
    first, covered_end, closed, op = first[kept], covered_end[kept], closed[kept], op[kept]
    depth = np.zeros(count + 1, dtype=np.int64)
    np.add.at(depth, first, 1)
    np.add.at(depth, covered_end + 1, -1)
    visited = np.cumsum(depth[:-1]) == 0

    span = tasks.end[m[covered_end[closed]]] - tasks.start[m[first[closed]]]
    transit = np.bincount(mg[visited & copy], weights=dur[visited & copy], minlength=n_ops)
    transit += np.bincount(op[closed], weights=span, minlength=n_ops)
    counted_wait = visited & wait
    first_transit = np.full(n_ops, count, dtype=np.int64)
    np.minimum.at(first_transit, mg[visited & copy], pos[visited & copy])
    np.minimum.at(first_transit, op[closed], first[closed])
    sync_rows = counted_wait & (pos < first_transit[mg])
    wait_sum = np.bincount(mg[counted_wait], weights=dur[counted_wait], minlength=n_ops)
    sync = np.bincount(mg[sync_rows], weights=dur[sync_rows], minlength=n_ops)
    as_ns = [np.where(present, np.round(x), 0).astype(np.int64) for x in (transit, wait_sum, sync)]
    plane = np.where(present, best // lanes_n, NO_PLANE).astype(np.int32)
    idle = np.where(present, elapse - as_ns[0] - as_ns[1], 0).astype(np.int64)
    return MainPlane(plane, as_ns[0], as_ns[1], as_ns[2], idle)
