"""A summarised card in the Timeline tab: a card of the one timeline drawn from its pyramid (its pixels, zoom
and hover words: ``tests/views/timeline/test_coverage_lanes.py``), and its trace loaded — at the same window —
when the user zooms in past the pyramid; an unreachable trace leaves the pyramid and says so."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from PySide6 import QtCore, QtGui

from tests.views.main_window_fixture import open_and_wait
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.timeline.tracks.coverage_track import CoverageTrackItem
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.pyramid_frame import MAX_BUCKET_PX, finest_bucket_ns

pytest.importorskip("distributed")

CARDS = 4
CARD_BYTES = 300_000


def _summarise(traces: Path, out: Path, layout: str = "msprof", cards: int = CARDS) -> Path:
    """``timelineview summarize`` on a real (in-process, threaded) Dask cluster."""
    from distributed import Client

    from timelineview.distributed.summarize import summarize

    specs = cluster_specs(cards, seed=11, steps=3, slow_card=2 if cards > 2 else None)
    generate_cluster(traces, specs, layout, target_bytes=CARD_BYTES)
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        summarize(traces, out, client=client, progress=None)
    return out


@pytest.fixture(scope="module")
def summary(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("summary")
    return _summarise(base / "job", base / "s")


def _open(qtbot, window, folder: Path):
    """Open a summary folder and wait until it is read (the window reads it in the background)."""
    window.open_paths([folder])
    qtbot.waitUntil(lambda: window.cluster.summary is not None and getattr(window, "summary_worker", None) is None,
                    timeout=60_000)
    return window.cluster


def _manifest(folder: Path, card: str) -> dict:
    return orjson.loads((folder / card.replace(" ", "_") / "card.json").read_bytes())


def _zoom_in_until(qtbot, view, done, presses: int = 80) -> tuple[int, int]:
    """Press W at the middle of the timeline's tracks until ``done()``; the window (relative ns) then."""
    v = view.viewport
    a = view.ctx.area
    for _ in range(presses):
        QtGui.QCursor.setPos(view.canvas.mapToGlobal(QtCore.QPoint(a.left + a.width // 2, a.top + a.height // 2)))
        qtbot.keyClick(view, QtCore.Qt.Key.Key_W)
        if done():
            return v.t0, v.t1
    raise AssertionError("zooming never got there")


# --------------------------------------------------------------------------------- drill-down
def test_drill_down_shows_the_cards_pyramid_in_the_timeline_tab(qtbot, window, summary):
    tab = _open(qtbot, window, summary)
    session = tab.summary
    number = next(i for i, c in enumerate(session.cards) if c.card == "rank 2")
    # a double-click on the card's row of the comparison
    table = tab.view.table
    row = next(r for r in range(table.model_.rowCount()) if table.model_.row_dict(r)["number"] == number)
    rect = table.visualRect(table.model_.index(row, 0))
    qtbot.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())  # a view wants the press
    qtbot.mouseDClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    assert tab.tabs.currentIndex() == 0 and tab.overview.showing_pyramid
    view = window.timeline  # the one timeline: no second widget in its place
    assert view.isVisible() and len(view.cards) == 1
    manifest = _manifest(summary, "rank 2")
    pyramid = tab.overview.pyramid
    assert pyramid.rows == manifest["pyramid"]["rows"]
    assert pyramid.rows[:5] == ["Compute", "Communication", "Pure communication", "Free", "Idle AI Core gaps"]
    assert pyramid.t0 == manifest["pyramid"]["t0"] and view.cards[0].title == "rank 2  (summary)"
    # the lane tree names the card, then every row of the pyramid, each as tall as the next
    rows = view.ctx.layout.rows
    assert rows[0].kind == "card" and [r.title for r in rows[1:]] == manifest["pyramid"]["rows"]
    assert len({r.height for r in rows[1:]}) == 1

    # the heat map's cell of step 2 shows that step's window (a 2 % margin either side), from the manifest
    tab.drill([number], 2)
    step = next(s for s in manifest["steps"] if s["step"] == 2)
    margin = int((step["end"] - step["start"]) * 0.02)
    t0 = manifest["pyramid"]["t0"]
    assert (view.viewport.t0, view.viewport.t1) == (step["start"] - t0 - margin, step["end"] - t0 + margin)
    # the card's header says what this is and its resolution
    view.canvas.grab()
    item = next(i for i in view.canvas.card_items if isinstance(i, CoverageTrackItem))
    assert item.header.startswith("Overview from the summary, not slices · 1 bucket = ")
    assert (pyramid.t1 - pyramid.t0) / item.sample_ns in {lv.shape[1] for lv in pyramid.levels}


# --------------------------------------------------------------------------------- the trace
def test_zooming_past_the_pyramid_loads_the_trace_at_the_same_window(qtbot, window, summary):
    tab = _open(qtbot, window, summary)
    number = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 1")
    tab.drill([number], 2)  # from the comparison (which hides the Details dock) to the Timeline tab
    assert not window.dock.isVisible()  # the Details panel has nothing to say about a pyramid
    view = window.timeline
    pyr = tab.overview.pyramid
    before = _zoom_in_until(qtbot, view, lambda: window.worker is not None)
    # it loads only once the finest bucket is wider than 2 px
    assert finest_bucket_ns(pyr) / ((before[1] - before[0]) / view.viewport.width_px) > MAX_BUCKET_PX
    assert tab.overview.showing_pyramid  # the pyramid stays until the trace is there
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert not tab.overview.showing_pyramid and window.timeline.isVisible()
    assert window.dock.isVisible()  # the user's Details panel is back with the timeline
    card = window.timeline.cards[0]
    assert card.number == number and card.store.card == "rank 1"
    # the same time range: the pyramid's [t0, t1) is the card's own clock, the trace's relative 0 its origin
    ctx = window.timeline.ctx
    bucket = finest_bucket_ns(pyr)
    assert abs((ctx.viewport.t0 + ctx.card_shift(card)) - (pyr.t0 + before[0])) <= bucket
    assert abs((ctx.viewport.t1 + ctx.card_shift(card)) - (pyr.t0 + before[1])) <= bucket
    # the comparison still shows the summary's cards
    assert tab.summary is not None and tab.view.table.model_.rowCount() == CARDS
    # another card: its pyramid; the loaded card again: its timeline, no second load
    other = (number + 1) % CARDS
    tab.drill([other])
    assert window.worker is None  # a whole card fits the pyramid: nothing to load
    assert tab.overview.showing_pyramid
    assert tab.overview.pyramid.t0 == tab.summary.cards[other].manifest["pyramid"]["t0"]
    tab.drill([number], 2)
    assert not tab.overview.showing_pyramid and window.worker is None
    assert window.timeline.cards[0].number == number


def test_an_unreachable_trace_leaves_the_pyramid_and_says_so_once(qtbot, window, tmp_path):
    folder = _summarise(tmp_path / "job", tmp_path / "s")
    shutil.move(tmp_path / "job", tmp_path / "elsewhere")  # the traces are not where the summary says
    tab = _open(qtbot, window, folder)
    tab.drill([0])
    view = window.timeline
    _zoom_in_until(qtbot, view, lambda: "not on this machine" in window.statusBar().currentMessage())
    message = window.statusBar().currentMessage()
    source = tab.summary.cards[0].manifest["sources"][0]
    pyr = tab.overview.pyramid
    depth = format_duration((pyr.t1 - pyr.t0) / 4096, 2)  # the finest level: 4096 buckets over the card
    assert message == f"the trace {source} is not on this machine; the summary holds this card down to {depth}"
    assert window.worker is None and tab.overview.showing_pyramid and tab.overview.pyramid is pyr
    window.statusBar().clearMessage()
    for _ in range(3):
        qtbot.keyClick(view, QtCore.Qt.Key.Key_W)
    assert window.statusBar().currentMessage() == ""  # said once
    assert "not on this machine" in view.cards[0].coverage_note


def test_a_card_of_several_files_loads_as_one_card(qtbot, window, tmp_path):
    # per-iteration msprof files: one card is three files in its PROF_*/device_N/timeline folder
    folder = _summarise(tmp_path / "job", tmp_path / "s", layout="msprof_per_iteration", cards=2)
    tab = _open(qtbot, window, folder)
    sources = tab.summary.cards[1].manifest["sources"]
    assert len(sources) == 3
    tab.drill([1])
    view = window.timeline
    pyr = tab.overview.pyramid
    before = _zoom_in_until(qtbot, view, lambda: window.worker is not None)
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert not tab.overview.showing_pyramid
    assert len(window.timeline.cards) == 1
    card = window.timeline.cards[0]
    assert card.number == 1 and sorted(map(str, card.store.paths)) == sorted(sources)
    ctx = window.timeline.ctx
    assert abs((ctx.viewport.t0 + ctx.card_shift(card)) - (pyr.t0 + before[0])) <= finest_bucket_ns(pyr)


def test_a_jump_from_the_analysis_tabs_shows_its_span_from_the_summary(qtbot, window, summary):
    from timelineview.views.analysis_tabs.jump import MIN_SPAN_NS, SPAN_MARGIN, jump_to
    from timelineview.viewstate.jump_target import JumpTarget

    tab = _open(qtbot, window, summary)
    card = tab.summary.cards[2]
    step = card.manifest["steps"][1]  # a whole step: the pyramid holds it
    assert jump_to(tab, JumpTarget(2, step["start"], step["end"]))
    view = window.timeline
    margin = max(int((step["end"] - step["start"]) * SPAN_MARGIN), MIN_SPAN_NS)
    t0 = card.manifest["pyramid"]["t0"]
    assert tab.tabs.currentIndex() == 0 and tab.overview.showing_pyramid and window.worker is None
    assert (view.viewport.t0, view.viewport.t1) == (step["start"] - margin - t0, step["end"] + margin - t0)
    # 10 µs (a finding's evidence, say) is finer than the pyramid: the trace loads and shows that span
    start = step["start"] + (step["end"] - step["start"]) // 2
    assert jump_to(tab, JumpTarget(2, start, start + 10_000))
    qtbot.waitUntil(lambda: not tab.overview.showing_pyramid and window.worker is None, timeout=60_000)
    shown, ctx = window.timeline.cards[0], window.timeline.ctx
    assert shown.number == 2
    assert (ctx.viewport.t0 + ctx.card_shift(shown), ctx.viewport.t1 + ctx.card_shift(shown)) == \
        (start - MIN_SPAN_NS, start + 10_000 + MIN_SPAN_NS)
    # the card's trace is loaded now: a jump on it goes to the timeline
    assert jump_to(tab, JumpTarget(2, step["start"], step["end"]))
    assert not tab.overview.showing_pyramid
    assert ctx.viewport.t0 + ctx.card_shift(shown) == step["start"] - margin


def test_the_strip_over_a_summarised_cards_trace_is_not_the_traces_before(qtbot, window, summary):
    """Traces open with the strip saying what they show; a summary then opened and a card's trace loaded by
    zooming: the strip says nothing of the cards before (one card: no strip, as for one card opened)."""
    open_and_wait(qtbot, window, summary.parent / "job")
    tab = window.cluster
    tab.drill([1])
    assert tab.bar.isVisibleTo(window) and tab.bar.label.text().startswith("rank 1 of 4 cards")
    _open(qtbot, window, summary)
    number = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 2")
    tab.drill([number], 2)
    _zoom_in_until(qtbot, window.timeline, lambda: window.worker is not None)
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert window.timeline.isVisible() and [c.store.card for c in window.timeline.cards] == ["rank 2"]
    assert not tab.bar.isVisibleTo(window)


def test_a_trace_loaded_while_another_card_is_shown_leaves_that_cards_pyramid(qtbot, window, summary):
    tab = _open(qtbot, window, summary)
    first = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 1")
    other = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 3")
    tab.drill([first], 2)
    _zoom_in_until(qtbot, window.timeline, lambda: window.worker is not None)
    tab.drill([other])  # before the trace is there (its results wait for the event loop)
    shown = []  # every picture the timeline showed while the trace loaded
    window.timeline.layoutChanged.connect(lambda: shown.append([c.title for c in window.timeline.cards]))
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert tab.overview.showing_pyramid and window.timeline.cards[0].number == other
    assert tab.overview.pyramid.t0 == tab.summary.cards[other].manifest["pyramid"]["t0"]
    assert window.timeline.cards[0].coverage_note == "zoom in past it to load the trace"  # its own, not loading
    # rank 1's trace (in progress or loaded) never replaced rank 3's pyramid
    assert ["rank 1"] not in shown
    # the loaded trace is there for a drill-down: no second load
    tab.drill([first])
    assert not tab.overview.showing_pyramid and window.worker is None
    assert [c.store.card for c in window.timeline.cards] == ["rank 1"]


def test_a_trace_loading_for_a_card_left_for_a_loaded_trace_never_replaces_it(qtbot, window, summary):
    tab = _open(qtbot, window, summary)
    first = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 1")
    other = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 3")
    tab.drill([first], 2)
    _zoom_in_until(qtbot, window.timeline, lambda: window.worker is not None)
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)  # rank 1's trace is loaded
    tab.drill([other], 2)
    _zoom_in_until(qtbot, window.timeline, lambda: window.worker is not None)  # rank 3's starts loading
    tab.drill([first])  # back to rank 1's trace before rank 3's is there; then rank 3's load is cancelled
    window.worker.cancel()
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert not tab.overview.showing_pyramid and [c.store.card for c in window.timeline.cards] == ["rank 1"]


def test_a_lane_filter_left_from_a_cluster_does_not_hide_a_summarised_cards_rows(qtbot, window, summary):
    window.timeline.set_lane_filter("communication")  # as a cluster's strip leaves it
    tab = _open(qtbot, window, summary)
    tab.drill([1])
    rows = window.timeline.ctx.layout.rows
    assert window.timeline.lane_filter == "all" and tab.bar.lane_filter() == "all"
    assert [r.title for r in rows[1:]] == tab.overview.pyramid.rows
