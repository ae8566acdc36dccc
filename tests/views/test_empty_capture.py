"""The window opens a valid capture without events as such: a note, not an error."""

from __future__ import annotations

from tests.model.tracefile import dump_events
from tests.views.main_window_fixture import open_and_wait


def test_an_empty_capture_shows_a_note_not_an_error(qtbot, window, tmp_path):
    meta = [{"name": "process_name", "ph": "M", "pid": 300, "tid": 0, "args": {"name": "Ascend Hardware"}}]
    path = dump_events(meta, tmp_path / "trace_view.json")
    open_and_wait(qtbot, window, path)
    assert window.last_message.startswith("Empty capture: trace_view.json was read whole: no events in this capture")
    assert "Nothing to show" not in window.last_message
    assert "no events in this capture" in window.statusBar().currentMessage()


def test_an_empty_capture_beside_a_card_with_events_is_named_as_such(qtbot, window, tmp_path):
    from tests.model.tracefile import x_event

    meta = [{"name": "process_name", "ph": "M", "pid": 300, "tid": 0, "args": {"name": "Ascend Hardware"}}]
    dump_events(meta, tmp_path / "ascend_timeline_display_0.json")
    dump_events([x_event("op", 300, 1, 1.0, 2.0)], tmp_path / "ascend_timeline_display_1.json")
    open_and_wait(qtbot, window, tmp_path)
    notes = [c.note for c in window.cluster.view.progress_list.cards]
    assert notes[0] == "no events in this capture"


def test_an_empty_capture_opened_after_a_trace_leaves_nothing_of_it_on_screen(qtbot, window, tmp_path):
    from tests.model.tracefile import x_event

    meta = [{"name": "process_name", "ph": "M", "pid": 300, "tid": 0, "args": {"name": "Ascend Hardware"}}]
    (tmp_path / "traced").mkdir()
    (tmp_path / "empty").mkdir()
    traced = dump_events(meta + [x_event("op", 300, 1, 1.0, 2.0)], tmp_path / "traced" / "trace_view.json")
    empty = dump_events(meta, tmp_path / "empty" / "trace_view.json")
    open_and_wait(qtbot, window, traced)
    assert window.timeline.cards and window.cluster.analysis.widgets["operators"].cards
    open_and_wait(qtbot, window, empty)
    assert not window.timeline.cards and window.cluster.shown is None
    assert window.windowTitle() == "timelineview"  # the title, the tabs and the report: of nothing
    assert window.cluster.analysis.widgets["operators"].cards == []
    window.show_load_report()
    assert window.last_message.startswith("Load report:") and str(traced) not in window.last_message
