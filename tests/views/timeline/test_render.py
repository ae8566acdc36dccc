"""Screenshots of a generated trace hold slices, derived lanes and labels; bad input keeps the app up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from timelineview.synthetic.cluster import cluster_specs, generate_cluster
from timelineview.viewstate.palette import DERIVED_COLOURS, SLICE_COLOURS

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def trace_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "cluster"
    generate_cluster(out, cluster_specs(2, steps=3, tasks_per_step=120, seed=4))
    return out


def pixels(widget) -> np.ndarray:
    img = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    arr = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
    return arr[:, : img.width(), 2::-1].astype(np.int16)  # BGRA -> RGB


def count_colour(rgb: np.ndarray, colour, tol: int = 6) -> int:
    return int((np.abs(rgb - np.array(colour)).max(axis=2) <= tol).sum())


def open_and_wait(qtbot, window, path):
    with qtbot.waitSignal(window.loadFinished, timeout=60_000):
        window.open_paths([path])


def test_screenshot_holds_slices_derived_lanes_and_labels(qtbot, window, trace_dir, tmp_path):
    open_and_wait(qtbot, window, trace_dir)
    assert len(window.timeline.cards) == 2
    qtbot.wait(50)
    rgb = pixels(window)
    window.grab().save(str(tmp_path / "window.png"))
    palette_pixels = sum(count_colour(rgb, c) for c in SLICE_COLOURS)
    assert palette_pixels > 5_000  # slices coloured by name
    assert count_colour(rgb, DERIVED_COLOURS["compute"]) > 2_000  # the Computing lane
    assert count_colour(rgb, DERIVED_COLOURS["communication"]) > 200
    assert count_colour(rgb, DERIVED_COLOURS["fp_bp"]) > 2_000  # the Steps lane
    # labels: zoom on the first step, then the ProfilerStep slice shows dark text on its fill
    tl = window.timeline
    card = tl.cards[0]
    st = card.store
    i = int(np.flatnonzero(st.slices.name == st.string_id("ProfilerStep#1"))[0])
    tl.select_slice(0, i)
    tl.fit_selection()
    tl.clear_selection()
    qtbot.wait(50)
    rgb = pixels(tl.canvas)
    lane_row = tl.ctx.layout.find("lane", 0, int(st.slices.lane[i]))
    y = int(tl.ctx.scene_y(lane_row.y)) + 4
    band = rgb[y: y + 14, 40:400]
    fill = np.array(SLICE_COLOURS[card.colours[st.string_id("ProfilerStep#1")]])
    text_like = (np.abs(band - fill).max(axis=2) > 60).sum()
    assert text_like > 40, "a label is drawn inside the slice"


def test_collapsed_group_shows_a_busy_strip(qtbot, window, trace_dir):
    open_and_wait(qtbot, window, trace_dir)
    tl = window.timeline
    key = next(r.key for r in tl.ctx.layout.rows if r.kind == "process" and "Hardware" in r.title)
    rows_before = len(tl.ctx.layout.rows)
    row = next(r for r in tl.ctx.layout.rows if r.key == key)
    pos = QtCore.QPoint(20, int(26 + row.y - tl.ctx.scroll_y + row.height // 2))
    qtbot.mouseClick(tl.tree, QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert key in tl.collapsed and len(tl.ctx.layout.rows) < rows_before
    row = next(r for r in tl.ctx.layout.rows if r.key == key)
    rgb = pixels(tl.canvas)
    y = int(tl.ctx.scene_y(row.y + row.height // 2))
    strip = rgb[y]
    theme = tl.ctx.theme
    header = np.array(theme.header.getRgb()[:3])
    assert (np.abs(strip - header).max(axis=1) > 20).sum() > 200  # busy time drawn over the header


def test_bad_file_shows_a_message_and_the_app_stays_up(qtbot, window, tmp_path, trace_dir):
    bad = tmp_path / "broken.json"
    bad.write_bytes(b"\x00\x01 this is not a trace {{{")
    open_and_wait(qtbot, window, bad)
    assert "Nothing to show" in window.last_message or "Could not open" in window.last_message
    assert window.isVisible() and not window.timeline.cards
    open_and_wait(qtbot, window, trace_dir)  # still works afterwards
    assert window.timeline.cards


def test_truncated_file_opens_with_its_load_report(qtbot, window, tmp_path):
    events = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "Stream 1"}}]
    events += [{"name": f"op{k}", "ph": "X", "pid": 1, "tid": 1, "ts": 10.0 * k, "dur": 5.0} for k in range(50)]
    text = json.dumps(events)
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) - 40])  # cut inside the last event
    open_and_wait(qtbot, window, path)
    assert window.timeline.cards and len(window.timeline.cards[0].store.slices) >= 48
    assert "truncated" in window.last_message


def test_keys_never_fire_while_typing_in_the_search_field(qtbot, window, trace_dir):
    open_and_wait(qtbot, window, trace_dir)
    tl = window.timeline
    window.search.open_search()
    before = (tl.viewport.t0, tl.viewport.t1)
    qtbot.keyClicks(window.search.field, "wasd0f")
    assert window.search.field.text() == "wasd0f"
    assert (tl.viewport.t0, tl.viewport.t1) == before
    window.search.field.clear()
    qtbot.keyClicks(window.search.field, "hcom")
    window.search.search_now()
    assert tl.match_count > 0
    qtbot.keyClick(window.search.field, QtCore.Qt.Key.Key_Return)
    sel = tl.ctx.selection
    assert sel is not None and "hcom" in tl.cards[sel.card].store.strings[
        int(tl.cards[sel.card].store.slices.name[sel.index])].lower()
    assert window.search.count.text().startswith("1 / ")


def test_drop_opens_and_recent_files_and_geometry_persist(qtbot, window, trace_dir, settings):
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(trace_dir))])
    drop = QtGui.QDropEvent(QtCore.QPointF(100, 100), QtCore.Qt.DropAction.CopyAction, mime,
                            QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.loadFinished, timeout=60_000):
        window.dropEvent(drop)
    assert window.recent_paths()[0] == str(trace_dir.resolve())
    window.resize(760, 560)  # inside the offscreen screen (800x600): restoreGeometry clamps to it
    window.close()
    assert settings.value("geometry") is not None
    from timelineview.views.main_window import MainWindow

    again = MainWindow(settings=settings, interactive=False)
    qtbot.addWidget(again)
    assert again.recent_paths()[0] == str(trace_dir.resolve())
    assert again.size() == QtCore.QSize(760, 560)


def test_dark_theme_paints_a_dark_background(qtbot, timeline):
    timeline.set_theme(True)
    rgb = pixels(timeline.canvas)
    assert rgb[-5, -30].max() < 80


def test_headless_screenshot_command(trace_dir, tmp_path):
    out = tmp_path / "shot.png"
    run = subprocess.run([sys.executable, "-m", "timelineview", str(trace_dir), "--screenshot", str(out),
                          "--size", "1000x640", "--range", "0", "20000"],
                         cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr
    img = QtGui.QImage(str(out))
    assert (img.width(), img.height()) == (1000, 640)


def test_headless_screenshot_of_a_bad_file_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json at all")
    run = subprocess.run([sys.executable, "-m", "timelineview", str(bad), "--screenshot", str(tmp_path / "x.png")],
                         cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 2
    assert "Nothing to show" in run.stderr
