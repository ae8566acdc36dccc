"""CANN <= 7.0 python msprof per-iteration export (docs/trace-format.md §4.7, §7.2).

``PROF_000001_<YYYYmmddHHMMSSmmm>_<RAND>/device_<d>/timeline/msprof_<d>_2_<iter>.json`` per
step, each with the full metadata, plus the subset files ``task_time_*`` (hardware streams),
``hccl_*`` (HCCL) and ``step_trace_*`` (the step-trace events re-homed to a ``Step Trace``
process, as the real exporter does), and ``info.json.<d>`` / ``start_info.<d>`` /
``end_info.<d>``. ``ts`` are float monotonic microseconds. Process, lane, file and task names are the
producers' modules' (which the reader and discovery read them by); the real-sample tests check those against
real files.
"""

from __future__ import annotations

import datetime as _dt

import numpy as np
import orjson

from timelineview.producers import cann_tasks as cann
from timelineview.producers import msprof
from timelineview.producers.ascend import (
    CANN_PROCESS,
    COMMUNICATION_PROCESS,
    HARDWARE_PROCESS,
    OVERLAP_PROCESS,
    STEP_TRACE_PROCESS,
)
from timelineview.producers.ascend_lanes import COMM_KERNEL_LANE, STREAM_LANE, THREAD_LANE
from timelineview.producers.hccl import PLANE_LANE_NAME
from timelineview.synthetic.intervals import CannOverlap, union
from timelineview.synthetic.layouts import hccl
from timelineview.synthetic.layouts.common import (
    HW_DATA,
    HW_WAIT,
    OVERLAP_NAMES,
    CardWriter,
    be_pairs,
    comm_tasks,
    instants,
    overlapping_host,
)
from timelineview.synthetic.layouts.steptrace import step_trace
from timelineview.synthetic.names import OTHER_TASKS, POOL
from timelineview.synthetic.schedule import TRUE_START_NS
from timelineview.synthetic.spec import PER_ITERATION_LAYOUT
from timelineview.synthetic.textfmt import us_num, us_num1
from timelineview.synthetic.truth import PHASE_BE
from timelineview.synthetic.workload import KIND_ALLGATHER, KIND_RECEIVE, KIND_SEND, StepWork
from timelineview.synthetic.writer import JsonArrayWriter

MONO_BASE_NS = 56_635_000_000_000
EPOCH_AT_MONO_ZERO_US = 1_692_283_444_000_000  # start_info anchor: epoch = ts + this
HOST_PID_BASE = 10036
MODEL_ID = 2
COMPUTE_STREAMS = (2, 3, 10, 12)
COMM_STREAM = 13
KERNEL_TID = 70000
_OP_NAME = {KIND_RECEIVE: "Receive", KIND_SEND: "Send", KIND_ALLGATHER: "AllGather"}
_SORT = {CANN_PROCESS: 2, HARDWARE_PROCESS: 3, COMMUNICATION_PROCESS: 11, OVERLAP_PROCESS: 12}
_STEP_TRACE_LANE = msprof.STEP_TRACE_LANE.format(MODEL_ID)
_NO_CORE = ('"N/A"', '"N/A"')  # the AI Core time and cycles of a task that ran on no AI Core, as JSON text


def _task_args(task_type: str, stream: int, task_id: int, aicore_time: int | str, cycles: int | str) -> str:
    """A hardware task's ``args`` object text as the per-iteration ``task_time`` files write it."""
    return (f'{{"{cann.TASK_TYPE_ARG}": "{task_type}", "{cann.LEGACY_STREAM_ID_ARG}": {stream}, '
            f'"{cann.TASK_ID_ARG}": {task_id}, "{cann.BATCH_ID_ARG}": 0, "{cann.AICORE_TIME_ARG}": {aicore_time}, '
            f'"{cann.TOTAL_CYCLE_ARG}": {cycles}}}')


def op_name(kind: int, slot: int) -> str:
    """Graph-mode operator names repeat every iteration: ``Default/AllReduce-op534_0``."""
    return f"Default/{_OP_NAME.get(kind, 'AllReduce')}-op{534 + 7 * slot}_0"


