"""Damage that SQLite reads differently from one read to the next, or reads without a word: a leaf cell
that runs off its page, a child pointer aimed at the catalogue's page. The rows kept are the same at
every read and every row not kept is counted; expectations come from the valid file's own pages."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tests.model.database.page_fuzz_campaign import PAGE_SIZE, TABLE, build
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.damage import table_losses, table_roots
from timelineview.model.database.sqlite.leaf_cells import has_cell_off_page
from timelineview.model.database.sqlite.tables import read_or_salvage

LEAF, INTERIOR = 13, 5
READS = 6


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    path = tmp_path_factory.mktemp("valid") / "t.db"
    build(path)
    return path


def _pages(data: bytes, kind: int) -> list[int]:
    return [p for p in range(2, len(data) // PAGE_SIZE + 1) if data[(p - 1) * PAGE_SIZE] == kind]


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for k in range(9):
        b = data[at + k]
        if k == 8:
            return (value << 8) | b, at + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, at + k + 1
    raise AssertionError


def _leaf_rowids(data: bytes, page: int) -> list[int]:
    """The rowids of a leaf's cells, read by hand (pointer, payload size varint, rowid varint)."""
    base = (page - 1) * PAGE_SIZE
    cells = int.from_bytes(data[base + 3:base + 5], "big")
    out = []
    for k in range(cells):
        ptr = base + int.from_bytes(data[base + 8 + 2 * k:base + 10 + 2 * k], "big")
        _, at = _varint(data, ptr)
        out.append(_varint(data, at)[0])
    return out


def _read(path) -> tuple[list[int], list, list[str]]:
    conn = connect(path)
    try:
        notes: list[str] = []
        got = read_or_salvage(conn, TABLE, {"a": "int", "c": "int"}, notes, with_rowid=True)
        rowids = got["rowid"].tolist() if got else []
        losses = table_losses(conn, str(path), [TABLE], {TABLE: len(rowids)}, notes, [] if got else [TABLE])
    finally:
        conn.close()
    return rowids, losses, notes


