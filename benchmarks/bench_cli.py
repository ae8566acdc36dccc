"""End-to-end cost of ``timelineview stats``: where a run's time goes.

Each run is a fresh process (as a user's would be) that times its own phases: Python and the
imports the command needs, the load (readying the compiled scanner included: it is timed apart),
the analysis (``stats_document``) and the JSON output. Prints the median of each phase over
``--runs`` runs, and the wall time of the whole process measured from outside.

    .venv/bin/python benchmarks/bench_cli.py .bench/msprof_355MB.json --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import io, json, sys, time
t0 = time.perf_counter()
import orjson
from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.model.load import jit
from timelineview.model.load.loader import shutdown_pool
t1 = time.perf_counter()
warm = [0.0]
real_warm = jit.warm_scanner
def timed_warm():
    a = time.perf_counter(); real_warm(); warm[0] += time.perf_counter() - a
from timelineview.model.load.chunked import decode_run
decode_run.warm_scanner = timed_warm
stores = load(sys.argv[1]); shutdown_pool()
t2 = time.perf_counter()
doc = stats_document(stores)
t3 = time.perf_counter()
out = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)
t4 = time.perf_counter()
mods = sorted(m for m in ("numba", "PySide6", "pyqtgraph", "scipy", "pandas", "dask") if m in sys.modules)
print(json.dumps({"imports": t1 - t0, "load": t2 - t1 - warm[0], "scanner_warm_up": warm[0],
                  "analysis": t3 - t2, "json": t4 - t3, "bytes_out": len(out), "modules": mods}))
"""


def run_once(path: str, env: dict) -> dict:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    phases = json.loads(out.stdout.strip().splitlines()[-1])
    phases["wall"] = wall
    phases["startup_and_exit"] = wall - sum(phases[k] for k in ("imports", "load", "scanner_warm_up",
                                                                   "analysis", "json"))
    return phases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    env = dict(os.environ)
    runs = [run_once(args.path, env) for _ in range(args.runs)]
    size = os.path.getsize(args.path) / 1e6 if os.path.isfile(args.path) else float("nan")
    print(f"timelineview stats {args.path} ({size:,.0f} MB), median of {args.runs} fresh processes:")
    for key in ("imports", "scanner_warm_up", "load", "analysis", "json", "startup_and_exit", "wall"):
        print(f"  {key:18s} {statistics.median(r[key] for r in runs):6.2f} s")
    print(f"  modules loaded: {', '.join(runs[-1]['modules']) or 'none of the heavy ones'}")


if __name__ == "__main__":
    main()
