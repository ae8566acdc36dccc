"""Our figures of PyTorch profiler (Kineto) traces against Holistic Trace Analysis' (HTA), per file (one rank
each): a cross-check of metrics.md §13, printed as a table with the relative difference.

    python benchmarks/crosscheck_hta.py FILES or FOLDERS … [--hta-python PY] [--ours-python PY] [--json]

HTA is not a dependency: install it in a venv of its own (``python3 -m venv /tmp/hta-venv &&
/tmp/hta-venv/bin/pip install holistictraceanalysis``) and name that venv's interpreter with ``--hta-python``
(default: the interpreter running this script). When it cannot import ``hta`` the script says so and exits 0.
Our side is ``timelineview stats FILE --json`` run by ``--ours-python`` (default: this checkout's ``.venv``
interpreter when there is one, else the one running the script) with this checkout on ``PYTHONPATH``. Each side
runs in a process of its own, so neither imports the other's packages. A folder stands for the Kineto traces
in it (``*.pt.trace.json[.gz]``).

HTA is run with ``include_last_profiler_step=True``: its default drops the kernels launched from the last
profiler step on, ours covers the whole trace. Compared, all in µs of device time:

* ``span``: HTA's ``kernel_time`` (first to last GPU activity, copies included) against our ``span_us``
  (first to last compute or communication: copies are neither, §13);
* ``compute``: union of the compute kernels (everything but NCCL kernels and copies) — HTA's
  ``compute_time`` against our ``compute_us``;
* ``communication``, ``overlapped``: unions from HTA's kernel-type breakdown (the sum of the parts that hold
  COMMUNICATION, and those that hold both COMPUTATION and COMMUNICATION) against ``communication_us``,
  ``overlapped_us``; ``overlap %``: HTA's ``comp_comm_overlap_pctg`` against 100 × ``overlap_ratio``;
* ``idle``: HTA's ``idle_time`` (span − union of all GPU activity, copies busy) against our ``free_us``
  (span − U(compute) ∪ U(communication), copies not busy); ``non-compute``: HTA's ``non_compute_time``
  (communication and copies not under compute) against our ``pure_communication_us``;
* ``compute kernel sum``, ``compute kernels``: the sum of the compute kernels' durations and their number
  (HTA's per-kernel table of COMPUTATION kernels; ours: the operator table by name), and ``worst kernel``:
  the largest relative difference of one kernel name's total between the two tables.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE_SUFFIXES = (".pt.trace.json", ".pt.trace.json.gz")
NO_HTA_EXIT = 0  # a missing HTA is a skip, not a failure
ALL_KERNELS = 10**9  # HTA's per-kernel table keeps every kernel (no "others" row)
COMPUTATION, COMMUNICATION, MEMORY = "COMPUTATION", "COMMUNICATION", "MEMORY"
# (figure, our stats key, HTA key); the figures in µs, "overlap %" in percent
FIGURES = (
    ("span", "span_us", "kernel_time"),
    ("compute", "compute_us", "compute_time"),
    ("communication", "communication_us", "communication"),
    ("overlapped", "overlapped_us", "overlapped"),
    ("overlap %", "overlap_pct", "overlap_pct"),
    ("idle", "free_us", "idle_time"),
    ("non-compute", "pure_communication_us", "non_compute_time"),
    ("copies", None, "memory"),
    ("compute kernel sum", "kernel_sum_us", "kernel_sum"),
    ("compute kernels", "kernel_count", "kernel_count"),
)


def hta_figures(path: str) -> dict:
    """HTA's breakdowns of one trace file (run in the HTA interpreter)."""
    import logging

    logging.disable(logging.WARNING)
    from hta.trace_analysis import TraceAnalysis

    p = Path(path).resolve()
    ta = TraceAnalysis(trace_files={0: p.name}, trace_dir=str(p.parent), include_last_profiler_step=True)
    temporal = ta.get_temporal_breakdown(visualize=False).iloc[0]
    by_type, by_kernel = ta.get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0, num_kernels=ALL_KERNELS,
                                                     include_memory_kernels=True)
    parts = {str(k): float(v) for k, v in zip(by_type["kernel_type"], by_type["sum"])}

    def union_of(kind: str, *also: str) -> float:
        return sum(v for k, v in parts.items() if kind in k and all(a in k for a in also))

    compute = by_kernel[by_kernel["kernel_type"] == COMPUTATION]
    kernels = {str(n): {"total_us": float(s), "count": round(float(s) / float(m)) if m else 0}
               for n, s, m in zip(compute["name"], compute["sum (us)"], compute["mean (us)"])}
    overlap = ta.get_comm_comp_overlap(visualize=False).iloc[0]
    return {"kernel_time": float(temporal["kernel_time(us)"]), "compute_time": float(temporal["compute_time(us)"]),
            "idle_time": float(temporal["idle_time(us)"]), "non_compute_time": float(temporal["non_compute_time(us)"]),
            "communication": union_of(COMMUNICATION), "overlapped": union_of(COMPUTATION, COMMUNICATION),
            "memory": union_of(MEMORY), "overlap_pct": float(overlap["comp_comm_overlap_pctg"]),
            "kernel_sum": sum(k["total_us"] for k in kernels.values()),
            "kernel_count": sum(k["count"] for k in kernels.values()), "kernels": kernels}


