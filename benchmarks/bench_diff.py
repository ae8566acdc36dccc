"""``timelineview diff`` of two large traces against loading them both (≤ 1.5×).

    python benchmarks/bench_diff.py [BASE NEW] [--runs 3]

Without paths it compares ``.bench/msprof_300MB.json`` (``bench_load.py --generate 300``) with
``.bench/msprof_300MB_slow.json`` (the same seed, its compute 1.3× slower), writing either when missing.
Every measurement runs in a fresh process (no warm page tables, no caches of a previous run); the card
cache is off as in the command. "load both" loads the two traces one after the other, as the command
does; "diff" is the whole command (load, analysis, comparison, JSON); one more run times its steps. The medians
of ``--runs`` runs and their ratio are printed; the last line is JSON.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 1.5
BENCH = ROOT / ".bench"
BASE_FILE, NEW_FILE = BENCH / "msprof_300MB.json", BENCH / "msprof_300MB_slow.json"
GENERATE = {BASE_FILE: [], NEW_FILE: ["--slow-card", "0", "--slow-factor", "1.3"]}


def generate() -> None:
    """Write the default pair of traces when missing (the base as ``bench_load.py --generate 300`` does)."""
    for path, extra in GENERATE.items():
        if not path.exists():
            BENCH.mkdir(exist_ok=True)
            subprocess.run([sys.executable, "-m", "timelineview.synthetic", str(path), "--layout", "msprof",
                            "--cards", "1", "--target-mb", "300", "--seed", "7", *extra], check=True, cwd=ROOT)


def child_load(base: str, new: str) -> dict:
    from timelineview.model import load
    from timelineview.model.load.loader import shutdown_pool

    t = time.perf_counter()
    stores = load([base]) + load([new])
    elapsed = time.perf_counter() - t
    shutdown_pool()
    return {"seconds": elapsed, "slices": sum(len(s.slices) for s in stores)}


def child_diff(base: str, new: str) -> dict:
    """The command as a whole (its JSON output dropped)."""
    from timelineview.commands.diff import diff_main

    t = time.perf_counter()
    with redirect_stdout(io.TextIOWrapper(io.BytesIO())):  # the command writes bytes to stdout.buffer
        code = diff_main([base, new, "--json"])
    return {"seconds": time.perf_counter() - t, "code": code}


def child_stages(base: str, new: str) -> dict:
    """The command's steps one by one: where its time goes beyond the loads."""
    import orjson

    from timelineview.analysis.diff.run_diff import diff_runs
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load
    from timelineview.model.load.loader import shutdown_pool

    stages = {}
    t = time.perf_counter()
    sessions = [AnalysisSession(load([p])) for p in (base, new)]
    stages["load"] = time.perf_counter() - t
    shutdown_pool()
    t = time.perf_counter()
    diff = diff_runs(*sessions)
    stages["analyse_and_compare"] = time.perf_counter() - t
    t = time.perf_counter()
    orjson.dumps(diff.document())
    stages["json"] = time.perf_counter() - t
    return stages


def run_child(mode: str, base: str, new: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, base, new], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


CHILDREN = {"load": child_load, "diff": child_diff, "stages": child_stages}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="BASE NEW (default: the generated 300 MB pair)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", choices=tuple(CHILDREN), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(CHILDREN[args.child](*args.paths)))
        return
    if args.paths:
        base, new = args.paths
    else:
        generate()
        base, new = str(BASE_FILE), str(NEW_FILE)
    loads, diffs = [], []
    for _ in range(args.runs):  # alternated, so a busy spell of the machine hits both
        loads.append(run_child("load", base, new)["seconds"])
        d = run_child("diff", base, new)
        if d["code"] != 0:
            raise SystemExit(f"timelineview diff exited with {d['code']}")
        diffs.append(d["seconds"])
    stages = run_child("stages", base, new)
    load_s, diff_s = statistics.median(loads), statistics.median(diffs)
    ratio = diff_s / load_s
    size_mb = sum(Path(p).stat().st_size for p in (base, new)) / 1e6
    print(f"{size_mb:.0f} MB in two traces, median of {args.runs}")
    print(f"  load both        {load_s:7.2f} s   ({', '.join(f'{x:.2f}' for x in loads)})")
    print(f"  diff (command)   {diff_s:7.2f} s   ({', '.join(f'{x:.2f}' for x in diffs)})")
    print("  one diff's steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    print(f"  ratio {ratio:.2f} (target ≤ {TARGET_RATIO})")
    print(json.dumps({"load_both_s": load_s, "diff_s": diff_s, "ratio": ratio, "stages_s": stages,
                      "runs": args.runs, "mb": size_mb}))


if __name__ == "__main__":
    main()
