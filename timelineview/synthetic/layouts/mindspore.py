"""MindSpore <= 2.1 ``ascend_timeline_display_<rank>.json`` layouts (docs/trace-format.md §4.2, §4.3).

Both write float microseconds relative to the card's first event (the first written event has
``ts`` 0), so the card clock offset of the spec does not show: the ground truth's
``clock_offset_ns`` is minus the true time of that first event.

Gen C (1.3-2.1): ``process_labels`` but no ``process_name``; two identical
``thread_sort_index`` records per device event before all X events; the fixed metadata list
appended at the end; ``Steps``/``Scope Name`` lanes; ``Op Overlap Analyse`` lanes by the
MindSpore rule. Gen B (1.0-1.2): no metadata at all, ``tid`` as strings, no derived lanes. Process labels
and fixed lane names are ``producers.mindspore``'s (which the reader reads them by); the real-sample tests
check those against real files.
"""

from __future__ import annotations

import numpy as np

from timelineview.producers import cann_tasks
from timelineview.producers import mindspore as ms
from timelineview.producers.ascend import METADATA_CATEGORY
from timelineview.producers.ascend_lanes import STREAM_LANE, THREAD_LANE
from timelineview.synthetic.intervals import MindSporeOverlap, union
from timelineview.synthetic.layouts.common import (
    BE_NAMES,
    OVERLAP_NAMES,
    CardWriter,
    be_pairs,
    chunks,
    instants,
    overlapping_host,
)
from timelineview.synthetic.names import POOL
from timelineview.synthetic.spec import GEN_B_LAYOUT, GEN_C_LAYOUT
from timelineview.synthetic.textfmt import us_num, us_num1
from timelineview.synthetic.truth import PHASE_BE
from timelineview.synthetic.workload import KIND_ALLGATHER, KIND_RECEIVE, KIND_SEND, StepWork
from timelineview.synthetic.writer import JsonArrayWriter, fragment_writer

AICPU_PID, COMM_PID, HOST_PID, OVERLAP_PID, ACTIVITY_PID = 9000, 10000, 11000, 12000, 13000
STEPS_TID, SCOPE_TID, HOST_TID, BE_TID = 100000, 100001, 100003, 100004
OVERLAP_TIDS = (7999, 8000, 8001, 8002)
OVERLAP_THREADS = ms.OVERLAP_THREADS
AICORE_STREAMS = (519, 520, 522, 523)
COMM_TID = 528
_OP = {KIND_RECEIVE: "Receive", KIND_SEND: "Send", KIND_ALLGATHER: "AllGather"}
_PROCESS_SORT = {AICPU_PID: 10, COMM_PID: 20, HOST_PID: 30, OVERLAP_PID: 40}
_LABELS = {AICPU_PID: ms.AICPU_LABEL, COMM_PID: ms.COMMUNICATION_LABEL, HOST_PID: ms.HOST_LABEL,
           OVERLAP_PID: ms.OVERLAP_LABEL, ACTIVITY_PID: ms.ACTIVITY_LABEL}


