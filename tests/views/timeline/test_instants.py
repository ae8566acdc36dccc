"""Instant events: per-lane order, one marker per pixel column, drawn on their lanes (lanes with
only instants included), named in the status line."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore

from tests.views.conftest import show_timeline
from tests.views.factory import BASE_NS, StoreBuilder
from timelineview.model.store.trace_store import InstantTable
from timelineview.views.timeline.tracks.instant_track import InstantTrackItem
from timelineview.viewstate.card_view import prepare_card
from timelineview.viewstate.timeline.lane_layout import LANE
from timelineview.viewstate.timeline.lod import instant_columns


def test_instants_by_lane_are_grouped_and_in_time_order():
    rng = np.random.default_rng(3)
    n = 500
    table = InstantTable(ts=rng.integers(0, 10_000, n).astype(np.int64), lane=rng.integers(0, 4, n).astype(np.int32),
                         name=np.arange(n, dtype=np.int32), src=np.arange(n, dtype=np.int64) + 7)
    lane_ptr, ts, name, src = table.by_lane(5)
    assert lane_ptr.tolist()[-2:] == [n, n]  # lane 4 holds none
    for lane in range(5):
        part = slice(lane_ptr[lane], lane_ptr[lane + 1])
        got = list(zip(ts[part].tolist(), name[part].tolist(), src[part].tolist()))
        mine = sorted((int(t), int(k), int(k) + 7) for t, k, ln in zip(table.ts, table.name, table.lane) if ln == lane)
        assert sorted(got) == mine and [t for t, _, _ in got] == sorted(t for t, _, _ in got)


def test_instant_columns_are_the_columns_holding_any_instant():
    rng = np.random.default_rng(4)
    for _ in range(50):
        ts = np.sort(rng.integers(-500, 12_000, int(rng.integers(0, 300)))).astype(np.int64)
        t0, t1, width = int(rng.integers(-100, 400)), int(rng.integers(500, 11_000)), int(rng.integers(1, 700))
        x, first = instant_columns(ts, t0, t1, width)
        # by hand: the column of t is the largest c with t0 + c * span // width <= t
        span = t1 - t0
        want: dict[int, int] = {}
        for k, t in enumerate(ts.tolist()):
            if t0 <= t < t1:
                c = max(c for c in range(width) if t0 + c * span // width <= t)
                want.setdefault(c, k)
        assert x.tolist() == sorted(want) and first.tolist() == [want[c] for c in sorted(want)]


def _card_with_instants():
    b = StoreBuilder()
    for k in range(20):
        b.add("Python/Thread 1", "forward", BASE_NS + k * 100_000, 60_000)
    framework = b.lane("Python/Framework")  # a lane that holds only instants
    stream = b.lane("Python/Thread 1")
    store = b.build()
    ts = [BASE_NS + 1_000 + k * 50_000 for k in range(40)] + [BASE_NS + 30_000, BASE_NS + 30_001]
    lanes = [framework] * 40 + [stream, stream]
    name = len(store.strings)
    store.strings.append("aten::empty")
    order = np.argsort(ts, kind="stable")
    store.instants = InstantTable(ts=np.array(ts, np.int64)[order], lane=np.array(lanes, np.int32)[order],
                                  name=np.full(len(ts), name, np.int32), src=np.arange(len(ts), dtype=np.int64))
    return prepare_card(store, 0)


def test_instants_are_drawn_on_their_lanes_and_named_on_hover(qtbot):
    card = _card_with_instants()
    w = show_timeline(qtbot, [card])
    lane_rows = {r.lane: r for r in w.ctx.layout.rows if r.kind == LANE}
    framework = card.store.lanes.name.index("Framework")
    assert framework in lane_rows  # shown although it holds no slice
    w.grab()  # paint: items prepare their frames
    [item] = w.canvas.items_of(InstantTrackItem)
    t0, t1 = w.ctx.abs_window(card)
    width = w.ctx.area.width
    columns = set()
    for lane in (framework, card.store.lanes.name.index("Thread 1")):
        ts = card.store.instants.ts[card.store.instants.lane == lane]
        span = t1 - t0
        columns |= {(lane, (int(t) - t0) * width // span) for t in ts if t0 <= t < t1}
    # a head and a stem per (lane, pixel column); the two instants 1 ns apart share one
    assert len(item.rects) == 2 * len(columns) and len(columns) == 41
    # hover over one of the framework lane's markers: the status line names it
    row = lane_rows[framework]
    t = int(card.store.instants.ts[card.store.instants.lane == framework][7])
    x = w.ctx.scene_x_abs(card, t)
    y = w.ctx.scene_y(row.y) + 4
    texts = []
    w.cursorMoved.connect(texts.append)
    w.on_hover(QtCore.QPointF(x, y))
    assert texts and "aten::empty" in texts[-1] and "instant" in texts[-1]
    w.on_hover(QtCore.QPointF(x + 40, y))
    assert "aten::empty" not in texts[-1]


def test_clicking_an_instant_shows_it_with_its_args_and_esc_clears_it(qtbot):
    from timelineview.views.panels.details_panel import DetailsPanel

    card = _card_with_instants()
    card.store._args_reader = lambda src: [{"op": f"event {int(s)}"} for s in src]
    w = show_timeline(qtbot, [card])
    panel = DetailsPanel(w)
    qtbot.addWidget(panel)
    framework = card.store.lanes.name.index("Framework")
    row = next(r for r in w.ctx.layout.rows if r.kind == LANE and r.lane == framework)
    on_lane = card.store.instants.lane == framework
    t, src = int(card.store.instants.ts[on_lane][7]), int(card.store.instants.src[on_lane][7])
    w.on_click(QtCore.QPointF(w.ctx.scene_x_abs(card, t), w.ctx.scene_y(row.y) + 4), QtCore.Qt.KeyboardModifier(0))
    assert w.ctx.instant_selection is not None and w.ctx.selection is None
    assert panel.currentWidget() is panel.slice
    values = panel.slice.values
    assert values["Name"].text() == "aten::empty" and values["Duration"].text() == "instant"
    assert values["Lane"].text().endswith("Framework")
    top = panel.slice.args.topLevelItem(0)
    assert (top.text(0), top.text(1)) == ("op", f"event {src}")  # read back by its ordinal
    qtbot.keyClick(w, QtCore.Qt.Key.Key_Escape)
    assert w.ctx.instant_selection is None and panel.currentWidget() is not panel.slice
