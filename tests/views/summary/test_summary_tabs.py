"""A summary folder opened in the window: read in the background, the comparison first, then
the Diagnosis, Communication and Operators tabs holding the numbers ``stats`` prints — on the summary and on
the traces themselves; jumps go to the card's drill-down; a failed card, an unreadable folder, and a newer
open while one is read."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from tests.distributed.conftest import CARDS
from timelineview.analysis.communication.document import links_json
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries.summary_session import COMPLETE, INDEX_FORMAT, INDEX_KIND, SummarySession
from timelineview.model import load
from timelineview.views.analysis_tabs.communication.communication_view import ACROSS as COMM_ACROSS
from timelineview.views.analysis_tabs.memory_view import NO_RECORDS_IN_SUMMARY
from timelineview.views.analysis_tabs.operators_view import ACROSS as OPS_ACROSS
from timelineview.views.analysis_tabs.operators_view import BY_OP_TYPE
from timelineview.viewstate.tabs.comm_rows import waited_for_note

from .conftest import FAILED_RANK

SLOW_CARD, SLOW_LINK = "rank 3", (4, 5)
TIMEOUT_MS = 120_000


def _json(doc):
    """As ``stats --json`` prints it (floats round-trip exactly)."""
    return orjson.loads(orjson.dumps(doc, option=orjson.OPT_SERIALIZE_NUMPY))


def _without_workers(doc: dict) -> dict:
    doc = _json(doc)
    for card in doc["cards"]:
        card.pop("worker", None)
    return doc


@pytest.fixture(scope="module")
def on_traces(summaries) -> AnalysisSession:
    """``stats`` on the traces the summary was made of."""
    session = AnalysisSession(load(summaries.traces))
    session.findings  # noqa: B018
    return session


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))


def _open(qtbot, window, folder) -> bool:
    """Open ``folder``; checks it is read off the GUI thread (no trace load); True when it was shown."""
    with qtbot.waitSignal(window.loadFinished, timeout=TIMEOUT_MS) as finished:
        window.open_paths([folder], remember=False)
        assert window.summary_worker is not None and window.summary_worker.running  # on its own thread
        assert window.worker is None
    return finished.args[0]


def _shown_rows(view) -> list[dict]:
    """A record table's rows in the order the user sees them (sorted by the proxy)."""
    return [view.model.rows[view.proxy.mapToSource(view.proxy.index(r, 0)).row()]
            for r in range(view.proxy.rowCount())]


def _spy_drill(window, monkeypatch) -> list:
    calls = []
    drill = window.cluster.drill

    def spy(numbers, step=None):
        calls.append(list(numbers))
        return drill(numbers, step)

    monkeypatch.setattr(window.cluster, "drill", spy)
    return calls


