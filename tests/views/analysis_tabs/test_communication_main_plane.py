"""The Communication tab's headline columns are the producer's (docs/metrics.md §6): each operator's main
plane and its transit, wait, synchronisation and idle there, from the session, against figures computed
elsewhere —
the producer's own tables of the real captures (``communication.json`` beside a JSON trace,
``CommAnalyzerTime`` in ``analysis.db`` beside a database; skipped when ../shared/samples is absent), and
``stats --json`` of the same traces for a generated cluster and for a summary of the real captures."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PySide6 import QtCore

from timelineview import cli
from timelineview.views.analysis_tabs.communication.communication_view import CARD_COLUMNS, PRODUCER_COLUMNS
from timelineview.viewstate.tabs.comm_rows import all_planes_key

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"
JSON_RUN = SAMPLES / "torch_npu"
DB_RUN = SAMPLES / "torch_npu_db" / "level1"
needs_samples = pytest.mark.skipif(not JSON_RUN.is_dir() or not DB_RUN.is_dir(), reason="../shared/samples is absent")
US_PER_MS = 1000.0
REL = 0.005
ABS_US = 0.1  # sub-µs figures (a 20 ns synchronisation) are compared to 0.1 µs
FIGURES = ("transit", "wait", "synchronization", "idle")
PRODUCER_JSON_KEYS = {"transit": "Transit Time(ms)", "wait": "Wait Time(ms)",
                      "synchronization": "Synchronization Time(ms)", "idle": "Idle Time(ms)"}
TOTAL = "Total Op Info"
READY = 10_000


def main_key(figure: str) -> str:
    """The row key of one of the producer's figures: the headline key itself."""
    return f"{figure}_us"


def _card_rows(tab, card_label: str) -> list[dict]:
    """The operator rows of one card, as the tab holds them (in the card's operator order)."""
    k = next(i for i in range(tab.scope.count()) if tab.scope.itemText(i) == card_label)
    tab.scope.setCurrentIndex(k)
    return sorted(tab.model.rows, key=lambda r: r["op"])


