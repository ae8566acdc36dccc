"""Frame-time benchmark of the timeline at 1920×1080.

    python benchmarks/bench_frames.py PATH            # a trace file or folder
    python benchmarks/bench_frames.py --synthetic N   # N slices built in memory (no file needed)

Each frame pans the view a little (so the per-frame LOD cache misses, like real navigation) and
renders the whole timeline widget. Prints per-window medians; the last line is JSON:
``{"slices": N, "frames_ms": {"full": ms, "1pct": ms, "0.01pct": ms}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timelineview.model.store.store_factory import store_from_columns  # noqa: E402
from timelineview.model.store.trace_store import LaneTable, ProcessTable, TraceStore  # noqa: E402
from timelineview.viewstate.timeline.view_state import Change  # noqa: E402

WIDTH, HEIGHT = 1920, 1080
WINDOWS = {"full": 1.0, "1pct": 0.01, "0.01pct": 0.0001}


def synthetic_store(n: int, seed: int = 0) -> TraceStore:
    """About ``n`` slices on 32 device streams, 3 nesting levels (1 parent, 4 children, 8 grandchildren)."""
    rng = np.random.default_rng(seed)
    n_lanes = 32
    parents = max(n // 13, n_lanes)
    per_lane = parents // n_lanes
    parents = per_lane * n_lanes
    p_dur = rng.integers(8_000, 40_000, size=parents).astype(np.int64) * 13
    gap = rng.integers(200, 3_000, size=parents).astype(np.int64)
    lane = np.repeat(np.arange(n_lanes, dtype=np.int32), per_lane)
    ends = np.cumsum((p_dur + gap).reshape(n_lanes, per_lane), axis=1).reshape(-1)
    p_start = 1_736_412_474_721_123_620 + ends - p_dur - gap
    # children: 4 per parent with small gaps, grandchildren: 2 per child
    c_unit = p_dur // 4
    c_start = (p_start[:, None] + np.arange(4)[None, :] * c_unit[:, None] + 100).reshape(-1)
    c_dur = np.repeat(c_unit - 300, 4)
    g_unit = c_dur // 2
    g_start = (c_start[:, None] + np.arange(2)[None, :] * g_unit[:, None] + 50).reshape(-1)
    g_dur = np.repeat(g_unit - 120, 2)
    start = np.concatenate([p_start, c_start, g_start])
    dur = np.concatenate([p_dur, c_dur, g_dur])
    lanes = np.concatenate([lane, np.repeat(lane, 4), np.repeat(lane, 8)])
    kinds = ["MatMul", "Add", "Conv2D", "Softmax", "Cast"]
    names_pool = [f"op_{k:04d}_{kinds[k % 5]}" for k in range(2000)]
    zipf = np.minimum(rng.zipf(1.3, size=len(start)) - 1, 1999).astype(np.int32)
    strings = names_pool + ["AI_CORE"]
    return store_from_columns(
        start, dur, lanes, zipf, strings,
        ProcessTable(pid=["1", "2", "3", "4"], name=[f"Ascend Hardware {k}" for k in range(4)],
                     label=[""] * 4, sort_index=np.arange(4)),
        LaneTable(process=(np.arange(n_lanes) // 8).astype(np.int32),
                  tid=[str(i) for i in range(n_lanes)], name=[f"Stream {i}" for i in range(n_lanes)],
                  sort_index=np.arange(n_lanes)),
        task_type=np.full(len(start), len(strings) - 1, np.int32), card="synthetic", paths=[],
        generation="synthetic")


def load_stores(path: Path) -> list[TraceStore]:
    from timelineview.model import load

    return load(path)


def measure(widget, app, fraction: float, frames: int, shot: Path | None = None) -> float:
    """Median ms of ``frames`` renders of a window of ``fraction`` of the trace, panning each frame."""
    vp = widget.viewport
    extent = vp.t_max - vp.t_min
    span = max(int(extent * fraction), 10)
    centre = vp.t_min + extent // 2
    times = []
    for k in range(frames + 3):
        shift = (k % 7 - 3) * span // 50  # a small pan every frame: the LOD cache never hits
        if fraction >= 1.0:  # nowhere to pan: trim the ends a little instead
            trim = (k % 7) * extent // 2000
            vp.set_range(vp.t_min - vp.pad + trim, vp.t_max + vp.pad - trim, remember=False)
        else:
            vp.set_range(centre - span // 2 + shift, centre + span // 2 + shift, remember=False)
        widget.changed(Change.WINDOW)
        t = time.perf_counter()
        pixmap = widget.grab()
        times.append((time.perf_counter() - t) * 1000)
    if shot is not None:
        pixmap.save(str(shot))
    return statistics.median(times[3:])  # the first frames warm caches and fonts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path)
    ap.add_argument("--synthetic", type=int, metavar="N", help="build N slices in memory instead")
    ap.add_argument("--frames", type=int, default=25)
    ap.add_argument("--shots", type=Path, metavar="DIR", help="save the last frame of each window here")
    args = ap.parse_args(argv)
    if args.path is None and not args.synthetic:
        ap.error("give a PATH or --synthetic N")

    from PySide6 import QtWidgets

    from timelineview.views.timeline.widget import TimelineWidget
    from timelineview.viewstate.card_view import prepare_card

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    t = time.perf_counter()
    stores = [synthetic_store(args.synthetic)] if args.synthetic else load_stores(args.path)
    cards = [prepare_card(s, i) for i, s in enumerate(stores)]
    n = sum(len(s.slices) for s in stores)
    print(f"prepared {n:,} slices in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    widget = TimelineWidget()
    widget.resize(WIDTH, HEIGHT)
    widget.show()
    widget.set_cards(cards)
    widget.collapsed.clear()  # measure the slice lanes themselves, not collapsed summaries
    widget.rebuild_layout()
    for _ in range(5):
        app.processEvents()
    result = {}
    for key, fraction in WINDOWS.items():
        shot = None
        if args.shots is not None:
            args.shots.mkdir(parents=True, exist_ok=True)
            shot = args.shots / f"frame_{key}.png"
        result[key] = round(measure(widget, app, fraction, args.frames, shot), 2)
        print(f"{key:>8}: {result[key]:.2f} ms median", file=sys.stderr)
    print(json.dumps({"slices": n, "frames_ms": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
