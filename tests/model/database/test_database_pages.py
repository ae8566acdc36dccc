"""The page reader (integer columns from the file's B-tree pages) against SQLite's own ``cast``."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from timelineview.model.database.sqlite import pages
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import _int_text_scan, read_columns

# values of every serial type an integer column can hold: 1..6-byte ints (both signs), the
# constants 0 and 1, reals (cast truncates), decimal text (torch_npu's TEXT startNs), NULL
VALUES = [0, 1, -1, 127, -128, 32767, -32768, 2**23 - 1, -(2**23), 2**31 - 1, -(2**31), 2**47 - 1, -(2**47),
          2**63 - 1, -(2**63), 1_700_000_000_123_456_789, 2.9, -2.9, 1e15, "1700000000123456789", " +42", "-7",
          None]


def _int_columns(path, table, names):
    conn = connect(path)
    try:
        return pages.read_int_columns(conn, str(path), table, names), \
            _int_text_scan(conn, table, names, "") or None
    finally:
        conn.close()


@pytest.fixture(autouse=True)
def every_table(monkeypatch):
    monkeypatch.setattr(pages, "MIN_ROWS", 0)  # the small tables here too


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (id INTEGER PRIMARY KEY, a INTEGER, b, c TEXT)")
    rng = np.random.default_rng(7)
    rows = [(None, VALUES[i % len(VALUES)], VALUES[(i * 7) % len(VALUES)], str(int(rng.integers(0, 10**18))))
            for i in range(20_000)]
    conn.executemany("insert into T values (?, ?, ?, ?)", rows)
    conn.execute("delete from T where id % 97 = 0")  # gaps in the rowids, freed pages
    conn.execute("alter table T add column d INTEGER")  # rows written before lack it: NULL
    conn.execute("insert into T (a, b, c, d) values (5, 6, '7', 8)")
    conn.commit()
    conn.close()
    return path


def test_every_serial_type_reads_as_sqlite_casts_it(db):
    names = ["rowid", "id", "a", "b", "c", "d"]
    got, want = _int_columns(db, "T", names)
    assert got is not None and want is not None
    for name, g, w in zip(names, got, want, strict=True):
        assert np.array_equal(g, w), name
    assert len(got[0]) == 20_000 - 20_000 // 97 + 1
    assert got[0][-1] == got[1][-1] and got[5][-1] == 8 and (got[5][:-1] == -1).all()


def test_what_the_reader_does_not_know_goes_to_sqlite(db, tmp_path):
    conn = sqlite3.connect(db)
    conn.execute("create table B (x INTEGER, y BLOB)")
    conn.execute("insert into B values (1, x'00ff')")
    conn.execute("create table L (x INTEGER, y TEXT)")  # rows spilling onto overflow pages
    conn.executemany("insert into L values (?, ?)", [(i, "z" * 9000) for i in range(10)])
    conn.execute("create table W (k INTEGER PRIMARY KEY, v INTEGER) without rowid")
    conn.execute("insert into W values (1, 2)")
    conn.execute("create table X (v TEXT)")
    conn.execute("insert into X values ('12abc')")  # cast takes the digits: the reader gives it up
    conn.commit()
    conn.close()
    for table, names in (("B", ["x", "y"]), ("L", ["x", "y"]), ("W", ["k", "v"]), ("X", ["v"])):
        got, _ = _int_columns(db, table, names)
        assert got is None, table
    c = connect(db)
    assert read_columns(c, "L", {"x": "int"})["x"].tolist() == list(range(10))  # through SQLite
    assert read_columns(c, "X", {"v": "int"})["v"].tolist() == [12]
    c.close()


def test_a_write_ahead_log_beside_the_file_leaves_it_to_sqlite(db):
    (db.parent / (db.name + "-wal")).write_bytes(b"")
    got, want = _int_columns(db, "T", ["a"])
    assert got is None and want is not None


def test_progress_counts_the_rows_read(db, monkeypatch):
    monkeypatch.setattr(pages, "PART_BYTES", 8 * 4096)  # parts of 8 pages
    seen = []
    conn = connect(db)
    got = pages.read_int_columns(conn, str(db), "T", ["a"], seen.append)
    conn.close()
    assert len(seen) > 3 and seen == sorted(seen) and seen[-1] == len(got[0])


def test_a_card_read_through_the_pages_equals_one_read_through_sqlite(tmp_path, monkeypatch):
    """The whole card: every integer table through the page reader, then through SQLite alone."""
    from timelineview.model.database.card import load_database_card
    from timelineview.synthetic import CardSpec
    from timelineview.synthetic.database import generate_database

    path = tmp_path / "ascend_pytorch_profiler_0.db"
    generate_database(path, CardSpec(steps=2))
    calls = []
    real = pages._read
    monkeypatch.setattr(pages, "_read", lambda *a: calls.append(1) or real(*a))
    paged = load_database_card("p", 0, path)
    assert len(calls) >= 6  # TASK, its info tables, host tables, overlap, … went through the pages
    monkeypatch.setattr(pages, "MIN_ROWS", 1 << 62)
    plain = load_database_card("p", 0, path)
    assert len(paged.slices) == len(plain.slices) > 1000
    for name in ("start", "dur", "lane", "name", "cat", "task_type", "depth"):
        assert np.array_equal(getattr(paged.slices, name), getattr(plain.slices, name)), name
    assert paged.strings == plain.strings
    assert np.array_equal(paged.flows.src_slice, plain.flows.src_slice)
    assert np.array_equal(paged.flows.dst_slice, plain.flows.dst_slice)
    for i in range(0, len(paged.slices), 97):
        assert paged.args(i) == plain.args(i)


def test_narrowed_columns_are_int32_until_a_value_does_not_fit(tmp_path, monkeypatch):
    """Columns asked narrowed come as int32 while every value fits; one past 32 bits in a later part of the
    table (several parts of ``PART_BYTES``) or in the first widens that column alone, every value
    kept."""
    monkeypatch.setattr(pages, "PART_BYTES", 8 * 4096)  # parts of 8 pages
    path = tmp_path / "n.db"
    n = 5_000
    late, early, small = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64)
    late[n - 10] = 1 << 40
    early[3] = -(1 << 35)
    conn = sqlite3.connect(path)
    conn.execute("pragma page_size = 512")
    conn.execute("create table T (id INTEGER PRIMARY KEY, late INTEGER, early INTEGER, small INTEGER)")
    conn.executemany("insert into T (late, early, small) values (?, ?, ?)",
                     zip(late.tolist(), early.tolist(), small.tolist(), strict=True))
    conn.commit()
    conn.close()
    conn = connect(path)
    try:
        got = pages.read_int_columns(conn, str(path), "T", ["rowid", "late", "early", "small"],
                                     narrow={"rowid", "late", "early", "small"})
    finally:
        conn.close()
    assert got is not None
    assert [c.dtype for c in got] == [np.int32, np.int64, np.int64, np.int32]
    for column, want in zip(got, (np.arange(1, n + 1), late, early, small), strict=True):
        assert np.array_equal(column, want)


# a record whose header has a 9-byte serial type in place of nine 1-byte ones: a huge value (the next value
# would be read far past the page) and negative ones (a wrong value read before the record's body, or a
# read far outside the file: a crash)
NINE_BYTE_SERIALS = {"huge": bytes([0x81] + [0x80] * 7 + [0x00]), "negative": bytes([0xFF] * 8 + [0xF0]),
                     "far negative": bytes([0xC0] + [0x80] * 7 + [0x00])}
RECORD = b"\x0c\x04" + b"\x00" * 8 + b"\x01\x01" + b"\x11\x22\x33\x44"  # a: 4-byte int, p1..p8 NULL, b, c
CRAFTED_READ = """
import sys
from timelineview.model.database.sqlite import pages
from timelineview.model.database.sqlite.connection import connect
pages.MIN_ROWS = 0
conn = connect(sys.argv[1])
got = pages.read_int_columns(conn, sys.argv[1], "T", ["a", "p2"])
print("none" if got is None else [c.tolist() for c in got])
"""


def _pages_only(path, table, names):
    conn = connect(path)
    try:
        return pages.read_int_columns(conn, str(path), table, names)
    finally:
        conn.close()


def _crafted_record(tmp_path, serial: bytes):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER, p1, p2, p3, p4, p5, p6, p7, p8, b INTEGER, c INTEGER)")
    conn.execute("insert into T (a, b, c) values (?, 7, 9)", (0x11223344,))
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    at = data.find(RECORD)
    assert at > 0 and data.find(RECORD, at + 1) < 0
    data[at + 2:at + 11] = serial  # the serial types of p1..p8 and b
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", sorted(NINE_BYTE_SERIALS))
def test_a_serial_type_that_moves_past_the_record_gives_the_table_to_sqlite(tmp_path, kind):
    import subprocess
    import sys

    path = _crafted_record(tmp_path, NINE_BYTE_SERIALS[kind])
    out = subprocess.run([sys.executable, "-c", CRAFTED_READ, str(path)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])  # not a signal (SIGSEGV: -11)
    assert out.stdout.split() == ["none"]


def test_a_body_longer_than_its_header_gives_the_table_to_sqlite(tmp_path):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER, b INTEGER)")
    conn.execute("insert into T values (?, 3)", (0x11223344,))
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    at = data.find(b"\x03\x04\x01\x11\x22\x33\x44\x03")  # header (3 bytes: a 4-byte int, a 1-byte int), body
    assert at > 0
    data[at + 2] = 0x00  # b's serial type NULL: its byte stays in the body, past what the header describes
    path.write_bytes(bytes(data))
    assert _pages_only(path, "T", ["a", "b"]) is None


def test_an_interior_page_without_cells_gives_the_table_to_sqlite(tmp_path):
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER)")
    conn.executemany("insert into T values (?)", [(i,) for i in range(5000)])
    conn.commit()
    root = conn.execute("select rootpage from sqlite_master where name = 'T'").fetchone()[0]
    page_size = conn.execute("pragma page_size").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    head = (root - 1) * page_size
    assert data[head] == 5  # an interior table page: its rows are in the children
    data[head + 3:head + 5] = b"\x00\x00"  # no cell: only the right-most child would be read
    path.write_bytes(bytes(data))
    assert _pages_only(path, "T", ["a"]) is None  # SQLite calls it malformed: not 1 leaf of rows, no word


CUT_WHILE_READ = """
import os, sys
from timelineview.model.database.sqlite import pages
from timelineview.model.database.sqlite.connection import connect
pages.MIN_ROWS = 0
pages.PART_BYTES = 8 * 4096  # parts of 8 pages: progress after each
path = sys.argv[1]

