"""A profiler database cut short or with a page overwritten: the card's report says truncated (or
damaged), which file and which table, counts the rows it could not read, and keeps every row SQLite
can still reach (past the damage too), exactly as the whole file's reading has them.

The expectations come from SQLite's own ``dbstat`` table of the whole file (which pages hold which
table's rows, in the tree's order), not from the reader's page walk."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from timelineview.model import load
from timelineview.synthetic import CardSpec
from timelineview.synthetic.database import generate_database

NAME = "ascend_pytorch_profiler_0.db"
TASK = "TASK"
GARBAGE = bytes(range(256))


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """A generated database, its card and its pages as ``dbstat`` lists them."""
    path = tmp_path_factory.mktemp("whole") / NAME
    generate_database(path, CardSpec(steps=2))
    [store] = load(path, cache=False)
    assert store.report.read_whole_capture
    conn = sqlite3.connect(path)
    try:
        pages = conn.execute("select name, pageno, pagetype, ncell, path from dbstat order by path").fetchall()
        page_size = conn.execute("pragma page_size").fetchone()[0]
        total = conn.execute(f"select count(*) from {TASK}").fetchone()[0]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat")
    finally:
        conn.close()
    return path, store, pages, page_size, total


def _copy(whole, tmp_path: Path) -> Path:
    path = tmp_path / NAME
    shutil.copyfile(whole[0], path)
    return path


def _task_leaves(whole) -> list[tuple[int, int]]:
    """(page, rows) of TASK's leaves in key order."""
    return [(p, n) for name, p, kind, n, _ in whole[2] if name == TASK and kind == "leaf"]


def _slices(store) -> Counter:
    """(start, duration, process, lane tid) of each slice: lanes by their producer's ids, as names need
    the strings table (which a damaged file may lack)."""
    lanes, procs = store.lanes, store.processes
    where = [(procs.name[lanes.process[k]], lanes.tid[k]) for k in store.slices.lane.tolist()]
    return Counter(zip(store.slices.start.tolist(), store.slices.dur.tolist(), where, strict=True))


def _lost(report, table: str) -> int:
    return sum(n for reason, n in report.dropped.items() if f"table {table} " in reason)


def _task_rows_read(store) -> int:
    return int(next(w for w in store.report.warnings if f": table {TASK}: " in w).split(": ")[-1].split(" rows")[0]
               .replace(",", ""))


def _assert_kept(store, whole) -> None:
    """What was read is the whole file's reading of those rows: every slice is one of the whole card's."""
    assert not (_slices(store) - _slices(whole[1]))
    assert len(store.slices) < len(whole[1].slices)


def test_cut_in_the_middle_of_task(whole, tmp_path):
    leaves = _task_leaves(whole)
    cut_page = leaves[len(leaves) // 2][0]
    path = _copy(whole, tmp_path)
    with open(path, "r+b") as f:
        f.truncate((cut_page - 1) * whole[3])
    [store] = load(path, cache=False)
    report = store.report
    assert report.truncated and report.truncated_path == str(path)
    assert report.truncated_offset == (cut_page - 1) * whole[3]
    assert not report.read_whole_capture
    first_gone = next(i for i, (p, _) in enumerate(leaves) if p >= cut_page)
    before = sum(n for _, n in leaves[:first_gone])
    assert _task_rows_read(store) == before
    lost = _lost(report, TASK)
    missing_leaves = sum(1 for p, _ in leaves if p >= cut_page)
    # at least one row per missing page, never more than the table lacks
    assert missing_leaves <= lost <= whole[4] - before
    assert report.dropped_events > 0 and "truncated" in report.headline() + report.summary()
    assert any(str(path) in w and f"table {TASK}:" in w for w in report.warnings)
    _assert_kept(store, whole)


def test_cut_near_the_end(whole, tmp_path):
    path = _copy(whole, tmp_path)
    size = path.stat().st_size
    last = max(whole[2], key=lambda row: row[1])  # the page at the end of the file, and its table
    with open(path, "r+b") as f:
        f.truncate(size - whole[3] // 2)
    [store] = load(path, cache=False)
    report = store.report
    assert report.truncated and not report.read_whole_capture
    assert _lost(report, last[0]) >= 1 and report.dropped_events >= 1
    assert not (_slices(store) - _slices(whole[1]))


def test_cut_inside_the_header_page(whole, tmp_path):
    path = _copy(whole, tmp_path)
    with open(path, "r+b") as f:
        f.truncate(whole[3] // 2)
    [store] = load(path, cache=False)
    report = store.report
    assert report.truncated and report.truncated_path == str(path) and not report.read_whole_capture
    assert len(store.slices) == 0 and not report.error
    # the catalogue's page is cut: its entries (tables lost whole) are counted, and every table the
    # half page still names lost its rows
    assert _lost(report, "sqlite_master") >= 1
    assert any(str(path) in w and "table sqlite_master:" in w for w in report.warnings)
    assert len([r for r in report.dropped if "table" in r]) > 1


def test_a_page_overwritten_in_the_middle_of_task(whole, tmp_path):
    leaves = _task_leaves(whole)
    bad_index = len(leaves) // 2
    bad_page, bad_rows = leaves[bad_index]
    path = _copy(whole, tmp_path)
    data = bytearray(path.read_bytes())
    at = (bad_page - 1) * whole[3]
    data[at:at + whole[3]] = GARBAGE * (whole[3] // len(GARBAGE))
    path.write_bytes(bytes(data))
    [store] = load(path, cache=False)
    report = store.report
    assert not report.truncated and not report.read_whole_capture
    # every row but the overwritten page's is read: those past it too, from the intact pages that follow
    assert _task_rows_read(store) == whole[4] - bad_rows
    assert 1 <= _lost(report, TASK) <= bad_rows
    assert any(str(path) in w and f"table {TASK}:" in w and "1 of its pages missing" in w for w in report.warnings)
    _assert_kept(store, whole)


def test_args_of_a_truncated_database_do_not_raise(whole, tmp_path):
    path = _copy(whole, tmp_path)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 3)
    [store] = load(path, cache=False)
    got = store.args_many(np.arange(len(store.slices), dtype=np.int64))
    assert len(got) == len(store.slices)
