"""A part of the analysis that fails is said, not swallowed: logged, in the status bar, in File ▸ Load report,
and in the tab that needed it; the other tabs still show the load."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.views.generated import generated_cluster
from timelineview.analysis.session import AnalysisSession
from timelineview.views.analysis_tabs.operators_view import OperatorsView


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "failures", 3, seed=5, steps=2, tasks_per_step=20)


def open_and_wait(qtbot, window, path: Path) -> None:
    with qtbot.waitSignal(window.loadFinished, timeout=60_000):
        window.open_paths([path], remember=False)
    qtbot.wait(20)


def broken(what: str):
    def fail(self, *args, **kwargs):
        raise RuntimeError(f"{what} is broken")
    return fail


def test_a_failed_diagnosis_is_logged_and_said(qtbot, window, cluster_dir, monkeypatch, caplog):
    monkeypatch.setattr(AnalysisSession, "findings", property(broken("the findings rule")))
    with caplog.at_level(logging.ERROR, logger="timelineview"):
        open_and_wait(qtbot, window, cluster_dir)
    assert any(r.name == "timelineview.views.jobs.load_job" and "diagnosis" in r.getMessage() and r.exc_info
               for r in caplog.records)
    said = "the diagnosis failed: RuntimeError: the findings rule is broken"
    assert said in window.statusBar().currentMessage()
    window.show_load_report()
    assert said in window.last_message
    diagnosis = window.cluster.analysis.widgets["diagnosis"]
    assert "could not be computed" in diagnosis.summary.text()


def test_a_tab_that_cannot_show_the_load_says_why_and_the_others_still_show(qtbot, window, cluster_dir, monkeypatch,
                                                                            caplog):
    monkeypatch.setattr(OperatorsView, "show_data", broken("the operators table"))
    with caplog.at_level(logging.ERROR, logger="timelineview"):
        open_and_wait(qtbot, window, cluster_dir)
    host = window.cluster.analysis
    said = "The Operators tab could not be shown: RuntimeError: the operators table is broken"
    assert host.widgets["operators"].note.text() == said
    assert host.widgets["communication"].session is not None  # the tab after it still got the load
    assert said in window.statusBar().currentMessage()
    window.show_load_report()
    assert said in window.last_message
    assert any(r.name == "timelineview.views.analysis_tabs.host" and r.exc_info for r in caplog.records)


def test_a_failed_comparison_says_why_in_its_tab(qtbot, window, cluster_dir, monkeypatch):
    monkeypatch.setattr(AnalysisSession, "comparison", property(broken("the comparison")))
    open_and_wait(qtbot, window, cluster_dir)
    assert window.cluster.view.hint.text() == ("The comparison of the cards failed: RuntimeError: "
                                               "the comparison is broken")
    assert window.cluster.heat.note.text() == window.cluster.view.hint.text()
    assert "the comparison of the cards failed" in window.statusBar().currentMessage()
