"""Benchmark of a card's interval index build: wall time and peak extra resident memory, before and after.

A synthetic card of N slices (default 20 M), a realistic mix: a few flat device-stream lanes holding most
slices, several host-thread lanes of properly nested slices (some sharing their parent's start, some of
zero length), one lane where a few slices overlap their parent partially, and empty lanes. File order is
by lane kind, by time inside each kind, as a profiler database's tables give them.

Two variants, each measured in a fresh process with its inputs (start, dur, lane, src) already loaded:

* ``before``: the whole-card build the database card used (``lane_time_order`` then ``build_index``
  with that order), kept in the tests as ``interval_index_reference``;
* ``after``: ``build_index(..., src=src)``, lane by lane;
* ``..., order given``: the build alone from a ``lane_time_order`` made beforehand (outside the measure),
  as the JSON card's assembly calls it.

Peak extra memory is the process's ``VmHWM`` after the build minus its ``VmRSS`` before (the peak is
reset before the build where the kernel allows it): it includes the build's outputs, the index's ``order``
(4 bytes a slice) and the slices' ``depth`` (2). The heap is set up as a database load sets it (a fixed
mmap threshold, free pages handed back before the build). Both variants must give the same index (checked
by a digest of every output). CPU seconds are printed too: wall time says little on a busy machine.

Run: ``python benchmarks/bench_index_build.py [--slices 20000000] [--runs 3]``. Prints medians.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEVICE_LANES, HOST_LANES, EMPTY_LANES = 4, 8, 40
DEVICE_SHARE, OVERLAP_SHARE = 0.80, 0.02  # the host lanes hold the rest
PARTIAL_OVERLAPS = 0.01  # of the overlap lane's children: they end after their parent
ZERO_LENGTH = 0.01
COLUMNS = ("start", "dur", "lane", "src")
VARIANTS = ("before", "after", "before, order given", "after, order given")


def _device_lane(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Back-to-back kernels of one stream: never overlapping, some touching, a few of zero length."""
    dur = rng.integers(1, 5000, m)
    dur[rng.random(m) < ZERO_LENGTH] = 0
    gap = rng.integers(0, 2000, m)
    start = np.cumsum(gap + dur) - dur
    return start, dur


