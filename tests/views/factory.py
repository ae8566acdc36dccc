"""Small in-memory TraceStores for the view tests: an msprof-like card with steps, counters, flows."""

from __future__ import annotations

import numpy as np

from timelineview.model.store.store_factory import empty_counters, store_from_columns
from timelineview.model.store.trace_store import CounterTable, FlowTable, LaneTable, ProcessTable, TraceStore

BASE_NS = 1_736_412_474_721_123_620  # epoch-µs magnitude: exercises exact int64 handling
OPS = ["MatMul", "Conv2D", "Add", "LayerNorm", "Softmax", "GeLU", "Mul", "Transpose", "BatchMatMul",
       "ReduceSum", "Cast", "Gather", "FlashAttentionScore", "RmsNorm"]


class StoreBuilder:
    """Collects slices by lane key "<process>/<thread>", then builds a store."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._ids: dict[str, int] = {}
        self.lane_keys: list[str] = []
        self.rows: list[tuple[int, int, int, int, int]] = []  # start, dur, lane, name, task type
        self.args: list[dict | None] = []
        self.counters: list[tuple[str, str, np.ndarray, np.ndarray]] = []
        self.flows: list[tuple[int, int]] = []  # slice row numbers

    def intern(self, s: str) -> int:
        if s not in self._ids:
            self._ids[s] = len(self.strings)
            self.strings.append(s)
        return self._ids[s]

    def lane(self, key: str) -> int:
        if key not in self.lane_keys:
            self.lane_keys.append(key)
        return self.lane_keys.index(key)

    def add(self, lane: str, name: str, start: int, dur: int, task_type: str | None = None,
            args: dict | None = None) -> int:
        self.rows.append((int(start), int(dur), self.lane(lane), self.intern(name),
                          self.intern(task_type) if task_type else -1))
        self.args.append(args)
        return len(self.rows) - 1

    def build(self, card: str = "rank 0", rank: int | None = 0) -> TraceStore:
        procs: list[str] = []
        for k in self.lane_keys + [c[0] for c in self.counters]:
            p = k.split("/", 1)[0]
            if p not in procs:
                procs.append(p)
        rows = np.array(self.rows, dtype=np.int64).reshape(-1, 5)
        start, lane = rows[:, 0], rows[:, 2].astype(np.int32)
        args = list(self.args)
        return store_from_columns(
            start, rows[:, 1], lane, rows[:, 3], self.strings,
            ProcessTable(pid=[str(100 + i) for i in range(len(procs))], name=procs,
                         label=[""] * len(procs), sort_index=np.arange(len(procs))),
            LaneTable(process=np.array([procs.index(k.split("/", 1)[0]) for k in self.lane_keys], dtype=np.int32),
                      tid=[str(i) for i in range(len(self.lane_keys))],
                      name=[k.split("/", 1)[1] for k in self.lane_keys],
                      sort_index=np.arange(len(self.lane_keys))),
            task_type=rows[:, 4], card=card, rank=rank, paths=[f"{card}.json"],
            counters=self._counter_table(procs), flows=self._flow_table(start, lane),
            args=lambda src: [args[int(i)] for i in src],
        )

    def _counter_table(self, procs: list[str]) -> CounterTable:
        if not self.counters:
            return empty_counters()
        lens = [len(c[2]) for c in self.counters]
        return CounterTable(
            series_process=np.array([procs.index(c[0]) for c in self.counters], np.int32),
            series_name=[c[1] for c in self.counters], series_counter=[c[1] for c in self.counters],
            series_key=["value"] * len(self.counters),
            ts=np.concatenate([c[2] for c in self.counters]).astype(np.int64),
            value=np.concatenate([c[3] for c in self.counters]).astype(np.float64),
            offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))

    def _flow_table(self, start: np.ndarray, lane: np.ndarray) -> FlowTable:
        f = np.array(self.flows, dtype=np.int64).reshape(-1, 2)
        k = len(f)
        return FlowTable(src_event=np.full(k, -1, np.int64),
                         cat=np.full(k, self.intern("HostToDevice"), np.int32),
                         flow_id=np.arange(k, dtype=np.int64),
                         src_ts=start[f[:, 0]], src_lane=lane[f[:, 0]], src_slice=f[:, 0],
                         dst_ts=start[f[:, 1]], dst_lane=lane[f[:, 1]], dst_slice=f[:, 1])


def ascend_card(card: str = "rank 0", rank: int = 0, steps: int = 3, seed: int = 0,
                ops_per_step: int = 60, base_ns: int = BASE_NS) -> TraceStore:
    """An msprof/torch_npu-like card: host Python stack, CANN launches, two compute streams,
    Notify Wait tasks, HCCL operators with plane tasks, step markers, counters and flows."""
    rng = np.random.default_rng(seed)
    b = StoreBuilder()
    t = base_ns
    freq_ts, freq_v = [], []
    for step in range(1, steps + 1):
        step_start = t
        wait = int(rng.integers(300_000, 600_000))  # data loading: the step interval
        t += wait
        launch_t = t
        ops = []
        for _ in range(ops_per_step):
            d = int(rng.integers(20_000, 120_000))
            gap = int(rng.integers(500, 4_000)) if rng.random() < 0.8 else int(rng.integers(10_000, 40_000))
            ops.append((t, d))
            t += d + gap
        comm_start = ops[int(ops_per_step * 0.7)][0]
        comm = []
        ct = comm_start
        for _ in range(4):
            d = int(rng.integers(150_000, 400_000))
            comm.append((ct, d))
            ct += d + int(rng.integers(5_000, 30_000))
        t = max(t, ct) + int(rng.integers(100_000, 200_000))
        step_end = t
        b.add("Python/Thread 1", f"ProfilerStep#{step}", step_start, step_end - step_start)
        b.add("Python/Thread 1", "dataloader.__next__", step_start + 10_000, wait - 20_000)
        fwd_end = ops[ops_per_step // 2][0]
        b.add("Python/Thread 1", "forward", launch_t - 50_000, fwd_end - launch_t)
        b.add("Python/Thread 1", "backward", fwd_end - 40_000, comm_start - fwd_end)
        b.add("Python/Thread 1", "optimizer.step", ct, step_end - ct - 50_000)
        for k, (s, d) in enumerate(ops):
            name = OPS[int(rng.integers(0, len(OPS)))] if k % 5 else OPS[0]
            stream = "Ascend Hardware/Stream 2" if k % 3 else "Ascend Hardware/Stream 3"
            tt = "AI_CORE" if k % 3 else "AI_VECTOR_CORE"
            launch = b.add("CANN/Thread 1", f"aclnn{name}", s - 40_000, 15_000)
            task = b.add(stream, name, s, d, tt, {"Task Type": tt, "Stream Id": 2 if k % 3 else 3,
                                                  "Model Id": 0, "op_name": f"{name}_{k}"})
            if k % 4 == 0:
                b.flows.append((launch, task))
        for k, (s, d) in enumerate(comm):
            b.add("HCCL/Group 0 Communication", f"hcom_allReduce__{step}{k}_1", s, d)
            b.add("HCCL/Plane 0", "Memcpy", s + 5_000, d // 3)
            b.add("HCCL/Plane 0", "Reduce_Inline", s + d // 3 + 10_000, d // 3)
            b.add("Ascend Hardware/Stream 5", "Notify_Wait", s, d // 4, "NOTIFY_WAIT")
        freq_ts += [step_start, launch_t]
        freq_v += [800.0, 1800.0]
    hbm_ts = np.linspace(base_ns, t, 400).astype(np.int64)
    hbm = 40 + 30 * np.sin(np.linspace(0, 12, 400)) + rng.random(400) * 10
    b.counters.append(("AI Core Freq", "AI Core Freq", np.array(freq_ts, np.int64), np.array(freq_v)))
    b.counters.append(("HBM", "HBM Read (GB/s)", hbm_ts, hbm))
    return b.build(card, rank)
