"""Cost of each compute task's description and the §7.1 tables (by op type, by shape, FLOPs, MFU per step).

    python benchmarks/bench_kernels.py [--tasks 10000000]

Uses the generated job of ``bench_database.py`` (its JSON card and the same card as a profiler database).
The descriptions are an analysis stage, read after the load: the load itself is what it was (same code),
and this reports, per card in a fresh process, the load's time and peak resident memory, then what the
``kernels`` stage adds (``card_kernels``: the database's ``COMPUTE_TASK_INFO`` or the names) and the
document's tables (``kernels_document``), their time, the peak after them and the bytes the kept
``KernelTable`` holds. Then, for the "within 10 %" check, the card's whole analysis (load and every per-card
result the document needs) with and without the ``kernels`` stage and its tables, each in a fresh process: the
time and peak resident memory of both (the best of ``--runs`` alternating runs each) and their ratio. The last
line is JSON.
"""

from __future__ import annotations

import argparse
import json
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
    from timelineview.analysis.kernels.document import kernels_document
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
    from bench_database import _vm_hwm_mb

    sys.path.insert(0, str(ROOT))
    from timelineview.analysis.card_analysis import analyse_card
    from timelineview.analysis.kernels.document import kernels_document
    from timelineview.model.load.loader import load, shutdown_pool

    t0 = time.perf_counter()
    # a first open: no card cache, so neither the columns nor the analysis kept by an earlier run are read back
    [store] = load(path, cache=False)
    shutdown_pool()
    fields = ANALYSIS_WITHOUT_KERNELS + (("kernels",) if with_kernels else ())
    a = analyse_card(store, fields)
    if with_kernels:
        kernels_document(store, a.kernels, a.steps)
    print(json.dumps({"total_s": round(time.perf_counter() - t0, 3), "peak_mb": round(_vm_hwm_mb(), 1)}))


def _run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _best(runs: list[dict]) -> dict:
    """The shortest time and the smallest peak of the runs (on a shared machine the others wait for CPU)."""
    return {"total_s": min(r["total_s"] for r in runs), "peak_mb": min(r["peak_mb"] for r in runs),
            "runs_s": [r["total_s"] for r in runs]}


def with_and_without(path: Path, runs: int) -> dict:
    """The whole analysis of ``path`` without and with the kernels stage, alternating, ``runs`` times each (fresh
    processes; the first pair also warms the file cache for both)."""
    without, with_ = [], []
    for _ in range(runs):
        without.append(_run_child("--whole", str(path), "--without-kernels"))
        with_.append(_run_child("--whole", str(path)))
    a, b = _best(without), _best(with_)
    return {"without": a, "with": b, "time_ratio": round(b["total_s"] / a["total_s"], 3),
            "peak_ratio": round(b["peak_mb"] / a["peak_mb"], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", type=int, default=10_000_000, help="compute tasks of the generated job")
    ap.add_argument("--runs", type=int, default=2, help="runs of each variant of the whole analysis (best kept)")
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
    from bench_database import prepare

    json_path, db_path = prepare(args.tasks)
    result = {}
    for label, path in (("json", json_path), ("database", db_path)):
        r = result[label] = _run_child("--child", str(path))
        print(f"{label:9s} {r['slices']:>10,} slices, {r['compute_tasks']:>10,} compute ({r['source']}): load "
              f"{r['load_s']:.2f} s peak {r['load_peak_mb']:,.0f} MB; kernels {r['kernels_s']:.2f} s, tables "
              f"{r['document_s']:.2f} s, peak after {r['peak_after_mb']:,.0f} MB, table {r['table_mb']} MB")
    for label, path in (("json", json_path), ("database", db_path)):
        r = result[label]["whole"] = with_and_without(path, args.runs)
        print(f"{label:9s} load + analysis without kernels {r['without']['total_s']:.2f} s peak "
              f"{r['without']['peak_mb']:,.0f} MB; with {r['with']['total_s']:.2f} s peak "
              f"{r['with']['peak_mb']:,.0f} MB "
              f"(time x{r['time_ratio']}, peak x{r['peak_ratio']})")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
