"""Whether a table's leaf pages hold a cell that runs off its page, checked from the file before SQLite reads it.

SQLite reads such a cell's rowid from the bytes past the page in its cache: most reads raise, but some read
whatever follows and return the table's rows with the damaged leaf's among them, differently from one read to
the next. A table with such a leaf is therefore never trusted to a full SQLite read (``tables`` salvages it,
avoiding the leaf). The check reads the leaves' headers and cell pointers only, a part at a time
(``pread``, never a mapping: a file rewritten in place reads short instead of ending the process), and
decodes the two varints of the few cells that start near their page's end, all in numpy.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.database.sqlite.pages import LEAF_TABLE, DatabaseFile, leaf_pages

LEAF_HEADER = 8  # bytes of a leaf page's header before its cell pointers
VARINT_MAX = 9
CELL_VARINTS_MAX = 2 * VARINT_MAX  # a leaf cell's payload size and rowid varints
PART_BYTES = 16 << 20  # leaf pages checked at a time


def has_cell_off_page(path: str, root: int) -> bool:
    """Whether a leaf of the table rooted at ``root`` in the file at ``path`` has a cell whose pointer falls
    outside its cell area, or whose payload size and rowid varints do not end on the page (as
    ``damage.table_damage`` marks a bad leaf). False when the tree cannot be walked here (SQLite says
    what is wrong with it) or the file cannot be read."""
    try:
        with DatabaseFile(path) as db:
            if not db.whole:
                return False
            leaves = leaf_pages(db, root)
            if leaves is None or (leaves == 1).any():  # page 1's header comes after the file's: the catalogue
                return False
            per_part = max(1, PART_BYTES // db.page_size)
            for a in range(0, len(leaves), per_part):
                buf = db.pages(leaves[a:a + per_part])
                if buf is None:
                    return False
                if _part_has_cell_off_page(buf, db.page_size):
                    return True
    except OSError:
        return False
    return False


def _part_has_cell_off_page(buf: np.ndarray, page_size: int) -> bool:
    """``has_cell_off_page`` of the leaf pages laid one after the other in ``buf``."""
    heads = np.arange(0, len(buf), page_size, dtype=np.int64)
    leaf = buf[heads] == LEAF_TABLE
    heads = heads[leaf]  # a page of another kind is not this check's: SQLite reports it
    cells = buf[heads + 3].astype(np.int64) << 8 | buf[heads + 4]
    first_cell = LEAF_HEADER + 2 * cells  # where the cell area may start, from the page's start
    if (first_cell > page_size).any():
        return False  # the pointers do not fit: a page SQLite rejects, not this check's
    total = int(cells.sum())
    if not total:
        return False
    page_of = np.repeat(np.arange(len(heads)), cells)
    k = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cells) - cells, cells)
    at = heads[page_of] + LEAF_HEADER + 2 * k
    ptr = buf[at].astype(np.int64) << 8 | buf[at + 1]
    if ((ptr < first_cell[page_of]) | (ptr >= page_size)).any():
        return True
    near = np.flatnonzero(ptr + CELL_VARINTS_MAX > page_size)  # only these can run off: decode them
    if not len(near):
        return False
    start, room = heads[page_of[near]] + ptr[near], page_size - ptr[near]
    window = buf[np.minimum(start[:, None] + np.arange(CELL_VARINTS_MAX), len(buf) - 1)]
    on_page = np.arange(CELL_VARINTS_MAX) < room[:, None]
    size_end = _varint_ends(window, on_page, np.zeros(len(near), np.int64))
    rowid_end = _varint_ends(window, on_page, np.minimum(size_end, CELL_VARINTS_MAX - VARINT_MAX))
    return bool(((size_end > room) | (rowid_end > room)).any())


def _varint_ends(window: np.ndarray, on_page: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Per row of ``window``, where the varint starting at ``offset`` ends (its last byte + 1); past the
    page (``on_page`` False) it ends after the page's last byte at the earliest, which the caller tests."""
    rows = np.arange(len(window))[:, None]
    cols = offset[:, None] + np.arange(VARINT_MAX)
    b = window[rows, cols]
    inside = on_page[rows, cols]
    last = (b < 0x80) | (np.arange(VARINT_MAX) == VARINT_MAX - 1)  # a ninth byte always ends a varint
    ends = np.argmax(last, axis=1)
    # a byte before the end that lies off the page means the varint runs off it
    off = (~inside & (np.arange(VARINT_MAX) <= ends[:, None])).any(axis=1)
    return np.where(off, np.iinfo(np.int64).max // 2, offset + ends + 1)
