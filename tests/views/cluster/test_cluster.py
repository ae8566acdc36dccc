"""Cluster comparison: per-card loading, the table and chart, highlights, sorting, drill-down."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from tests.views.main_window_fixture import open_and_wait
from tests.views.timeline.test_render import count_colour
from timelineview.analysis.summary import stats_document
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.cluster.comparison_table import SLOW_CELL, SLOW_ROW, SLOW_TEXT
from timelineview.views.cluster.stacked_bars import LEGEND_H, PAD
from timelineview.viewstate.palette import DERIVED_COLOURS
from timelineview.viewstate.timeline.lane_filter import MIN_ROW_H, fitted_row_height

REPO = Path(__file__).resolve().parents[3]
SLOW_CARD, SLOW_DATA_CARD = 3, 5
ROLE = QtCore.Qt.ItemDataRole


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cluster") / "ranks"
    generate_cluster(out, cluster_specs(8, seed=1, steps=3, tasks_per_step=60, slow_card=SLOW_CARD,
                                        slow_data_card=SLOW_DATA_CARD))
    return out


def open_cluster(qtbot, window, path: Path):
    open_and_wait(qtbot, window, path)
    window.cluster.show_comparison()
    qtbot.wait(20)
    return window.cluster.view


def column(view, key: str) -> int:
    return [c.key for c in view.table.model_.columns].index(key)


def test_opens_with_per_card_progress_and_the_analysis_values(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))  # a first open: every card is read
    calls = []
    view = window.cluster.view
    original = view.card_progress
    monkeypatch.setattr(view, "card_progress",
                        lambda i, d, t, *unit: (calls.append((i, d, t)), original(i, d, t, *unit)))
    view = open_cluster(qtbot, window, cluster_dir)
    labels = [c.label for c in view.progress_list.cards]
    assert labels == [f"rank {r}" for r in range(8)]
    assert {i for i, _, _ in calls} == set(range(8))  # every card reported its own progress
    assert all(d == t for i, d, t in calls if (i, d, t) == max(c for c in calls if c[0] == i))
    assert all(c.status == "done" for c in view.progress_list.cards)
    # the rows are the analysis' means over steps
    doc = stats_document([c.store for c in window.timeline.cards])
    rows = {r["card"]: r for r in view.current_rows()}
    for card in doc["cards"]:
        row = rows[card["card"]]
        for key in ("step_interval_us", "fp_bp_us", "tail_us", "compute_us", "pure_communication_us", "free_us"):
            assert row[key] == pytest.approx(np.mean([s[key] for s in card["steps"]])), key
        assert row["step_time_us"] == pytest.approx(np.mean([s["span_us"] for s in card["steps"]]))
        assert row["clock_offset_us"] == pytest.approx(card["clock_offset_us"])
    m = view.table.model_
    r3 = m.row_of_card(SLOW_CARD)
    shown = m.data(m.index(r3, column(view, "compute_us")), ROLE.DisplayRole)
    assert shown == f"{rows[f'rank {SLOW_CARD}']['compute_us'] / 1000:.3f}" and m.unit == "ms"
    # reopening uses the cache: no bytes to read, the cards say so
    calls.clear()
    open_cluster(qtbot, window, cluster_dir)
    assert not calls and all(c.status == "cached" for c in view.progress_list.cards)


def test_slow_cards_are_highlighted_on_their_metric(qtbot, window, cluster_dir):
    view = open_cluster(qtbot, window, cluster_dir)
    m = view.table.model_
    expected = {SLOW_CARD: "compute_us", SLOW_DATA_CARD: "step_interval_us"}
    for number, metric in expected.items():
        row = m.row_of_card(number)
        assert m.data(m.index(row, column(view, metric)), ROLE.BackgroundRole) == SLOW_CELL
        assert m.data(m.index(row, column(view, "tail_us")), ROLE.BackgroundRole) == SLOW_ROW
        assert m.data(m.index(row, 0), ROLE.ForegroundRole) == SLOW_TEXT
        tip = m.data(m.index(row, 0), ROLE.ToolTipRole)
        assert "slow — " + metric.removesuffix("_us").replace("_", " ") in tip
        # the flagged cell says how sure: the flag's z (or equal peers) and its steps above the threshold
        [flag] = [f for f in m.rows[row]["slow"] if f["metric"] == metric]
        cell_tip = m.data(m.index(row, column(view, metric)), ROLE.ToolTipRole)
        assert f"above in {flag['steps_above']} of {flag['steps']} steps" in cell_tip
        assert (f"z {flag['z']:.1f}" if flag["z"] is not None else "the other cards all equal") in cell_tip
        # only the flagging metric's cell is marked: never step time or pure communication
        assert m.data(m.index(row, column(view, "step_time_us")), ROLE.BackgroundRole) == SLOW_ROW
        assert m.data(m.index(row, column(view, "pure_communication_us")), ROLE.BackgroundRole) == SLOW_ROW
    for number in set(range(8)) - set(expected):
        row = m.row_of_card(number)
        assert all(m.data(m.index(row, c), ROLE.BackgroundRole) is None for c in range(m.columnCount()))
    assert "rank 3 (compute +" in view.summary.text() and "rank 5 (step interval +" in view.summary.text()
    assert {r["number"] for r in view.chart.rows if r["slow"]} == set(expected)


def test_sorting_by_a_column_header_orders_table_and_chart(qtbot, window, cluster_dir):
    view = open_cluster(qtbot, window, cluster_dir)
    header = view.table.horizontalHeader()
    col = column(view, "step_interval_us")
    x = header.sectionViewportPosition(col) + header.sectionSize(col) // 2
    for _ in range(2):  # ascending, then descending
        qtbot.mouseClick(header.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(x, 5))
    rows = view.current_rows()
    values = [r["step_interval_us"] for r in rows]
    assert values == sorted(values, reverse=True) and rows[0]["number"] == SLOW_DATA_CARD
    assert [r["number"] for r in view.chart.rows] == [r["number"] for r in rows]


def test_double_click_drills_to_the_card_and_the_chosen_step(qtbot, window, cluster_dir):
    view = open_cluster(qtbot, window, cluster_dir)
    view.set_step(2)
    m = view.table.model_
    row = m.row_of_card(SLOW_CARD)
    assert m.row_dict(row)["step"] == 2
    rect = view.table.visualRect(m.index(row, 1))
    qtbot.mouseClick(view.table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())  # as a user's
    qtbot.mouseDClick(view.table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    tl = window.timeline
    assert window.cluster.tabs.currentIndex() == 0
    assert [c.number for c in tl.cards] == [SLOW_CARD]
    card = tl.cards[0]
    k = int(np.flatnonzero(card.steps.step == 2)[0])
    t0, t1 = tl.ctx.rel(card, int(card.steps.start[k])), tl.ctx.rel(card, int(card.steps.end[k]))
    v = tl.viewport
    assert v.t0 <= t0 and v.t1 >= t1 and (v.t1 - v.t0) <= 1.1 * (t1 - t0)
    assert "step 2" in window.cluster.bar.label.text()
    # a double-click on a bar drills too (mean view: the step where the flag is worst)
    window.cluster.show_comparison()
    view.set_step(None)
    i = [r["number"] for r in view.chart.rows].index(SLOW_DATA_CARD)
    bar_h = view.chart.bar_height()
    pos = QtCore.QPoint(view.chart.width() // 2, PAD + LEGEND_H + i * bar_h + bar_h // 2)
    assert view.chart.row_at(pos.y()) == i
    qtbot.mouseDClick(view.chart, QtCore.Qt.MouseButton.LeftButton, pos=pos)
    drill = next(r for r in view.current_rows() if r["number"] == SLOW_DATA_CARD)["drill_step"]
    assert [c.number for c in tl.cards] == [SLOW_DATA_CARD] and f"step {drill}" in window.cluster.bar.label.text()


def test_several_cards_time_aligned_and_one_lane_kind_across_cards(qtbot, window, cluster_dir):
    view = open_cluster(qtbot, window, cluster_dir)
    view.table.select_card(SLOW_CARD)
    view.table.selectionModel().select(
        view.table.model_.index(view.table.model_.row_of_card(SLOW_DATA_CARD), 0),
        QtCore.QItemSelectionModel.SelectionFlag.Select | QtCore.QItemSelectionModel.SelectionFlag.Rows)
    qtbot.mouseClick(view.show_button, QtCore.Qt.MouseButton.LeftButton)
    tl = window.timeline
    assert sorted(c.number for c in tl.cards) == [SLOW_CARD, SLOW_DATA_CARD]
    assert all(c.offset_ns == c.estimated_offset_ns for c in tl.cards)  # aligned by the clock offsets
    window.cluster.show_all_cards()
    assert len(tl.cards) == 8
    window.cluster.bar.set_lane_filter("communication")
    rows = tl.ctx.layout.rows
    assert [r.card for r in rows] == [c.number for c in tl.cards]
    assert all(r.kind == "derived" and tl.cards[0].derived_lanes[r.derived].key == "communication" for r in rows)
    assert tl.ctx.layout.height <= tl.ctx.area.height  # every card on one screen
    window.cluster.bar.set_lane_filter("all")
    assert len(tl.ctx.layout.rows) > 8
    assert fitted_row_height(64, 600, 20) == 9 and fitted_row_height(500, 600, 20) == MIN_ROW_H


def test_exports_csv_and_png(qtbot, window, cluster_dir, tmp_path):
    view = open_cluster(qtbot, window, cluster_dir)
    view.export_csv(tmp_path / "cluster.csv")
    lines = (tmp_path / "cluster.csv").read_text().splitlines()
    assert lines[0].startswith("card,rank,step,step_time_us") and len(lines) == 9
    assert view.export_png(tmp_path / "chart.png")
    img = QtGui.QImage(str(tmp_path / "chart.png"))
    assert img.height() > 8 * 18 and img.width() >= 1000
    rgb = pixels_of(img)
    assert count_colour(rgb, DERIVED_COLOURS["compute"]) > 2_000
    assert count_colour(rgb, DERIVED_COLOURS["step_interval"]) > 2_000


def pixels_of(img: QtGui.QImage) -> np.ndarray:
    img = img.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    arr = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
    return arr[:, : img.width(), 2::-1].astype(np.int16)


def test_a_corrupt_card_is_reported_and_the_others_open(qtbot, window, tmp_path):
    out = tmp_path / "ranks"
    generate_cluster(out, cluster_specs(4, seed=2, steps=2, tasks_per_step=40))
    bad = next(out.glob("rank2_*/**/trace_view.json"))
    bad.write_bytes(b"\x00\x01 this is not a trace {{{")
    view = open_cluster(qtbot, window, out)
    assert sorted(c.title for c in window.timeline.cards) == ["rank 0", "rank 1", "rank 3"]
    rows = {r["card"]: r for r in view.current_rows()}
    assert len(rows) == 4 and rows["rank 2"]["bar"] is None and rows["rank 2"]["error"]
    assert all(rows[f"rank {k}"]["bar"] is not None for k in (0, 1, 3))
    states = {c.label: c.status for c in view.progress_list.cards}
    assert states["rank 2"] == "failed" and states["rank 0"] in ("done", "cached")
    assert "no data: rank 2" in view.summary.text()
    assert "rank 2" in window.last_message


def test_headless_cluster_screenshot(cluster_dir, tmp_path):
    out = tmp_path / "cluster.png"
    run = subprocess.run([sys.executable, "-m", "timelineview", str(cluster_dir), "--screenshot", str(out),
                          "--view", "cluster", "--size", "1280x800"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr
    rgb = pixels_of(QtGui.QImage(str(out)))
    assert rgb.shape[:2] == (800, 1280)
    assert count_colour(rgb, DERIVED_COLOURS["pure_communication"]) > 5_000  # the stacked bars
    assert count_colour(rgb, SLOW_CELL_ON_WHITE) > 300  # the tinted slow cells


SLOW_CELL_ON_WHITE = tuple(int(255 + (c - 255) * SLOW_CELL.alpha() / 255) for c in SLOW_CELL.getRgb()[:3])


def fake_comparison(n_cards: int, slow: int):
    """A comparison of ``n_cards`` synthetic cards (2 steps each); card ``slow`` computes 1.5× longer."""
    from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison

    cards = []
    for c in range(n_cards):
        steps = []
        for k in (1, 2):
            compute = 1000.0 * (1.5 if c == slow else 1.0) + c % 7
            s = {"step": k, "span_us": 3000.0, "step_time_us": 3000.0, "step_interval_us": 200.0, "fp_bp_us": 1500.0,
                 "tail_us": 1300.0, "compute_us": compute, "communication_us": 1500.0, "overlapped_us": 300.0,
                 "pure_communication_us": 1200.0, "free_us": 800.0 - (compute - 1000.0), "idle_gap_count": 5,
                 "idle_gap_total_us": 50.0, "pipeline_stage_us": 3000.0, "receive_only_us": 0.0,
                 "other_pure_communication_us": 1200.0, "pipeline": False, "start_ns": k * 3_000_000,
                 "end_ns": (k + 1) * 3_000_000}
            s["bar"] = {"step_interval_us": 200.0, "compute_us": compute, "pure_communication_us": 1200.0,
                        "free_after_interval_us": 1600.0 - compute, "uncaptured_us": 0.0}
            steps.append(s)
        cards.append(CardComparison(c, f"rank {c}", c, 0.0, steps))
    return ClusterComparison(cards)


@pytest.mark.parametrize("n_cards", [2, 128])
def test_the_chart_stays_readable_from_2_to_128_cards(qtbot, n_cards):
    from timelineview.views.cluster.cluster_view import ClusterView
    from timelineview.views.cluster.stacked_bars import MIN_BAR_H

    view = ClusterView()
    qtbot.addWidget(view)
    view.resize(1280, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_comparison(fake_comparison(n_cards, slow=min(77, n_cards - 1)))
    qtbot.wait(20)
    bars = view.chart.rows
    assert view.chart.bar_height() >= MIN_BAR_H
    assert view.chart.height() <= view.chart_scroll.viewport().height()  # no scrolling needed
    assert sorted(n for b in bars for n in b["members"]) == list(range(n_cards))
    if n_cards == 2:
        assert len(bars) == 2 and "grouped" not in view.chart_note.text()
        return
    assert len(bars) < n_cards and "128 cards in" in view.chart_note.text()
    assert [b["members"] for b in bars if b["slow"]] == [[77]]  # the slow card keeps its own bar
    drilled = []
    view.drillRequested.connect(lambda numbers, step: drilled.append(numbers))
    i = next(k for k, b in enumerate(bars) if len(b["members"]) > 1)
    bar_h = view.chart.bar_height()
    pos = QtCore.QPoint(view.chart.width() // 2, PAD + LEGEND_H + i * bar_h + bar_h // 2)
    qtbot.mouseDClick(view.chart, QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert drilled == [bars[i]["members"]]  # a group opens all its cards
    view.group_box.setChecked(False)  # one bar per card: the chart scrolls, and says so
    assert len(view.chart.rows) == 128 and "scroll for the rest" in view.chart_note.text()
