"""CANN 8 / torch_npu ``trace_view.json`` layout (docs/trace-format.md §4.7), and its ``object`` wrap.

String ``ts`` in epoch microseconds with exactly three decimals, float ``dur``, bit-packed
pids ``(host_pid << 10) | (sort << 5) | device``. The host pid is chosen above 2^22 so the
packed pids exceed 2^32 (a loader must keep pids as int64 or text). Metadata comes first, with
the ``Ascend Hardware`` ``process_name`` written twice. Process, lane, task and step names are the producers'
modules' (which the reader reads them by); the real-sample tests check those against real files.
"""

from __future__ import annotations

import numpy as np

from timelineview.producers import cann_tasks as cann
from timelineview.producers import torch_npu
from timelineview.producers.ascend import (
    CANN_PROCESS,
    COMMUNICATION_PROCESS,
    FREQUENCY_COUNTER,
    FREQUENCY_PROCESS,
    HARDWARE_PROCESS,
    HBM_PROCESS,
    HBM_READ_COUNTER,
    HBM_READ_UNIT,
    HBM_WRITE_COUNTER,
    HBM_WRITE_UNIT,
    MEMORY_COUNTER,
    MEMORY_HBM,
    MEMORY_OWNER_APP,
    MEMORY_OWNER_DEVICE,
    MEMORY_PROCESS,
    OVERLAP_PROCESS,
)
from timelineview.producers.ascend_lanes import GROUP_LANE, STREAM_LANE, THREAD_LANE
from timelineview.producers.cann_tasks import ACL_PREFIX, THREAD_ID_ARG
from timelineview.producers.hccl import PLANE_LANE_NAME
from timelineview.producers.msprof import STEP_TRACE_LANE
from timelineview.producers.torch_npu import PYTHON_PROCESS
from timelineview.synthetic.intervals import CannOverlap, union
from timelineview.synthetic.layouts import hccl
from timelineview.synthetic.layouts import msprof_events as ev
from timelineview.synthetic.layouts.common import (
    OVERLAP_NAMES,
    CardWriter,
    be_pairs,
    chunks,
    comm_tasks,
    instants,
    is_p2p,
    overlapping_host,
)
from timelineview.synthetic.layouts.steptrace import step_trace
from timelineview.synthetic.names import OTHER_TASKS, OTHER_TYPED_TASKS, POOL, aten_names
from timelineview.synthetic.spec import MSPROF_LAYOUT, OBJECT_LAYOUT
from timelineview.synthetic.textfmt import us_num, us_num1, us_str, us_str1
from timelineview.synthetic.truth import PHASE_BE
from timelineview.synthetic.workload import StepWork
from timelineview.synthetic.writer import JsonArrayWriter

EPOCH_BASE_NS = 1_736_412_474_000_000_000
HOST_PID_BASE = 4_300_017
COMPUTE_STREAMS = (2, 3, 6, 7)
COMM_STREAM = 4
DP_GROUP_NAME, PP_GROUP_NAME = "16898834563344171674", "7482915627384910251"
_HW_COMM = ((cann.NOTIFY_WAIT_TASK, cann.NOTIFY_WAIT_TASK), (cann.SDMA, cann.SDMA),
            (cann.WRITE_VALUE_TASK, cann.WRITE_VALUE_TASK))
_HW_COMM_OTHER = ((cann.NOTIFY_WAIT, cann.OTHER_TASK), (cann.REDUCE_ASYNC_V2, cann.OTHER_TASK),
                  (cann.OTHER_TASK, cann.OTHER_TASK))  # task_types="other"
