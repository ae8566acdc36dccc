"""The Query tab: SQL over the run on screen, run off the GUI thread (Ctrl+Enter), rows sortable and capped
with their count, bad SQL said in the tab, a long query cancelled, and a double-click on a row with a slice
``id`` and ``card`` shows that slice on the timeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs import query_view
from timelineview.views.analysis_tabs.query_view import DISPLAY_CAP

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

ENDLESS = "select count(*) from range(1000000) a, range(1000000) b where a.range * b.range % 7 = 3"


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("query") / "ranks"
    generate_cluster(out, cluster_specs(2, seed=5, steps=2, tasks_per_step=60))
    return out


@pytest.fixture
def view(open_tab, cluster_dir):
    return open_tab(cluster_dir, "query", lambda v: v.api_session is not None)


def run(qtbot, view, sql: str, keys: bool = False) -> None:
    view.editor.setPlainText(sql)
    with qtbot.waitSignal(view.queryFinished, timeout=60_000):
        if keys:
            qtbot.keyClick(view.editor, QtCore.Qt.Key.Key_Return, QtCore.Qt.KeyboardModifier.ControlModifier)
        else:
            view.run_query()


def test_ctrl_enter_runs_and_rows_are_the_store_sums(qtbot, view):
    run(qtbot, view, "select card, name, count(*) as n, sum(dur_ns) as total from slices group by card, name",
        keys=True)
    assert view.error == ""
    got = {(r[0], r[1]): (r[2], int(r[3])) for r in view.model.rows}
    want = {}
    for store in view.api_session.stores:
        for i in np.unique(store.slices.name):
            mine = store.slices.name == i
            want[(store.card, store.strings[i])] = (int(mine.sum()), int(store.slices.dur[mine].sum()))
    assert got == want
    assert view.note.text().startswith(f"{len(want):,} rows".replace(",", " "))  # the window's one formatter


def test_sorting_orders_by_value(qtbot, view):
    run(qtbot, view, "select name, sum(dur_ns) as total from slices group by name")
    view.table.sortByColumn(1, QtCore.Qt.SortOrder.DescendingOrder)
    totals = [float(r[1]) for r in view.model.rows]
    assert totals == sorted(totals, reverse=True) and len(totals) > 3
    assert view.table.model().index(0, 1).data() == query_view.cell_text(view.model.rows[0][1])


def test_display_is_capped_with_the_count(qtbot, view, monkeypatch):
    monkeypatch.setattr(query_view, "DISPLAY_CAP", 7)
    run(qtbot, view, "select id from slices")
    total = sum(len(s.slices) for s in view.api_session.stores)
    assert view.model.rowCount() == 7
    assert view.note.text().startswith(f"{total:,}".replace(",", " ") + " rows, the first 7 shown")
    assert DISPLAY_CAP >= 1000  # the tab's own cap


def test_bad_sql_says_why_in_the_tab(qtbot, view):
    run(qtbot, view, "select nope from slices")
    assert "nope" in view.error and view.note.text() == view.error and "\n" not in view.error
    assert view.model.rowCount() == 0 and view.run_button.isEnabled()


def test_a_long_query_is_cancelled_and_the_gui_answers_meanwhile(qtbot, view):
    view.editor.setPlainText(ENDLESS)
    view.run_query()
    assert view.running and view.cancel_button.isEnabled() and not view.run_button.isEnabled()
    qtbot.wait(300)  # the event loop turns while DuckDB works
    with qtbot.waitSignal(view.queryFinished, timeout=30_000):
        view.cancel_button.click()
    assert view.note.text() == "Cancelled." and view.run_button.isEnabled()
    run(qtbot, view, "select count(*) from steps")
    assert view.model.rows[0][0] == len(view.api_session.stats()["cards"][0]["steps"]) * 2


def test_double_click_on_a_slice_row_shows_it(qtbot, view, window):
    run(qtbot, view, "select card, id, name, dur_ns from slices where card = 'rank 1' order by dur_ns desc limit 5")
    card = next(c for c in view.api_session.cards if c.card == "rank 1")
    store = view.api_session.stores[card.number]
    target = view.open_row(0)
    index = view.model.rows[0][1]
    assert target is not None and target.card == card.number
    assert (target.start_ns, target.end_ns) == (int(store.slices.start[index]),
                                                int(store.slices.start[index] + store.slices.dur[index]))
    assert target.name == store.strings[store.slices.name[index]] == view.model.rows[0][2]
    timeline = window.timeline
    assert window.cluster.tabs.currentIndex() == 0
    selected = timeline.ctx.selection
    assert selected is not None and selected.card == card.number and selected.index == index


def test_rows_without_a_slice_id_do_not_jump(qtbot, view):
    run(qtbot, view, "select card, count(*) from steps group by card")
    assert view.open_row(0) is None


def test_quitting_waits_for_an_interrupted_query(qtbot, view):
    view.editor.setPlainText(ENDLESS)
    view.run_query()
    qtbot.wait(300)
    view.shutdown()  # what the application's aboutToQuit calls
    assert view.query_job.done.is_set()  # its thread is done with DuckDB
    qtbot.waitUntil(lambda: not view.running, timeout=10_000)


def test_a_query_running_when_the_data_set_goes_shows_nothing_of_it(qtbot, view):
    view.editor.setPlainText(ENDLESS)
    view.run_query()
    job = view.query_job
    qtbot.wait(200)
    finished = []
    view.queryFinished.connect(lambda: finished.append(True))
    view.clear()  # the window's data set went: the query is interrupted and its outcome dropped
    assert job.done.wait(10) and not view.running
    qtbot.wait(100)  # its outcome's delivery, had it not been dropped
    assert not finished and view.note.text() == "No trace open." and view.model.rows == []


@pytest.fixture(scope="module")
def summary_folder(tmp_path_factory):
    pytest.importorskip("distributed")
    from timelineview.distributed.summarize import summarize
    from timelineview.views.resources import sample_cluster_path

    out = tmp_path_factory.mktemp("summary") / "sample"
    summarize(sample_cluster_path(), out, workers=1, progress=None, note=None)
    return out


def test_a_summary_folder_answers_its_analysis_tables(qtbot, summary_folder):
    from timelineview.analysis.summaries.summary_session import SummarySession
    from timelineview.views.analysis_tabs.query_view import QueryView
    from timelineview.views.shown_data import summary_data

    session = SummarySession(summary_folder)
    view = QueryView()
    qtbot.addWidget(view)
    view.show_data(summary_data(session))
    run(qtbot, view, "select card, count(*) from steps group by card order by card")
    doc = session.stats_document()
    assert view.model.rows == sorted((c["card"], len(c["steps"])) for c in doc["cards"])
    run(qtbot, view, "select count(*) from slices")
    assert view.model.rows == [(0,)]


def test_a_summary_says_which_tables_hold_its_numbers(qtbot, open_tab, tmp_path):
    """A summary folder has no trace: its slices query answers no row, and the tab says why and where its
    numbers are, and a query of its steps answers them."""
    pytest.importorskip("distributed")
    from timelineview.distributed.summarize import local_client, summarize

    traces = tmp_path / "ranks"
    generate_cluster(traces, cluster_specs(2, seed=5, steps=2, tasks_per_step=40))
    client = local_client(1)
    try:
        summarize(traces, tmp_path / "summary", client=client, progress=None)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    view = open_tab(tmp_path / "summary", "query", lambda v: v.api_session is not None)
    assert query_view.SUMMARY_TABLES in view.note.text()
    run(qtbot, view, "select count(*) as n from slices")
    assert view.error == "" and view.model.rows == [(0,)]
    run(qtbot, view, "select * from slices")
    assert view.note.text() == f"0 rows. {query_view.SUMMARY_TABLES}"
    run(qtbot, view, "select card, step from steps order by card, step")
    assert view.model.rows == [("rank 0", 1), ("rank 0", 2), ("rank 1", 1), ("rank 1", 2)]
    assert query_view.SUMMARY_TABLES not in view.note.text()
