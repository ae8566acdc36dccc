"""The Diagnosis tab reads right: a finding's value in its unit (a block's size as a size, a long step in
seconds), its Value column whole at 1600 and at 1000 px wide, and its evidence in time order."""

from __future__ import annotations

import pytest

from timelineview.analysis.findings import Evidence, Finding
from timelineview.analysis.findings.rules import ANOMALY, LOW, MEDIUM, WHERE_TIME_GOES

METHOD = "Forward/backward: operators and dispatch"  # the longest method names sit in the list too
LONG_METHOD = "Cluster: slow card, slow link, parallel strategy"
START_37 = 1_700_000_000_000_000_000  # rank 37's first slice on its clock: evidence reads from there


def _findings() -> list[Finding]:
    large = Finding("large_allocation", LOW, "Memory: peaks, large blocks, fragmentation", ["rank 0", "rank 1"],
                    None, "allocation_mb", 49.1, 7.31, "trans_TransData_0 allocates 49.1 MB at once",
                    [Evidence("rank 0", 29_116_000, 29_234_000, None, "trans_TransData_0")], WHERE_TIME_GOES)
    slow = Finding("slow_data", MEDIUM, LONG_METHOD, ["rank 37"], None, "step_interval_us", 6_040_000.0, 2_000.0,
                   "rank 37 waits for its input data",
                   # the rule lists the longest first; a reader walks them in time order
                   [Evidence("rank 37", START_37 + 66_300_000, START_37 + 87_221_000, "Steps"),
                    Evidence("rank 37", START_37, START_37 + 21_135_000, "Steps"),
                    Evidence("rank 37", START_37 + 44_036_000, START_37 + 64_550_000, "Steps")], ANOMALY)
    return [slow, large]


def _column(view, title: str) -> int:
    header = view.list.headerItem()
    return next(c for c in range(view.list.columnCount()) if header.text(c) == title)


@pytest.fixture
def view(qtbot):
    from timelineview.views.analysis_tabs.diagnosis_view import DiagnosisView

    w = DiagnosisView()
    qtbot.addWidget(w)
    w._cards = {"rank 0": (0, 0), "rank 1": (1, 0), "rank 37": (37, START_37)}
    return w


def test_values_read_in_the_unit_of_their_metric(view):
    view.set_findings(_findings())
    value = _column(view, "Value")
    texts = [view.list.topLevelItem(k).text(value) for k in range(view.list.topLevelItemCount())]
    assert texts == ["6.04 s against 2 ms", "49.1 MB against 7.31 MB"]  # not "6.04e+03 ms", "4906 % against 731 %"


@pytest.mark.parametrize("width", [1600, 1000])
def test_the_value_column_is_whole_on_screen(view, qtbot, width):
    view.resize(width, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_findings(_findings())
    qtbot.wait(10)
    header = view.list.header()
    value = _column(view, "Value")
    left = header.sectionViewportPosition(value)
    needed = max(view.list.fontMetrics().horizontalAdvance(view.list.topLevelItem(k).text(value))
                 for k in range(view.list.topLevelItemCount()))
    assert not header.isSectionHidden(value)
    assert header.sectionSize(value) >= needed  # the column holds its widest value
    assert 0 <= left and left + header.sectionSize(value) <= view.list.viewport().width()  # and is in view


def test_evidence_in_time_order_and_each_row_opens_its_own_span(view, qtbot):
    view.set_findings(_findings())
    view.list.setCurrentItem(view.list.topLevelItem(0))  # slow data
    rows = [view.evidence.item(i).text() for i in range(view.evidence.count())]
    assert rows == ["rank 37: 0.000 – 21.135 ms  (Steps)", "rank 37: 44.036 – 64.550 ms  (Steps)",
                    "rank 37: 66.300 – 87.221 ms  (Steps)"]
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view._evidence_activated(view.evidence.item(0))
    # the first row's span, on the card's clock
    assert sent.args[0].start_ns == START_37 and sent.args[0].end_ns == START_37 + 21_135_000


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory):
    from tests.views.generated import generated_cluster

    return generated_cluster(tmp_path_factory, "reading", 4, seed=6, steps=3, tasks_per_step=60, slow_card=2)


@pytest.mark.parametrize("size", [(1600, 900), (1000, 700)])
def test_in_the_window_the_value_column_is_whole(open_tab, window, qtbot, cluster_dir, size):
    """The tab is sized while hidden behind another: its list takes its share once it is on screen."""
    window.resize(*size)
    view = open_tab(cluster_dir, "diagnosis", lambda tab: bool(tab.findings))
    window.cluster.analysis.show_tab("diagnosis")
    qtbot.waitUntil(view.isVisible, timeout=5_000)
    qtbot.wait(10)
    header, value = view.list.header(), _column(view, "Value")
    needed = max(view.list.fontMetrics().horizontalAdvance(view.list.topLevelItem(k).text(value))
                 for k in range(view.list.topLevelItemCount()))
    left = header.sectionViewportPosition(value)
    assert header.sectionSize(value) >= needed
    assert 0 <= left and left + header.sectionSize(value) <= view.list.viewport().width()
    from timelineview.views.analysis_tabs.diagnosis_view import LIST_SHARE

    assert view.split.sizes()[0] >= LIST_SHARE * sum(view.split.sizes()) - 2  # its share, not what hiding left
