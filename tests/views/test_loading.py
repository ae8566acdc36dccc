"""Loading runs off the GUI thread: progress, Cancel, a responsive window, superseded loads."""

from __future__ import annotations

import time

import pytest
from PySide6 import QtCore

import timelineview.model as model
from tests.views.factory import ascend_card


@pytest.fixture
def slow_load(monkeypatch):
    """A loader that reports progress for ~2 s unless cancelled; returns one small card per load."""
    calls = []

    def fake_load(sources, progress=None, cancel=None, **_options):  # card_progress, cache
        calls.append(sources)
        for k in range(100):
            if cancel is not None and cancel.is_set():
                raise model.LoadCancelled()
            if progress:
                progress(k * 1_000_000_000, 100 * 1_000_000_000)  # beyond 2**31: must survive signals
            time.sleep(0.02)
        return [ascend_card(f"rank {len(calls) - 1}", len(calls) - 1, steps=1, ops_per_step=10)]

    monkeypatch.setattr(model, "load_cards", fake_load)
    return calls


def test_progress_cancel_and_responsive_window(qtbot, window, slow_load, tmp_path):
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    window.open_paths([tmp_path / "big.json"])
    qtbot.waitUntil(lambda: window.progress.value() > 0, timeout=3000)
    assert window.progress.isVisible() and window.cancel_button.isVisible()
    # the GUI thread keeps running its timers while loading (counted over a stretch of the load,
    # not from its start: how soon the first progress comes depends on what is already imported)
    before = len(ticks)
    qtbot.wait(200)
    assert window.worker is not None and len(ticks) - before >= 3
    with qtbot.waitSignal(window.loadFinished, timeout=5000) as blocker:
        qtbot.mouseClick(window.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    assert blocker.args == [False]
    assert not window.progress.isVisible() and not window.timeline.cards
    timer.stop()


def test_a_new_open_supersedes_the_running_load(qtbot, window, slow_load, tmp_path):
    window.open_paths([tmp_path / "first.json"])
    qtbot.waitUntil(lambda: len(slow_load) == 1, timeout=3000)
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_paths([tmp_path / "second.json"])
    assert [c.title for c in window.timeline.cards] == ["rank 1"]  # the first one never shows


def test_hover_reports_the_time_and_the_slice(qtbot, timeline, cards):
    texts = []
    timeline.cursorMoved.connect(texts.append)
    timeline.show_all()
    pos = QtCore.QPointF(600, 300)
    timeline.on_hover(pos)
    assert texts[-1].startswith("t = ")
    assert timeline.ctx.cursor_t == timeline.viewport.t_of(600)
    timeline.on_hover(None)
    assert texts[-1] == "" and timeline.ctx.cursor_t is None
