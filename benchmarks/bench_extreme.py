"""Extreme but valid input costs about what ordinary input of its size does.

    python benchmarks/bench_extreme.py [--name-mb 200] [--events 1000000] [--runs 3]

Writes three traces: one whose first event has a name of ``--name-mb`` MB, one of ``--events`` events
each on a thread of its own, and the same events on one thread (the reference for the second). Each
runs ``timelineview stats --json`` in a fresh process, the files taking turns run after run; the median
wall time and the median peak memory (the largest resident set of the process and its decode workers) are
reported, with the
multiples of the file size and of the one-thread file. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / ".bench"

_CHILD = """
import resource, sys
from timelineview.cli import stats_main
code = stats_main([sys.argv[1], "--json", "--quiet", "--no-cache"])  # the load itself, not the card cache
# the largest process: this one, or a decode worker it started (reaped when its pool shut down)
print(max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)),
      file=sys.stderr)
"""


def _event(name: str, tid: int, ts: int) -> str:
    return f'{{"ph":"X","name":"{name}","pid":1,"tid":{tid},"ts":{ts},"dur":1}}'


def write_inputs(name_mb: int, events: int) -> dict[str, Path]:
    OUT.mkdir(exist_ok=True)
    paths = {"long name": OUT / f"extreme_name_{name_mb}MB.json",
             "one thread each": OUT / f"extreme_threads_{events}.json",
             "one thread": OUT / f"extreme_one_thread_{events}.json"}
    if not paths["long name"].exists():
        with open(paths["long name"], "w") as f:
            f.write('[{"ph":"X","name":"')
            f.write("a" * (name_mb << 20))
            f.write('","pid":1,"tid":1,"ts":0,"dur":1},\n' + _event("small", 1, 2) + "]")
    for key, tid in (("one thread each", None), ("one thread", 1)):
        if not paths[key].exists():
            with open(paths[key], "w") as f:
                f.write("[" + ",\n".join(_event("op", k if tid is None else tid, k) for k in range(events)) + "]")
    return paths


def run(path: Path) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one ``stats --json`` of ``path`` in a fresh process."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - t0
    peak_kb = int(done.stderr.strip().splitlines()[-1])
    return seconds, peak_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name-mb", type=int, default=200)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    paths = write_inputs(args.name_mb, args.events)
    times: dict[str, list[float]] = {k: [] for k in paths}
    peaks: dict[str, list[float]] = {k: [] for k in paths}
    for _ in range(args.runs):
        for key, path in paths.items():
            seconds, peak = run(path)
            times[key].append(seconds)
            peaks[key].append(peak)
    result = {}
    for key, path in paths.items():
        mb = path.stat().st_size / (1 << 20)
        t, m = statistics.median(times[key]), statistics.median(peaks[key])
        result[key] = {"file_mb": round(mb, 1), "seconds": round(t, 2), "peak_mb": round(m, 1),
                       "peak_per_file_byte": round(m / mb, 2)}
        print(f"{key:16s} {mb:8.1f} MB file: {t:6.2f} s, peak {m:7.1f} MB ({m / mb:.2f}x the file)")
    base = result["one thread"]
    each = result["one thread each"]
    print(f"one thread each / one thread: {each['seconds'] / base['seconds']:.2f}x the time, "
          f"{each['peak_mb'] / base['peak_mb']:.2f}x the memory")
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
