"""The window's jobs: a load that fails says so with its message, the progress goes away, and the window is
back to what it showed before; the window's jobs are the runner's, one set of slots."""

from __future__ import annotations

import timelineview.model as model
from tests.views.main_window_fixture import LOAD_TIMEOUT_MS


def test_a_failed_load_is_shown_with_its_message(qtbot, window, monkeypatch, tmp_path):
    def broken(sources, **_options):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(model, "load_cards", broken)
    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS) as finished:
        window.open_paths([tmp_path / "big.json"], remember=False)
    assert finished.args == [False]
    assert window.last_message.startswith("Could not open: Loading big.json failed.")
    assert "RuntimeError: the disk is on fire" in window.last_message
    assert not window.progress.isVisible() and window.worker is None and not window.jobs.busy
    assert window.windowTitle() == "timelineview"


def test_the_progress_shows_the_job_s_stage_and_share(qtbot, window):
    from timelineview.views.jobs.job import Progress

    status = window.job_status
    status.begin("Reading")
    assert status.progress.value() == 0 and status.stage_label.text() == "Reading"
    status.show(Progress(250, 1000, "Reading rank 3"))
    assert status.progress.value() == 250 and status.stage_label.text() == "Reading rank 3"
    status.show(Progress(0, 0, "Analysing rank 3"))  # a new stage alone keeps the bar where it is
    assert status.progress.value() == 250 and status.stage_label.text() == "Analysing rank 3"
    status.end()
    assert not status.progress.isVisible()