def _stats(paths: list[Path], capsys) -> dict:
    """``stats --json`` of ``paths``, as the command prints it."""
    capsys.readouterr()
    assert cli.stats_main([*map(str, paths), "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def _assert_rows_are_the_documents(rows: list[dict], comm_ops: list[dict]) -> None:
    assert len(rows) == len(comm_ops) > 0
    for row, op in zip(rows, comm_ops, strict=True):
        assert row["name"] == op["name"]
        for f in FIGURES:
            assert row[all_planes_key(f"{f}_us")] == pytest.approx(op["all_planes"][f"{f}_us"], abs=1e-9)
        if op["plane"] is None:
            assert row["plane"] is None and all(row[main_key(f)] is None for f in FIGURES)
            continue
        assert row["plane"] == op["plane"]
        for f in FIGURES:
            assert row[main_key(f)] == pytest.approx(op[f"{f}_us"], abs=1e-9), (op["name"], f)
        assert row["wait_ratio"] == pytest.approx(op["wait_ratio"], abs=1e-12)


def test_the_columns_say_what_each_figure_is():
    """The producer's words (Transit, Wait, Synchronization, Idle) are the producer's figures, titled as the
    vocabulary labels them; the unions over every plane say so in their names."""
    titles = {CARD_COLUMNS[k].title: CARD_COLUMNS[k].tooltip for k in PRODUCER_COLUMNS}
    assert list(titles) == ["Plane", "Transit", "Wait", "Synchronization", "Idle", "Wait ratio"]
    assert [c.header_text for c in CARD_COLUMNS if c.title == "Synchronization"] == ["Sync"]  # a narrow header
    assert all(tip for tip in titles.values())
    assert "lowest-numbered plane holding one of its waits" in titles["Plane"]
    assert "before its first transit" in titles["Synchronization"]
    assert all(tip.startswith("the producer's") for title, tip in titles.items() if title != "Plane")
    others = [c.title for k, c in enumerate(CARD_COLUMNS) if k not in PRODUCER_COLUMNS]
    assert [t for t in others if "ait" in t or "ransit" in t or "dle" in t or "ync" in t] == \
        ["All-planes transit", "All-planes wait", "All-planes synchronization", "All-planes idle",
         "All-planes wait ratio"]


def test_a_generated_clusters_rows_are_stats_json(open_tab, tmp_path, capsys):
    from timelineview.synthetic import cluster_specs, generate_cluster

    folder = tmp_path / "ranks"
    generate_cluster(folder, cluster_specs(3, seed=5, steps=2, tasks_per_step=40))
    tab = open_tab(folder, "communication", lambda t: t.model.rowCount() > 0)
    doc = _stats([folder], capsys)
    shown = 0
    for card in doc["cards"]:
        rows = _card_rows(tab, card["card"])
        _assert_rows_are_the_documents(rows, card["communication"]["comm_ops"])
        shown += sum(r["plane"] is not None for r in rows)
        assert not any(tab.table.isColumnHidden(k) for k in PRODUCER_COLUMNS)
    assert shown > 0  # the generator writes waits: operators have main planes


@needs_samples
def test_json_traces_show_the_producers_communication_json(open_tab):
    tab = open_tab(JSON_RUN, "communication", lambda t: t.model.rowCount() > 0)
    for rank in (0, 1):
        producer = json.loads((JSON_RUN / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" /
                               "communication.json").read_text())
        [step] = producer.values()
        theirs = {name.split("@")[0]: v["Communication Time Info"] for name, v in step["collective"].items()
                  if name != TOTAL}
        label = next(tab.scope.itemText(i) for i in range(tab.scope.count())
                     if tab.scope.itemData(i) is not None and tab.scope.itemText(i).endswith(f"rank {rank}"))
        rows = _card_rows(tab, label)
        assert {r["name"] for r in rows} == set(theirs)
        for row in rows:
            for f, key in PRODUCER_JSON_KEYS.items():
                assert row[main_key(f)] == pytest.approx(theirs[row["name"]][key] * US_PER_MS, rel=REL,
                                                         abs=ABS_US), (rank, row["name"], f)


@needs_samples
def test_a_database_shows_the_producers_comm_analyzer_time(open_tab):
    tab = open_tab(DB_RUN, "communication", lambda t: t.model.rowCount() > 0)
    for rank in (0, 1):
        out = DB_RUN / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
        conn = sqlite3.connect(f"file:{out / 'analysis.db'}?mode=ro&immutable=1", uri=True)
        try:
            producer = conn.execute("select transit_time, wait_time, synchronization_time, idle_time "
                                    "from CommAnalyzerTime order by start_timestamp").fetchall()
        finally:
            conn.close()
        label = next(tab.scope.itemText(i) for i in range(tab.scope.count())
                     if tab.scope.itemText(i).endswith(f"rank {rank}"))
        rows = sorted(_card_rows(tab, label), key=lambda r: r["op"])
        assert len(rows) == len(producer) == 4
        for row, theirs in zip(rows, producer, strict=True):
            for f, ms in zip(FIGURES, theirs, strict=True):
                assert row[main_key(f)] == pytest.approx(ms * US_PER_MS, rel=REL, abs=ABS_US), (rank, row["name"], f)


@needs_samples
def test_a_summary_of_the_json_traces_shows_their_stats_json(open_tab, tmp_path, capsys):
    pytest.importorskip("distributed")
    from timelineview.distributed.summarize import local_client, summarize

    client = local_client(1)
    try:
        summarize(JSON_RUN, tmp_path / "summary", client=client, progress=None)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    tab = open_tab(tmp_path / "summary", "communication", lambda t: t.model.rowCount() > 0)
    doc = _stats([JSON_RUN], capsys)
    for card in doc["cards"]:
        _assert_rows_are_the_documents(_card_rows(tab, card["card"]), card["communication"]["comm_ops"])


def test_the_columns_are_hidden_for_operators_without_a_main_plane(open_tab, tmp_path, monkeypatch):
    """A summary made before main planes were kept has no producer's figures: their columns would hold only
    dashes."""
    from timelineview.synthetic import cluster_specs, generate_cluster
    from timelineview.viewstate.tabs import comm_rows

    folder = tmp_path / "ranks"
    generate_cluster(folder, cluster_specs(2, seed=3, steps=1, tasks_per_step=30))
    real = comm_rows._producer_record
    monkeypatch.setattr(comm_rows, "_producer_record", lambda main, i: real(None, i))
    tab = open_tab(folder, "communication", lambda t: t.model.rowCount() > 0)
    k = next(i for i in range(tab.scope.count()) if tab.scope.itemData(i) != -1)
    tab.scope.setCurrentIndex(k)
    assert tab.model.rowCount() > 0
    assert all(tab.table.isColumnHidden(c) for c in PRODUCER_COLUMNS)
    wait = [c.key for c in tab.model.columns].index(all_planes_key("wait_us"))
    assert not tab.table.isColumnHidden(wait)  # the unions over every plane are all there is: all shown
    for key in ("transit_us", "synchronization_us", "idle_us", "wait_ratio"):
        assert not tab.table.isColumnHidden([c.key for c in tab.model.columns].index(all_planes_key(key)))
    header = tab.model.headerData(wait, QtCore.Qt.Orientation.Horizontal)
    assert header.replace("\n", " ") == "All-planes wait"  # its header in two lines, to keep the column narrow
