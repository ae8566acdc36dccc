"""``table_columns``: any table of a profiler database as numpy columns by name (the memory analysis
reads ``MEMORY_RECORD``, ``OP_MEMORY``, … through it), exact for integers stored as TEXT, with
NULLs made explicit, whichever path (SQLite's text or Python rows) reads the integers."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from timelineview.model.database import table_columns
from timelineview.model.database.sqlite import tables
from timelineview.model.database.strings import CardStrings

BIG = 1736410576386409710  # a real ns timestamp: beyond float64's exact integers


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table MEMORY_RECORD (component INTEGER, timestamp TEXT, totalAllocated INTEGER, "
                 "ratio REAL, note TEXT)")
    rows = [(i % 3, str(BIG + i), None if i % 7 == 0 else i * 1024, i / 3 if i % 5 else None,
             None if i % 4 == 0 else f"n{i}") for i in range(1000)]
    conn.executemany("insert into MEMORY_RECORD values (?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    return path, rows


def _expected(rows):
    return {
        "component": np.array([r[0] for r in rows], np.int64),
        "timestamp": np.array([int(r[1]) for r in rows], np.int64),
        "totalAllocated": np.array([-1 if r[2] is None else r[2] for r in rows], np.int64),
        "ratio": np.array([np.nan if r[3] is None else r[3] for r in rows]),
        "note": [r[4] or "" for r in rows],
    }


def test_every_column_by_name_with_its_declared_type(db):
    path, rows = db
    got = table_columns(path, "MEMORY_RECORD")
    want = _expected(rows)
    np.testing.assert_array_equal(got["component"], want["component"])
    np.testing.assert_array_equal(got["totalAllocated"], want["totalAllocated"])  # NULL -> -1
    np.testing.assert_array_equal(got["ratio"], want["ratio"])  # NULL -> NaN
    assert got["note"].tolist() == want["note"]  # NULL -> ""
    # a TEXT column reads as text; asked for as int (as the reader asks PYTORCH_API's times) it is exact
    assert got["timestamp"][0] == str(BIG)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    exact = tables.read_columns(conn, "MEMORY_RECORD", {"timestamp": "int"})
    conn.close()
    np.testing.assert_array_equal(exact["timestamp"], want["timestamp"])


def test_string_id_columns_come_back_as_text(db):
    path, rows = db
    conn = sqlite3.connect(path)
    conn.execute("create table STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
    conn.executemany("insert into STRING_IDS values (?, ?)", [(0, "APP"), (2, "PTA+GE")])  # no id 1
    conn.commit()
    conn.close()
    got = table_columns(path, "MEMORY_RECORD", ["component", "totalAllocated"], text_ids=["component"])
    assert got["component"].tolist() == [("APP", "", "PTA+GE")[r[0]] for r in rows]
    assert got["totalAllocated"].dtype == np.int64


def test_wanted_columns_only_and_unknown_names_left_out(db):
    path, _ = db
    got = table_columns(path, "MEMORY_RECORD", ["totalAllocated", "no_such_column"])
    assert list(got) == ["totalAllocated"]
    with pytest.raises(KeyError):
        table_columns(path, "NO_SUCH_TABLE")


@pytest.mark.parametrize("threads", [1, 3])
def test_text_path_in_small_rowid_ranges_equals_the_row_path(db, monkeypatch, threads):
    path, rows = db
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    cols = {"component": "int", "timestamp": "int", "totalAllocated": "int"}
    monkeypatch.setattr(tables, "TEXT_ROWS", 37)  # many ranges, the last one partial
    monkeypatch.setattr(tables, "READ_THREADS", threads)  # ranges read on several connections at once
    monkeypatch.setattr(tables, "PARALLEL_ROWS", 0)
    by_text = tables.read_columns(conn, "MEMORY_RECORD", cols, with_rowid=True)
    by_rows = tables.salvage_columns(conn, "MEMORY_RECORD", cols, with_rowid=True)
    conn.close()
    for name in [*cols, "rowid"]:
        np.testing.assert_array_equal(by_text[name], by_rows[name])
    np.testing.assert_array_equal(by_text["timestamp"], _expected(rows)["timestamp"])


def test_string_ids_map_to_card_ids_and_unknown_ids_are_named():
    s = CardStrings(np.array([30, 10, 20]), ["c", "a", "b"])
    assert s.strings[:3] == ["a", "b", "c"]
    ids = s.of_ids(np.array([20, 10, 99, -1]))
    assert [s.strings[i] for i in ids[:3]] == ["b", "a", "(unknown name #99)"] and ids[3] == -1
    assert s.intern("b") == ids[0]  # a name the database holds keeps its id
    assert s.value(30) == "c" and s.value(31) is None
    prefixed = s.prefixed(np.array([0, -1, 1]), ["X@", "Y@"], np.array([10, 20, 30]))
    assert [s.strings[i] for i in prefixed] == ["X@a", "b", "Y@c"]


def test_ffts_parents_are_left_out_and_nothing_else():
    """A task without a context id whose (stream, task id) a sub-task shares, starting inside it, is
    the parent drawn through its sub-tasks: left out. Others on the same keys stay."""
    from timelineview.model.database.layout import NONE_U32
    from timelineview.model.database.slices.subtask_parents import without_parents

    none = NONE_U32
    # (stream, task, context, start, end): row 0 a parent of rows 1-2; row 3 the same key, later,
    # without sub-tasks after it; row 4 another stream's plain task; row 5 a parent of row 6
    rows = [(1, 7, none, 100, 200), (1, 7, 0, 100, 150), (1, 7, 1, 150, 200), (1, 7, none, 300, 400),
            (2, 7, none, 100, 200), (3, 9, none, 10, 20), (3, 9, 0, 10, 20)]
    task = {name: np.array(col, np.int64) for name, col in
            zip(("streamId", "taskId", "contextId", "startNs", "endNs"), zip(*rows, strict=True), strict=True)}
    task["rowid"] = np.arange(1, len(rows) + 1)
    kept = without_parents(task)
    assert kept["rowid"].tolist() == [2, 3, 4, 5, 7]
    plain = {k: v[np.array([3, 4])] for k, v in task.items()}
    assert without_parents(plain) is plain  # no sub-task: nothing to look for


@pytest.mark.parametrize("span", [1, 7, 1 << 10, 1 << 40])
def test_distinct_keys_as_numpy_gives_them(span):
    from timelineview.model.database.keys import sorted_unique, unique_inverse

    values = np.random.default_rng(span).integers(-3, span, 5000, dtype=np.int64)
    uniq, inverse = unique_inverse(values)
    want_u, want_i = np.unique(values, return_inverse=True)
    assert np.array_equal(uniq, want_u) and np.array_equal(inverse, want_i.reshape(-1))
    assert np.array_equal(sorted_unique(values), want_u)
    assert len(unique_inverse(values[:0])[0]) == 0 and len(sorted_unique(values[:1])) == 1


def _one_bad_record(tmp_path, n=3000, bad=1500):
    """A table of ``n`` rows (a, a*2) whose record at rowid ``bad`` has a header that runs past its cell."""
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER, b INTEGER)")
    conn.executemany("insert into T values (?, ?)", [(0x7A000000 + i, i * 2) for i in range(1, n + 1)])
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    record = b"\x03\x04\x02" + (0x7A000000 + bad).to_bytes(4, "big") + (bad * 2).to_bytes(2, "big")
    at = data.find(record)
    assert at > 0 and data.find(record, at + 1) < 0
    data[at] = 0x7F  # the record's header says 127 bytes: more than the whole record
    path.write_bytes(bytes(data))
    return path


def test_one_bad_record_on_an_intact_page_loses_only_itself(tmp_path):
    from timelineview.model.database.sqlite.connection import connect
    from timelineview.model.database.sqlite.tables import read_or_salvage

    path = _one_bad_record(tmp_path)
    conn = connect(path)
    notes: list[str] = []
    got = read_or_salvage(conn, "T", {"a": "int", "b": "int"}, notes, with_rowid=True)
    conn.close()
    want = [i for i in range(1, 3001) if i != 1500]
    assert got["rowid"].tolist() == want and got["b"].tolist() == [2 * i for i in want]
    assert len(notes) == 1 and "2,999 rows could be read" in notes[0]


def test_a_table_with_far_apart_rowids_is_read_in_few_queries(tmp_path):
    from timelineview.model.database.sqlite.connection import connect
    from timelineview.model.database.sqlite.tables import _int_text_scan

    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER)")
    conn.executemany("insert into T (rowid, a) values (?, ?)", [(i, i) for i in range(1, 6)] + [(10**12, 7)])
    conn.commit()
    conn.close()
    conn = connect(path)
    queries: list[str] = []
    conn.set_trace_callback(queries.append)
    [got] = _int_text_scan(conn, "T", ["a"], "")
    conn.close()
    assert got.tolist() == [1, 2, 3, 4, 5, 7]
    assert len(queries) < 10  # was one query per 131 072 rowids of the range: 7.6 million
