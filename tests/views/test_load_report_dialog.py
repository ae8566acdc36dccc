"""File ▸ Load report: the counts readable at once (no 'Show Details' to press), every card's report in a
scrollable text under them, and one dialog at a time (it replaces the 'partly readable' warning)."""

from __future__ import annotations

import json

import pytest
from PySide6 import QtCore, QtWidgets

from tests.views.main_window_fixture import shown_main_window
from timelineview.views.panels.load_report import NO_REMARKS

EVENTS = 60
DAMAGED = (10, 30)  # events whose bytes are broken: each is dropped


def _damaged_trace(path, damaged=DAMAGED) -> None:
    """A small trace; each event of ``damaged`` has a stray byte inside its object, so the loader drops it."""
    parts = ['{"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "Stream 1"}}']
    for k in range(EVENTS):
        text = json.dumps({"name": f"op{k}", "ph": "X", "pid": 1, "tid": 1, "ts": 10.0 * k, "dur": 5.0})
        parts.append(text.replace('"dur"', '"dur" #', 1) if k in damaged else text)
    path.write_text("[" + ",\n".join(parts) + "]")


@pytest.fixture
def live_window(qtbot, settings):
    """A window that shows its dialogs (the ``window`` fixture prints them instead)."""
    return shown_main_window(qtbot, settings, interactive=True)


def _open(qtbot, win, paths) -> None:
    with qtbot.waitSignal(win.loadFinished, timeout=60_000):
        win.open_paths(paths, remember=False)


def _dialogs() -> list[QtWidgets.QDialog]:
    return [w for w in QtWidgets.QApplication.topLevelWidgets() if isinstance(w, QtWidgets.QDialog) and w.isVisible()]


def test_the_report_is_readable_at_once_and_replaces_the_warning(qtbot, live_window, tmp_path):
    win = live_window
    path = tmp_path / "damaged.json"
    _damaged_trace(path)
    _open(qtbot, win, [path])
    card = win.timeline.cards[0]
    report = card.store.report
    assert report.dropped_events == len(DAMAGED)  # the reference: what the loader counted
    qtbot.waitUntil(lambda: len(_dialogs()) == 1)
    assert isinstance(_dialogs()[0], QtWidgets.QMessageBox)  # "only partly readable"
    win.show_load_report()
    qtbot.waitUntil(lambda: len(_dialogs()) == 1 and not isinstance(_dialogs()[0], QtWidgets.QMessageBox))
    dialog = _dialogs()[0]
    assert dialog is win.message
    # the counts first, in the dialog itself
    lines = dialog.headline.text().splitlines()
    assert lines[0] == "1 card: 1 lost data."
    assert lines[1].startswith(f"{card.title}: {len(DAMAGED)} events dropped")
    # every line of the loader's report, in a scrollable text shown at once
    text = dialog.text
    assert text.isVisible() and text.isReadOnly()
    assert isinstance(text, QtWidgets.QAbstractScrollArea)
    for line in report.summary().splitlines():
        assert line in text.toPlainText()
    assert str(path) in text.toPlainText()
    # asked again: still one dialog
    win.show_load_report()
    qtbot.waitUntil(lambda: len(_dialogs()) == 1)


def test_a_clean_trace_says_so_in_the_main_text(qtbot, live_window, tmp_path):
    win = live_window
    path = tmp_path / "clean.json"
    _damaged_trace(path, damaged=())
    _open(qtbot, win, [path])
    assert not win.timeline.cards[0].store.report.summary()
    win.show_load_report()
    dialog = win.message
    assert dialog.headline.text() == NO_REMARKS and not dialog.text.isVisibleTo(dialog)


def test_a_new_message_closes_the_report(qtbot, live_window, tmp_path):
    win = live_window
    win.show_load_report()
    qtbot.waitUntil(lambda: len(_dialogs()) == 1)
    win.show_message("Could not open", "something", "why")
    qtbot.waitUntil(lambda: len(_dialogs()) == 1 and isinstance(_dialogs()[0], QtWidgets.QMessageBox))
    QtCore.QCoreApplication.processEvents()



def test_the_warning_says_what_was_lost_and_where(qtbot, live_window, tmp_path):
    """A trace cut in the middle of an event: the warning itself (not only its details) names the file,
    that it is truncated and the byte where its readable data ends (after the last whole event)."""
    whole = tmp_path / "whole.json"
    _damaged_trace(whole, damaged=())
    text = whole.read_text()
    cut_event = json.dumps({"name": "op40", "ph": "X", "pid": 1, "tid": 1, "ts": 400.0, "dur": 5.0})
    starts_at = text.index(cut_event)
    readable_end = starts_at - len(",\n")  # the end of the last whole event
    path = tmp_path / "cut.json"
    path.write_text(text[:starts_at + len(cut_event) // 2])
    _open(qtbot, live_window, [path])
    qtbot.waitUntil(lambda: len(_dialogs()) == 1)
    box = _dialogs()[0]
    assert isinstance(box, QtWidgets.QMessageBox)
    said = box.text()
    assert str(path) in said and "truncated" in said
    assert f"readable data ends at byte {readable_end}" in said


def test_nothing_readable_says_why_in_the_warning(qtbot, live_window, tmp_path):
    """A file that is no trace at all: the warning itself names it and why nothing could be read."""
    path = tmp_path / "trace_view.json"
    path.write_bytes(b"\x00\x17 this is not a trace at all " * 10)
    _open(qtbot, live_window, [path])
    qtbot.waitUntil(lambda: len(_dialogs()) == 1)
    said = _dialogs()[0].text()
    assert said.startswith("No slices could be read from trace_view.json: ")
    assert f"{path}: not a JSON trace: a NUL byte at byte 0" in said


def test_the_warning_ends_its_sentence_once():
    """A reason that ends with a full stop is not given a second one."""
    from types import SimpleNamespace

    from timelineview.model.store.report import LoadReport
    from timelineview.views.window.outcomes import load_outcome

    report = LoadReport()
    report.error = "x.json: not a JSON trace; traces are read as UTF-8."
    card = SimpleNamespace(title="x.json", drawable=False, store=SimpleNamespace(report=report, paths=["x.json"]))
    text = load_outcome([card], "x.json", []).message.text
    assert text == "No slices could be read from x.json: x.json: not a JSON trace; traces are read as UTF-8."