class GenCWriter(CardWriter):
    layout = GEN_C_LAYOUT
    gen_b = False

    def begin(self, first: StepWork) -> None:
        sp, t = self.spec, self.truth
        self.dev = sp.device
        self.streams = AICORE_STREAMS[: sp.streams]
        self.origin = self._origin(first)
        self.shift = -self.origin
        self._short = POOL.short_names()
        self._full = POOL.full_names()
        self._name_ids = t.intern(self._short)
        self._declare_lanes()
        self.overlap = MindSporeOverlap()
        self._dup_tids: list[int] = []  # device tids of duplicated events (their metadata too)
        self.w = JsonArrayWriter(self.sink.open(self.relpath), ",", self.opts.pretty)
        self.xw = self.w
        if not self.gen_b and self.opts.per_event_metadata:
            # X events go to a side file, spliced in after the per-event metadata at the end.
            self.xw = fragment_writer(self.sink.temp(self.relpath), self.w)
            self._sort_meta = {tid: self._sort_record(tid, s) for tid, s in
                               [(STEPS_TID, -4), (SCOPE_TID, -3)] + [(x, x) for x in self.streams]}

    def _origin(self, first: StepWork) -> int:
        """True time of the first written event: ``ts`` 0 in the file."""
        return first.start

    def _tid(self, tid: int) -> str:
        return str(tid)

    def _sort_record(self, tid: int, sort: int) -> str:
        return (f'{{"name": "thread_sort_index", "pid": {self.dev}, "tid": {tid}, "ts": 0, "ph": "M", '
                f'"cat": "{METADATA_CATEGORY}", "args": {{"sort_index": {sort}}}}}')

    def _declare_lanes(self) -> None:
        t, dev = self.truth, self.dev
        self.stream_lane = np.array([t.lane(dev, s, ms.DEVICE_LABEL, STREAM_LANE.format(s), 0, s)
                                     for s in self.streams], np.int32)
        first = self.streams[0]
        self.aicpu_lane = t.lane(AICPU_PID, first, ms.AICPU_LABEL, STREAM_LANE.format(first), 10, first)
        self.comm_lane = t.lane(COMM_PID, COMM_TID, ms.COMMUNICATION_LABEL, STREAM_LANE.format(COMM_TID), 20, COMM_TID)
        self.steps_lane = t.lane(dev, STEPS_TID, ms.DEVICE_LABEL, ms.STEPS_LANE, 0, -4)
        self.scope_lane = t.lane(dev, SCOPE_TID, ms.DEVICE_LABEL, ms.SCOPE_LANE, 0, -3)
        self.host_lane = t.lane(HOST_PID, HOST_TID, ms.HOST_LABEL, ms.HOST_LANE, 30, -1)
        self.be_lane = t.lane(HOST_PID, BE_TID, ms.HOST_LABEL, THREAD_LANE.format(BE_TID), 30, BE_TID)
        self.ov_lanes = [t.lane(OVERLAP_PID, tid, ms.OVERLAP_LABEL, name, 40, tid)
                         for tid, name in zip(OVERLAP_TIDS, OVERLAP_THREADS)]

    # --- events ---------------------------------------------------------------------------------

    def write_step(self, st: StepWork, last: bool) -> None:
        t, sh = self.truth, self.shift
        lines: list[str] = []
        dev_tids: list[int] = []
        dups: list[str] = []
        self._ops(st, dups)
        self._comm(st, lines, dups)
        if not self.gen_b:
            self._steps_and_scopes(st, lines, dev_tids)
            self._overlap(st, lines)
        self._extras(st, last, lines)
        t.step(st.start + sh, st.end + sh, st.fp + sh, st.bp + sh)
        self._emit(lines + dups, dev_tids + self._dup_tids)
        self._dup_tids = []

    def _emit(self, lines: list[str], dev_tids: list[int]) -> None:
        """Write events; Gen C first writes two ``thread_sort_index`` records per device event."""
        if self.xw is not self.w:
            meta = self._sort_meta
            self.w.add([m for tid in dev_tids for m in (meta[tid], meta[tid])])
        self.xw.add(lines)

    def _x(self, name: str, tid: int, ts: str, dur: str, pid: int, tail: str = "") -> str:
        return (f'{{"name": "{name}", "ph": "X", "tid": {self._tid(tid)}, "ts": {ts}, "dur": {dur}, '
                f'"pid": {pid}{tail}}}')

    def _ops(self, st: StepWork, dups: list[str]) -> None:
        """AI Core ops on their stream lanes, AI CPU ops on pid 9000; some carry type/fullname args."""
        t, sh = self.truth, self.shift
        c = np.flatnonzero(~st.other)
        kind, start, dur, dup = st.kind[c], st.item_start[c] + sh, st.item_dur[c], st.duplicate[c]
        aicpu = np.array([POOL.task_type[k] == cann_tasks.AI_CPU for k in kind.tolist()], bool)
        sid = np.array(self.streams)[st.stream[c]]
        aicpu_tid = 0 if self.gen_b else self.streams[0]
        for sl in chunks(len(c)):
            lines, dev_tids = [], []
            ts, du = us_num(start[sl]), us_num(dur[sl])
            for i, (k, s, cpu) in enumerate(zip(kind[sl].tolist(), sid[sl].tolist(), aicpu[sl].tolist())):
                tail = "" if k % 3 else \
                    f', "args": {{"type": "{POOL.base[k]}", "fullname": "{self._full[k]}"}}'
                if cpu:
                    lines.append(self._x(self._short[k], aicpu_tid, ts[i], du[i], AICPU_PID, tail))
                else:
                    lines.append(self._x(self._short[k], s, ts[i], du[i], self.dev, tail))
                    dev_tids.append(s)
            for i in np.flatnonzero(dup[sl]).tolist():
                dups.append(lines[i])
                if not aicpu[sl][i]:
                    self._dup_tids.append(int(sid[sl][i]))
            self._emit(lines, dev_tids)
        lane = np.where(aicpu, self.aicpu_lane, self.stream_lane[st.stream[c]])
        t.add(lane, start, dur, self._name_ids[kind], "compute", copies=1 + dup)

    def _comm(self, st: StepWork, lines: list[str], dups: list[str]) -> None:
        t, sh = self.truth, self.shift
        start, dur = st.op_start + sh, st.op_end - st.op_start
        ts, du = us_num(start), us_num(dur)
        for j, kind in enumerate(st.op_kind):
            name = self.comm_name(kind, j)
            lines.append(self._x(name, COMM_TID, ts[j], du[j], COMM_PID))
            copies = 2 if (self.spec.with_duplicates and j == 0) else 1
            if copies == 2:
                dups.append(lines[-1])
            t.add(self.comm_lane, [start[j]], [dur[j]], name, "comm_op", copies=copies)

    def comm_name(self, kind: int, slot: int) -> str:
        return f"stream_{COMM_TID}_{slot}_{_OP.get(kind, 'AllReduce')}-op{2068 + 13 * slot}"

    def _steps_and_scopes(self, st: StepWork, lines: list[str], dev_tids: list[int]) -> None:
        t, sh = self.truth, self.shift
        a, d = st.start + sh, st.end - st.start
        lines.append(self._x(str(st.index), STEPS_TID, us_num1(a), us_num1(d), self.dev))
        dev_tids.append(STEPS_TID)
        t.add(self.steps_lane, [a], [d], str(st.index), "step_marker")
        for name, level, s, e in _scopes(st):
            lines.append(self._x(name, SCOPE_TID, us_num1(s + sh), us_num1(e - s), self.dev,
                                 f', "scope_level": {level}'))
            dev_tids.append(SCOPE_TID)
            t.add(self.scope_lane, [s + sh], [e - s], name, "scope")

    def _overlap(self, st: StepWork, lines: list[str]) -> None:
        t, sh = self.truth, self.shift
        c = ~st.other
        lanes = self.overlap.step(union(st.item_start[c], st.item_start[c] + st.item_dur[c]),
                                  union(st.op_start, st.op_end))
        for i, (s, e) in enumerate(lanes):
            name, tid = MindSporeOverlap.LANES[i], OVERLAP_TIDS[i]
            ts, du = us_num(s + sh), us_num(e - s)
            lines.extend(self._x(name, tid, a, b, OVERLAP_PID) for a, b in zip(ts, du))
            t.add(self.ov_lanes[i], s + sh, e - s, name, "overlap_lane")

    def _extras(self, st: StepWork, last: bool, lines: list[str]) -> None:
        t, sh = self.truth, self.shift
        if self.spec.with_overlaps:
            s, d = overlapping_host(st)
            ts, du = us_num(s + sh), us_num(d)
            lines.extend(self._x(OVERLAP_NAMES[i], HOST_TID, ts[i], du[i], HOST_PID) for i in range(len(s)))
            t.add(self.host_lane, s + sh, d, t.intern(OVERLAP_NAMES), "host")
        if self.opts.be_events:
            pairs, open_b = be_pairs(st, last)
            ev = []
            for a, b, name in pairs:
                ev += [(a, self._be("B", name, a + sh)), (b, self._be("E", name, b + sh))]
                t.add(self.be_lane, [a + sh], [b - a], name, "host", phase=PHASE_BE)
            if open_b is not None:
                ev.append((open_b[0], self._be("B", BE_NAMES[2], open_b[0] + sh)))
                t.open_b_events += 1
            lines.extend(x for _, x in sorted(ev, key=lambda p: p[0]))
        if self.opts.instants:
            tid = self.streams[0] if self.gen_b else STEPS_TID
            for a, name in instants(st):
                lines.append(f'{{"name": "{name}", "ph": "i", "tid": {self._tid(tid)}, '
                             f'"ts": {us_num1(a + sh)}, '
                             f'"pid": {self.dev}}}')
                t.instant_events += 1

    def _be(self, ph: str, name: str, ts: int) -> str:
        return (f'{{"name": "{name}", "ph": "{ph}", "tid": {self._tid(BE_TID)}, "ts": {us_num1(ts)}, '
                f'"pid": {HOST_PID}}}')

    # --- end of file ----------------------------------------------------------------------------

    def finish(self) -> dict:
        if self.xw is not self.w:
            self.w.add_fragment(self.xw)
        if not self.gen_b:
            self.w.add(self._fixed_metadata())
        self.w.close()
        return {"paths": [str(p) for p in self.sink.paths()], "time_base_ns": 0,
                "clock_offset_ns": -self.origin, "step_source": "" if self.gen_b else "steps_lane"}

    def _fixed_metadata(self) -> list[str]:
        """``get_thread_label_name()``: labels and sort indexes of the fixed processes and threads."""
        dev = self.dev
        labels = [(dev, ms.DEVICE_LABEL)] + list(_LABELS.items())
        out = [_pm("process_labels", pid, "labels", f'"{label}"') for pid, label in labels]
        out += [_pm("process_sort_index", pid, "sort_index", str(s))
                for pid, s in [(dev, 0)] + list(_PROCESS_SORT.items())]
        threads = [(HOST_PID, HOST_TID, ms.HOST_LANE, -1)]
        threads += [(OVERLAP_PID, tid, n, tid) for tid, n in zip(OVERLAP_TIDS, OVERLAP_THREADS)]
        threads += [(dev, STEPS_TID, ms.STEPS_LANE, -4), (dev, 0, "Ops", 0)]
        out += [_tm("thread_name", p, tid, "name", f'"{n}"') for p, tid, n, _ in threads]
        out += [_tm("thread_sort_index", p, tid, "sort_index", str(s)) for p, tid, _, s in threads]
        return out


