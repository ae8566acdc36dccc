"""Per communication operator: elapse, transit, wait, synchronisation, idle, wait ratio (metrics.md §6).

Each plane task belongs to the communication operator of its plane's operator-level thread
(``plane_tasks``) whose window [start, end] contains the task's start; when several do, the one
that starts last. A task whose start lies in no operator of its thread is given to any operator
of the card that contains it, else to none (it still counts for its link).

Cases §6 leaves open, decided here:

* Tasks are clipped to their operator's window, so a task that outlives its operator counts only
  up to the operator's end and ``idle_us`` is never negative.
* ``synchronization_us`` of an operator without any transfer task is its whole ``wait_us`` (all
  of that wait comes before a transfer, as there is none).
* Zero-length tasks occupy no time.

Next to these unions over every plane, ``main`` holds the producer's own figures, measured on each
operator's main plane alone (``main_plane``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.classify import Classification
from timelineview.analysis.communication.main_plane import MainPlane, main_plane_times
from timelineview.analysis.communication.names import operator_kind
from timelineview.analysis.communication.plane_tasks import PlaneTasks
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore

NO_OPERATOR = -1
_KEY_LIMIT = 1 << 62  # composite (operator, time) keys must stay inside int64


@dataclass
class CommOps:
    """One row per communication operator of a card, in start order (times int64 ns)."""

    slice: np.ndarray  # int64 slice index
    name: list[str]
    start: np.ndarray  # int64, file time
    elapse: np.ndarray  # int64 ns: the operator's duration
    transit: np.ndarray  # |U(transfer tasks)|
    wait: np.ndarray  # |U(wait tasks) − U(transfer tasks)|
    synchronization: np.ndarray  # the part of wait before the first transfer task
    idle: np.ndarray  # elapse − |U(transfer) ∪ U(wait)|
    tasks: np.ndarray  # int64 plane tasks assigned to the operator
    step: np.ndarray  # int32 step number holding the operator's start, -1 without steps
    main: MainPlane | None = None  # the producer's per-operator figures (None: not known, e.g. a summary)

    def __len__(self) -> int:
        return len(self.slice)

    @property
    def wait_ratio(self) -> np.ndarray:
        """wait / (wait + transit) per operator, NaN when both are 0."""
        return ratio(self.wait, self.transit)


def ratio(wait: np.ndarray, transit: np.ndarray) -> np.ndarray:
    both = (wait + transit).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(both > 0, wait / np.where(both > 0, both, 1.0), np.nan)


@dataclass(frozen=True)
class OpTotals:
    """Sums over a set of operators (ns); ``wait_ratio`` of the sums, None when both are 0."""

    count: int
    elapse: int
    transit: int
    wait: int
    synchronization: int
    idle: int

    @property
    def wait_ratio(self) -> float | None:
        both = self.wait + self.transit
        return self.wait / both if both else None


def totals(ops: CommOps, rows: np.ndarray | None = None) -> OpTotals:
    """Sums over ``rows`` (all operators when None)."""
    rows = np.arange(len(ops)) if rows is None else np.asarray(rows)
    return OpTotals(len(rows), int(ops.elapse[rows].sum()), int(ops.transit[rows].sum()),
                    int(ops.wait[rows].sum()), int(ops.synchronization[rows].sum()), int(ops.idle[rows].sum()))


def by_name(ops: CommOps) -> dict[str, OpTotals]:
    """Totals per collective (``names.operator_kind``: the name without its call numbers), by name."""
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(ops.name):
        groups.setdefault(operator_kind(name), []).append(i)
    return {k: totals(ops, np.array(v)) for k, v in sorted(groups.items())}


def by_step(ops: CommOps) -> dict[int, OpTotals]:
    """Totals per step number (operators outside every step are left out)."""
    return {int(s): totals(ops, np.flatnonzero(ops.step == s)) for s in np.unique(ops.step) if s >= 0}


def _find_containing(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per time in ``t``: the position of the latest-starting window [start, end] holding it, else -1.
    ``starts`` must be sorted."""
    if not len(starts) or not len(t):
        return np.full(len(t), NO_OPERATOR, dtype=np.int64)
    cand = np.searchsorted(starts, t, side="right") - 1
    ok = cand >= 0
    c = np.maximum(cand, 0)
    hit = ok & (ends[c] >= t)
    # An earlier, longer window may still hold t: the one reaching furthest among those before.
    reach_pos = _running_argmax(ends)
    far = reach_pos[c]
    late = ok & ~hit & (ends[far] >= t)
    return np.where(hit, c, np.where(late, far, NO_OPERATOR))


def _running_argmax(x: np.ndarray) -> np.ndarray:
    """Position of the maximum of x[:i + 1] for each i (the latest one on ties)."""
    running = np.maximum.accumulate(x)
    is_new = np.ones(len(x), dtype=bool)
    is_new[1:] = x[1:] >= running[:-1]
    pos = np.where(is_new, np.arange(len(x)), 0)
    return np.maximum.accumulate(pos)