def _child(python: str, args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([python, *args], capture_output=True, text=True, cwd=ROOT, env=env)


def hta_available(python: str) -> bool:
    return _child(python, ["-c", "import hta.trace_analysis"]).returncode == 0


def hta_side(python: str, path: Path) -> dict:
    out = _child(python, [__file__, "--hta-child", str(path)])
    if out.returncode:
        raise RuntimeError(f"HTA fails on {path.name} ({(out.stderr.strip().splitlines() or [''])[-1]})")
    return json.loads(out.stdout.strip().splitlines()[-1])


def our_side(python: str, path: Path) -> dict:
    """Our card object of one file (``stats --json``), with the figures the table compares."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = _child(python, ["-m", "timelineview", "stats", str(path), "--json", "--no-cache"], env)
    if out.returncode:
        raise RuntimeError(f"timelineview stats {path.name}: {(out.stderr.strip().splitlines() or [''])[-1]}")
    (card,) = json.loads(out.stdout)["cards"]
    # the operator table by name holds the longest names only (TOP_OPERATORS); the kernel table by op type
    # holds every compute kernel: its sums are the card's
    by_name = (card.get("operators") or {}).get("by_name") or []
    by_type = (card.get("kernels") or {}).get("by_op_type") or []
    card["overlap_pct"] = 100 * card["overlap_ratio"] if card.get("overlap_ratio") is not None else None
    card["kernels"] = {r["name"]: {"total_us": r["total_us"], "count": r["count"]} for r in by_name}
    card["kernel_sum_us"] = sum(r["total_us"] for r in by_type)
    card["kernel_count"] = sum(r["count"] for r in by_type)
    return card


def _relative(ours: float | None, theirs: float | None) -> float | None:
    if ours is None or theirs is None:
        return None
    if theirs == 0:
        return 0.0 if ours == 0 else float("inf")
    return (ours - theirs) / theirs


def worst_kernel(ours: dict, theirs: dict) -> tuple[str, float]:
    """Of our longest kernel names, the one whose total differs most from HTA's (a name HTA lacks: 100 %)."""
    worst, name = 0.0, ""
    for k in ours:
        a, b = ours.get(k, {}).get("total_us", 0.0), theirs.get(k, {}).get("total_us", 0.0)
        d = abs(a - b) / max(abs(b), abs(a), 1e-9)
        if d > worst:
            worst, name = d, k
    return name, worst


def compare(path: Path, hta_python: str, ours_python: str) -> dict:
    ours = our_side(ours_python, path)
    try:
        theirs, note = hta_side(hta_python, path), ""
    except RuntimeError as exc:  # HTA fails on a trace without GPU kernels (its breakdowns index the first one)
        theirs, note = {"kernels": {}}, str(exc)
    rows = []
    for figure, our_key, their_key in FIGURES:
        a = ours.get(our_key) if our_key else None
        b = theirs.get(their_key)
        rows.append({"figure": figure, "ours": a, "hta": b, "relative": _relative(a, b)})
    name, worst = worst_kernel(ours["kernels"], theirs["kernels"])
    if not note:
        rows.append({"figure": f"worst of top {len(ours['kernels'])}", "ours": None, "hta": None, "relative": worst,
                     "kernel": name[:60]})
    return {"file": path.name, "rank": ours.get("rank"), "rows": rows, "note": note}


def _cell(v: float | None, pct: bool = False) -> str:
    if v is None:
        return "—"
    if pct:
        return f"{100 * v:+.3f} %" if v != float("inf") else "inf"
    return f"{v:,.3f}"


def print_table(results: list[dict]) -> None:
    header = f"{'file':<36} {'rank':>4}  {'figure':<20} {'ours':>16} {'HTA':>16} {'ours/HTA − 1':>14}"
    print(header)
    print("-" * len(header))
    for r in results:
        for row in r["rows"]:
            extra = f"  {row['kernel']}" if row.get("kernel") else ""
            print(f"{r['file']:<36} {str(r['rank']):>4}  {row['figure']:<20} {_cell(row['ours']):>16} "
                  f"{_cell(row['hta']):>16} {_cell(row['relative'], True):>14}{extra}")
        if r["note"]:
            print(f"{r['file']:<36} {str(r['rank']):>4}  not compared: {r['note']}")
        print()


def trace_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in map(Path, paths):
        found += sorted(f for f in p.iterdir() if f.name.endswith(TRACE_SUFFIXES)) if p.is_dir() else [p]
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", help="Kineto trace files or folders holding them")
    ap.add_argument("--hta-python", default=sys.executable, help="an interpreter that imports hta")
    venv = ROOT / ".venv" / "bin" / "python"
    ap.add_argument("--ours-python", default=str(venv) if venv.exists() else sys.executable,
                    help="an interpreter with timelineview's dependencies")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    ap.add_argument("--hta-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.hta_child:
        print(json.dumps(hta_figures(args.hta_child)))
        return 0
    if not args.paths:
        ap.error("name the Kineto traces to compare (files or folders)")
    if not hta_available(args.hta_python):
        print(f"skipped: Holistic Trace Analysis cannot be imported by {args.hta_python}; install it in a venv of "
              f"its own and pass its python with --hta-python", file=sys.stderr)
        return NO_HTA_EXIT
    files = trace_files(args.paths)
    if not files:
        print("skipped: no Kineto trace to compare", file=sys.stderr)
        return 0
    results = []
    for f in files:
        try:
            results.append(compare(f, args.hta_python, args.ours_python))
        except RuntimeError as exc:
            print(f"{f.name}: not compared: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