class GenBWriter(GenCWriter):
    """MindSpore 1.0-1.2: no metadata, string ``tid``; process names come from the fixed pids."""

    layout = GEN_B_LAYOUT
    gen_b = True

    def _origin(self, first: StepWork) -> int:
        return min(first.fp, int(first.op_start.min()))

    def _tid(self, tid: int) -> str:
        return f'"{tid}"'

    def comm_name(self, kind: int, slot: int) -> str:
        return f"stream_{COMM_TID}_parallel_{slot}"

    def _declare_lanes(self) -> None:
        t, dev = self.truth, self.dev
        process = f"Device {dev}"
        self.stream_lane = np.array([t.lane(dev, s, process, STREAM_LANE.format(s), dev, s) for s in self.streams],
                                    np.int32)
        self.aicpu_lane = t.lane(AICPU_PID, 0, ms.AICPU_LABEL, STREAM_LANE.format(0), AICPU_PID, 0)
        self.comm_lane = t.lane(COMM_PID, COMM_TID, ms.COMMUNICATION_LABEL, STREAM_LANE.format(COMM_TID), COMM_PID,
                                COMM_TID)
        self.host_lane = t.lane(HOST_PID, HOST_TID, ms.HOST_LABEL, THREAD_LANE.format(HOST_TID), HOST_PID, HOST_TID)
        self.be_lane = t.lane(HOST_PID, BE_TID, ms.HOST_LABEL, THREAD_LANE.format(BE_TID), HOST_PID, BE_TID)