def _nested_lane(rng: np.random.Generator, m: int, partial: float) -> tuple[np.ndarray, np.ndarray]:
    """Host calls three deep: each top call holds 3 children, each child 2 grandchildren; a third of
    the first children share their parent's start; ``partial`` of the children end past their parent."""
    tops = max(m // 10, 1)
    top_start = np.arange(tops, dtype=np.int64) * 12_000 + rng.integers(0, 1000, tops)
    top_dur = np.full(tops, 10_000, dtype=np.int64)
    child_off = np.array([100, 3000, 6000])
    child_start = (top_start[:, None] + child_off[None, :]).ravel()
    child_start[0::3][rng.random(tops) < 1 / 3] -= 100  # the first child starts with its parent
    child_dur = rng.integers(1500, 2800, len(child_start))
    over = rng.random(len(child_start)) < partial
    child_dur[over] += 5000  # ends past its parent's end
    grand_start = (child_start[:, None] + np.array([100, 800])[None, :]).ravel()
    grand_dur = rng.integers(0, 600, len(grand_start))  # inside the shortest child
    grand_dur[rng.random(len(grand_dur)) < ZERO_LENGTH] = 0
    start = np.concatenate([top_start, child_start, grand_start])[:m]
    dur = np.concatenate([top_dur, child_dur, grand_dur])[:m]
    by_time = np.argsort(start, kind="stable")
    return start[by_time], dur[by_time]


def make_card(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The synthetic card's columns (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    n_device = int(n * DEVICE_SHARE)
    n_overlap = int(n * OVERLAP_SHARE)
    n_host = n - n_device - n_overlap
    starts, durs, lanes = [], [], []
    device = [_device_lane(rng, m) for m in np.diff(np.linspace(0, n_device, DEVICE_LANES + 1).astype(int))]
    d_start = np.concatenate([s for s, _ in device])
    d_lane = np.repeat(np.arange(DEVICE_LANES), [len(s) for s, _ in device])
    by_time = np.argsort(d_start, kind="stable")  # the streams' tasks interleave by time in the table
    starts.append(d_start[by_time])
    durs.append(np.concatenate([d for _, d in device])[by_time])
    lanes.append(d_lane[by_time])
    for k, m in enumerate(np.diff(np.linspace(0, n_host, HOST_LANES + 1).astype(int))):
        s, d = _nested_lane(rng, int(m), 0.0)
        starts.append(s)
        durs.append(d)
        lanes.append(np.full(len(s), DEVICE_LANES + EMPTY_LANES // 2 + k))
    s, d = _nested_lane(rng, n_overlap, PARTIAL_OVERLAPS)
    starts.append(s)
    durs.append(d)
    lanes.append(np.full(len(s), DEVICE_LANES + EMPTY_LANES // 2 + HOST_LANES))
    start = np.concatenate(starts).astype(np.int64)
    return {"start": start, "dur": np.concatenate(durs).astype(np.int64),
            "lane": np.concatenate(lanes).astype(np.int32), "src": np.arange(len(start), dtype=np.int32)}


def n_lanes_of_card() -> int:
    return DEVICE_LANES + HOST_LANES + 1 + EMPTY_LANES


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return -1


def _reset_peak() -> None:
    """Reset ``VmHWM`` to the current resident size (Linux 4.0+; else the peak of loading the inputs
    stays, and it is lower than the build's)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def child(folder: str, variant: str) -> None:
    """One build in this fresh process; prints {"seconds", "cpu_s", "extra_mb", "digest"}."""
    sys.path.insert(0, str(ROOT))
    from tests.model.store.interval_index_reference import lane_time_order as reference_order
    from tests.model.store.interval_index_reference import reference_build_index
    from timelineview.model.load import heap
    from timelineview.model.store.interval_index import build_index, lane_time_order

    heap.fixed_mmap_threshold()  # as a database load sets it

    cols = {c: np.load(Path(folder) / f"{c}.npy") for c in COLUMNS}
    start, dur, lane, src = (cols[c] for c in COLUMNS)
    n_lanes = n_lanes_of_card()
    given = lane_time_order(lane, start, dur, src) if variant.endswith("order given") else None
    heap.trim()  # as a load does before the build
    _reset_peak()
    rss0 = _status_kb("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    if variant == "before":
        seq = reference_order(lane, start, dur, src)
        index, depth, overlapping = reference_build_index(start, dur, lane, n_lanes, seq=seq)
        del seq
    elif variant == "after":
        index, depth, overlapping = build_index(start, dur, lane, n_lanes, src=src)
    elif variant.startswith("before"):
        index, depth, overlapping = reference_build_index(start, dur, lane, n_lanes, seq=given)
    else:
        index, depth, overlapping = build_index(start, dur, lane, n_lanes, seq=given)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    extra_mb = (_status_kb("VmHWM") - rss0) / 1024
    digest = hashlib.sha1()
    for a in (index.order, depth, index.row_lane, index.row_level, index.row_ptr, index.lane_first_row,
              index.lane_row_count, np.array([overlapping])):
        digest.update(a.dtype.str.encode() + np.ascontiguousarray(a).tobytes())
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "extra_mb": extra_mb, "digest": digest.hexdigest(),
                      "rows": index.n_rows, "overlapping": overlapping}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slices", type=int, default=20_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("FOLDER", "VARIANT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        card = make_card(args.slices)
        for c in COLUMNS:
            np.save(Path(tmp) / f"{c}.npy", card[c])
        n = len(card["start"])
        largest = int(np.bincount(card["lane"]).max())
        del card
        print(f"card: {n:,} slices, largest lane {largest:,} ({time.perf_counter() - t:.1f} s to make)")
        results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
        for _ in range(args.runs):
            for v in VARIANTS:
                out = subprocess.run([sys.executable, __file__, "--child", tmp, v], capture_output=True, text=True,
                                     check=True, cwd=ROOT)
                results[v].append(json.loads(out.stdout.strip().splitlines()[-1]))
    digests = {r["digest"] for rs in results.values() for r in rs}
    for v in VARIANTS:
        rs = results[v]
        med = {k: statistics.median(r[k] for r in rs) for k in ("seconds", "cpu_s", "extra_mb")}
        print(f"{v:>19}: {med['seconds']:.2f} s wall, {med['cpu_s']:.2f} s CPU, peak extra {med['extra_mb']:,.0f} MB "
              f"({med['extra_mb'] * 2**20 / n:.1f} B a slice); rows {rs[0]['rows']}, overlapping "
              f"{rs[0]['overlapping']:,} (median of {len(rs)})")
    print("same index from all: " + ("yes" if len(digests) == 1 else f"NO ({len(digests)} digests)"))


if __name__ == "__main__":
    main()
