"""The Critical path tab: a cluster's what-ifs and each step's path as the session computed them, and
clicking a collective on the path shows its slices in the timeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from tests.views.generated import generated_cluster
from tests.views.main_window_fixture import open_and_wait
from timelineview.views.timeline.overlay import PATH_PEN, path_outlines, slice_layout_rect
from timelineview.viewstate.jump_target import JumpTarget

SLOW_CARD = 2


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "critical", 4, seed=6, steps=3, tasks_per_step=60,
                             slow_card=SLOW_CARD, slow_factor=1.6)


@pytest.fixture
def opened(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    open_and_wait(qtbot, window, cluster_dir)
    view = window.cluster.analysis.widgets["critical_path"]
    qtbot.waitUntil(lambda: bool(view.steps), timeout=10_000)
    return window


def test_the_tab_shows_the_sessions_what_ifs_and_paths(opened):
    view = opened.cluster.analysis.widgets["critical_path"]
    doc = opened.cluster.shown.session.critical_path.document()
    assert view.changes.topLevelItemCount() == len(doc["what_if"]) > 0
    slow = next(w for w in doc["what_if"] if w["kind"] == "card_at_median")
    assert slow["target"] == f"rank {SLOW_CARD}" and slow["gain_us"] > 0
    assert view.step_choice.count() == len(doc["critical_path"])
    assert view.path.topLevelItemCount() == len(doc["critical_path"][0]["segments"])
    assert f"rank {SLOW_CARD}" in view.shares.text()
    on_path = sum(f"rank {SLOW_CARD}" in s["cards"] for s in doc["critical_path"])
    assert f"rank {SLOW_CARD} in {on_path} of {len(doc['critical_path'])} steps" in view.summary.text()


def test_choosing_a_what_if_shows_each_steps_prediction(opened):
    view = opened.cluster.analysis.widgets["critical_path"]
    result = opened.cluster.shown.session.critical_path
    w = next(i for i, x in enumerate(result.what_if) if x.change.kind == "card_at_median")
    view.changes.setCurrentItem(view.changes.topLevelItem(w))
    for k, step in enumerate(view.steps):
        predicted_ms = result.what_if[w].predicted_step_ns[k] / 1e6
        assert f"{predicted_ms:.3f} ms if rank {SLOW_CARD} computes" in view.step_choice.itemText(k)
        assert f"({step['step_us'] / 1000:.3f} ms;" in view.step_choice.itemText(k)


def test_clicking_a_collective_on_the_path_shows_it(opened, qtbot):
    view = opened.cluster.analysis.widgets["critical_path"]
    segments = view.steps[0]["segments"]
    j = next(i for i, s in enumerate(segments) if s["kind"] == "collective")
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view.open_segment(j)
    target: JumpTarget = sent.args[0]
    card = opened.timeline.ctx.card_by_number(target.card)
    assert card is not None and card.store.card == segments[j]["card"]
    sel = opened.timeline.ctx.selection
    s = card.store.slices
    assert sel is not None and card.store.strings[s.name[sel.index]] == segments[j]["name"]
    assert target.start_ns <= s.end[sel.index] and s.start[sel.index] < target.end_ns


def expected_path_slices(window, step: dict) -> dict[int, set[int]]:
    """Per card number, the slices a step's path covers, by a plain loop over each card's slices: a compute
    segment's compute tasks that meet it, a collective segment's operator slices of its name that meet it."""
    cards = {c.store.card: c for c in window.cluster.all_cards}
    out: dict[int, set[int]] = {}
    for seg in step["segments"]:
        if seg["kind"] not in ("compute", "collective") or seg["card"] not in cards:
            continue
        card = cards[seg["card"]]
        cls, s, strings = card.analysis.classification, card.store.slices, card.store.strings
        t0 = seg["start_ns"]
        t1 = t0 + round(seg["dur_us"] * 1000)
        for i in range(len(s)):
            if not (s.start[i] < t1 and s.start[i] + s.dur[i] > t0):
                continue
            if seg["kind"] == "compute" and cls.compute[i]:
                out.setdefault(card.number, set()).add(i)
            elif seg["kind"] == "collective" and cls.communication[i] and strings[s.name[i]] == seg["name"]:
                out.setdefault(card.number, set()).add(i)
    return out


def test_choosing_a_step_outlines_exactly_its_paths_slices(opened, qtbot):
    view = opened.cluster.analysis.widgets["critical_path"]
    timeline = opened.timeline
    assert timeline.ctx.path_slices == {}  # nothing outlined before a step is chosen
    k = len(view.steps) - 1
    view.step_choice.setCurrentIndex(k)
    view.on_timeline.click()  # outline the path and show the step
    want = expected_path_slices(opened, view.steps[k])
    assert want and sum(len(v) for v in want.values()) > 1
    assert {n: set(v.tolist()) for n, v in timeline.ctx.path_slices.items()} == want
    assert opened.cluster.tabs.currentIndex() == 0
    # what the overlay draws: every path slice in the window on a shown lane, and nothing else
    drawn = {(n, i) for n, i, _r in path_outlines(timeline.ctx)}
    in_view = set()
    for n, v in want.items():
        card = timeline.ctx.card_by_number(n)
        t0, t1 = timeline.ctx.abs_window(card)
        s = card.store.slices
        in_view |= {(n, i) for i in v if s.start[i] < t1 and s.start[i] + s.dur[i] > t0
                    and slice_layout_rect(timeline.ctx, card, i) is not None}
    assert drawn and drawn == in_view
    ctx = timeline.ctx
    for n, i, r in path_outlines(ctx):  # each box where the slice is drawn (its level of its lane, its span)
        t0, t1, y, _h = slice_layout_rect(ctx, ctx.card_by_number(n), i)
        clamp = lambda x: min(max(x, ctx.area.left - 4.0), ctx.area.right + 4.0)  # noqa: E731
        assert r.left() == pytest.approx(clamp(ctx.scene_x(t0)), abs=1e-6)
        assert r.right() == pytest.approx(max(clamp(ctx.scene_x(t1)), r.left() + 1.0), abs=1e-6)
        assert r.top() == pytest.approx(ctx.scene_y(y))
    # the outline is painted: the path's colour along the top edge of the widest outlined slice on screen
    timeline.clear_selection()  # (its own outline would cover a selected slice's)
    area = timeline.ctx.area
    on_screen = [x for x in path_outlines(timeline.ctx) if area.top <= x[2].top() and x[2].bottom() <= area.bottom]
    _n, _i, r = max(on_screen, key=lambda x: x[2].width())
    image = timeline.canvas.grab().toImage()
    at = timeline.canvas.mapFromScene(QtCore.QPointF(r.center().x(), r.top() + 1))
    colour = image.pixelColor(at.x(), at.y())
    assert (colour.red(), colour.green(), colour.blue()) == (PATH_PEN.red(), PATH_PEN.green(), PATH_PEN.blue())
    # a new load (here: clearing the tab) takes the outline away
    view.clear()
    assert timeline.ctx.path_slices == {}


def at_peers_ratio(g, k: int, c: int) -> float:
    """The reference of card_at_median's scale, type by type: each type the card runs at the median time per
    task of the other cards that run it (its own time when none does), over its own time, at most 1."""
    own = g.type_ns[k, c]
    priced = 0.0
    for t in range(len(g.type_names)):
        peers = [g.type_ns[k, o, t] / g.type_count[k, o, t] for o in range(len(g.cards))
                 if o != c and g.type_count[k, o, t] > 0]
        priced += g.type_count[k, c, t] * float(np.median(peers)) if peers and g.type_count[k, c, t] else own[t]
    return min(priced / own.sum(), 1.0)


def test_the_what_if_panel_shows_the_predicted_step_beside_the_measured(opened):
    view = opened.cluster.analysis.widgets["critical_path"]
    result = opened.cluster.shown.session.critical_path
    w = next(i for i, x in enumerate(result.what_if) if x.change.kind == "card_at_median")
    view.changes.setCurrentItem(view.changes.topLevelItem(w))
    g = result.graph
    slow = g.cards.index(f"rank {SLOW_CARD}")
    for k in range(len(view.steps)):
        view.step_choice.setCurrentIndex(k)
        strip = view.strip
        assert strip.rows[0].label == f"rank {SLOW_CARD} measured"  # the changed card first
        assert strip.rows[1].label == f"rank {SLOW_CARD} predicted"
        assert [r.predicted for r in strip.rows] == [False, True] * (len(strip.rows) // 2)
        # the two step ends: as measured (the step's length on the path) and as the what-if predicts it
        assert strip.measured.step_ns / 1000 == pytest.approx(view.steps[k]["step_us"], abs=0.01)
        assert strip.predicted.step_ns == pytest.approx(result.what_if[w].predicted_step_ns[k])
        assert strip.predicted.step_ns < strip.measured.step_ns
        # the slow card computes each op type at the other cards' median time per task: its compute scaled
        # by what its tasks would take so over what they took
        # a block is drawn as its compute, then its dispatch gaps (in the grey of a wait to launch)
        compute = [strip.measured.total(c, "compute") for c in range(len(g.cards))]
        gap_lanes = [strip.measured.total(c, "dispatch_gap") for c in range(len(g.cards))]
        busy = g.busy[k].sum(axis=0)  # what the card's blocks computed (the rest of a block is dispatch gaps)
        gaps = g.gap[k].sum(axis=0)
        assert compute == pytest.approx(busy.tolist(), rel=1e-9, abs=1.0)
        assert gap_lanes == pytest.approx(gaps.tolist(), rel=1e-9, abs=1.0)
        want = busy[slow] * at_peers_ratio(g, k, slow)
        assert strip.predicted.total(slow, "compute") == pytest.approx(want, rel=1e-6)
        assert strip.predicted.total(slow, "dispatch_gap") == pytest.approx(gaps[slow], rel=1e-6, abs=1.0)
        assert strip.measured.total(slow, "compute") > strip.predicted.total(slow, "compute")


def test_the_diagnosis_shows_what_each_finding_costs(opened):
    from timelineview.views.analysis_tabs.diagnosis_view import COLUMNS

    view = opened.cluster.analysis.widgets["diagnosis"]
    doc = opened.cluster.shown.session.critical_path.document()
    slow = next(w for w in doc["what_if"] if w["kind"] == "card_at_median")
    k = next(i for i, f in enumerate(view.findings) if f.rule == "slow_compute")
    row = view.list.topLevelItem(k)
    # three significant digits, as the advice says it ("fixing it saves 344 µs a step")
    gain = slow["gain_us"]
    want = f"{gain / 1000:.3g} ms" if gain >= 1000 else f"{gain:.3g} µs"
    assert row.text(COLUMNS.index("Saves a step")) == want
    cost = view.findings[k].cost
    assert cost is not None and f"saves {want} a step" in cost.words()  # the same figure in the advice
    view.list.setCurrentItem(row)
    on_path = sum(f"rank {SLOW_CARD}" in s["cards"] for s in doc["critical_path"])
    assert f"on the critical path in {on_path} of {len(doc['critical_path'])} steps" in view.advice.text()
    # the priced anomalies come first, by what fixing them saves
    gains = [f.cost.gain_us for f in view.findings if f.kind == "anomaly" and f.cost and (f.cost.gain_us or 0) > 0]
    assert gains == sorted(gains, reverse=True)


def test_a_smaller_window_keeps_the_strips_lanes_in_view(opened, qtbot):
    """Shrinking the window took height from the what-if strip (cutting its lanes under a scroll bar) while
    the path table below kept empty rows: the table gives up the height now, the strip keeps its lanes."""
    from timelineview.views.analysis_tabs.critical_path_view import STRIP_VIEW_H

    view = opened.cluster.analysis.widgets["critical_path"]
    opened.cluster.analysis.show_tab("critical_path")
    opened.resize(1600, 900)
    qtbot.waitUntil(lambda: view.isVisible() and view.strip.rows and view.height() > 700)
    tall = view.height()
    need = min(view.strip.sizeHint().height(), STRIP_VIEW_H)
    view._share_height()  # as after choosing a what-if
    qtbot.wait(50)
    assert view.strip_scroll.viewport().height() >= need
    opened.resize(1000, 700)
    qtbot.waitUntil(lambda: view.height() <= tall - 150)
    assert view.strip_scroll.viewport().height() >= need
    assert view.path.height() > 0


def test_the_path_table_says_how_much_of_a_block_was_dispatch_gaps(qtbot):
    from timelineview.views.analysis_tabs.critical_path_view import PATH_COLUMNS, CriticalPathView

    view = CriticalPathView()
    qtbot.addWidget(view)
    block = {"card": "rank 0", "kind": "compute", "name": "", "start_ns": 0}
    segments = [
        {**block, "dur_us": 1000.0, "share": 0.4, "compute_us": 900.0, "dispatch_gap_us": 100.0},
        {"card": "rank 0", "kind": "collective", "name": "hcom_allReduce_1", "start_ns": 1_000_000,
         "dur_us": 500.0, "share": 0.2},
        {**block, "start_ns": 1_500_000, "dur_us": 1000.0, "share": 0.4, "compute_us": 80.0,
         "dispatch_gap_us": 920.0},
    ]
    step = {"step": 7, "step_us": 2500.0, "cards": ["rank 0"], "segments": segments,
            "share_by_card": {"rank 0": 1.0}, "share_by_op_type": {"dispatch gap": 0.408, "MatMul": 0.392},
            "share_by_collective": {"hcom_allReduce_1": 0.2}, "links": []}
    view.set_document({"critical_path": [step], "what_if": []})
    col = {name: i for i, name in enumerate(PATH_COLUMNS)}
    rows = [view.path.topLevelItem(i) for i in range(view.path.topLevelItemCount())]
    # a block mostly computing stays "compute"; one mostly waiting for launches is named for its gaps
    assert [r.text(col["Kind"]) for r in rows] == ["compute", "collective", "dispatch gaps"]
    assert [r.text(col["Computing (ms)"]) for r in rows] == ["0.900", "", "0.080"]
    assert [r.text(col["Dispatch gaps (ms)"]) for r in rows] == ["0.100", "", "0.920"]
    # by hand: 900 + 80 µs computed, 100 + 920 µs of gaps
    assert "computing 0.980 ms, dispatch gaps 1.020 ms" in view.shares.text()


@pytest.mark.parametrize(("name", "word"), [
    ("hcom_send__123_1", "send"),
    ("hcom_receive__123_2", "receive"),
    ("Default/network/Receive-op7", "receive"),
    ("hcom_allReduce__123_3", "collective"),
])
def test_the_path_table_names_a_pair_as_the_graph_slots_it(name, word):
    """The table's Kind of a send or receive is the kind the graph gave its slot: one rule for both."""
    from timelineview.analysis.critical_path.slots import KIND_WORDS, op_kinds
    from timelineview.views.analysis_tabs.critical_path_view import kind_label

    assert kind_label({"kind": "collective", "name": name}) == word
    assert KIND_WORDS[int(op_kinds([name], np.array([1]))[0])] == word  # with its peer known