def test_a_cell_running_off_its_leaf_gives_the_same_rows_at_every_read_and_counts_its_leaf(valid, tmp_path):
    data = bytearray(valid.read_bytes())
    conn = sqlite3.connect(valid)
    every = [r[0] for r in conn.execute(f"select rowid from {TABLE}")]
    conn.close()
    leaf = _pages(data, LEAF)[len(_pages(data, LEAF)) // 3]  # a leaf in the first part of the table
    on_leaf = _leaf_rowids(data, leaf)
    base = (leaf - 1) * PAGE_SIZE
    last = int.from_bytes(data[base + 3:base + 5], "big") - 1
    data[base + 8 + 2 * last:base + 10 + 2 * last] = (PAGE_SIZE - 1).to_bytes(2, "big")  # its last cell
    path = tmp_path / "t.db"
    path.write_bytes(bytes(data))
    reads = [_read(path) for _ in range(READS)]
    kept = [r for r in every if r not in set(on_leaf)]  # the leaf is left whole, every other row kept
    for rowids, losses, _notes in reads:
        assert rowids == kept
        [loss] = losses
        assert loss.rows_lost == len(on_leaf) and len(rowids) + loss.rows_lost == len(every)


def _root(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return table_roots(conn)[TABLE]
    finally:
        conn.close()


def _with_last_pointer(data: bytes, leaf: int, pointer: int, tmp_path) -> str:
    """The file with the last cell pointer of ``leaf`` set to ``pointer`` (an offset in the page)."""
    changed = bytearray(data)
    base = (leaf - 1) * PAGE_SIZE
    last = int.from_bytes(changed[base + 3:base + 5], "big") - 1
    changed[base + 8 + 2 * last:base + 10 + 2 * last] = pointer.to_bytes(2, "big")
    path = tmp_path / f"t{leaf}_{pointer}.db"
    path.write_bytes(bytes(changed))
    return str(path)


def test_the_leaf_check_finds_a_cell_off_its_page_and_nothing_on_an_intact_table(valid, tmp_path):
    data = valid.read_bytes()
    root = _root(valid)
    assert not has_cell_off_page(str(valid), root)
    leaf = _pages(data, LEAF)[len(_pages(data, LEAF)) // 2]
    base = (leaf - 1) * PAGE_SIZE
    cells = int.from_bytes(data[base + 3:base + 5], "big")
    # the page's very last byte: the payload size varint ends there (below 0x80) or runs off (0x80 and above);
    # the rowid varint after it is off the page either way
    assert has_cell_off_page(_with_last_pointer(data, leaf, PAGE_SIZE - 1, tmp_path), root)
    assert has_cell_off_page(_with_last_pointer(data, leaf, PAGE_SIZE, tmp_path), root)  # past the page
    assert has_cell_off_page(_with_last_pointer(data, leaf, 8 + 2 * cells - 1, tmp_path), root)  # on the pointers
    # another cell of the same page, whole on it: the table stays trusted
    first_ptr = int.from_bytes(data[base + 8:base + 10], "big")
    assert not has_cell_off_page(_with_last_pointer(data, leaf, first_ptr, tmp_path), root)


def test_a_child_pointing_at_the_catalogue_page_is_a_missing_page(valid, tmp_path):
    data = bytearray(valid.read_bytes())
    inner = _pages(data, INTERIOR)[0]
    base = (inner - 1) * PAGE_SIZE
    data[base + 8:base + 12] = (1).to_bytes(4, "big")  # its right-most child
    path = tmp_path / "t.db"
    shutil.copyfile(valid, path)
    path.write_bytes(bytes(data))
    rowids, losses, _notes = _read(path)
    [loss] = [loss for loss in losses if loss.table == TABLE]
    assert loss.pages_missing == 1 and loss.rows_lost >= 1


def _children(data: bytes, page: int) -> list[int]:
    """An interior page's child pages, read by hand (each cell's 4-byte pointer, then the right-most)."""
    base = (page - 1) * PAGE_SIZE
    cells = int.from_bytes(data[base + 3:base + 5], "big")
    out = []
    for k in range(cells):
        ptr = base + int.from_bytes(data[base + 12 + 2 * k:base + 14 + 2 * k], "big")
        out.append(int.from_bytes(data[ptr:ptr + 4], "big"))
    return out + [int.from_bytes(data[base + 8:base + 12], "big")]


def test_an_overwritten_interior_page_counts_the_rows_of_the_leaves_below_it(valid, tmp_path):
    """The leaves below a lost interior page are still in the file: their rows are the loss, not "1"."""
    data = bytearray(valid.read_bytes())
    inner = [p for p in _pages(data, INTERIOR) if data[(_children(data, p)[0] - 1) * PAGE_SIZE] == LEAF]
    assert len(inner) >= 3, "a tree of three levels"
    lost_page = inner[1]  # not the first: rows before it are read
    below = sum(len(_leaf_rowids(data, leaf)) for leaf in _children(data, lost_page))
    base = (lost_page - 1) * PAGE_SIZE
    data[base:base + PAGE_SIZE] = bytes(PAGE_SIZE)
    path = tmp_path / "t.db"
    path.write_bytes(bytes(data))
    conn = sqlite3.connect(valid)
    built = conn.execute(f"select count(*) from {TABLE}").fetchone()[0]
    conn.close()
    rowids, losses, notes = _read(path)
    [loss] = [loss for loss in losses if loss.table == TABLE]
    assert notes and loss.pages_missing == 1
    assert loss.rows_lost == below and len(rowids) + loss.rows_lost == built


def test_cells_of_a_few_bytes_ending_at_their_page_end_are_whole(tmp_path):
    """Cells shorter than two varints of nine bytes at a page's end are decoded, and found whole."""
    path = tmp_path / "small.db"
    conn = sqlite3.connect(path)
    conn.execute(f"pragma page_size = {PAGE_SIZE}")
    conn.execute("create table S (id INTEGER PRIMARY KEY, v INTEGER)")
    conn.executemany("insert into S (v) values (?)", [(k % 7,) for k in range(5000)])
    conn.commit()
    conn.close()
    data = path.read_bytes()
    ends = [p for p in _pages(data, LEAF)
            if PAGE_SIZE - int.from_bytes(data[(p - 1) * PAGE_SIZE + 8:(p - 1) * PAGE_SIZE + 10], "big") < 18]
    assert ends, "a leaf whose first cell starts within 18 bytes of its end"
    conn = sqlite3.connect(path)
    root = table_roots(conn)["S"]
    conn.close()
    assert not has_cell_off_page(str(path), root)