class PerIterationWriter(CardWriter):
    layout = PER_ITERATION_LAYOUT

    def begin(self, first: StepWork) -> None:
        sp, t = self.spec, self.truth
        self.host = HOST_PID_BASE + 17 * sp.rank
        self.pid = {HARDWARE_PROCESS: 3, CANN_PROCESS: int(f"{self.host}02"),
                    COMMUNICATION_PROCESS: int(f"{self.host}11"), OVERLAP_PROCESS: int(f"{self.host}12")}
        self.streams = COMPUTE_STREAMS[: sp.streams]
        self.shift = MONO_BASE_NS + sp.clock_offset_ns
        names = POOL.full_names() + [o[2] for o in OTHER_TASKS]
        self._names, self._types = names, POOL.task_type + [o[3] for o in OTHER_TASKS]
        self._name_ids = t.intern(names)
        self._type_ids = np.array([t.task_type(x) for x in self._types], np.int16)
        self._declare_lanes()
        self.overlap = CannOverlap()
        self.task_id = 1
        rng = np.random.default_rng([sp.seed, sp.rank, 5])
        rand = "".join(chr(65 + int(x)) for x in rng.integers(26, size=16))
        start_us = EPOCH_AT_MONO_ZERO_US + (self.shift + TRUE_START_NS) // 1000
        stamp = _dt.datetime.fromtimestamp(start_us / 1e6, _dt.timezone.utc).strftime("%Y%m%d%H%M%S%f")[:17]
        capture = msprof.CAPTURE_FOLDER_NAME.format(number=1, stamp=stamp, tag=rand)
        self.device_dir = f"{capture}/{msprof.DEVICE_FOLDER_NAME.format(sp.device)}"
        if self.relpath:
            self.device_dir = f"{self.relpath}/{self.device_dir}"
        self.aux = {msprof.TASK_TIME_EXPORT: 0, msprof.HCCL_EXPORT: 0, msprof.STEP_TRACE_EXPORT: 0}
        self._main_paths: list[str] = []
        self._write_info(first)

    def _declare_lanes(self) -> None:
        t, h, P = self.truth, self.host, self.spec.planes
        hw = self.pid[HARDWARE_PROCESS]
        self.stream_lane = np.array([t.lane(hw, s, HARDWARE_PROCESS, STREAM_LANE.format(s), 3, s)
                                     for s in self.streams + (COMM_STREAM,)], np.int32)
        self.trace_lane = t.lane(hw, h, HARDWARE_PROCESS, _STEP_TRACE_LANE, 3, 70002)
        cann = self.pid[CANN_PROCESS]
        self.cann_threads = (h + 6, h + 7)
        self.cann_lanes = [t.lane(cann, x, CANN_PROCESS, THREAD_LANE.format(x), 2, x) for x in self.cann_threads]
        self.ovl_lane = t.lane(cann, h, CANN_PROCESS, THREAD_LANE.format(h), 2, h)
        self.be_lane = t.lane(cann, h + 3, CANN_PROCESS, THREAD_LANE.format(h + 3), 2, h + 3)
        hp = self.pid[COMMUNICATION_PROCESS]
        self.kernel_lane = t.lane(hp, KERNEL_TID, COMMUNICATION_PROCESS, COMM_KERNEL_LANE, 11, 0)
        self.plane_lane = np.array([t.lane(hp, p, COMMUNICATION_PROCESS, PLANE_LANE_NAME.format(p), 11,
                                           70000 + p)
                                    for p in range(P)], np.int32)
        self.ov_lanes = [t.lane(self.pid[OVERLAP_PROCESS], i, OVERLAP_PROCESS, n, 12, i)
                         for i, n in enumerate(CannOverlap.LANES)]

    def _metadata(self) -> tuple[list[str], list[str], list[str]]:
        """Metadata of the msprof file, the task_time file and the hccl file."""
        h, hw, cann, hp = self.host, 3, self.pid[CANN_PROCESS], self.pid[COMMUNICATION_PROCESS]
        ov = self.pid[OVERLAP_PROCESS]
        P = self.spec.planes
        streams = [_m("thread_name", hw, s, "name", f'"{STREAM_LANE.format(s)}"')
                   for s in self.streams + (COMM_STREAM,)]
        hw_head = [_m("process_name", hw, 0, "name", f'"{HARDWARE_PROCESS}"')]
        planes = [_m("thread_name", hp, p, "name", f'"{PLANE_LANE_NAME.format(p)}"') for p in range(P)]
        hccl_meta = [_m("process_name", hp, 0, "name", f'"{COMMUNICATION_PROCESS}"'), *planes,
                     _m("thread_name", hp, KERNEL_TID, "name", f'"{COMM_KERNEL_LANE}"')]
        main = [*hw_head, _m("thread_name", hw, h, "name", f'"{_STEP_TRACE_LANE}"'),
                _m("thread_sort_index", hw, h, "sort_index", "70002"), *_proc(hw, "NPU", 3),
                _m("process_name", cann, 0, "name", f'"{CANN_PROCESS}"')]
        for x in (*self.cann_threads, h) + ((h + 3,) if self.opts.be_events else ()):
            main += [_m("thread_name", cann, x, "name", f'"{THREAD_LANE.format(x)}"'),
                     _m("thread_sort_index", cann, x, "sort_index", str(x))]
        main += [*_proc(cann, "CPU", 2), *hw_head, *streams]
        main += [_m("thread_sort_index", hw, s, "sort_index", str(s)) for s in self.streams + (COMM_STREAM,)]
        main += [*_proc(hw, "NPU", 3), *hccl_meta[:1], *planes]
        main += [_m("thread_sort_index", hp, p, "sort_index", str(70000 + p)) for p in range(P)]
        main += [hccl_meta[-1], _m("thread_sort_index", hp, KERNEL_TID, "sort_index", "0"),
                 *_proc(hp, "NPU", 11),
                 _m("process_name", ov, 0, "name", f'"{OVERLAP_PROCESS}"')]
        main += [_m("thread_name", ov, i, "name", f'"{n}"') for i, n in enumerate(CannOverlap.LANES)]
        main += _proc(ov, "NPU", 12)
        return main, hw_head + streams, hccl_meta

    def write_step(self, st: StepWork, last: bool) -> None:
        t, sh, k = self.truth, self.shift, st.index
        main_meta, tt_meta, hccl_meta = self._metadata()
        hw_ev, dups = self._hardware(st)
        ct = comm_tasks(st, self.spec, self.n_cards)
        hccl_ev = self._hccl(st, ct, dups)
        hw_ev += self._comm_stream(st, ct)
        other = self._cann(st, last)
        trace, rows = step_trace(st, sh, 3, self.host, us_num1)
        for name, a, d in rows:
            t.add(self.trace_lane, [a], [d], name, "step_marker")
        t.flow_edges += 1
        lo = min(int(st.item_start.min()), st.memcpy_start if st.memcpy_start >= 0 else 1 << 62,
                 int(st.op_start.min()))
        hi = max(int((st.item_start + st.item_dur).max()), int(st.op_end.max()))
        other += self._overlap(st, lo, hi, last)
        t.step(st.start + sh, st.end + sh, st.fp + sh, st.bp + sh)
        trace_at = [a for _, a, _ in rows] + [st.end + sh] * 2
        events = hw_ev + hccl_ev + other + list(zip(trace_at, trace))
        events.sort(key=lambda p: p[0])
        stem = f"{self.spec.device}_{MODEL_ID}_{k}.json"
        self._write(f"{msprof.ITERATION_EXPORT}_{stem}", main_meta + [x for _, x in events] + dups, main=True)
        self._write(f"{msprof.TASK_TIME_EXPORT}_{stem}", tt_meta + [x for _, x in hw_ev])
        self._write(f"{msprof.HCCL_EXPORT}_{stem}", hccl_meta + [x for _, x in hccl_ev])
        re_homed = [x.replace('"pid": 3, ', f'"pid": {self.host}, ', 1) for x in trace]
        self._write(f"{msprof.STEP_TRACE_EXPORT}_{stem}",
                    [_m("process_name", self.host, 0, "name", f'"{STEP_TRACE_PROCESS}"'),
                                           _m("thread_name", self.host, self.host, "name",
                                              f'"Model ID:{MODEL_ID}"'), *re_homed])
        self.aux[msprof.TASK_TIME_EXPORT] += len(hw_ev)
        self.aux[msprof.HCCL_EXPORT] += len(hccl_ev)
        self.aux[msprof.STEP_TRACE_EXPORT] += len(rows)
        if last:
            self._write_end_info(st)

    def _write(self, name: str, lines: list[str], main: bool = False) -> None:
        rel = f"{self.device_dir}/timeline/{name}"
        w = JsonArrayWriter(self.sink.open(rel), ", ", self.opts.pretty)
        w.add(lines)
        w.close()
        if main and self.sink.root is not None:
            self._main_paths.append(str(self.sink.root / rel))

    def _hardware(self, st: StepWork) -> tuple[list[tuple[int, str]], list[str]]:
        t, sh, hw = self.truth, self.shift, 3
        comb = np.where(st.other, len(POOL) + st.kind, st.kind)
        sid = np.array(self.streams)[st.stream].tolist()
        start = st.item_start + sh
        ts, du = us_num(start), us_num(st.item_dur)
        tid = (self.task_id + np.arange(len(comb))) % 65000 + 1
        self.task_id += len(comb)
        out = []
        for i, (k, s) in enumerate(zip(comb.tolist(), sid)):
            tt = self._types[k]
            core = (int(st.item_dur[i]) // 1100, int(st.item_dur[i]) * 29) if tt == cann.AI_CORE else _NO_CORE
            out.append(f'{{"name": "{self._names[k]}", "pid": {hw}, "tid": {s}, "ts": {ts[i]}, '
                       f'"dur": {du[i]}, "args": {_task_args(tt, s, tid[i], *core)}, "ph": "X"}}')
        dups = [out[i] for i in np.flatnonzero(st.duplicate).tolist()]
        lane = self.stream_lane[st.stream]
        c, o = ~st.other, st.other
        t.add(lane[c], start[c], st.item_dur[c], self._name_ids[comb[c]], "compute", self._type_ids[comb[c]],
              1 + st.duplicate[c])
        t.add(lane[o], start[o], st.item_dur[o], self._name_ids[comb[o]], "other_hw", self._type_ids[comb[o]])
        pairs = list(zip(start.tolist(), out))
        if st.memcpy_start >= 0:
            a, s = st.memcpy_start + sh, self.streams[0]
            copy = cann.MEMCPY_ASYNC
            pairs.append((a, f'{{"name": "{copy}", "pid": {hw}, "tid": {s}, "ts": {us_num1(a)}, '
                             f'"dur": {us_num1(st.memcpy_dur)}, "args": {_task_args(copy, s, 1, *_NO_CORE)}, '
                             f'"ph": "X"}}'))
            t.add(self.stream_lane[0], [a], [st.memcpy_dur], copy, "other_hw", t.task_type(copy))
        return pairs, dups

    def _comm_stream(self, st: StepWork, ct) -> list[tuple[int, str]]:
        t, sh, s = self.truth, self.shift, COMM_STREAM
        names = []
        for kind, op in zip(ct.hw_kind.tolist(), ct.hw_op.tolist()):
            if kind == HW_WAIT:
                names.append(cann.NOTIFY_WAIT)
            elif kind == HW_DATA:
                gather = st.op_kind[op] in (KIND_RECEIVE, KIND_SEND, KIND_ALLGATHER)
                names.append(cann.MEMCPY_ASYNC if gather else cann.REDUCE_ASYNC_V2)
            else:
                names.append(cann.NOTIFY_RECORD)
        start = ct.hw_start + sh
        ts, du = us_num(start), us_num(ct.hw_dur)
        out = [(int(a), f'{{"name": "{n}", "pid": 3, "tid": {s}, "ts": {ts[i]}, "dur": {du[i]}, "args": '
                        f'{_task_args(n, s, i + 2, *_NO_CORE)}, "ph": "X"}}')
               for i, (a, n) in enumerate(zip(start.tolist(), names))]
        t.add(self.stream_lane[-1], start, ct.hw_dur, t.intern(names), "other_hw",
              np.array([t.task_type(n) for n in names], np.int16))
        return out

    def _hccl(self, st: StepWork, ct, dups: list[str]) -> list[tuple[int, str]]:
        t, sh, hp = self.truth, self.shift, self.pid[COMMUNICATION_PROCESS]
        out = []
        ts, du = us_num(st.op_start + sh), us_num(st.op_end - st.op_start)
        for j, kind in enumerate(st.op_kind):
            name = op_name(kind, j)
            out.append((int(st.op_start[j]) + sh, f'{{"name": "{name}", "pid": {hp}, "tid": {KERNEL_TID}, '
                                                  f'"ts": {ts[j]}, "dur": {du[j]}, "ph": "X"}}'))
            copies = 2 if (self.spec.with_duplicates and j == 0) else 1
            if copies == 2:
                dups.append(out[-1][1])
            t.add(self.kernel_lane, [st.op_start[j] + sh], [st.op_end[j] - st.op_start[j]], name, "comm_op",
                  copies=copies)
        pnames = hccl.plane_task_names(st, ct)
        args = hccl.plane_args(ct, pnames, self.spec.rank, self.n_cards, COMM_STREAM, 2, False)
        start = ct.pl_start + sh
        ts, du = us_num(start), us_num(ct.pl_dur)
        out += [(int(a), f'{{"name": "{n}", "pid": {hp}, "tid": {p}, "ts": {ts[i]}, "dur": {du[i]}, '
                         f'"args": {args[i]}, "ph": "X"}}')
                for i, (a, n, p) in enumerate(zip(start.tolist(), pnames, ct.pl_plane.tolist()))]
        t.add(self.plane_lane[ct.pl_plane], start, ct.pl_dur, t.intern(pnames), "comm_task")
        t.comm.add_step(ct, [op_name(k, j) for j, k in enumerate(st.op_kind)], st.op_start, st.op_end, sh)
        return out

    def _cann(self, st: StepWork, last: bool) -> list[tuple[int, str]]:
        t, sh = self.truth, self.shift
        x = self.cann_threads[st.index % 2]
        a, d = st.start + sh + 100, st.end - st.start - 200
        out = [(a, f'{{"name": "GE@Infer", "pid": {self.pid[CANN_PROCESS]}, "tid": {x}, "ts": {us_num1(a)}, '
                   f'"dur": {us_num1(d)}, "args": {{"{cann.MODEL_NAME_ARG}": null, '
                   f'"{cann.MODEL_ID_ARG}": {MODEL_ID}}}, "ph": "X"}}')]
        t.add(self.cann_lanes[st.index % 2], [a], [d], "GE@Infer", "host")
        if self.spec.with_overlaps:
            s, dd = overlapping_host(st)
            ts, du = us_num(s + sh), us_num(dd)
            out += [(int(s[i]) + sh, f'{{"name": "{OVERLAP_NAMES[i]}", "pid": {self.pid[CANN_PROCESS]}, '
                                     f'"tid": {self.host}, "ts": {ts[i]}, "dur": {du[i]}, "ph": "X"}}')
                    for i in range(len(s))]
            t.add(self.ovl_lane, s + sh, dd, t.intern(OVERLAP_NAMES), "host")
        return out + self._be_and_instants(st, last, x)

    def _be_and_instants(self, st: StepWork, last: bool, thread: int) -> list[tuple[int, str]]:
        t, sh, cann, h = self.truth, self.shift, self.pid[CANN_PROCESS], self.host
        out = []
        if self.opts.be_events:
            pairs, open_b = be_pairs(st, last)
            marks = [(a, "B", n) for a, _, n in pairs] + [(b, "E", n) for _, b, n in pairs]
            for a, b, name in pairs:
                t.add(self.be_lane, [a + sh], [b - a], name, "host", phase=PHASE_BE)
            if open_b is not None:
                marks.append((open_b[0], "B", open_b[1]))
                t.open_b_events += 1
            out += [(a + sh, f'{{"name": "{n}", "ph": "{ph}", "pid": {cann}, "tid": {h + 3}, '
                             f'"ts": {us_num1(a + sh)}}}') for a, ph, n in marks]
        if self.opts.instants:
            for a, name in instants(st):
                out.append((a + sh, f'{{"name": "{name}", "ph": "i", "ts": {us_num1(a + sh)}, "pid": {cann}, '
                                    f'"tid": {thread}, "args": {{}}}}'))
                t.instant_events += 1
        return out

    def _overlap(self, st: StepWork, lo: int, hi: int, last: bool) -> list[tuple[int, str]]:
        t, sh, ov = self.truth, self.shift, self.pid[OVERLAP_PROCESS]
        c = ~st.other
        lanes = self.overlap.step(union(st.item_start[c], st.item_start[c] + st.item_dur[c]),
                                  union(st.op_start, st.op_end), lo, hi, last)
        out = []
        for i, (s, e) in enumerate(lanes):
            name = CannOverlap.LANES[i]
            ts, du = us_num(s + sh), us_num(e - s)
            out += [(int(a) + sh, f'{{"name": "{name}", "pid": {ov}, "tid": {i}, "ts": {ts[j]}, '
                                  f'"dur": {du[j]}, "ph": "X"}}') for j, a in enumerate(s.tolist())]
            t.add(self.ov_lanes[i], s + sh, e - s, name, "overlap_lane")
        return out

    def _write_info(self, first: StepWork) -> None:
        sp, d = self.spec, self.spec.device
        device = {"id": d, msprof.DEVICE_INFO_AI_CORES: 32, "hwts_frequency": "100",
                  msprof.DEVICE_INFO_AI_CORE_MHZ: "1000"}
        info = {"jobInfo": "NA", "version": "1.0", "devices": str(d), "pid": str(self.host),
                "rank_id": sp.rank, "hostname": "synthetic-node", msprof.DEVICE_INFO_LIST: [device],
                "platform_version": "1", "pid_name": "python"}
        self._json(f"{msprof.DEVICE_INFO_PREFIX}{d}", info)
        mono = (self.shift + first.start - 50_000_000) // 1000 * 1000
        self._json(f"start_info.{d}", _anchor("Begin", mono))

    def _write_end_info(self, st: StepWork) -> None:
        mono = (self.shift + st.end + 50_000_000) // 1000 * 1000
        self._json(f"end_info.{self.spec.device}", _anchor("End", mono))

    def _json(self, name: str, obj: dict) -> None:
        out = self.sink.open(f"{self.device_dir}/{name}")
        out.write(orjson.dumps(obj).decode())
        out.close()

    def finish(self) -> dict:
        self.truth.aux_x_events.update(self.aux)
        return {"paths": self._main_paths, "time_base_ns": MONO_BASE_NS,
                "clock_offset_ns": self.spec.clock_offset_ns, "step_source": "step_trace"}


def _m(name: str, pid: int, tid: int, key: str, value: str) -> str:
    return f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "args": {{"{key}": {value}}}, "ph": "M"}}'


def _proc(pid: int, label: str, sort: int) -> list[str]:
    return [_m("process_labels", pid, 0, "labels", f'"{label}"'),
            _m("process_sort_index", pid, 0, "sort_index", str(sort))]


def _anchor(which: str, mono_ns: int) -> dict:
    """start_info/end_info: wall clock and monotonic clock read at the same instant."""
    epoch_us = EPOCH_AT_MONO_ZERO_US + mono_ns // 1000
    return {f"collectionDate{which}": _date(epoch_us), f"collectionTime{which}": str(epoch_us),
            "clockMonotonicRaw": str(mono_ns)}


def _date(epoch_us: int) -> str:
    return _dt.datetime.fromtimestamp(epoch_us / 1e6, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")

