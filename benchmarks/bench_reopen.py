"""A cluster's first and second ``stats``, its first open and its re-open from the card cache.

    python benchmarks/bench_reopen.py [--cards 64] [--mb 250] [--keep]

Generates ``.bench/reopen<cards>x<mb>`` (``timelineview.synthetic``, msprof layout) unless it is there,
then runs four fresh processes, as a user would, and prints what each took:

* first ``stats DIR --json`` with an empty card cache (it loads, analyses, fills the cache and keeps each
  card's analysis beside it), and the second ``stats``, which reopens the columns and reads the kept
  analysis back (target: at most 0.4 x the first);
* first open: what the window does before it shows the cards (``views/load_worker``, without Qt: load
  through an empty card cache, each card's view fields and view state, the clock offsets and the comparison;
  then the findings of the analysis tabs), target 60 s for 64 x 250 MB on 2 cores, and its peak resident
  memory over the process and its decode workers (target: at most 0.5 x the traces' size);
* re-open: the same from the filled cache (target 5 s for 64 x 250 MB); ``--repeat N`` re-opens N times and
  reports the median run.

Peak memory is the largest sum of the resident sets of the process and its children, sampled every 50 ms
from ``/proc`` (Linux). The OS page cache is not dropped (that needs root): traces are read from memory
whenever they fit. The last line is JSON; ``--keep`` keeps the generated traces and caches (default:
both are deleted at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECOND_STATS = 0.4  # x the first stats
TARGET_REOPEN_S = 5.0  # 64 x 250 MB
TARGET_OPEN_S = 60.0  # 64 x 250 MB, 2 cores
TARGET_PEAK_RSS = 0.5  # x the traces' size
SAMPLE_S = 0.05
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

OPEN_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load_cards
from timelineview.model.load.loader import card_sources, shutdown_pool
from timelineview.viewstate.card_view import align_clocks, prepare_card
t1 = time.perf_counter()
sources = card_sources(sys.argv[1])
stores = load_cards(sources, cache=True)
shutdown_pool()
t2 = time.perf_counter()
session = AnalysisSession(stores, tolerant=True)
cards = [prepare_card(store, i, analysis=session.analyse(i)) for i, store in enumerate(stores)]
align_clocks(cards, session.clock_offsets_ns)
rows = sum(len(c.steps) for c in session.comparison.cards)
t3 = time.perf_counter()
findings = len(session.findings)
t4 = time.perf_counter()
print(json.dumps({"imports_s": t1 - t0, "load_s": t2 - t1, "view_s": t3 - t2, "findings_s": t4 - t3,
                  "cards": len(stores), "slices": sum(len(s.slices) for s in stores), "step_rows": rows,
                  "findings": findings}))
"""


def generate(cards: int, mb: float) -> Path:
    out = ROOT / ".bench" / f"reopen{cards}x{mb:g}"
    if not out.exists():
        from timelineview.synthetic import cluster_specs, generate_cluster

        print(f"generating {out} ...", flush=True)
        t = time.perf_counter()
        tmp = out.with_name(out.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        specs = cluster_specs(cards, seed=1, steps=10, slow_card=min(3, cards - 1), slow_data_card=min(5, cards - 1))
        generate_cluster(tmp, specs, "msprof", target_bytes=int(mb * 1e6))
        tmp.rename(out)
        print(f"generated in {time.perf_counter() - t:.0f} s", flush=True)
    return out


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except OSError:
            continue
        todo += _children(p)
    return total


def run(argv: list[str], cache: Path) -> dict:
    """Run ``argv`` with the card cache in ``cache``; its wall time, peak resident memory (the process tree)
    and its last stdout line when that is JSON."""
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(cache), "QT_QPA_PLATFORM": "offscreen"}
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}): {err.decode(errors='replace')[-2000:]}")
    result: dict = {"wall_s": wall, "peak_rss_mb": peak[0] / 1e6}
    lines = out.decode(errors="replace").strip().splitlines()
    if lines and lines[-1].startswith("{"):
        try:
            result.update(json.loads(lines[-1]))
        except json.JSONDecodeError:
            pass  # the stats document (indented), not a phase record
    return result


