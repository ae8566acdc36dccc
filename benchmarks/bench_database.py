"""Profiler database (SQLite) → TraceStore, against the JSON path on the JSON export of the same job.

    python benchmarks/bench_database.py [--tasks 10000000] [--runs 2] [--no-variants]

Generates one card (``msprof`` layout) with about ``--tasks`` device tasks in .bench/, writes it as
a profiler database with the generator's database layout, then loads each in a fresh process
(``timelineview.model.load``: the JSON through the chunked parallel decoder, the database through
``model/database``) and reports slices per second, wall time and peak resident memory (``VmHWM``
of the process and, for the JSON path, its workers) against the file sizes. It also times the ways
to move ``TASK`` into numpy: the reader's (its file pages decoded by compiled code, ``pages``), and
the standard library's (SQLite's ``group_concat`` text, the reader's fallback; ``fetchmany`` +
``np.fromiter`` over the flattened rows; ``np.array(fetchall())``; one ``select`` per column). The
last line is JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / ".bench"
TASK_COLUMNS = ("startNs", "endNs", "globalTaskId", "streamId", "taskType", "connectionId", "taskId", "contextId")
SPEC_STEPS = 20


def _vm_hwm_mb(pid: int | str = "self") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def child(path: str) -> None:
    """One load in this fresh process: prints {"seconds", "cpu_s", "slices", "peak_mb"}. ``cpu_s`` is
    the CPU time of this process and its decode workers: on a busy machine wall time says little."""
    sys.path.insert(0, str(ROOT))
    from timelineview.model.load.loader import get_pool, load, shutdown_pool

    cpu0 = _cpu_s()
    t0 = time.perf_counter()
    [store] = load(path)
    seconds = time.perf_counter() - t0
    procs = getattr(get_pool(), "_processes", None) or {}
    peak = _vm_hwm_mb() + sum(m for m in (_vm_hwm_mb(p) for p in list(procs)) if m == m)
    shutdown_pool()  # the workers' CPU time counts once they have ended
    print(json.dumps({"seconds": seconds, "cpu_s": _cpu_s() - cpu0, "slices": len(store.slices), "peak_mb": peak,
                      "warnings": len(store.report.warnings)}))


def _cpu_s() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _measure(path: Path, runs: int) -> dict:
    got = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                             check=True, cwd=ROOT)
        got.append(json.loads(out.stdout.strip().splitlines()[-1]))
    seconds = statistics.median(g["seconds"] for g in got)
    return {"seconds": round(seconds, 3), "cpu_s": round(statistics.median(g["cpu_s"] for g in got), 3),
            "slices": got[0]["slices"], "slices_per_cpu_s": round(got[0]["slices"] / statistics.median(
                g["cpu_s"] for g in got)),
            "slices_per_s": round(got[0]["slices"] / seconds), "peak_mb": round(max(g["peak_mb"] for g in got)),
            "file_mb": round(path.stat().st_size / 2**20, 1)}


def _pages(conn: sqlite3.Connection) -> int:
    from timelineview.model.database.sqlite.pages import read_int_columns
    from timelineview.model.database.sqlite.tables import _database_file
    cols = read_int_columns(conn, _database_file(conn), "TASK", list(TASK_COLUMNS))
    return len(cols[0]) if cols is not None else 0


def _group_concat(conn: sqlite3.Connection) -> int:
    from timelineview.model.database.sqlite.tables import _int_text_scan
    return len(_int_text_scan(conn, "TASK", list(TASK_COLUMNS), "")[0])


def _fromiter(conn: sqlite3.Connection) -> int:
    cur = conn.execute("select " + ", ".join(f"ifnull({c}, -1)" for c in TASK_COLUMNS) + " from TASK")
    parts = []
    while rows := cur.fetchmany(1 << 16):
        parts.append(np.fromiter(itertools.chain.from_iterable(rows), np.int64, len(rows) * len(TASK_COLUMNS)))
    return len(np.concatenate(parts)) // len(TASK_COLUMNS)


def _array_fetchall(conn: sqlite3.Connection) -> int:
    rows = conn.execute("select " + ", ".join(TASK_COLUMNS) + " from TASK").fetchall()
    return len(np.array(rows, dtype=np.int64))


def _per_column(conn: sqlite3.Connection) -> int:
    n = 0
    for c in TASK_COLUMNS:
        col = np.fromiter((r[0] for r in conn.execute(f"select {c} from TASK")), np.int64)
        n = len(col)
    return n


def reader_variants(path: Path) -> dict:
    """Rows per second of TASK (8 int columns) into numpy: the page reader and the stdlib ways."""
    out = {}
    for name, fn in (("file pages (used)", _pages), ("group_concat text (fallback)", _group_concat),
                     ("fetchmany+fromiter", _fromiter),
                     ("np.array(fetchall())", _array_fetchall),
                     ("one select per column", _per_column)):
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        t0, c0 = time.perf_counter(), time.process_time()
        n = fn(conn)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        conn.close()
        out[name] = {"seconds": round(dt, 3), "cpu_s": round(cpu, 3), "rows_per_s": round(n / dt),
                     "rows_per_cpu_s": round(n / cpu)}
    return out


def prepare(tasks: int, folder: Path = BENCH) -> tuple[Path, Path]:
    """The JSON card and its database, made once per size in ``folder``."""
    sys.path.insert(0, str(ROOT))
    from timelineview.model.load.loader import load
    from timelineview.synthetic import CardSpec, generate_card
    from timelineview.synthetic.database import write_database

    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / f"db_job_{tasks}" / "trace_view.json"
    db_path = folder / f"db_job_{tasks}_db" / "ascend_pytorch_profiler_0.db"
    if not json_path.exists():
        json_path.parent.mkdir(parents=True, exist_ok=True)
        generate_card(json_path, CardSpec(steps=SPEC_STEPS, tasks_per_step=max(8, tasks // SPEC_STEPS)), "msprof")
    if not db_path.exists():
        [store] = load(json_path)
        t0 = time.perf_counter()
        write_database(store, db_path)
        print(f"database written in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return json_path, db_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", type=int, default=10_000_000, help="compute tasks of the generated job")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--no-variants", action="store_true", help="skip timing the ways to move TASK into numpy")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    json_path, db_path = prepare(args.tasks)
    result = {"tasks": args.tasks, "json": _measure(json_path, args.runs), "database": _measure(db_path, args.runs),
              "reader_variants": {} if args.no_variants else reader_variants(db_path)}
    j, d = result["json"], result["database"]
    for label, r in (("JSON    ", j), ("database", d)):
        print(f"{label}  {r['file_mb']:9.1f} MB  {r['slices']:>10,} slices  {r['seconds']:7.2f} s "
              f"({r['cpu_s']:.2f} CPU s)  {r['slices_per_s']:>10,} slices/s  {r['slices_per_cpu_s']:>10,} "
              f"slices/CPU s  peak {r['peak_mb']:,} MB ({r['peak_mb'] / max(r['file_mb'], 1e-9):.1f}x the file)")
    for name, v in result["reader_variants"].items():
        print(f"  TASK into numpy, {name:26s} {v['rows_per_s']:>12,} rows/s  {v['rows_per_cpu_s']:>12,} rows/CPU s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
