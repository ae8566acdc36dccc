"""Cost of each compute task's description and the §7.1 tables (by op type, by shape, FLOPs, MFU per step).

    python benchmarks/bench_kernels.py [--tasks 2000000 10000000] [--runs 3] [--inputs DIR] [--details]

Uses the generated job of ``bench_database.py`` (its JSON card and the same card as a profiler database), made
once per size in ``--inputs`` (default ``.bench/``). For the "within 10 %" check, each card's whole analysis
(load and every per-card result the document needs, as a first open: no card cache) runs with and without the
``kernels`` stage and its tables, each in a fresh process, alternating, ``--runs`` times each: the medians of
their wall time, CPU time (the process's and its decode workers': on a shared machine wall time is mostly
waiting) and peak resident memory (``VmHWM`` of the analysing process) and their ratios (with / without),
printed as one table of tasks x source. The runs with the stage also time its by-shape table
(``kernel_rows(by_shape=True)``) and its FLOPs (the tasks' total and the per-step sums) alone.
With ``--details``, per card first the load's time and peak, then what ``card_kernels`` and
``kernels_document`` take after it and the bytes the kept ``KernelTable`` holds. The last line is JSON.
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
sys.path.insert(0, str(ROOT / "benchmarks"))


def _table_bytes(table) -> int:
    g = table.groups
    arrays = [table.slices, table.group, table.block_dim, g.op_type, g.core_type, g.shapes, g.dtypes, g.formats,
              g.out_shapes, g.flops, *table.pmu.values()]
    return sum(a.nbytes for a in arrays)


def child(path: str) -> None:
    from bench_database import _cpu_s, _vm_hwm_mb

    sys.path.insert(0, str(ROOT))
    from timelineview.analysis.card_analysis import analyse_card
    from timelineview.analysis.kernels import card_kernels
    from timelineview.analysis.kernels.card_object import kernels_document
    from timelineview.model.load.loader import load, shutdown_pool

    t0 = time.perf_counter()
    [store] = load(path)
    load_s = time.perf_counter() - t0
    shutdown_pool()
    load_peak = _vm_hwm_mb()
    a = analyse_card(store, ("classification", "steps"))
    c0, t0 = _cpu_s(), time.perf_counter()
    table = card_kernels(store, a.classification)
    kernels_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    doc = kernels_document(store, table, a.steps)
    document_s = time.perf_counter() - t0
    print(json.dumps({"slices": len(store.slices), "compute_tasks": len(table), "source": table.source,
                      "groups": len(table.groups), "load_s": round(load_s, 3), "load_peak_mb": round(load_peak, 1),
                      "kernels_s": round(kernels_s, 3), "kernels_cpu_s": round(_cpu_s() - c0, 3),
                      "document_s": round(document_s, 3), "peak_after_mb": round(_vm_hwm_mb(), 1),
                      "table_mb": round(_table_bytes(table) / 2**20, 1), "by_shape_rows": len(doc["by_shape"]),
                      "flops": doc["flops"]}))


# what the card's document needs besides the kernels: the analysis "without the new columns"
ANALYSIS_WITHOUT_KERNELS = ("derived", "step_stats", "file_overlap", "communication", "operators", "memory")


def whole_child(path: str, with_kernels: bool) -> None:
    """Load and the card's analysis as a first open (no card cache), with or without the kernels stage and its
    tables; time and peak."""
    from bench_database import _cpu_s, _vm_hwm_mb

    sys.path.insert(0, str(ROOT))
    from timelineview.analysis.card_analysis import analyse_card
    from timelineview.analysis.kernels.card_object import kernels_document
    from timelineview.model.load.loader import load, shutdown_pool

    c0, t0 = _cpu_s(), time.perf_counter()
    # a first open: no card cache, so neither the columns nor the analysis kept by an earlier run are read back
    [store] = load(path, cache=False)
    shutdown_pool()
    fields = ANALYSIS_WITHOUT_KERNELS + (("kernels",) if with_kernels else ())
    a = analyse_card(store, fields)
    if with_kernels:
        kernels_document(store, a.kernels, a.steps)
    out = {"total_s": round(time.perf_counter() - t0, 3), "cpu_s": round(_cpu_s() - c0, 3),
           "peak_mb": round(_vm_hwm_mb(), 1)}
    if with_kernels:  # after the figures above: the tables again, each alone
        out.update(_table_times(store, a.kernels, a.steps))
    print(json.dumps(out))


def _table_times(store, table, steps) -> dict:
    """Seconds of the by-shape table and of the FLOPs (the tasks' total and per-step sums) of a kernel table."""
    import numpy as np

    from timelineview.analysis.kernels.document import step_flops
    from timelineview.analysis.kernels.grouping import kernel_rows

    t0 = time.perf_counter()
    kernel_rows(table, store.slices.dur[table.slices].astype(np.int64, copy=False), by_shape=True)
    by_shape_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    float(np.nansum(table.task_flops))
    step_flops(table, store.slices.start, steps)
    return {"tasks": len(table), "by_shape_s": round(by_shape_s, 3), "flops_s": round(time.perf_counter() - t0, 3)}


def _run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(runs: list[dict]) -> dict:
    """The median time and peak of the runs, and each run's time (on a shared machine the others wait for CPU)."""
    out = {"total_s": statistics.median(r["total_s"] for r in runs),
           "cpu_s": statistics.median(r["cpu_s"] for r in runs),
           "peak_mb": statistics.median(r["peak_mb"] for r in runs),
           "runs_s": [r["total_s"] for r in runs], "runs_mb": [r["peak_mb"] for r in runs]}
    for key in ("tasks", "by_shape_s", "flops_s"):
        if key in runs[0]:
            out[key] = statistics.median(r[key] for r in runs)
    return out


def with_and_without(path: Path, runs: int) -> dict:
    """The whole analysis of ``path`` without and with the kernels stage, alternating, ``runs`` times each (fresh
    processes; the first pair also warms the file cache for both)."""
    without, with_ = [], []
    for _ in range(runs):
        without.append(_run_child("--whole", str(path), "--without-kernels"))
        with_.append(_run_child("--whole", str(path)))
    a, b = _median(without), _median(with_)
    return {"without": a, "with": b, "time_ratio": round(b["total_s"] / a["total_s"], 3),
            "cpu_ratio": round(b["cpu_s"] / a["cpu_s"], 3),
            "peak_ratio": round(b["peak_mb"] / a["peak_mb"], 3)}


TABLE_HEAD = (f"{'tasks':>11} {'source':9} {'runs':>4} {'without s':>10} {'with s':>8} {'x time':>7} "
              f"{'without CPU s':>14} {'with CPU s':>11} {'x CPU':>6} "
              f"{'without MB':>11} {'with MB':>8} {'x peak':>7} {'by_shape s':>11} {'FLOPs s':>8}")


def table_line(tasks: int, source: str, runs: int, r: dict) -> str:
    """One row of the printed table: a card's medians without and with the kernels stage, and their ratios."""
    a, b = r["without"], r["with"]
    return (f"{tasks:>11,} {source:9} {runs:>4} {a['total_s']:>10.2f} {b['total_s']:>8.2f} {r['time_ratio']:>7.3f} "
            f"{a['cpu_s']:>14.2f} {b['cpu_s']:>11.2f} {r['cpu_ratio']:>6.3f} "
            f"{a['peak_mb']:>11,.0f} {b['peak_mb']:>8,.0f} {r['peak_ratio']:>7.3f} {b.get('by_shape_s', 0):>11.2f} "
            f"{b.get('flops_s', 0):>8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[10_000_000], help="compute tasks of each generated job")
    ap.add_argument("--runs", type=int, default=3, help="runs of each variant of the whole analysis (medians kept)")
    ap.add_argument("--inputs", type=Path, default=None, help="folder of the generated jobs (default .bench/)")
    ap.add_argument("--sources", nargs="+", default=["json", "database"], choices=["json", "database"])
    ap.add_argument("--details", action="store_true", help="also each card's load and kernels stage alone")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--whole", help=argparse.SUPPRESS)
    ap.add_argument("--without-kernels", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    if args.whole:
        whole_child(args.whole, not args.without_kernels)
        return
    from bench_database import BENCH, prepare

    result: dict = {}
    lines = []
    for tasks in args.tasks:
        json_path, db_path = prepare(tasks, args.inputs or BENCH)
        for label, path in (("json", json_path), ("database", db_path)):
            if label not in args.sources:
                continue
            r = result.setdefault(str(tasks), {}).setdefault(label, {})
            if args.details:
                d = r["details"] = _run_child("--child", str(path))
                print(f"{label:9s} {d['slices']:>10,} slices, {d['compute_tasks']:>10,} compute ({d['source']}): "
                      f"load {d['load_s']:.2f} s peak {d['load_peak_mb']:,.0f} MB; kernels {d['kernels_s']:.2f} s, "
                      f"tables {d['document_s']:.2f} s, peak after {d['peak_after_mb']:,.0f} MB, "
                      f"table {d['table_mb']} MB", flush=True)
            r["whole"] = with_and_without(path, args.runs)
            lines.append(table_line(tasks, label, args.runs, r["whole"]))
            print(lines[-1], flush=True)
    print("load + analysis of a card without / with the kernels stage and its tables (medians):")
    print(TABLE_HEAD)
    print("\n".join(lines))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
