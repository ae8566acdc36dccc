"""Opening a cluster folder to the comparison view, first time and again from the card cache.

    python benchmarks/bench_cluster.py [--cards 8] [--mb 250] [--runs 3]

Generates ``.bench/cluster<cards>x<mb>`` once (one slow card, one slow data pipeline), then,
each run in a fresh process with the Qt app already up, times ``MainWindow.open_paths`` until
the comparison view holds its rows and has been painted (the GUI load path: parallel decode,
analysis, clock alignment, comparison, timeline set-up). "open" runs start with an empty
card cache (``TIMELINEVIEW_CACHE=.bench/cluster-cache``) and include writing it; "reopen"
runs find it filled. The OS page cache is not dropped (that needs root): the trace files are
read from memory in both cases. ``process_s`` adds Python, Qt and worker start-up. Budgets:
open ≤ 25 s, reopen ≤ 3 s (8 × 250 MB on 2 cores). The last line is JSON (medians).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_OPEN_S = 25.0
BUDGET_REOPEN_S = 3.0


def generate(cards: int, mb: float) -> Path:
    out = ROOT / ".bench" / f"cluster{cards}x{mb:g}"
    if not out.exists():
        from timelineview.synthetic import cluster_specs, generate_cluster

        print(f"generating {out} ...", flush=True)
        tmp = out.with_name(out.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        specs = cluster_specs(cards, seed=1, steps=10, slow_card=min(3, cards - 1), slow_data_card=min(5, cards - 1))
        generate_cluster(tmp, specs, "msprof", target_bytes=int(mb * 1e6))
        tmp.rename(out)
    return out


def child(path: str) -> dict:
    """One open in this process: seconds from open_paths to a painted comparison view."""
    t_start = time.perf_counter()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication([sys.argv[0]])
    from timelineview.model.load.loader import shutdown_pool
    from timelineview.views.main_window import MainWindow

    settings = QtCore.QSettings(str(ROOT / ".bench" / "bench-settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, interactive=False)
    win.resize(1600, 900)
    win.show()
    app.processEvents()
    t0 = time.perf_counter()
    win.open_paths([Path(path)], remember=False)
    win.wait_loaded()
    win.cluster.show_comparison()
    app.processEvents()
    win.cluster.view.grab()  # the first paint of the table and the chart
    seconds = time.perf_counter() - t0
    rows = win.cluster.view.current_rows()
    out = {"seconds": seconds, "cards": len(rows), "slow": sorted({r["card"] for r in rows if r["slow"]}),
           "slices": sum(len(c.store.slices) for c in win.timeline.cards)}
    win.close()
    shutdown_pool()
    out["process_s"] = time.perf_counter() - t_start
    return out


def run_child(path: Path, cache: Path) -> dict:
    t = time.perf_counter()
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(cache), "QT_QPA_PLATFORM": "offscreen"}
    res = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["process_s"] = time.perf_counter() - t  # including interpreter start and imports
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--mb", type=float, default=250.0, help="size of each card's trace (MB)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child)))
        return
    from timelineview.model.store.card_cache.cache import cache_size

    path = generate(a.cards, a.mb)
    data_mb = sum(f.stat().st_size for f in path.rglob("*.json")) / 1e6
    cache = ROOT / ".bench" / "cluster-cache"
    opens, reopens, cache_mb = [], [], 0.0
    for k in range(a.runs):
        shutil.rmtree(cache, ignore_errors=True)
        first = run_child(path, cache)
        cache_mb = cache_size(cache) / 1e6
        again = run_child(path, cache)
        opens.append(first)
        reopens.append(again)
        print(f"run {k + 1}: open {first['seconds']:.2f} s (process {first['process_s']:.2f} s), "
              f"reopen {again['seconds']:.2f} s (process {again['process_s']:.2f} s), "
              f"{first['cards']} cards, {first['slices']:,} slices, slow {first['slow']}, cache {cache_mb:.0f} MB",
              flush=True)
    result = {
        "cards": a.cards, "data_mb": round(data_mb, 1), "runs": a.runs,
        "open_s": round(statistics.median(r["seconds"] for r in opens), 2),
        "open_process_s": round(statistics.median(r["process_s"] for r in opens), 2),
        "reopen_s": round(statistics.median(r["seconds"] for r in reopens), 2),
        "reopen_process_s": round(statistics.median(r["process_s"] for r in reopens), 2),
        "cache_mb": round(cache_mb, 1), "cache_fraction_of_data": round(cache_mb / data_mb, 3) if data_mb else None,
        "budget_open_s": BUDGET_OPEN_S, "budget_reopen_s": BUDGET_REOPEN_S,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