def cut(rows):  # the file rewritten in place (cp, rsync --inplace): first cut to nothing
    if os.path.getsize(path):
        os.truncate(path, 0)

conn = connect(path)
got = pages.read_int_columns(conn, path, "T", ["a"], cut)
print("none" if got is None else len(got[0]))
"""


def test_a_file_cut_while_it_is_read_goes_to_sqlite_not_to_a_signal(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute("create table T (a INTEGER, b TEXT)")
    conn.executemany("insert into T values (?, ?)", [(i, "x" * 40) for i in range(20_000)])
    conn.commit()
    conn.close()
    out = subprocess.run([sys.executable, "-c", CUT_WHILE_READ, str(path)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])  # SIGBUS: -7
    assert out.stdout.split() == ["none"]


def test_parts_of_a_given_size_read_the_same_columns(db):
    """``part_bytes`` (parts of one page, of three) changes what is read at once, not what is read."""
    conn = connect(db)
    try:
        whole = pages.read_int_columns(conn, str(db), "T", ["rowid", "a"], narrow={"a"})
        assert whole is not None
        progress: list[int] = []
        for part_bytes in (4096, 3 * 4096):
            got = pages.read_int_columns(conn, str(db), "T", ["rowid", "a"], progress.append, narrow={"a"},
                                         part_bytes=part_bytes)
            assert [c.dtype for c in got] == [c.dtype for c in whole]
            for mine, theirs in zip(got, whole, strict=True):
                np.testing.assert_array_equal(mine, theirs)
        assert len(progress) > 2  # the small parts were parts: progress after each
    finally:
        conn.close()
