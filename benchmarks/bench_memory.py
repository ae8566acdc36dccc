"""Benchmark of the memory analysis (metrics.md §11) with 1 M allocation records per card.

* the analysis of one card (peaks per component and step, the 20 largest blocks, the blocks alive at
  the peak, per module, the ``stats`` memory object): target <= 0.5 s;
* alive-at-t queries by the interval index (built once, timed apart) against a scan of every block;
* reading the CSV files torch_npu writes for such a card (``operator_memory.csv``: 1 M rows;
  ``memory_record.csv``: 4 M rows): the median of ``--read-runs`` reads, with the rows and MB read.

Run: ``python benchmarks/bench_memory.py [--blocks 1000000] [--runs 5] [--read-runs 3]``. Prints medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from timelineview.analysis.memory import analyse_memory
from timelineview.model.memory import load_memory
from timelineview.synthetic.memory import MemorySpec, write_card_memory
from timelineview.synthetic.truth import GroundTruth

STEPS = 100
STEP_NS = 50_000_000
T0 = 1_736_408_883_000_000_000
ANALYSIS_BUDGET_S = 0.5
QUERIES = 1000


def _truth(folder: Path) -> GroundTruth:
    """The little of a card's ground truth the memory writer reads: its file and step windows."""
    starts = T0 + np.arange(STEPS, dtype=np.int64) * STEP_NS
    ends = starts + STEP_NS
    empty = np.zeros(0, dtype=np.int64)
    return GroundTruth(layout="msprof", rank=0, device_id=0, paths=[str(folder / "trace_view.json")],
                       time_base_ns=T0, clock_offset_ns=0, spec_clock_offset_ns=0, lane_pid=[], lane_tid=[],
                       lane_process=[], lane_thread=[], start_ns=empty, dur_ns=empty, lane=empty, name=empty,
                       task_type=empty, category=empty, copies=empty, phase=empty, names=[], task_types=[],
                       step_start_ns=starts, step_end_ns=ends, step_fp_ns=starts + STEP_NS // 10,
                       step_bp_ns=ends - STEP_NS // 5, step_source="profiler_step")


def _median(f, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--read-runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        truth = _truth(folder)
        spec = MemorySpec(weight_blocks=1000, blocks_per_step=max((args.blocks - 1000) // STEPS, 1))
        t = time.perf_counter()
        written = write_card_memory(truth, spec)
        print(f"wrote {written.blocks:,} blocks in {time.perf_counter() - t:.1f} s")
        files = [folder / "operator_memory.csv", folder / "memory_record.csv"]
        size_mb = sum(f.stat().st_size for f in files) / 1e6
        rows = sum(_lines(f) - 1 for f in files)
        loaded = []
        took = _median(lambda: loaded.append(load_memory([folder / "trace_view.json"])), args.read_runs)
        records = loaded[-1]
        print(f"read the CSV files ({len(records.allocations):,} blocks, {len(records.curves):,} records; "
              f"{rows:,} rows, {size_mb:.0f} MB): {took:.2f} s (median of {args.read_runs}), "
              f"{took / rows * 1e6:.2f} µs/row, {size_mb / took:.0f} MB/s")
        loaded.clear()
    steps = [(k + 1, int(s), int(s) + STEP_NS) for k, s in enumerate(T0 + np.arange(STEPS) * STEP_NS)]

    def analysis():
        analyse_memory("rank 0", records, T0, steps).document()

    took = _median(analysis, args.runs)
    print(f"analysis of one card: {took:.3f} s (target <= {ANALYSIS_BUDGET_S} s) "
          f"{'OK' if took <= ANALYSIS_BUDGET_S else 'OVER'}")
    memory = analyse_memory("rank 0", records, T0, steps)
    t = time.perf_counter()
    index = memory.alive_index
    print(f"interval index build: {time.perf_counter() - t:.3f} s")
    rng = np.random.default_rng(0)
    instants = rng.integers(T0, T0 + STEPS * STEP_NS, QUERIES)
    found = []
    t = time.perf_counter()
    for q in instants:
        found.append(len(index.alive_at(int(q))))
    per_query = (time.perf_counter() - t) / QUERIES
    a = records.allocations
    t = time.perf_counter()
    for q in instants[:50]:
        np.flatnonzero((a.allocated_ns <= q) & (a.released_ns > q))
    per_scan = (time.perf_counter() - t) / 50
    print(f"alive at t: {per_query * 1e6:.0f} µs per query by the index (mean {np.mean(found):.0f} blocks alive), "
          f"{per_scan * 1e3:.1f} ms by a scan of every block")


if __name__ == "__main__":
    main()