_OTHER = cann.OTHER_TASK
_NPU_MEM = MEMORY_PROCESS
# the NPU MEM counters give the application's device memory (APP) and the whole device's (Device: APP's and
# what the driver and other processes hold), in KB
APP_MEMORY_KB, MEMORY_STEP_KB, MEMORY_STEPS = 2160232.0, 4096.0, 16
DEVICE_EXTRA_KB = 251904.0
_APP_HBM, _DEVICE_HBM = (MEMORY_COUNTER.format(owner, MEMORY_HBM) for owner in (MEMORY_OWNER_APP, MEMORY_OWNER_DEVICE))
_COUNTERS = ((FREQUENCY_PROCESS, FREQUENCY_COUNTER, "MHz"), (_NPU_MEM, _APP_HBM, "KB"), (_NPU_MEM, _DEVICE_HBM, "KB"),
             (HBM_PROCESS, HBM_READ_COUNTER.format(0), HBM_READ_UNIT),
             (HBM_PROCESS, HBM_WRITE_COUNTER.format(0), HBM_WRITE_UNIT))
_SORT = {PYTHON_PROCESS: 0, CANN_PROCESS: 7, HARDWARE_PROCESS: 13, FREQUENCY_PROCESS: 14, COMMUNICATION_PROCESS: 15,
         HBM_PROCESS: 17, MEMORY_PROCESS: 19, OVERLAP_PROCESS: 23}
MODEL_ID = 2  # of the Step Trace lane