def test_the_tabs_hold_what_stats_prints(qtbot, window, summaries, on_traces, monkeypatch):
    assert _open(qtbot, window, summaries.whole)
    session = window.cluster.summary
    assert session is not None and len(session.cards) == CARDS
    assert window.cluster.tabs.currentWidget() is window.cluster.view  # the comparison is what opens
    qtbot.waitUntil(lambda: window.summary_worker is None, timeout=TIMEOUT_MS)  # the tabs' analysis is shown
    memory = window.cluster.analysis.widgets["memory"]
    assert memory.note.text() == NO_RECORDS_IN_SUMMARY and memory.card_box.count() == 0  # not "Analysing…"
    expected = _json(SummarySession(summaries.whole).stats_document())  # `stats DIR --json`
    traced = _without_workers(on_traces.stats_document())
    assert _without_workers(expected) == traced  # so the tabs below equal stats on the traces as well
    tabs = window.cluster.analysis.widgets

    # Diagnosis: every finding, titled by its rule, in stats' order; the status bar counts them
    diag = tabs["diagnosis"]
    assert [_json(f.document()) for f in diag.findings] == expected["findings"]
    titles = [diag.list.topLevelItem(k).text(1) for k in range(diag.list.topLevelItemCount())]
    assert titles == [f["rule"].replace("_", " ") for f in expected["findings"]]
    assert {"slow link", "slow compute"} <= set(titles)  # the planted problems
    assert window.cluster.analysis.status["diagnosis"].text() == f"{len(titles)} findings"

    # Communication: the links and their slow flags; the one slow cell is the planted link
    comm = tabs["communication"]
    assert _json(links_json(comm.matrix.links, comm.matrix.slow)) == expected["links"]
    matrix = comm.matrix.current(2000, 2000)  # room for one cell per rank
    assert not matrix.by_node and len(matrix) == CARDS
    slow_cells = {(int(matrix.groups[i]), int(matrix.groups[j])) for i, j in zip(*np.nonzero(matrix.slow))}
    assert slow_cells == {SLOW_LINK} and expected["slow_links"] == [f"{SLOW_LINK[0]}-{SLOW_LINK[1]}"]
    assert window.cluster.analysis.status["communication"].text() == "1 slow link"
    # collective waits across the cards: each card's wait as the traces give it
    assert comm.scope.currentData() == COMM_ACROSS
    waits = on_traces.communication.waits
    assert list(waits.cards) == [f"rank {r}" for r in range(CARDS)]
    rows = {(r["name"], r["call"]): r for r in comm.model.rows}
    assert len(rows) == len(waits) > 0
    for c in range(len(waits)):
        row = rows[(waits.name[c], int(waits.occurrence[c]))]
        for k in range(CARDS):
            w = waits.wait[c, k]
            assert row[f"wait_{k}"] == (None if not np.isfinite(w) else float(w) / 1000.0)
        present = [row[f"wait_{k}"] for k in range(CARDS) if row[f"wait_{k}"] is not None]
        assert row["least_wait_us"] == min(present) and row["most_wait_us"] == max(present)
    # who the others wait for (a verdict), as the traces judge it; on these small cards (3.6 ms steps) the
    # slow card's lateness (40, 96, 485 µs per step) stays within the others' data-wait jitter: nobody
    assert waited_for_note(waits, len(waits)) in comm.note.text()

    # Operators: across the cards, the top rows are stats' operators_across_cards
    ops = tabs["operators"]
    assert ops.scope.currentData() == OPS_ACROSS
    keys = list(expected["operators_across_cards"][0])
    top = [{k: r[k] for k in keys} for r in _shown_rows(ops)[:len(expected["operators_across_cards"])]]
    assert top == expected["operators_across_cards"]
    assert any(r["max_card"] == SLOW_CARD for r in top)
    # one card's operators: the slow card's table, as its §5 document lists them
    ops.scope.setCurrentIndex(ops.scope.findText(SLOW_CARD))
    doc = next(c for c in expected["cards"] if c["card"] == SLOW_CARD)
    shown = {r["name"]: r for r in _shown_rows(ops)}
    for op in doc["operators"]["by_name"]:
        assert {k: shown[op["name"]][k] for k in op} == op

    # Compare: two runs are compared from their traces; a summary says so rather than wait for one
    compare = tabs["compare"]
    compare.compare_with([summaries.traces])
    assert not compare.jobs.busy and not compare.pending
    assert "A summary folder is open" in compare.header.text()

    # jumps: there is no trace, so each goes to the card's drill-down in the cluster tab
    drills = _spy_drill(window, monkeypatch)
    number = {c.card: i for i, c in enumerate(session.cards)}
    to_operator = ops.open_row(0)  # a row of the slow card's table (the scope chosen above)
    assert to_operator.card == number[SLOW_CARD] and to_operator.name == ops.model.rows[0]["name"]
    slow_compute = next(f for f in diag.findings if f.rule == "slow_compute")
    to_evidence = diag.open_evidence(diag.findings.index(slow_compute), 0)
    assert to_evidence.card == number[slow_compute.evidence[0].card]
    comm.scope.setCurrentIndex(comm.scope.findText(SLOW_CARD))
    row = max(range(len(comm.model.rows)), key=lambda r: comm.model.rows[r]["wait_us"])
    to_collective = comm.open_row(row)
    op = comm.model.rows[row]
    assert to_collective.card == number[SLOW_CARD] and to_collective.name == op["name"]
    assert (to_collective.end_ns - to_collective.start_ns) / 1000.0 == pytest.approx(op["elapse_us"], abs=1e-3)
    assert drills == [[t.card] for t in (to_operator, to_evidence, to_collective)]
    # across the cards by op type: the session's rows (read off each card's kept by-op-type table), and a
    # double-click opens the card with the max from its summary
    ops.scope.setCurrentIndex(ops.scope.findData(OPS_ACROSS))
    ops.grouping.setCurrentIndex(ops.grouping.findData(BY_OP_TYPE))
    assert [r["op_type"] for r in ops.model.rows] == [o.op_type for o in session.op_types_across_cards]
    to_op_type = ops.open_row(0)
    assert to_op_type.card == number[ops.model.rows[0]["max_card_name"]] and to_op_type.slices is None
    assert drills[-1] == [to_op_type.card]