def stats(path: Path, cache: Path) -> dict:
    return run([sys.executable, "-m", "timelineview", "stats", str(path), "--json", "--quiet"], cache)


def open_cluster(path: Path, cache: Path) -> dict:
    return run([sys.executable, "-c", OPEN_CHILD, str(path)], cache)


def _fmt(r: dict) -> str:
    phases = "".join(f", {k[:-2]} {r[k]:.2f} s" for k in ("load_s", "view_s", "findings_s") if k in r)
    return f"{r['wall_s']:.2f} s (peak RSS {r['peak_rss_mb']:.0f} MB{phases})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=64)
    ap.add_argument("--mb", type=float, default=250.0, help="size of each card's trace (MB)")
    ap.add_argument("--keep", action="store_true", help="keep the generated traces and the caches")
    ap.add_argument("--repeat", type=int, default=1, help="re-open this many times; the median is reported")
    a = ap.parse_args()
    from timelineview.model.store.card_cache.cache import cache_size

    path = generate(a.cards, a.mb)
    data_mb = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
    stats_cache = ROOT / ".bench" / f"reopen-cache-stats-{os.getpid()}"
    open_cache = ROOT / ".bench" / f"reopen-cache-open-{os.getpid()}"
    try:
        first = stats(path, stats_cache)
        print(f"first stats:  {_fmt(first)}", flush=True)
        second = stats(path, stats_cache)
        print(f"second stats: {_fmt(second)} = {second['wall_s'] / first['wall_s']:.2f} x the first", flush=True)
        opened = open_cluster(path, open_cache)
        print(f"first open:   {_fmt(opened)}", flush=True)
        cache_mb = cache_size(open_cache) / 1e6
        runs = []
        for _ in range(max(1, a.repeat)):
            runs.append(open_cluster(path, open_cache))
            print(f"re-open:      {_fmt(runs[-1])}", flush=True)
        reopened = sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]  # the median run
    finally:
        if not a.keep:
            shutil.rmtree(stats_cache, ignore_errors=True)
            shutil.rmtree(open_cache, ignore_errors=True)
            shutil.rmtree(path, ignore_errors=True)
    view = reopened["load_s"] + reopened["view_s"]
    result = {
        "cards": a.cards, "mb_per_card": a.mb, "data_mb": round(data_mb, 1), "cache_mb": round(cache_mb, 1),
        "first_stats_s": round(first["wall_s"], 2), "second_stats_s": round(second["wall_s"], 2),
        "second_over_first": round(second["wall_s"] / first["wall_s"], 3),
        "first_stats_peak_rss_mb": round(first["peak_rss_mb"]),
        "open_s": round(opened["wall_s"], 2), "open_load_s": round(opened["load_s"], 2),
        "open_view_s": round(opened["view_s"], 2), "open_findings_s": round(opened["findings_s"], 2),
        "open_peak_rss_mb": round(opened["peak_rss_mb"]),
        "open_peak_rss_over_data": round(opened["peak_rss_mb"] / data_mb, 3),
        "reopen_s": round(reopened["wall_s"], 2), "reopen_runs_s": [round(r["wall_s"], 2) for r in runs],
        "reopen_load_s": round(reopened["load_s"], 2), "reopen_view_s": round(reopened["view_s"], 2),
        "reopen_load_and_view_s": round(view, 2),
        "reopen_findings_s": round(reopened["findings_s"], 2), "reopen_peak_rss_mb": round(reopened["peak_rss_mb"]),
        "targets": {"second_over_first": TARGET_SECOND_STATS, "reopen_s": TARGET_REOPEN_S, "open_s": TARGET_OPEN_S,
                    "open_peak_rss_over_data": TARGET_PEAK_RSS, "at": "64 x 250 MB, 2 cores"},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
