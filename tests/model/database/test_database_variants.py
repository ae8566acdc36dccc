"""Databases whose tables differ from torch_npu's: msprof's (a table renamed ``_<NAME>_old_<date>``, a
``COMMUNICATION_OP`` with other columns, no framework tables, a ``PROF_*`` folder), read by name."""

from __future__ import annotations

import shutil
import sqlite3

import numpy as np
import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.summary import stats_document
from timelineview.model import find_cards, load
from timelineview.synthetic import CardSpec
from timelineview.synthetic.database import add_device_copy, generate_database


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "ascend_pytorch_profiler_0.db"
    generate_database(path, CardSpec(steps=2))
    [store] = load(path)
    return path, stats_document([store])["cards"][0]


def _msprof_like(good, tmp_path):
    path = tmp_path / "PROF_000001_20250101120000000_ABC" / "msprof_20250101120500.db"
    path.parent.mkdir(parents=True)
    shutil.copyfile(good[0], path)
    conn = sqlite3.connect(path)
    conn.execute("alter table COMPUTE_TASK_INFO rename to _COMPUTE_TASK_INFO_old_20250101")
    conn.execute("alter table COMMUNICATION_OP rename column connectionId to opConnectionId")
    conn.execute("alter table COMMUNICATION_OP add column waitNs INTEGER")
    for table in ("PYTORCH_API", "CONNECTION_IDS", "RANK_DEVICE_MAP"):
        conn.execute(f"drop table {table}")
    conn.commit()
    conn.close()
    return path


def test_an_msprof_database_in_its_prof_folder_is_one_card(good, tmp_path):
    path = _msprof_like(good, tmp_path)
    [card] = find_cards(tmp_path)
    assert card.files == [path] and card.kind == "database"
    [store] = load(tmp_path)
    assert any("its renamed copy _COMPUTE_TASK_INFO_old_20250101 is read" in w for w in store.report.warnings)
    doc = stats_document([store])["cards"][0]
    for key in ("compute_us", "communication_us", "pure_communication_us", "free_us"):
        assert doc[key] == pytest.approx(good[1][key]), key
    # the compute tasks' args come from the renamed table
    first = int(classify(store).compute.nonzero()[0][0])
    assert "Op Type" in store.args(first)


def test_without_rank_device_map_the_rank_comes_from_the_file_name(good, tmp_path):
    path = tmp_path / "x" / "ascend_pytorch_profiler_5.db"
    path.parent.mkdir()
    shutil.copyfile(good[0], path)
    conn = sqlite3.connect(path)
    conn.execute("drop table RANK_DEVICE_MAP")
    conn.commit()
    conn.close()
    [card] = find_cards(tmp_path)
    assert card.rank == 5 and card.label == "rank 5"
    conn = sqlite3.connect(path)
    conn.execute("create table RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER)")
    conn.execute("insert into RANK_DEVICE_MAP values (3, 3)")
    conn.commit()
    conn.close()
    [card] = find_cards(tmp_path)
    assert card.rank == 3  # RANK_DEVICE_MAP first


def test_a_database_under_any_name_given_directly_is_read(good, tmp_path):
    path = tmp_path / "copy.sqlite"
    shutil.copyfile(good[0], path)
    [store] = load(path)
    assert len(store.slices) == good[1]["events"] and not store.report.error


def test_the_loader_reports_and_cancels_database_cards(good):
    import threading

    from timelineview.model import LoadCancelled
    from timelineview.model.database.card import READ_TABLES
    from timelineview.model.load.loader import card_sources, load_cards

    sources = card_sources(good[0])
    seen, overall = [], []
    [store] = load_cards(sources, card_progress=lambda card, done, total: seen.append((card, done, total)),
                         progress=lambda done, total: overall.append((done, total)))
    assert len(store.slices) == good[1]["events"]
    # progress in rows read over the tables the card reads (their rowids run 1..rows here)
    conn = sqlite3.connect(good[0])
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
    rows = sum(conn.execute(f'select count(*) from "{t}"').fetchone()[0] for t in READ_TABLES if t in tables)
    task = conn.execute("select count(*) from TASK").fetchone()[0]
    conn.close()
    assert {c for c, _, _ in seen} == {0} and {t for _, _, t in seen} == {rows}
    done = [d for _, d, _ in seen]
    assert done[0] == 0 and done[-1] == rows and done == sorted(done)
    assert task in done  # TASK, read first, is one step
    size = good[0].stat().st_size
    assert overall[0] == (0, size) and overall[-1] == (size, size) and overall == sorted(overall)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoadCancelled):
        load_cards(sources, cancel=cancel)


def test_a_cancel_stops_a_database_card_between_tables(good):
    """A cancel set while the card is read stops it at the next table (the load raises)."""
    import threading

    from timelineview.model import LoadCancelled
    from timelineview.model.load.loader import card_sources, load_cards

    cancel = threading.Event()
    seen = []

    def rows_read(card, done, total):
        seen.append(done)
        if done:
            cancel.set()

    with pytest.raises(LoadCancelled):
        load_cards(card_sources(good[0]), cancel=cancel, card_progress=rows_read)
    conn = sqlite3.connect(good[0])
    rows = conn.execute("select count(*) from TASK").fetchone()[0]
    conn.close()
    assert max(seen) == rows  # stopped after the first table


def _lanes(store):
    """(process, lane name) -> slices on it: the card's drawing, whatever its lane numbering."""
    counts = np.bincount(store.slices.lane, minlength=len(store.lanes.name))
    return {(store.processes.name[store.lanes.process[i]], store.lanes.name[i]): int(counts[i])
            for i in range(len(store.lanes.name))}


def test_a_database_of_two_devices_is_two_cards(good, tmp_path):
    """A database holding two devices (the generated one plus a copy as device 1, launched by another
    process): one card per device, each reading as the one-device database does."""
    path = tmp_path / "msprof_20250101120500.db"
    shutil.copyfile(good[0], path)
    add_device_copy(path, device=1, rank=1)
    [one] = load(good[0])
    cards = find_cards(path)
    assert [(c.label, c.rank, c.device) for c in cards] == [("rank 0", 0, 0), ("rank 1", 1, 1)]
    stores = load(path)
    assert [s.card for s in stores] == ["rank 0", "rank 1"]
    for store in stores:
        assert len(store.slices) == len(one.slices) and len(store.flows.src_slice) == len(one.flows.src_slice)
        assert _lanes(store) == _lanes(one)
        assert np.array_equal(np.sort(store.slices.start), np.sort(one.slices.start))
        assert not any("several devices" in w for w in store.report.warnings)
    assert stats_document(stores)["cards"][1]["compute_us"] == pytest.approx(good[1]["compute_us"])


def test_tasks_of_two_devices_the_map_does_not_list_are_one_card_with_a_warning(good, tmp_path):
    path = tmp_path / "ascend_pytorch_profiler_0.db"
    shutil.copyfile(good[0], path)
    add_device_copy(path, device=3, rank=1)
    conn = sqlite3.connect(path)
    conn.execute("delete from RANK_DEVICE_MAP where deviceId = 3")
    conn.commit()
    conn.close()
    [store] = load(path)
    [one] = load(good[0])
    assert len(store.slices) == 2 * len(one.slices)  # (the copy's steps: its PYTORCH_API rows)
    assert any("tasks of several devices (0, 3) drawn as one card" in w for w in store.report.warnings)