def assign(ops_lane: np.ndarray, ops_start: np.ndarray, ops_end: np.ndarray, tasks: PlaneTasks) -> np.ndarray:
    """Operator row of each task (operators in start order), or -1."""
    out = np.full(len(tasks), NO_OPERATOR, dtype=np.int64)
    for lane in np.unique(tasks.owner_lane).tolist():
        rows = np.flatnonzero(ops_lane == lane)
        mine = np.flatnonzero(tasks.owner_lane == lane)
        found = _find_containing(ops_start[rows], ops_end[rows], tasks.start[mine])
        out[mine[found >= 0]] = rows[found[found >= 0]]
    rest = np.flatnonzero(out < 0)
    if len(rest):
        found = _find_containing(ops_start, ops_end, tasks.start[rest])
        out[rest[found >= 0]] = found[found >= 0]
    return out


def grouped_union(group: np.ndarray, start: np.ndarray, end: np.ndarray, base: np.ndarray,
                  n_groups: int) -> np.ndarray:
    """|U([start, end))| per group (int64 ns); ``base[g]`` ≤ every start of group g."""
    out = np.zeros(n_groups, dtype=np.int64)  # float sums below are exact up to 2^53 ns (104 days)
    keep = end > start
    group, start, end = group[keep], start[keep], end[keep]
    if not len(group):
        return out
    rel_s, rel_e = start - base[group], end - base[group]
    span = int(rel_e.max()) + 1
    if span * n_groups >= _KEY_LIMIT:  # absurdly long operators: one group at a time
        for g in np.unique(group).tolist():
            m = group == g
            out[g] = grouped_union(np.zeros(int(m.sum()), np.int64), rel_s[m], rel_e[m], np.zeros(1, np.int64),
                                   1)[0]
        return out
    ks, ke = group * span + rel_s, group * span + rel_e
    order = np.argsort(ks, kind="stable")
    ks, ke, group = ks[order], ke[order], group[order]
    reach = np.maximum.accumulate(ke)
    before = np.concatenate((ks[:1], reach[:-1]))
    gained = np.maximum(ke - np.maximum(ks, before), 0)
    return np.bincount(group, weights=gained, minlength=n_groups).round().astype(np.int64)


def comm_ops(store: TraceStore, cls: Classification, tasks: PlaneTasks,
             steps: list[StepWindow] | None = None) -> tuple[CommOps, np.ndarray]:
    """The operators of a card with their §6 times, and each task's operator row (or -1)."""
    sl = store.slices
    idx = np.flatnonzero(cls.communication)
    idx = idx[np.lexsort((sl.end[idx], sl.start[idx]))]
    o_start, o_end, o_lane = sl.start[idx], sl.end[idx], sl.lane[idx]
    n = len(idx)
    op_of = assign(o_lane, o_start, o_end, tasks)
    inside = op_of >= 0
    g = op_of[inside]
    s = np.maximum(tasks.start[inside], o_start[g])
    e = np.minimum(tasks.end[inside], o_end[g])
    xfer, wait = tasks.transfer[inside], tasks.wait[inside]
    transit = grouped_union(g[xfer], s[xfer], e[xfer], o_start, n)
    busy_rows = xfer | wait
    busy = grouped_union(g[busy_rows], s[busy_rows], e[busy_rows], o_start, n)
    first_xfer = o_end.copy()
    np.minimum.at(first_xfer, g[xfer], s[xfer])
    sync_end = np.minimum(e[wait], first_xfer[g[wait]])
    sync = grouped_union(g[wait], s[wait], sync_end, o_start, n)
    names = [store.strings[i] if i >= 0 else "" for i in sl.name[idx].tolist()]
    ops = CommOps(
        slice=idx.astype(np.int64), name=names, start=o_start, elapse=o_end - o_start, transit=transit,
        wait=busy - transit, synchronization=sync, idle=(o_end - o_start) - busy,
        tasks=np.bincount(g, minlength=n).astype(np.int64), step=_steps_of(o_start, steps or []),
    )
    ops.main = main_plane_times(store, tasks, op_of, names, ops.elapse)
    return ops, op_of


def _steps_of(t: np.ndarray, steps: list[StepWindow]) -> np.ndarray:
    """Step number whose [start, end) holds each time, -1 for none."""
    out = np.full(len(t), -1, dtype=np.int32)
    if not steps:
        return out
    order = sorted(steps, key=lambda w: w.start)
    starts = np.array([w.start for w in order], dtype=np.int64)
    ends = np.array([w.end for w in order], dtype=np.int64)
    numbers = np.array([w.step for w in order], dtype=np.int32)
    pos = np.searchsorted(starts, t, side="right") - 1
    ok = (pos >= 0) & (t < ends[np.maximum(pos, 0)])
    out[ok] = numbers[pos[ok]]
    return out
