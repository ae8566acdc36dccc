"""A first run against a warm one.

``stats``: a fresh process with ``NUMBA_CACHE_DIR`` at an empty folder (nothing compiled: a first-ever
run) against one at a folder the scanner was compiled into beforehand. A cold run starts the
background compile for next time; the benchmark ends it (its pid is in the lock file) before the
next run so runs do not overlap. ``gui``: in an offscreen window, the seconds from ``open_paths`` to
the first stage text, the first progress that moved, the first picture of the load in progress and
the end of the load, cold and warm.

    .venv/bin/python -m timelineview.synthetic .bench/msprof_355MB.json --layout msprof --target-mb 355
    .venv/bin/python benchmarks/bench_first_run.py .bench/msprof_355MB.json --runs 3

``--ready``: how long after a first ``stats`` (an empty numba cache) the background compile has the scanner,
then every kernel set, in the cache — on a busy machine with ``--hogs N`` (N CPU-bound loops, each in a
session of its own, as separate users' jobs are), e.g. ``--ready --hogs 12 --runs 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GUI_CHILD = r"""
import json, sys, time
from PySide6 import QtWidgets
app = QtWidgets.QApplication([])
from timelineview.views.main_window import MainWindow
from PySide6 import QtCore
settings = QtCore.QSettings(sys.argv[2], QtCore.QSettings.Format.IniFormat)
win = MainWindow(settings=settings, interactive=False)
win.resize(1400, 860); win.show()
marks = {}
t0 = time.perf_counter()
def mark(key):
    marks.setdefault(key, time.perf_counter() - t0)
def progressed(job, p):
    mark("first_stage")
    if "first run" in p.text:
        mark("compiling_note")
    if p.done > 0:
        mark("progress_moved")
win.jobs.progressed.connect(progressed)
win.jobs.handedOver.connect(lambda job, kind, payload: mark("first_picture") if kind == "partial" else None)
win.open_paths([sys.argv[1]], remember=False)
win.wait_loaded()
mark("loaded")
print(json.dumps(marks))
"""


def _compile_locks(folder: Path) -> list[Path]:
    return list(folder.rglob("*.compiling"))


def _end_background_compiles(folder: Path) -> None:
    for lock in _compile_locks(folder):
        try:
            os.kill(int(lock.read_text() or "0"), signal.SIGTERM)
        except (ValueError, ProcessLookupError, PermissionError):
            pass
        lock.unlink(missing_ok=True)


def _warm_cache(folder: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder))
    subprocess.run([sys.executable, "-c", "from timelineview.model.load.jit import compile_kernels; compile_kernels()"],
                   env=env, check=True)


def _stats(path: str, cache: Path) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "timelineview", "stats", path, "--json", "--quiet", "--no-cache"], env=env,
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


READY_POLL_S = 1.0
READY_LIMIT_S = 1800.0  # a compile that has not ended by then is reported as not ready


def _hogs(n: int) -> list[subprocess.Popen]:
    """``n`` CPU-bound loops, each in a session of its own (the scheduler's groups weigh it as another job)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(n)]


def _ready_times(path: str, cache: Path) -> dict[str, float]:
    """Seconds from a first ``stats`` to the scanner's marker and to every kernel set's marker in ``cache``."""
    start = time.perf_counter()
    _stats(path, cache)
    times = {"stats": time.perf_counter() - start}
    while time.perf_counter() - start < READY_LIMIT_S and len(times) < 3:
        for key, pattern in (("scanner", "timelineview-scanner-*.ready"), ("kernels", "timelineview-kernels-*.ready")):
            if key not in times and any(cache.glob(pattern)):
                times[key] = time.perf_counter() - start
        time.sleep(READY_POLL_S)
    _end_background_compiles(cache)
    return times


def _ready(args, root: Path) -> None:
    hogs = _hogs(args.hogs)
    try:
        for k in range(args.runs):
            times = _ready_times(args.path, root / f"ready{k}")
            load = os.getloadavg()[0]
            said = ", ".join(f"{key} {times[key]:.0f} s" for key in ("stats", "scanner", "kernels") if key in times)
            print(f"run {k + 1}: {said} (not ready after {READY_LIMIT_S:.0f} s: "
                  f"{[key for key in ('scanner', 'kernels') if key not in times]}); load average {load:.1f}")
    finally:
        for hog in hogs:
            hog.kill()


def _gui(path: str, cache: Path, scratch: Path) -> dict:
    cards = Path(tempfile.mkdtemp(dir=scratch))  # an empty card cache: the file is read, not re-opened
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), QT_QPA_PLATFORM="offscreen", TIMELINEVIEW_CACHE=str(cards))
    out = subprocess.run([sys.executable, "-c", GUI_CHILD, path, str(scratch / "settings.ini")], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-gui", action="store_true")
    ap.add_argument("--ready", action="store_true", help="time the background compile after a first run")
    ap.add_argument("--hogs", type=int, default=0, help="with --ready: CPU-bound loops beside it")
    args = ap.parse_args()
    size = os.path.getsize(args.path) / 1e6
    with tempfile.TemporaryDirectory(prefix="bench-first-run-") as tmp:
        root = Path(tmp)
        if args.ready:
            _ready(args, root)
            return
        warm = root / "warm"
        _warm_cache(warm)
        cold_t, warm_t, gui_cold, gui_warm = [], [], [], []
        for k in range(args.runs):  # cold and warm alternate: the machine's noise hits both alike
            cold = root / f"cold{k}"
            cold_t.append(_stats(args.path, cold))
            _end_background_compiles(cold)
            warm_t.append(_stats(args.path, warm))
            if not args.skip_gui:
                cold = root / f"gui_cold{k}"
                gui_cold.append(_gui(args.path, cold, root))
                _end_background_compiles(cold)
                gui_warm.append(_gui(args.path, warm, root))
        med_c, med_w = statistics.median(cold_t), statistics.median(warm_t)
        print(f"stats {args.path} ({size:,.0f} MB), median of {args.runs}: first run {med_c:.2f} s, "
              f"warm {med_w:.2f} s, ratio {med_c / med_w:.2f}")
        print("  runs cold:", " ".join(f"{t:.2f}" for t in cold_t), "| warm:", " ".join(f"{t:.2f}" for t in warm_t))
        for name, runs in (("cold", gui_cold), ("warm", gui_warm)):
            if runs:
                keys = sorted({k for r in runs for k in r}, key=lambda k: statistics.median(
                    r.get(k, float("nan")) for r in runs))
                print(f"GUI {name}: " + ", ".join(
                    f"{k} {statistics.median(r[k] for r in runs if k in r):.2f} s" for k in keys))


if __name__ == "__main__":
    main()
