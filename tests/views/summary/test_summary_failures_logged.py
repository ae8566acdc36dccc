"""A summary whose analysis fails is logged with its traceback (the window says so too), not only shown."""

from __future__ import annotations

import logging

import pytest

from timelineview.analysis.summaries.summary_session import SummarySession

from .test_summary_tabs import TIMEOUT_MS, _open


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))


def test_a_failed_summary_analysis_is_logged(qtbot, window, summaries, monkeypatch, caplog):
    def broken(self):
        raise RuntimeError("the findings of the summary are broken")

    monkeypatch.setattr(SummarySession, "findings", property(broken))
    with caplog.at_level(logging.ERROR, logger="timelineview"):
        assert _open(qtbot, window, summaries.whole)
        qtbot.waitUntil(lambda: window.summary_worker is None, timeout=TIMEOUT_MS)
    [record] = [r for r in caplog.records if r.name == "timelineview.views.jobs.summary_job"]
    assert "analysing the summary" in record.getMessage() and record.exc_info is not None
    assert "the findings of the summary are broken" in str(record.exc_info[1])
