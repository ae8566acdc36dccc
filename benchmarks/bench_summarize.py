"""Summaries on a Dask cluster (metrics.md §10): time, worker memory, desktop opening.

    python benchmarks/bench_summarize.py [--cards 256] [--card-mb 4] [--big-mb 100] [--wide 4096]

1. ``timelineview stats DIR --json`` in one process vs ``timelineview summarize DIR --workers 2`` (a
   local cluster of 2 worker processes, its start included), on ``--cards`` generated cards: the
   median of ``--repeats`` alternated runs of each, wall and CPU seconds (this machine is shared: the
   load average before each run is printed with them).
2. Each worker's peak resident memory after its first cards and after all of them (independent of
   the number of cards: a worker holds one card at a time).
3. One ``--big-mb`` card summarised alone: seconds and peak memory per MB of trace, for the estimate
   of 4096 ranks × 500 MB in docs/.
4. The desktop opening the summary to the comparison view, and a ``--wide``-card summary made from
   it (the card folders repeated under new ranks; hard links for the columns).

Traces and summaries go under ``.bench/summarize/`` (git-ignored); generated traces are kept.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import orjson

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".bench" / "summarize"
PY = sys.executable
MB = 1e6


CPU = {}  # seconds of CPU of the last run's processes, by its first argument after PY
PERF = shutil.which("perf")  # its task-clock counts every process a run starts; rusage misses the orphans


def run(args: list[str], **kw) -> float:
    """Wall seconds of a fresh process (CPU seconds of it and every process it started in ``CPU``: on a
    shared machine the wall time says as much about the neighbours as about the run). With ``perf``,
    its task-clock; otherwise the children's rusage, which misses processes whose parent exited
    before them (the stats decode pool's, a local cluster's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as counts:
        prefix = [PERF, "stat", "-x", ",", "-e", "task-clock", "-o", counts.name] if PERF else []
        t0 = time.perf_counter()
        subprocess.run(prefix + args, check=True, cwd=ROOT, **kw)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        if PERF:
            cpu = next(float(line.split(",")[0]) / 1000 for line in counts.read().splitlines() if "task-clock" in line)
    CPU[args[2]] = cpu
    return wall


def generate(out: Path, cards: int, card_mb: float) -> None:
    if out.exists():
        return
    print(f"generating {cards} cards × {card_mb} MB into {out} …", flush=True)
    run([PY, "-m", "timelineview.synthetic", str(out), "--layout", "msprof", "--cards", str(cards),
         "--target-mb", str(card_mb), "--slow-card", "3", "--no-truth"], stdout=subprocess.DEVNULL)


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def stats_vs_summarize(traces: Path, out: Path, workers: int, repeats: int) -> dict:
    """``repeats`` alternated runs of stats and summarize (each summarize from an empty DIR), then one
    rerun with nothing changed; every wall and CPU time, and the last run's index."""
    walls: dict[str, list[float]] = {"stats": [], "summarize": []}
    cpus: dict[str, list[float]] = {"stats": [], "summarize": []}
    loads = []
    for _ in range(repeats):
        loads.append(os.getloadavg()[0])
        walls["stats"].append(run([PY, "-m", "timelineview.cli", str(traces), "--json", "--quiet", "--no-cache"],
                                  stdout=subprocess.DEVNULL))
        cpus["stats"].append(CPU["timelineview.cli"])
        shutil.rmtree(out, ignore_errors=True)
        loads.append(os.getloadavg()[0])
        walls["summarize"].append(run([PY, "-m", "timelineview.distributed.cli", str(traces), "--out", str(out),
                                       "--workers", str(workers)], stderr=subprocess.DEVNULL))
        cpus["summarize"].append(CPU["timelineview.distributed.cli"])
    index = orjson.loads((out / "index.json").read_bytes())  # the rerun below reuses every card
    t_again = run([PY, "-m", "timelineview.distributed.cli", str(traces), "--out", str(out), "--workers",
                   str(workers)], stderr=subprocess.DEVNULL)
    return {"walls": walls, "cpus": cpus, "loads": loads, "rerun_unchanged_s": t_again, "index": index}


def worker_memory(index: dict, first: int = 16) -> dict[str, tuple[float, float]]:
    """Per worker: (its peak RSS once the run's first ``first`` cards were done, once all were), MB. The
    index keeps each card's worker and that worker's peak so far, in card order, which is the order
    the tasks are handed out (completion order is not kept)."""
    early: dict[str, float] = {}
    late: dict[str, float] = {}
    for k, c in enumerate(index["cards"]):
        if k < first:
            early[c["worker"]] = max(early.get(c["worker"], 0.0), c["peak_rss_mb"])
        late[c["worker"]] = max(late.get(c["worker"], 0.0), c["peak_rss_mb"])
    return {w: (early.get(w, float("nan")), peak) for w, peak in late.items()}


DESKTOP_RUNS = 3  # fresh processes per summary opened: the median is reported


def open_in_desktop(summary: Path, runs: int = DESKTOP_RUNS) -> float:
    """Median seconds from ``open_paths`` to the comparison view shown with every row, over ``runs`` fresh
    processes. The summary is read in the background: printed with them, when the analysis tabs were
    filled and the longest time the window's event loop did not run (the window froze)."""
    code = (
        "import os, sys, time\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6 import QtCore, QtWidgets\n"
        "app = QtWidgets.QApplication([])\n"
        "from timelineview.views.main_window import MainWindow\n"
        "s = QtCore.QSettings(sys.argv[2], QtCore.QSettings.Format.IniFormat)\n"
        "w = MainWindow(settings=s, interactive=False); w.resize(1600, 900); w.show(); app.processEvents()\n"
        "gaps, last = [0.0], [time.perf_counter()]\n"
        "def tick():\n"
        "    now = time.perf_counter(); gaps.append(now - last[0]); last[0] = now\n"
        "timer = QtCore.QTimer(); timer.timeout.connect(tick); timer.start(10)\n"
        "t0 = time.perf_counter()\n"
        "w.open_paths([sys.argv[1]], remember=False)\n"
        "while w.cluster.summary is None and w.summary_worker is not None:\n"
        "    app.processEvents(); QtCore.QThread.msleep(5)\n"
        "assert w.cluster.tabs.currentWidget() is w.cluster.view\n"
        "w.cluster.view.grab()\n"
        "shown = time.perf_counter() - t0\n"
        "w.wait_loaded()\n"
        "filled = time.perf_counter() - t0\n"
        "print(shown, filled, max(gaps), w.cluster.view.table.model_.rowCount(),\n"
        "      len(w.cluster.analysis.widgets['diagnosis'].findings))\n")
    settings = WORK / "bench-settings.ini"
    shown, filled, stalls = [], [], []
    for _ in range(runs):
        res = subprocess.run([PY, "-c", code, str(summary), str(settings)], check=True, capture_output=True,
                             text=True, cwd=ROOT)
        a, b, c, rows, findings = res.stdout.split()
        shown.append(float(a))
        filled.append(float(b))
        stalls.append(float(c))
    print(f"    ({rows} rows; comparison at {' '.join(f'{x:.2f}' for x in shown)} s; analysis tabs filled "
          f"({findings} findings) at {' '.join(f'{x:.1f}' for x in filled)} s; longest event-loop stall "
          f"{' '.join(f'{x:.2f}' for x in stalls)} s)")
    return median(shown)


def widen(summary: Path, out: Path, cards: int) -> None:
    """A ``cards``-card summary from ``summary``'s cards, repeated under new ranks."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = orjson.loads((summary / "index.json").read_bytes())
    source = [c for c in index["cards"] if c["status"] == "ok"]
    entries = []
    for rank in range(cards):
        base = source[rank % len(source)]
        name = f"rank_{rank}"
        (out / name).mkdir()
        for f in (summary / base["dir"]).iterdir():
            if f.suffix != ".json":
                os.link(f, out / name / f.name)
        m = orjson.loads((summary / base["dir"] / "card.json").read_bytes())
        m["card"], m["rank"], m["dir"] = f"rank {rank}", rank, name
        (out / name / "card.json").write_bytes(orjson.dumps(m))
        d = orjson.loads((summary / base["dir"] / "details.json").read_bytes())
        d["document"]["card"], d["document"]["rank"] = f"rank {rank}", rank
        (out / name / "details.json").write_bytes(orjson.dumps(d))
        entries.append({**base, "card": f"rank {rank}", "rank": rank, "dir": name})
    index["cards"] = entries
    (out / "index.json").write_bytes(orjson.dumps(index))


def big_card(card_mb: float) -> dict:
    traces = WORK / f"big{int(card_mb)}"
    if not traces.exists():
        print(f"generating 1 card × {card_mb} MB …", flush=True)
        run([PY, "-m", "timelineview.synthetic", str(traces / "trace_view.json"), "--layout", "msprof", "--cards", "1",
             "--target-mb", str(card_mb), "--no-truth"], stdout=subprocess.DEVNULL)
    out = WORK / f"big{int(card_mb)}-summary"
    shutil.rmtree(out, ignore_errors=True)
    t = run([PY, "-m", "timelineview.distributed.cli", str(traces), "--out", str(out), "--workers", "1"],
            stderr=subprocess.DEVNULL)
    card = orjson.loads((out / "index.json").read_bytes())["cards"][0]
    return {"trace_mb": folder_bytes(traces) / MB, "task_s": card["seconds"], "run_s": t,
            "peak_rss_mb": card["peak_rss_mb"], "summary_mb": folder_bytes(out) / MB}


PHASES = r"""
import resource, sys, time
T0 = time.perf_counter()
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def main():
    import shutil
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path
    from timelineview.distributed import summarize as S
    from timelineview.distributed.card_task import card_dir_names
    from timelineview.model.load.loader import card_sources
    traces, out, workers = Path(sys.argv[1]), Path(sys.argv[2]).resolve(), int(sys.argv[3])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    t = time.perf_counter()
    print(f"  client start and imports      {t - T0:5.2f} s (CPU {cpu():.2f})")
    with ThreadPoolExecutor(1) as starter:
        starting = starter.submit(S._connect, None, workers)
        from timelineview.analysis.summaries.summary_session import INDEX_KIND, SummarySession
        sources = card_sources(traces)
        names = card_dir_names(sources)
        sizes = [S.card_bytes(s) for s in sources]
        found = time.perf_counter() - t
        client = starting.result()
    t1, c1, w1 = time.perf_counter(), cpu(), client.run(cpu)
    print(f"  local cluster ready           {t1 - t:5.2f} s (client CPU {c1:.2f}, workers {sum(w1.values()):.2f}; "
          f"cards found in {found:.2f} s meanwhile)")
    results = S._run_batches(client, sources, names, sizes, str(out), 1000, "phases", None, None)
    t2, w2 = time.perf_counter(), client.run(cpu)
    tasks = len(S.plan_batches(sizes, workers))
    print(f"  tasks ({tasks} for {len(sources)} cards)      {t2 - t1:5.2f} s (client CPU {cpu() - c1:.2f}, workers "
          f"{sum(w2.values()) - sum(w1.values()):.2f}; card seconds {sum(r.seconds for r in results):.2f})")
    cluster = client.cluster
    client.close()
    cluster.close()
    t3 = time.perf_counter()
    index = {"kind": INDEX_KIND, "format": 1, "source": str(traces), "min_gap_ns": 1000, "seconds": 0.0,
             "cards": [r.to_json() for r in results]}
    S._write_index(out, index)
    index.update(S.cluster_results(SummarySession(out, index)))
    S._write_index(out, index)
    t4 = time.perf_counter()
    print(f"  cluster closed                {t3 - t2:5.2f} s; cluster step (index, offsets, findings) {t4 - t3:.2f} s")
    print(f"  in all                        {t4 - T0:5.2f} s (client CPU {cpu():.2f})")
if __name__ == "__main__":
    main()
"""


def phases(traces: Path, out: Path, workers: int) -> None:
    """Where one summarize run spends its time, phase by phase (``summarize``'s steps, timed in a fresh
    process; the workers' CPU read from them before the cluster closes)."""
    script = WORK / "phases.py"
    script.write_text(PHASES)
    subprocess.run([PY, str(script), str(traces), str(out), str(workers)], check=True, cwd=ROOT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=256)
    ap.add_argument("--card-mb", type=float, default=4.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="alternated runs of stats and summarize")
    ap.add_argument("--no-desktop", action="store_true", help="only stats vs summarize and the workers' memory")
    ap.add_argument("--phases", action="store_true", help="only where one summarize run spends its time")
    ap.add_argument("--big-mb", type=float, default=100.0, help="0: skip the one-large-card run")
    ap.add_argument("--wide", type=int, default=4096, help="cards of the generated summary opened on the desktop")
    a = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    traces = WORK / f"c{a.cards}x{a.card_mb:g}mb"
    generate(traces, a.cards, a.card_mb)
    trace_mb = folder_bytes(traces) / MB
    summary = WORK / f"c{a.cards}-summary"
    if a.phases:
        print(f"one summarize run of {a.cards} cards, {a.workers} workers (load average {os.getloadavg()[0]:.1f})")
        phases(traces, summary, a.workers)
        return 0
    r = stats_vs_summarize(traces, summary, a.workers, a.repeats)
    index = r["index"]
    ok = sum(c["status"] == "ok" for c in index["cards"])
    walls, cpus = r["walls"], r["cpus"]
    print(f"{a.cards} cards, {trace_mb:.0f} MB of traces; {a.repeats} alternated runs of each (median, all)")
    print(f"  load average (1 min) before each run: {' '.join(f'{x:.1f}' for x in r['loads'])} "
          f"on {os.cpu_count()} cores")
    for what, label in (("stats", "stats (one process)"), ("summarize", f"summarize ({a.workers} workers)")):
        print(f"  {label:28s} wall {median(walls[what]):6.1f} s ({' '.join(f'{x:.1f}' for x in walls[what])}), "
              f"CPU {median(cpus[what]):6.1f} s ({' '.join(f'{x:.1f}' for x in cpus[what])})")
    pairs = [s_ / t for s_, t in zip(walls["summarize"], walls["stats"])]
    cpu_pairs = [s_ / t for s_, t in zip(cpus["summarize"], cpus["stats"])]
    print(f"  summarize / stats: wall {median(walls['summarize']) / median(walls['stats']):.2f}× of the medians "
          f"(each pair: {' '.join(f'{x:.2f}' for x in pairs)}), CPU "
          f"{median(cpus['summarize']) / median(cpus['stats']):.2f}× ({' '.join(f'{x:.2f}' for x in cpu_pairs)}); "
          f"{ok} ok; cluster start and index included")
    print(f"  summarize again (unchanged)  {r['rerun_unchanged_s']:7.1f} s")
    task_s = [c["seconds"] for c in index["cards"]]
    print(f"  per card task: mean {sum(task_s) / len(task_s):.3f} s, max {max(task_s):.3f} s")
    summary_mb = folder_bytes(summary) / MB
    print(f"  summary: {summary_mb:.1f} MB ({summary_mb / a.cards * 1000:.0f} kB per card)")
    for w, (early, peak) in worker_memory(index).items():
        print(f"  worker {w}: peak RSS {early:.0f} MB after the first 16 cards, {peak:.0f} MB after all")
    if not a.no_desktop:
        print(f"  desktop opens the {a.cards}-card summary to the comparison: {open_in_desktop(summary):.2f} s")
    if a.wide and not a.no_desktop:
        wide = WORK / f"wide{a.wide}-summary"
        widen(summary, wide, a.wide)
        print(f"  desktop opens a {a.wide}-card summary to the comparison: {open_in_desktop(wide):.2f} s")
    if a.big_mb:
        b = big_card(a.big_mb)
        per_mb = b["task_s"] / b["trace_mb"] * 1000
        print(f"one {b['trace_mb']:.0f} MB card, 1 worker: task {b['task_s']:.1f} s ({per_mb:.1f} ms/MB), "
              f"run {b['run_s']:.1f} s, worker peak RSS {b['peak_rss_mb']:.0f} MB, summary "
              f"{b['summary_mb']:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
