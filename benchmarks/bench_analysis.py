"""Benchmark of timelineview.analysis on synthetic in-memory cards (the budgets below).

* derive() + whole-card statistics (card_document: metrics, steps, producer lanes) on a
  10 M-slice card: target <= 2 s.
* one window query (window_metrics) on a 1 M-slice card: target <= 50 ms.
* the operator tables (metrics.md §7) of a 10 M-slice card: target <= 200 ms.

Run: ``python benchmarks/bench_analysis.py [--slices 10000000] [--runs 5]``. Prints the median.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

import numpy as np

from timelineview.analysis.classify import classify
from timelineview.analysis.derived import derive
from timelineview.analysis.names import name_table
from timelineview.analysis.operators import card_operators
from timelineview.analysis.summary import card_document
from timelineview.analysis.window import window_metrics
from timelineview.model.store.report import LoadReport
from timelineview.model.store.store_factory import empty_counters, empty_flows, empty_instants
from timelineview.model.store.trace_store import LaneTable, ProcessTable, SliceColumns, TraceStore

STREAMS = 8
PLANES = 4


def synthetic_card(n_slices: int, seed: int = 0, streams: int = STREAMS) -> TraceStore:
    """A torch_npu-like card: 70 % hardware tasks on ``streams`` streams (1 in 6 a Notify Wait), 20 % HCCL
    plane tasks, 1 collective per 500 hardware tasks, the rest host ops, 100 ProfilerStep windows."""
    rng = np.random.default_rng(seed)
    strings = ["AI_CORE", "Notify Wait", "MatMul", "Add", "Notify_Wait", "hcom_allReduce_", "Memcpy",
               "aten::op", "ProfilerStep#"]
    n_hw = int(n_slices * 0.7)
    n_plane = int(n_slices * 0.2)
    n_comm = max(n_hw // 500, 1)
    n_steps = 100
    n_host = n_slices - n_hw - n_plane - n_comm - n_steps
    starts, durs, lanes, names, types = [], [], [], [], []

    # hardware: each stream a back-to-back sequence with gaps
    per = n_hw // streams
    for k in range(streams):
        m = per if k < streams - 1 else n_hw - per * (streams - 1)
        dur = rng.integers(1_000, 20_000, m)
        gap = rng.integers(0, 8_000, m)
        s = 1_700_000_000_000_000_000 + k * 3_000 + np.cumsum(dur + gap) - dur
        notify = rng.random(m) < 1 / 6
        starts.append(s)
        durs.append(dur)
        lanes.append(np.full(m, k))
        names.append(np.where(notify, 4, 2 + (np.arange(m) % 2)))
        types.append(np.where(notify, 1, 0))
    t0 = int(starts[0][0])
    t1 = int(max(s[-1] for s in starts))
    # collectives on the HCCL group lane, planes inside them
    cs = np.sort(rng.integers(t0, t1, n_comm))
    cd = np.minimum(np.diff(np.append(cs, t1)), rng.integers(20_000, 400_000, n_comm))
    starts.append(cs)
    durs.append(cd)
    lanes.append(np.full(n_comm, streams))
    names.append(np.full(n_comm, 5))
    types.append(np.full(n_comm, -1))
    owner = rng.integers(0, n_comm, n_plane)
    ps = cs[owner] + (rng.random(n_plane) * cd[owner] * 0.9).astype(np.int64)
    starts.append(ps)
    durs.append(np.maximum(cd[owner] // 20, 1))
    lanes.append(streams + 1 + rng.integers(0, PLANES, n_plane))
    names.append(np.full(n_plane, 6))
    types.append(np.full(n_plane, -1))
    # host ops and steps
    starts.append(np.sort(rng.integers(t0, t1, n_host)))
    durs.append(rng.integers(500, 5_000, n_host))
    lanes.append(np.full(n_host, streams + 1 + PLANES))
    names.append(np.full(n_host, 7))
    types.append(np.full(n_host, -1))
    edges = np.linspace(t0, t1, n_steps + 1).astype(np.int64)
    starts.append(edges[:-1])
    durs.append(np.diff(edges))
    lanes.append(np.full(n_steps, streams + 2 + PLANES))
    step_ids = len(strings) + np.arange(n_steps)
    strings += [f"ProfilerStep#{k + 1}" for k in range(n_steps)]
    names.append(step_ids)
    types.append(np.full(n_steps, -1))

    start = np.concatenate(starts).astype(np.int64)
    n = len(start)
    lane_names = [f"Stream {k}" for k in range(streams)] + ["Group 0 Communication"]
    lane_names += [f"Plane {k}" for k in range(PLANES)] + ["Thread 1", "Thread 2"]
    lane_proc = [0] * streams + [1] * (1 + PLANES) + [2, 2]
    return TraceStore(
        card="rank 0", rank=0, paths=[Path("synthetic.json")], strings=strings,
        processes=ProcessTable(["1", "2", "3"], ["Ascend Hardware", "HCCL", "Python"], ["NPU", "NPU", "CPU"],
                               np.arange(3)),
        lanes=LaneTable(np.array(lane_proc, dtype=np.int32), [str(k) for k in range(len(lane_names))],
                        lane_names, np.arange(len(lane_names))),
        slices=SliceColumns(start=start, dur=np.concatenate(durs).astype(np.int64),
                            lane=np.concatenate(lanes).astype(np.int32),
                            name=np.concatenate(names).astype(np.int32), cat=np.full(n, -1, np.int32),
                            task_type=np.concatenate(types).astype(np.int32), depth=np.zeros(n, np.int16),
                            src=np.arange(n, dtype=np.int64), flags=np.zeros(n, np.uint8)),
        counters=empty_counters(),
        instants=empty_instants(),
        flows=empty_flows(),
        report=LoadReport(counts_by_ph=Counter({"X": n})),
    )


def timed(fn, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slices", type=int, default=10_000_000)
    ap.add_argument("--window-slices", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    for streams in (STREAMS, 1):
        bench_card(args.slices, args.runs, streams)
    for streams in (STREAMS, 1):  # 1 stream: every hole between tasks is an idle gap (worst case)
        bench_window(args.window_slices, args.runs, streams)


def bench_card(n_slices: int, runs: int, streams: int) -> None:
    big = synthetic_card(n_slices, streams=streams)
    t, doc = timed(lambda: card_document(big), runs)
    print(f"derive + whole-card stats, {len(big.slices):,} slices, {streams} stream(s), "
          f"{doc['idle_gap_count']:,} idle gaps, {len(doc['steps'])} steps: {t * 1000:.0f} ms "
          f"(median of {runs}; target <= 2000 ms)")
    cls = classify(big)
    t, ops = timed(lambda: card_operators(big, cls), runs)
    print(f"operator tables, {len(big.slices):,} slices ({int(cls.compute.sum()):,} compute, "
          f"{len(ops.by_name)} names): {t * 1000:.0f} ms (median of {runs}; target <= 200 ms)")


def bench_window(n_slices: int, runs: int, streams: int) -> None:
    card = synthetic_card(n_slices, seed=1, streams=streams)
    d = derive(card)
    t0, t1 = d.span
    rng = np.random.default_rng(2)
    lo = rng.integers(t0, t1, 50)
    width = (rng.random(50) * (t1 - t0)).astype(np.int64)
    queries = list(zip(lo, np.minimum(lo + width, t1), strict=True))
    per_query = []
    for a, b in queries + [(t0, t1)]:
        tq, _ = timed(lambda a=a, b=b: window_metrics(d, a, b), runs)
        per_query.append(tq)
    print(f"window query, {len(card.slices):,} slices, {streams} stream(s), {len(d.idle_gaps):,} idle gaps: "
          f"median {statistics.median(per_query) * 1000:.2f} ms, "
          f"max {max(per_query) * 1000:.2f} ms, whole span {per_query[-1] * 1000:.2f} ms (target <= 50 ms)")
    mid = (t0 + t1) // 2
    tn, table = timed(lambda: name_table(card, mid, mid + (t1 - t0) // 10), runs)
    print(f"name table over 10 % of the {len(card.slices):,}-slice card: {tn * 1000:.1f} ms "
          f"({len(table)} names)")

if __name__ == "__main__":
    main()
