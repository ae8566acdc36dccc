"""A damaged trace loads in about the time of a clean one: resync is linear.

    python benchmarks/bench_damaged.py [--mb 17] [--runs 5]

Writes a generated ~17 MB trace, then the same trace with every event damaged the same way
(its ``args`` object opened as ``[{`` and never closed: the issue's worst case), one with one
event in 1 000 damaged so, one with a stray byte after every 100th event, and one with a single
stray ``"`` near the start. Each is loaded in a fresh process, the files taking turns run after
run (a shared machine's load then weighs on all alike); the median of ``--runs`` wall times is
reported, with its ratio to the clean file's, and so is the CPU time (steadier on a busy machine),
with the slices kept and the events dropped. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / ".bench"

_CHILD = """
import json, sys, time
from timelineview.model import load
t0, c0 = time.perf_counter(), time.process_time()
[store] = load(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "slices": len(store.slices),
                  "dropped": store.report.dropped_events}))
"""


def write_variants(mb: int) -> dict[str, Path]:
    from timelineview.synthetic import CardSpec, generate_card

    OUT.mkdir(exist_ok=True)
    clean = OUT / f"damaged_clean_{mb}MB.json"
    if not clean.exists():
        generate_card(clean, CardSpec(), target_bytes=mb << 20)
    data = clean.read_bytes()
    every = OUT / f"damaged_every_{mb}MB.json"
    every.write_bytes(re.sub(rb'"args": ?\{', b'"args": [{', data))  # no event parses
    args = [m.end() - 1 for m in re.finditer(rb'"args": ?\{', data)]
    sparse = bytearray(data)
    for k in reversed(args[::1000]):
        sparse[k:k] = b"["  # '"args": [{' in one event of 1000 with args
    few = OUT / f"damaged_1in1000_{mb}MB.json"
    few.write_bytes(bytes(sparse))
    starts = [m.start() for m in re.finditer(rb'\},\s*\{"', data)]
    stray = bytearray(data)
    for k in reversed(starts[::100]):
        stray[k + 1:k + 1] = b"}"  # a stray '}' between two events
    strays = OUT / f"damaged_strays_{mb}MB.json"
    strays.write_bytes(bytes(stray))
    quote = bytearray(data)
    quote[starts[100] + 2:starts[100] + 2] = b'"'  # the issue's [{a},"{b},{c}]
    one = OUT / f"damaged_quote_{mb}MB.json"
    one.write_bytes(bytes(quote))
    return {"clean": clean, "every event damaged": every, "1 event in 1000 damaged": few,
            "a stray '}' every 100 events": strays, "one stray '\"'": one}


def load_once(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=17)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    variants = write_variants(args.mb)
    times: dict[str, list[float]] = {label: [] for label in variants}
    cpu: dict[str, list[float]] = {label: [] for label in variants}
    last: dict[str, dict] = {}
    t0 = time.perf_counter()
    for _ in range(args.runs):
        for label, path in variants.items():
            last[label] = load_once(path)
            times[label].append(last[label]["seconds"])
            cpu[label].append(last[label]["cpu"])
    clean, clean_cpu = statistics.median(times["clean"]), statistics.median(cpu["clean"])
    results = {}
    for label, path in variants.items():
        median, median_cpu = statistics.median(times[label]), statistics.median(cpu[label])
        results[label] = {"seconds": median, "runs": times[label], "vs_clean": median / clean,
                          "cpu_seconds": median_cpu, "cpu_vs_clean": median_cpu / clean_cpu,
                          "slices": last[label]["slices"], "dropped": last[label]["dropped"],
                          "bytes": path.stat().st_size}
        print(f"{label:32s} {median:6.2f} s  {median / clean:5.2f}x clean  (CPU {median_cpu:5.2f} s "
              f"{median_cpu / clean_cpu:5.2f}x)  {last[label]['slices']:>8,} slices  "
              f"{last[label]['dropped']:>8,} dropped")
    print(f"({time.perf_counter() - t0:.0f} s with process starts)")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