class MsprofWriter(CardWriter):
    layout = MSPROF_LAYOUT

    def begin(self, first: StepWork) -> None:
        sp, t = self.spec, self.truth
        self.host = HOST_PID_BASE + 131 * sp.rank
        self.pid = {name: (self.host << 10) | (sort << 5) | sp.device for name, sort in _SORT.items()}
        self.pid[PYTHON_PROCESS] = self.host
        self.streams = COMPUTE_STREAMS[: sp.streams]
        self._all_other = self.opts.task_types == "other"
        if self._all_other:
            self._names = POOL.torch_names() + [o[0] for o in OTHER_TYPED_TASKS]
            self._types = [_OTHER] * len(POOL) + [o[1] for o in OTHER_TYPED_TASKS]
            self._hw_comm, self._copy_type = _HW_COMM_OTHER, _OTHER
        else:
            self._names = POOL.torch_names() + [o[0] for o in OTHER_TASKS]
            self._types = POOL.task_type + [o[1] for o in OTHER_TASKS]
            self._hw_comm, self._copy_type = _HW_COMM, cann.PCIE_DMA_SQE
        self._name_ids = t.intern(self._names)
        self._type_ids = np.array([t.task_type(x) for x in self._types], np.int16)
        self._aten = aten_names()
        self._aten_ids = t.intern(self._aten)
        self._acl_ids = t.intern([ACL_PREFIX + a for a in POOL.aclnn])
        self._threads: list[tuple[str, int, str, int]] = []  # (process, tid, thread name, sort)
        self._lanes: dict[str, int] = {}
        self._declare_lanes()
        self.cid = 1000  # connection ids, unique within the card
        self.overlap = CannOverlap()
        self.shift = EPOCH_BASE_NS + sp.clock_offset_ns
        prefix, suffix = self._prefix_suffix()
        self.w = JsonArrayWriter(self.sink.open(self.relpath), ", ", self.opts.pretty, prefix, suffix)
        self.w.add(self._metadata())

    def _lane(self, key: str, process: str, tid: int, thread: str, sort: int) -> None:
        self._threads.append((process, tid, thread, sort))
        self._lanes[key] = self.truth.lane(self.pid[process], tid, process, thread, _SORT[process], sort)

    def _declare_lanes(self) -> None:
        h, P = self.host, self.spec.planes
        self._lane("py", PYTHON_PROCESS, h, THREAD_LANE.format(h), h)
        if self.opts.be_events:
            self._lane("be", PYTHON_PROCESS, h + 3, THREAD_LANE.format(h + 3), h + 3)
        self._lane("cann", CANN_PROCESS, h, THREAD_LANE.format(h), h)
        self._lane("cann_copy", CANN_PROCESS, h + 1, THREAD_LANE.format(h + 1), h + 1)
        if self.spec.with_overlaps:
            self._lane("cann_ovl", CANN_PROCESS, h + 2, THREAD_LANE.format(h + 2), h + 2)
        for i, s in enumerate(self.streams + (COMM_STREAM,)):
            self._lane(f"s{i}", HARDWARE_PROCESS, s, STREAM_LANE.format(s), s)
        if self.opts.step_trace:
            self._lane("trace", HARDWARE_PROCESS, h, STEP_TRACE_LANE.format(MODEL_ID), 70002)
        self._lane("dp", COMMUNICATION_PROCESS, 0, GROUP_LANE.format(DP_GROUP_NAME), 0)
        for p in range(P):
            self._lane(f"dp{p}", COMMUNICATION_PROCESS, p + 1, PLANE_LANE_NAME.format(p), p + 1)
        if self.spec.pipeline:
            self._lane("pp", COMMUNICATION_PROCESS, P + 1, GROUP_LANE.format(PP_GROUP_NAME), P + 1)
            self._lane("pp0", COMMUNICATION_PROCESS, P + 2, PLANE_LANE_NAME.format(0), P + 2)
        for i, lane in enumerate(CannOverlap.LANES):
            self._lane(f"ov{i}", OVERLAP_PROCESS, i, lane, i)
        self.stream_lane = np.array([self._lanes[f"s{i}"] for i in range(len(self.streams) + 1)], np.int32)

    def _prefix_suffix(self) -> tuple[str, str]:
        return "[", "]"

    def _metadata(self) -> list[str]:
        out = []
        for name, sort in _SORT.items():
            if name == _NPU_MEM and not self.opts.memory_counters:
                continue
            pid, label = self.pid[name], "CPU" if name in (PYTHON_PROCESS, CANN_PROCESS) else "NPU"
            if name == PYTHON_PROCESS:
                out += [ev.python_meta("process_name", pid, "name", f'"{PYTHON_PROCESS}"'),
                        ev.python_meta("process_labels", pid, "labels", '"CPU"'),
                        ev.python_meta("process_sort_index", pid, "sort_index", "0")]
            else:
                out += [ev.meta("process_name", pid, 0, "name", f'"{name}"'),
                        ev.meta("process_labels", pid, 0, "labels", f'"{label}"'),
                        ev.meta("process_sort_index", pid, 0, "sort_index", str(sort))]
            for process, tid, thread, tsort in self._threads:
                if process == name:
                    out += [ev.meta("thread_name", pid, tid, "name", f'"{thread}"'),
                            ev.meta("thread_sort_index", pid, tid, "sort_index", str(tsort))]
        # Real files repeat metadata; a loader must deduplicate it.
        out.append(ev.meta("process_name", self.pid[HARDWARE_PROCESS], 0, "name", f'"{HARDWARE_PROCESS}"'))
        return out

    def finish(self) -> dict:
        self.w.close()
        source = "step_trace" if self.opts.step_trace else "profiler_step"
        return {"paths": [str(p) for p in self.sink.paths()], "time_base_ns": EPOCH_BASE_NS,
                "clock_offset_ns": self.spec.clock_offset_ns, "step_source": source}

    # --- one step: large parts are written in chunks, small ones gathered in ``lines`` ------------

    def write_step(self, st: StepWork, last: bool) -> None:
        lines: list[str] = []
        dups: list[str] = []
        sh = self.shift
        launch_cid = self._launches(st, lines)
        self._hardware(st, launch_cid, dups)
        ct = comm_tasks(st, self.spec, self.n_cards)
        self._hccl(st, ct, lines, dups)
        lo = min(int(st.item_start.min()), int(ct.hw_start.min()), int(st.op_start.min()))
        if st.memcpy_start >= 0:
            lo = min(lo, st.memcpy_start)
            self._memcpy(st, lines)
        hi = max(int((st.item_start + st.item_dur).max()), int((ct.hw_start + ct.hw_dur).max()),
                 int(st.op_end.max()))
        self._overlap(st, lo, hi, last, lines)
        self._counters(st, lines)
        if self.opts.step_trace:
            self._step_trace(st, lines)
        self._extras(st, last, lines)
        self.truth.step(st.start + sh, st.end + sh, st.fp + sh, st.bp + sh)
        self.w.add(lines + dups)

    def _launches(self, st: StepWork, lines: list[str]) -> np.ndarray:
        """``ProfilerStep#N`` and the host side of launched tasks; returns their connection ids."""
        t, sh, h = self.truth, self.shift, self.host
        py, cann, hw = self.pid[PYTHON_PROCESS], self.pid[CANN_PROCESS], self.pid[HARDWARE_PROCESS]
        step = torch_npu.STEP_MARKER_NAME.format(st.index)
        lines.append(f'{{"ph": "X", "name": "{step}", "pid": {py}, "tid": {h}, '
                     f'"ts": "{us_str1(st.start + sh)}", "dur": {us_num1(st.end - st.start)}, '
                     f'"cat": "{torch_npu.FRAMEWORK_OPERATOR}", '
                     f'"args": {{"{torch_npu.SEQUENCE_NUMBER_ARG}": -1, "{torch_npu.FWD_THREAD_ID_ARG}": 0}}}}')
        t.add(self._lanes["py"], [st.start + sh], [st.end - st.start], step, "step_marker")
        idx = st.launch_idx
        kind = st.kind[idx]
        hs, hd = st.host_start + sh, st.host_dur
        acl_s, acl_d = hs + hd // 4, hd // 2
        dev = st.item_start[idx] + sh
        sid = np.array(self.streams)[st.stream[idx]]
        cid = self.cid + np.arange(len(idx))
        self.cid += len(idx)
        for sl in chunks(len(idx)):
            k = kind[sl].tolist()
            self.w.add(ev.launches(py, cann, hw, h, [self._aten[x] for x in k], [POOL.aclnn[x] for x in k],
                                   us_str(hs[sl]), us_num(hd[sl]), us_str(acl_s[sl]), us_num(acl_d[sl]),
                                   dev[sl].tolist(), us_str(dev[sl]), sid[sl].tolist(), cid[sl].tolist()))
        t.add(self._lanes["py"], hs, hd, self._aten_ids[kind], "host")
        t.add(self._lanes["cann"], acl_s, acl_d, self._acl_ids[kind], "host")
        t.flow_edges += 2 * len(idx)
        return cid

    def _hardware(self, st: StepWork, launch_cid: np.ndarray, dups: list[str]) -> None:
        t, sh, hw = self.truth, self.shift, self.pid[HARDWARE_PROCESS]
        n = len(st.item_start)
        comb = np.where(st.other, len(POOL) + st.kind, st.kind)
        sid = np.array(self.streams)[st.stream]
        cid = self.cid + np.arange(n)
        cid[st.launch_idx] = launch_cid  # the launch's connection id links host and device
        self.cid += n
        start = st.item_start + sh
        for sl in chunks(n):
            k = comb[sl].tolist()
            lines = ev.hw_tasks(hw, [self._names[x] for x in k], [self._types[x] for x in k],
                                sid[sl].tolist(), us_str(start[sl]), us_num(st.item_dur[sl]),
                                cid[sl].tolist())
            dups.extend(lines[i] for i in np.flatnonzero(st.duplicate[sl]).tolist())
            self.w.add(lines)
        lane = self.stream_lane[st.stream]
        c, o = ~st.other, st.other
        t.add(lane[c], start[c], st.item_dur[c], self._name_ids[comb[c]], "compute", self._type_ids[comb[c]],
              1 + st.duplicate[c])
        t.add(lane[o], start[o], st.item_dur[o], self._name_ids[comb[o]], "other_hw", self._type_ids[comb[o]])

    def _memcpy(self, st: StepWork, lines: list[str]) -> None:
        """The input batch copy during the data wait, launched from a second host thread."""
        t, sh, h = self.truth, self.shift, self.host
        cid, self.cid = self.cid, self.cid + 1
        a, d = st.memcpy_start + sh, st.memcpy_dur
        ha = st.start + sh + 500
        hd = max(min(30_000, (a - ha) // 2), 8)
        lines += ev.memcpy(self.pid[HARDWARE_PROCESS], self.pid[CANN_PROCESS], self.streams[0], h + 1, us_str1(a),
                           us_num1(d), us_str1(ha), us_num1(hd), cid, self._copy_type)
        t.add(self.stream_lane[0], [a], [d], cann.MEMCPY_ASYNC, "other_hw", t.task_type(self._copy_type))
        t.add(self._lanes["cann_copy"], [ha], [hd], ACL_PREFIX + ev.MEMCPY_CALL, "host")
        t.flow_edges += 1

    def _hccl(self, st: StepWork, ct, lines: list[str], dups: list[str]) -> None:
        t, sh, P = self.truth, self.shift, self.spec.planes
        hp, hw = self.pid[COMMUNICATION_PROCESS], self.pid[HARDWARE_PROCESS]
        op_cid = self.cid + np.arange(len(st.op_kind))
        self.cid += len(st.op_kind)
        ts, du = us_str(st.op_start + sh), us_num(st.op_end - st.op_start)
        for j, (kind, seq) in enumerate(zip(st.op_kind, st.op_seq)):
            p2p = is_p2p(kind)
            name = hccl.hcom_name(kind, seq)
            lines.append(ev.hccl_op(name, hp, P + 1 if p2p else 0, ts[j], du[j], int(op_cid[j]),
                                    "NA" if p2p else "MESH-RING", hccl.op_count(kind)))
            copies = 2 if (self.spec.with_duplicates and j == 0) else 1
            if copies == 2:
                dups.append(lines[-1])
            t.add(self._lanes["pp" if p2p else "dp"], [st.op_start[j] + sh], [st.op_end[j] - st.op_start[j]],
                  name, "comm_op", copies=copies)
        pnames = hccl.plane_task_names(st, ct)
        args = hccl.plane_args(ct, pnames, self.spec.rank, self.n_cards, COMM_STREAM, int(op_cid[0]), True)
        p2p_task = np.array([is_p2p(st.op_kind[j]) for j in ct.pl_op.tolist()], bool)
        tids = np.where(p2p_task, P + 2, ct.pl_plane + 1).tolist()
        ts, du = us_str(ct.pl_start + sh), us_num(ct.pl_dur)
        lines += [ev.x_args(n, hp, tid, ts[i], du[i], args[i])
                  for i, (n, tid) in enumerate(zip(pnames, tids))]
        lanes = np.array([self._lanes["pp0"] if p else self._lanes[f"dp{q}"]
                          for p, q in zip(p2p_task.tolist(), ct.pl_plane.tolist())], np.int32)
        t.add(lanes, ct.pl_start + sh, ct.pl_dur, t.intern(pnames), "comm_task")
        t.comm.add_step(ct, [hccl.hcom_name(k, q) for k, q in zip(st.op_kind, st.op_seq)], st.op_start,
                        st.op_end, sh)
        names = [self._hw_comm[k] for k in ct.hw_kind.tolist()]
        lines += ev.comm_stream_tasks(hw, COMM_STREAM, names, us_str(ct.hw_start + sh), us_num(ct.hw_dur),
                                      op_cid[ct.hw_op].tolist())
        tt_ids = np.array([t.task_type(tt) for _, tt in names], np.int16)
        t.add(self.stream_lane[-1], ct.hw_start + sh, ct.hw_dur, t.intern([n for n, _ in names]), "other_hw",
              tt_ids)

    def _overlap(self, st: StepWork, lo: int, hi: int, last: bool, lines: list[str]) -> None:
        t, sh, ov = self.truth, self.shift, self.pid[OVERLAP_PROCESS]
        c = ~st.other
        compute = union(st.item_start[c], st.item_start[c] + st.item_dur[c])
        comm = union(st.op_start, st.op_end)
        for i, (s, e) in enumerate(self.overlap.step(compute, comm, lo, hi, last)):
            name = CannOverlap.LANES[i]
            lines += [ev.x_plain(name, ov, i, a, b) for a, b in zip(us_str(s + sh), us_num(e - s))]
            t.add(self._lanes[f"ov{i}"], s + sh, e - s, name, "overlap_lane")

    def _counters(self, st: StepWork, lines: list[str]) -> None:
        at = st.start + self.shift + np.arange(4, dtype=np.int64) * ((st.end - st.start) // 4)
        ts = us_str(at)
        for process, name, key in _COUNTERS:
            if process == _NPU_MEM and not self.opts.memory_counters:
                continue
            pid = self.pid[process]
            lines += [ev.counter(name, pid, x, key, _counter_value(name, key, st.index, i, self.spec.memory_scale))
                      for i, x in enumerate(ts)]
            self.truth.counters(pid, name, key, len(ts))

    def _step_trace(self, st: StepWork, lines: list[str]) -> None:
        hw = self.pid[HARDWARE_PROCESS]
        events, rows = step_trace(st, self.shift, hw, self.host, lambda ns: f'"{us_str1(ns)}"')
        lines += events
        for name, a, d in rows:
            self.truth.add(self._lanes["trace"], [a], [d], name, "step_marker")
        self.truth.flow_edges += 1

    def _extras(self, st: StepWork, last: bool, lines: list[str]) -> None:
        t, sh, h = self.truth, self.shift, self.host
        py, cann = self.pid[PYTHON_PROCESS], self.pid[CANN_PROCESS]
        if self.spec.with_overlaps:
            s, d = overlapping_host(st)
            ts, du = us_str(s + sh), us_num(d)
            lines += [ev.x_args(OVERLAP_NAMES[i], cann, h + 2, ts[i], du[i], f'{{"{THREAD_ID_ARG}": {h + 2}}}')
                      for i in range(len(s))]
            t.add(self._lanes["cann_ovl"], s + sh, d, t.intern(OVERLAP_NAMES), "host")
        if self.opts.be_events:
            pairs, open_b = be_pairs(st, last)
            be = []
            for a, b, name in pairs:
                be += [(a, ev.begin_end("B", name, py, h + 3, us_str1(a + sh))),
                       (b, ev.begin_end("E", name, py, h + 3, us_str1(b + sh)))]
                t.add(self._lanes["be"], [a + sh], [b - a], name, "host", phase=PHASE_BE)
            if open_b is not None:
                be.append((open_b[0], ev.begin_end("B", open_b[1], py, h + 3, us_str1(open_b[0] + sh))))
                t.open_b_events += 1
            lines += [x for _, x in sorted(be, key=lambda p: p[0])]
        if self.opts.instants:
            for a, name in instants(st):
                lines.append(ev.instant(name, py, h, us_str1(a + sh)))
                t.instant_events += 1


class ObjectWriter(MsprofWriter):
    """The msprof layout wrapped as ``{"traceEvents": [...]}`` with keys before and after."""

    layout = OBJECT_LAYOUT

    def _prefix_suffix(self) -> tuple[str, str]:
        d = self.spec.device
        return (f'{{"schemaVersion": 1, "deviceProperties": [{{"id": {d}, "name": "Ascend910B2", '
                f'"note": "values may hold [brackets] and {{braces}}"}}], "traceEvents": [',
                f'], "displayTimeUnit": "ns", "otherData": {{"generator": "timelineview.synthetic", '
                f'"rank": {self.spec.rank}, "traceEvents_copy": [], "layers": [{{"name": "Python"}}]}}}}')


def _counter_value(name: str, key: str, step: int, i: int, memory_scale: float = 1.0) -> str:
    if key == "MHz":
        return "1800" if (step + i) % 7 else "1650"
    if key == "KB":
        return f"{memory_kb(step, i, memory_scale) + (DEVICE_EXTRA_KB if name == _DEVICE_HBM else 0.0)}"
    return f"{(step * 131 + i * 17) % 900 + 0.5}"


def memory_kb(step: int, i: int, memory_scale: float = 1.0) -> float:
    """The KB of the ``i``-th ``NPU MEM`` sample of step ``step`` (every card the same unless scaled)."""
    return (APP_MEMORY_KB + MEMORY_STEP_KB * ((step * 4 + i) % MEMORY_STEPS)) * memory_scale