def test_a_summary_with_a_failed_card_still_opens(qtbot, window, summaries):
    assert _open(qtbot, window, summaries.one_failed)
    session = window.cluster.summary
    assert [e["card"] for e in session.failed] == [f"rank {FAILED_RANK}"]
    assert window.cluster.view.table.model_.rowCount() == CARDS - 1
    assert "1 card(s) could not be summarised" in window.statusBar().currentMessage()
    assert f"summary of {CARDS - 1} cards" in window.windowTitle()
    expected = _json(SummarySession(summaries.one_failed).stats_document())
    tabs = window.cluster.analysis.widgets
    assert [_json(f.document()) for f in tabs["diagnosis"].findings] == expected["findings"]
    ops = tabs["operators"]
    keys = list(expected["operators_across_cards"][0])
    assert [{k: r[k] for k in keys} for r in _shown_rows(ops)[:len(expected["operators_across_cards"])]] == \
        expected["operators_across_cards"]
    scopes = [ops.scope.itemText(i) for i in range(ops.scope.count())]
    assert f"rank {FAILED_RANK}" not in scopes and len(scopes) == CARDS  # "all cards" and the 15 read
    # and the 15 cards' numbers are those of their traces
    fresh = AnalysisSession([s for s in load(summaries.traces_one_failed) if s.card != f"rank {FAILED_RANK}"])
    assert _without_workers(expected)["cards"] == _json(fresh.stats_document())["cards"]


def test_a_folder_with_no_readable_card_says_why(qtbot, window, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    index = {"kind": INDEX_KIND, "format": INDEX_FORMAT, "state": COMPLETE, "run": "r1",
             "cards": [{"card": "rank 0", "rank": 0, "status": "ok", "dir": "rank_0", "run": "r1", "manifest": "0"},
                       {"card": "rank 1", "rank": 1, "status": "failed", "error": "no trace", "dir": "rank_1"}]}
    (folder / "index.json").write_bytes(orjson.dumps(index))  # rank_0/ was never written
    assert not _open(qtbot, window, folder)
    assert "holds no card that was summarised (2 failed)" in window.last_message
    assert f"rank 0: {folder / 'rank_0' / 'card.json'}: No such file or directory" in window.last_message
    assert "rank 1: no trace" in window.last_message
    assert window.cluster.summary is None and window.windowTitle() == "timelineview"
    assert not window.progress.isVisible()
    # an index cut short: the message is about the index, not "no trace files found"
    (folder / "index.json").write_bytes(orjson.dumps(index)[:40])
    assert not _open(qtbot, window, folder)
    assert "is not a readable summary folder (its index.json: JSONDecodeError" in window.last_message


def test_a_newer_summary_supersedes_the_one_being_read(qtbot, window, summaries):
    window.open_paths([summaries.whole], remember=False)
    first = window.summary_worker
    _open(qtbot, window, summaries.one_failed)
    qtbot.waitUntil(lambda: not window.jobs.superseded, timeout=TIMEOUT_MS)  # the first stopped, its results dropped
    assert first is not window.summary_worker
    assert window.cluster.summary.folder == summaries.one_failed
    assert window.cluster.view.table.model_.rowCount() == CARDS - 1
    assert len(window.cluster.analysis.widgets["operators"].cards) == CARDS - 1


def test_a_trace_opened_while_a_summary_is_read_wins(qtbot, window, summaries, on_traces):
    window.open_paths([summaries.whole], remember=False)
    with qtbot.waitSignal(window.loadFinished, timeout=TIMEOUT_MS):
        window.open_paths([summaries.traces], remember=False)
    qtbot.waitUntil(lambda: window.summary_worker is None and not window.jobs.superseded, timeout=TIMEOUT_MS)
    assert window.cluster.summary is None and len(window.timeline.cards) == CARDS
    findings = [_json(f.document()) for f in window.cluster.analysis.widgets["diagnosis"].findings]
    assert findings == _json([f.document() for f in on_traces.findings])
    assert "summary" not in window.windowTitle()


def test_a_card_made_by_other_code_is_said_in_the_status_line(qtbot, window, summaries, tmp_path):
    import shutil

    from .conftest import resign

    folder = tmp_path / "other-code"
    shutil.copytree(summaries.whole, folder)
    manifest = next(folder.glob("*/card.json"))
    doc = orjson.loads(manifest.read_bytes())
    doc["code"] = "0" * 16
    manifest.write_bytes(orjson.dumps(doc))
    resign(folder)
    assert _open(qtbot, window, folder)
    qtbot.waitUntil(lambda: "finding" in window.statusBar().currentMessage(), timeout=TIMEOUT_MS)
    shown = window.statusBar().currentMessage()
    assert shown.endswith("  ·  1 card(s) summarised by another timelineview (summarize again)"), shown


def test_the_memory_tab_says_a_summary_keeps_no_records(qtbot, window, summaries):
    """A summary is open, not 'no trace': the Memory tab says what the summary keeps and where to look."""
    assert _open(qtbot, window, summaries.whole)
    memory = window.cluster.analysis.widgets["memory"]
    assert memory.card_box.count() == 0  # no card's trace is loaded
    assert memory.note.text() == NO_RECORDS_IN_SUMMARY
    assert "No trace open" not in memory.note.text()