def _scopes(st: StepWork) -> list[tuple[str, int, int, int]]:
    """Scope Name rows (name, level, start, end) over the primary stream's forward/backward ops."""
    prim = ~st.other & (st.stream == 0)
    out = []
    for fwd, top, sub in ((True, "Default", "network-WithLossCell"), (False, "Gradients", "Default")):
        m = prim & (st.forward == fwd)
        if not m.any():
            continue
        a, b = int(st.item_start[m].min()), int((st.item_start + st.item_dur)[m].max())
        out += [(top, 0, a, b), (sub, 1, a, b)]
        if fwd:
            mid = a + (b - a) * 4 // 5
            out += [("_backbone-Net", 2, a, mid), ("_loss_fn-SoftmaxCrossEntropyWithLogits", 2, mid, b)]
    return out


def _pm(name: str, pid: int, key: str, value: str) -> str:
    return (f'{{"name": "{name}", "ph": "M", "pid": {pid}, "ts": 0, "cat": "{METADATA_CATEGORY}", '
            f'"args": {{"{key}": {value}}}}}')


def _tm(name: str, pid: int, tid: int, key: str, value: str) -> str:
    return (f'{{"name": "{name}", "ph": "M", "pid": {pid}, "tid": {tid}, "ts": 0, "cat": "{METADATA_CATEGORY}", '
            f'"args": {{"{key}": {value}}}}}')
