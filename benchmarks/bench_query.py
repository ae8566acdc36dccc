"""SQL over a large card: ``select name, sum(dur_ns) from slices group by name`` on DuckDB (the Arrow
tables of ``timelineview.open``) against the standard library's sqlite3 (in memory), and the time to
open a session from the card cache against the window's re-open (``load(..., cache=True)``).

    PYTHONPATH=. python benchmarks/bench_query.py --generate 2750 [--runs 5]   # ~10 M slices in .bench/ first
    PYTHONPATH=. python benchmarks/bench_query.py PATH [--runs 5] [--no-sqlite]

Prints the medians; the last line is JSON. Target: the query answers in <= 1 s after the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUERY = "select name, sum(dur_ns) from slices group by name"
TARGET_S = 1.0


def _median(f, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path)
    ap.add_argument("--generate", type=int, metavar="MB", help="write a synthetic card of MB first")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-sqlite", action="store_true", help="skip the sqlite3 comparison (it takes a minute)")
    args = ap.parse_args()
    path = args.path
    if args.generate:
        path = ROOT / ".bench" / f"msprof_{args.generate}MB.json"
        if not path.exists():
            subprocess.run([sys.executable, "-m", "timelineview.synthetic", str(path), "--layout", "msprof",
                            "--cards", "1", "--target-mb", str(args.generate), "--seed", "7", "--no-truth"],
                           check=True, cwd=ROOT)
    if path is None:
        ap.error("give a PATH or --generate MB")

    import timelineview
    from timelineview.api import Session, SqlEngine
    from timelineview.model import load
    from timelineview.model.load.loader import shutdown_pool

    load([path], cache=True)  # the first run fills the card cache
    shutdown_pool()
    reopen_s, _ = _median(lambda: load([path], cache=True), args.runs)
    open_s, session = _median(lambda: timelineview.open(path), args.runs)
    n = sum(len(s.slices) for s in session.stores)
    table_s, _ = _median(lambda: Session(session.stores).table("slices"), args.runs)  # a new session: not kept
    # a session's first query builds its slices table and registers it: timed on a new session each run
    first_s, _ = _median(lambda: SqlEngine(Session(session.stores)).arrow(QUERY), args.runs)
    engine = SqlEngine(session)
    engine.arrow(QUERY)
    query_s, result = _median(lambda: engine.arrow(QUERY), args.runs)
    doc = {"slices": n, "groups": result.num_rows, "card_cache_reopen_s": reopen_s, "open_s": open_s,
           "slices_table_s": table_s, "duckdb_first_query_s": first_s, "duckdb_query_s": query_s}
    print(f"{n:,} slices, {result.num_rows:,} names")
    print(f"window re-open (load from the card cache)  median {reopen_s:.3f} s")
    print(f"timelineview.open (from the card cache)    median {open_s:.3f} s")
    print(f"slices as Arrow (zero-copy columns)        median {table_s:.3f} s")
    print(f"DuckDB first query of a session (table built)  median {first_s:.3f} s   target <= {TARGET_S} s")
    print(f"DuckDB {QUERY!r}  median {query_s:.3f} s")
    if not args.no_sqlite:
        store = session.stores[0]
        names = np.asarray(store.strings, dtype=object)[store.slices.name]
        con = sqlite3.connect(":memory:")
        t = time.perf_counter()
        con.execute("create table slices (name text, dur_ns integer)")
        con.executemany("insert into slices values (?, ?)", zip(names.tolist(), store.slices.dur.tolist()))
        fill_s = time.perf_counter() - t
        sqlite_s, _ = _median(lambda: con.execute(QUERY).fetchall(), max(1, min(args.runs, 3)))
        doc.update(sqlite_fill_s=fill_s, sqlite_query_s=sqlite_s)
        print(f"sqlite3 in memory: fill {fill_s:.2f} s, query median {sqlite_s:.3f} s")
    doc["load_average"] = os.getloadavg()[0]  # the machine's other work: the figures grow with it
    print(f"load average {doc['load_average']:.1f} on {os.cpu_count()} cores")
    print(json.dumps(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
