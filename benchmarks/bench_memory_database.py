"""The memory load of a profiler database (``load_memory`` on a torch_npu ``ascend_pytorch_profiler_0.db``):
time and peak memory, this checkout against an older commit, run alternately on one machine.

    python benchmarks/bench_memory_database.py [--commit SHA] [--records 2000000] [--blocks 1000000] [--runs 5]

A database is generated in ``.bench/`` (kept between runs for the same sizes): ``MEMORY_RECORD`` with
``--records`` rows, ``OP_MEMORY`` with ``--blocks`` allocations, ``NPU_OP_MEM`` with their allocate and
release events (present, not read beside ``OP_MEMORY``: only counted), ``NPU_MEM`` and ``NPU_MODULE_MEM``
with ``--records / 20`` rows each. The commit (the current one unless ``--commit``) is exported with
``git archive`` into ``.bench/commit-SHA`` and loaded with this interpreter; each run is a fresh process
and the runs alternate (old, new, old, …). Printed: median wall and CPU seconds of the load, the peak
resident memory of the process (``VmHWM``) and its growth over the load (peak minus the resident memory
just before it), and the rows each side read (both sides must read the same).
"""

from __future__ import annotations

import argparse
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
T0 = 1_736_408_883_000_000_000
STRINGS = {1: "PTA", 2: "GE", 3: "allocate", 4: "release", 5: "APP", 6: "PTA+GE"}
OPERATOR_NAMES = 2000  # distinct operator names (ids from 100 on)
INSERT_ROWS = 1 << 16


def _vm_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def _insert(db: sqlite3.Connection, table: str, columns: list[np.ndarray]) -> None:
    n = len(columns[0])
    marks = ", ".join("?" * len(columns))
    for a in range(0, n, INSERT_ROWS):
        rows = zip(*(c[a:a + INSERT_ROWS].tolist() for c in columns))
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def generate(path: Path, records: int, blocks: int, seed: int = 7) -> None:
    """A torch_npu database holding only the memory tables (and the id tables they name through)."""
    rng = np.random.default_rng(seed)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
    names = {100 + k: f"aten::op_{k}" for k in range(OPERATOR_NAMES)}
    db.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", [*STRINGS.items(), *names.items()])
    db.execute("CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY, name TEXT)")
    db.executemany("INSERT INTO ENUM_MODULE VALUES (?, ?)", [(0, "SLOG"), (3, "HCCL"), (7, "RUNTIME")])
    db.execute("CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, "
               "totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER)")
    t = T0 + np.cumsum(rng.integers(1, 2000, records))
    alloc = rng.integers(0, 1 << 34, records)
    _insert(db, "MEMORY_RECORD", [rng.choice([1, 2, 6], records), t, alloc, alloc + (1 << 30), alloc,
                                  np.full(records, 9), np.zeros(records, np.int64)])
    db.execute("CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER, "
               "streamPtr INTEGER, deviceId INTEGER)")
    start = T0 + np.cumsum(rng.integers(1, 4000, blocks))
    end = start + rng.integers(1, 10**7, blocks)
    size = rng.integers(512, 1 << 24, blocks)
    stream = np.where(rng.random(blocks) < 0.9, 9, -1)
    op = rng.integers(100, 100 + OPERATOR_NAMES, blocks)
    _insert(db, "OP_MEMORY", [op, size, start, end, stream, np.zeros(blocks, np.int64)])
    db.execute("UPDATE OP_MEMORY SET streamPtr = NULL WHERE streamPtr < 0")
    db.execute("CREATE TABLE NPU_OP_MEM (operatorName INTEGER, addr INTEGER, type INTEGER, size INTEGER, "
               "timestampNs INTEGER, globalTid INTEGER, totalAllocate NUMERIC, totalReserve NUMERIC, "
               "component INTEGER, deviceId INTEGER)")
    addr = np.arange(blocks, dtype=np.int64) * 4096
    zeros = np.zeros(blocks, np.int64)
    for kind, at in ((3, start), (4, end)):
        _insert(db, "NPU_OP_MEM", [op, addr, np.full(blocks, kind), size, at, zeros, zeros, zeros,
                                   np.full(blocks, 2), zeros])
    few = max(1, records // 20)
    tf = T0 + np.arange(few, dtype=np.int64) * 1000
    db.execute("CREATE TABLE NPU_MEM (type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER)")
    _insert(db, "NPU_MEM", [np.full(few, 5), np.zeros(few, np.int64), rng.integers(0, 1 << 34, few), tf,
                            np.zeros(few, np.int64)])
    db.execute("CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER, timestampNs INTEGER, totalReserved NUMERIC, "
               "deviceId INTEGER)")
    _insert(db, "NPU_MODULE_MEM", [rng.choice([0, 3, 7], few), tf, rng.integers(0, 1 << 30, few),
                                   np.zeros(few, np.int64)])
    db.commit()
    db.close()


def child(source: str, database: str) -> None:
    """One load in this fresh process, of the package under ``source``: prints a JSON line."""
    sys.path.insert(0, source)
    from timelineview.model.memory import load_memory

    before_kb = _vm_kb("VmRSS:")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    got = load_memory([database])
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF)
    peak_kb = _vm_kb("VmHWM:")
    print(json.dumps({"seconds": seconds, "cpu_s": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime,
                      "peak_mb": peak_kb / 1024, "growth_mb": (peak_kb - before_kb) / 1024,
                      "rows": [len(got.curves), len(got.allocations), len(got.modules)],
                      "warnings": len(got.report.warnings)}))


def _export(commit: str) -> Path:
    sha = subprocess.run(["git", "rev-parse", commit], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.strip()
    out = BENCH / f"commit-{sha[:12]}"
    if not (out / "timelineview").is_dir():
        out.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha, "timelineview"], capture_output=True, check=True, cwd=ROOT)
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    return out


def _run(source: Path, database: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(source), str(database)], capture_output=True,
                         text=True, check=True, cwd=BENCH)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--commit", default="HEAD", help="the older side (default: the current commit)")
    ap.add_argument("--records", type=int, default=2_000_000, help="MEMORY_RECORD rows")
    ap.add_argument("--blocks", type=int, default=1_000_000, help="OP_MEMORY allocations")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    folder = BENCH / f"memory_db_{args.records}_{args.blocks}"
    path = folder / "ascend_pytorch_profiler_0.db"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        generate(path, args.records, args.blocks)
    sides = {"old": _export(args.commit), "new": ROOT}
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(args.runs):
        for side, source in sides.items():
            got[side].append(_run(source, path))
    print(f"database {path.stat().st_size / 2**20:.0f} MB, old = {args.commit}, {args.runs} alternate runs")
    summary = {}
    for side, runs in got.items():
        summary[side] = {k: round(statistics.median(r[k] for r in runs), 3)
                         for k in ("seconds", "cpu_s", "peak_mb", "growth_mb")}
        summary[side]["rows"] = runs[0]["rows"]
        print(f"{side}: " + ", ".join(f"{k} {v}" for k, v in summary[side].items()))
    ratio = {k: round(summary["new"][k] / summary["old"][k], 3) for k in ("seconds", "cpu_s", "peak_mb", "growth_mb")}
    print("new / old: " + ", ".join(f"{k} {v}" for k, v in ratio.items()))
    print(json.dumps({"summary": summary, "ratio": ratio}))


if __name__ == "__main__":
    main()
