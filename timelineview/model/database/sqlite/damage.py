"""What a damaged or truncated database lost, table by table, counted from the file's own pages.

SQLite stops a table's read at the first page it cannot use and says only "database disk image is
malformed"; it cannot say how much of the table lies past that page. The table's B-tree can: walked
from its root (sqlite.org/fileformat.html §1.6), every child pointer either reaches a page of the
file that parses as a page of the tree, or it does not (the page is past the end of a truncated file,
or overwritten). A leaf that parses says how many rows it holds (its cell count); a page that does
not is at least one row lost (SQLite never leaves a non-root leaf empty). Rowid ranges are not used:
rowids need not be dense, so ``max(rowid) - min(rowid) + 1`` counts nothing.
"""

from __future__ import annotations

import mmap
import os
import re
import sqlite3
from dataclasses import dataclass, replace

from timelineview.model.store.regular_file import open_regular

HEADER_BYTES = 100
MIN_PAGE_SIZE = 512
CATALOGUE, CATALOGUE_ROOT = "sqlite_master", 1  # the table of tables, rooted on the first page
_PAGE_SIZE_AT = 16
LEAF_TABLE, INTERIOR_TABLE = 13, 5  # B-tree page types of a rowid table
LEAF_HEADER, INTERIOR_HEADER = 8, 12  # bytes of a page header before its cell pointers
INTERIOR_CELL_MIN = 5  # a child pointer (4 bytes) and a one-byte rowid varint


@dataclass(frozen=True)
class TableDamage:
    """A table's pages as the file holds them: rows on the leaves that parse, pages that do not, and
    where the rows resume past each missing page (the rowid after the largest one it may hold)."""

    rows_on_pages: int  # rows on the table's leaf pages that the file holds intact
    pages_missing: int  # pages the tree points to that are past the file's end or do not parse
    resume: tuple[int, ...] = ()  # ascending: the first rowid past each missing page (its bound + 1)
    # leaves with a cell that runs off the page: SQLite reads such a cell's rowid from the bytes past the
    # page in its cache, which differ from one read to the next (its seeks on the leaf with them), so a
    # read must not enter one; their rows are counted lost, and each one's (lowest, highest) rowid bound
    rows_on_bad_leaves: int = 0
    bad_leaves: tuple[tuple[int, int | None], ...] = ()
    # (lowest, highest or None) rowid bound of each missing page; the rows on intact leaves no tree reaches
    # whose rowids lie within a missing page's bound (the leaves of a lost interior page), and how many of
    # the missing pages such leaves were found for
    missing_spans: tuple[tuple[int, int | None], ...] = ()
    rows_on_orphan_leaves: int = 0
    spans_with_orphans: int = 0

    def rows_lost(self, rows_read: int) -> int:
        """Rows of the table not read: those on intact leaves beyond what was read, those on leaves not to
        be read, the rows on the leaves below a missing page where the file still holds them, and at
        least one for each other missing page (a lower bound: a missing page held one row or more)."""
        return (max(self.rows_on_pages - rows_read, 0) + self.rows_on_bad_leaves + self.rows_on_orphan_leaves
                + self.pages_missing - self.spans_with_orphans)


def table_roots(conn: sqlite3.Connection) -> dict[str, int]:
    """Each table's root page, from the catalogue (empty when even that cannot be read)."""
    try:
        rows = conn.execute("select name, rootpage from sqlite_master where type = 'table'").fetchall()
    except sqlite3.DatabaseError:
        return {}
    return {str(name): root for name, root in rows if isinstance(root, int) and root > 0}


def page_geometry(size: int, head: bytes) -> tuple[int, int]:
    """(page size, whole pages the file holds) from the header and the file's size."""
    raw = int.from_bytes(head[_PAGE_SIZE_AT:_PAGE_SIZE_AT + 2], "big") if len(head) >= HEADER_BYTES else 0
    page_size = 65536 if raw == 1 else raw
    return page_size, (size // page_size if page_size >= MIN_PAGE_SIZE else 0)


def table_damage(path: str | os.PathLike, roots: dict[str, int],
                 every_root: dict[str, int] | None = None) -> dict[str, TableDamage]:
    """``TableDamage`` of each table of ``roots`` (``{table: root page}``) in the file at ``path``
    (empty when the file cannot be mapped). With ``every_root`` (every table's root: their trees tell which
    leaves no tree reaches), the rows below a missing page that the file still holds are counted."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size < HEADER_BYTES:
                return {}
            with mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as buf:
                page_size, n_pages = page_geometry(size, buf[:HEADER_BYTES])
                if page_size < MIN_PAGE_SIZE:
                    return {}
                found = {table: _walk(buf, page_size, n_pages, root) for table, root in roots.items()}
                if any(d.missing_spans for d in found.values()):
                    found = _with_orphans(buf, page_size, n_pages, found, every_root)
                return found
    except (OSError, ValueError):
        return {}


def _walk(buf, page_size: int, n_pages: int, root: int, seen: set[int] | None = None) -> TableDamage:
    rows = missing = bad_rows = 0
    resume: list[int] = []
    spans: list[tuple[int, int | None]] = []
    bad: list[tuple[int, int | None]] = []
    seen = set() if seen is None else seen
    # (page, the smallest and the largest rowid its subtree may hold)
    stack: list[tuple[int, int, int | None]] = [(root, -(1 << 63), None)]
    while stack:
        page, lower, upper = stack.pop()
        # a loop in a damaged tree, past the file, or the catalogue's own page in another table's tree
        if page in seen or page < 1 or page > n_pages or (page == CATALOGUE_ROOT and root != CATALOGUE_ROOT):
            missing += 1
            spans.append((lower, upper))
            _resume_past(resume, upper)
            continue
        seen.add(page)
        base = (page - 1) * page_size
        head = base + (HEADER_BYTES if page == 1 else 0)
        kind = buf[head]
        cells = int.from_bytes(buf[head + 3:head + 5], "big")
        children = None
        if kind == LEAF_TABLE and head + LEAF_HEADER + 2 * cells <= base + page_size:
            if _cells_whole(buf, base, head, page_size, cells):
                rows += cells
            else:
                bad_rows += cells
                bad.append((lower, upper))
                _resume_past(resume, upper)
            continue
        if kind == INTERIOR_TABLE and head + INTERIOR_HEADER + 2 * cells <= base + page_size:
            children = _children(buf, base, head, page_size, cells, upper)
        if children is None:
            missing += 1
            spans.append((lower, upper))
            _resume_past(resume, upper)
        else:
            lowers = [lower] + [key + 1 for _child, key in children[:-1]]
            stack.extend(reversed([(child, low, key) for (child, key), low in zip(children, lowers, strict=True)]))
    return TableDamage(rows, missing, tuple(sorted(resume)), bad_rows, tuple(sorted(bad, key=lambda b: b[0])),
                       tuple(spans))


def _with_orphans(buf, page_size: int, n_pages: int, found: dict[str, TableDamage],
                  every_root: dict[str, int] | None) -> dict[str, TableDamage]:
    """``found`` with the rows of the intact leaves that no table's tree reaches (nor the free list holds)
    counted for the missing page whose rowid bound holds all their rowids; a leaf whose rowids lie in
    the bounds of more than one table's missing pages is counted for none (a lower bound stays)."""
    if every_root is None:
        return found
    reached: set[int] = set()
    for root in every_root.values():
        _walk(buf, page_size, n_pages, root, reached)
    reached |= _free_pages(buf, page_size, n_pages)
    orphans = []
    for page in range(2, n_pages + 1):
        base = (page - 1) * page_size
        if page in reached or buf[base] != LEAF_TABLE:
            continue
        cells = int.from_bytes(buf[base + 3:base + 5], "big")
        rowids = _leaf_rowids(buf, base, page_size, cells)
        if rowids:
            orphans.append((min(rowids), max(rowids), len(rowids)))
    claims: dict[int, list[tuple[str, int]]] = {}
    for table, damage in found.items():
        for k, (lower, upper) in enumerate(damage.missing_spans):
            for o, (low, high, _n) in enumerate(orphans):
                if lower <= low and (upper is None or high <= upper):
                    claims.setdefault(o, []).append((table, k))
    rows: dict[str, int] = {}
    spans: dict[str, set[int]] = {}
    for o, owners in claims.items():
        if len({table for table, _k in owners}) == 1 and len(owners) == 1:
            table, k = owners[0]
            rows[table] = rows.get(table, 0) + orphans[o][2]
            spans.setdefault(table, set()).add(k)
    return {table: replace(damage, rows_on_orphan_leaves=rows.get(table, 0),
                           spans_with_orphans=len(spans.get(table, ()))) for table, damage in found.items()}


def _leaf_rowids(buf, base: int, page_size: int, cells: int) -> list[int]:
    """The rowids of the cells of a leaf that lie whole on it (none when its header does not fit)."""
    end = base + page_size
    first = base + LEAF_HEADER
    if first + 2 * cells > end:
        return []
    out = []
    for k in range(cells):
        ptr = base + int.from_bytes(buf[first + 2 * k:first + 2 * k + 2], "big")
        if ptr < first + 2 * cells or ptr >= end:
            continue
        after = _varint_end(buf, ptr, end)
        rowid = None if after is None else _varint(buf, after, end)
        if rowid is not None:
            out.append(rowid)
    return out


def _free_pages(buf, page_size: int, n_pages: int) -> set[int]:
    """The pages on the file's free list (trunk pages and the leaves they list)."""
    free: set[int] = set()
    trunk = int.from_bytes(buf[32:36], "big")
    while 1 < trunk <= n_pages and trunk not in free:
        free.add(trunk)
        base = (trunk - 1) * page_size
        count = min(int.from_bytes(buf[base + 4:base + 8], "big"), (page_size - 8) // 4)
        free.update(int.from_bytes(buf[base + 8 + 4 * k:base + 12 + 4 * k], "big") for k in range(count))
        trunk = int.from_bytes(buf[base:base + 4], "big")
    return free


CELL_VARINTS_MAX = 18  # a leaf cell's payload size and rowid varints: 9 bytes each at most


def _cells_whole(buf, base: int, head: int, page_size: int, cells: int) -> bool:
    """Whether each cell of a leaf starts after the cell pointers and its two varints end on the page
    (those near the page's end are decoded; the rest cannot run off it)."""
    end = base + page_size
    first = head + LEAF_HEADER
    pointers = [base + int.from_bytes(buf[first + 2 * k:first + 2 * k + 2], "big") for k in range(cells)]
    for ptr in pointers:
        if ptr < first + 2 * cells or ptr >= end:
            return False
        if ptr + CELL_VARINTS_MAX > end:
            size_end = _varint_end(buf, ptr, end)
            if size_end is None or _varint_end(buf, size_end, end) is None:
                return False
    return True


def _varint_end(buf, at: int, end: int) -> int | None:
    """Where the varint at ``at`` ends (None when it runs past ``end``)."""
    for k in range(9):
        if at + k >= end:
            return None
        if k == 8 or buf[at + k] < 0x80:
            return at + k + 1
    return None


def _resume_past(resume: list[int], upper: int | None) -> None:
    if upper is not None:
        resume.append(upper + 1)


def _children(buf, base: int, head: int, page_size: int, cells: int, upper: int | None
              ) -> list[tuple[int, int | None]] | None:
    """The child pages of an interior page, left to right, each with the largest rowid it may hold
    (None when a cell leaves the page)."""
    out: list[tuple[int, int | None]] = []
    end = base + page_size
    for k in range(cells):
        at = head + INTERIOR_HEADER + 2 * k
        ptr = base + int.from_bytes(buf[at:at + 2], "big")
        if ptr < head or ptr + INTERIOR_CELL_MIN > end:
            return None
        key = _varint(buf, ptr + 4, end)
        if key is None:
            return None
        out.append((int.from_bytes(buf[ptr:ptr + 4], "big"), key))
    out.append((int.from_bytes(buf[head + 8:head + 12], "big"), upper))  # the right-most pointer
    return out


def _varint(buf, at: int, end: int) -> int | None:
    """The signed 64-bit value of the SQLite varint at ``at`` (None when it runs past ``end``)."""
    value = 0
    for k in range(9):
        if at + k >= end:
            return None
        b = buf[at + k]
        if k == 8:
            value = (value << 8) | b
            break
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            break
    return value - (1 << 64) if value >= 1 << 63 else value


_DAMAGED = re.compile(r"table (?P<table>.+?) damaged \(.*\): (?P<rows>[\d,]+) rows could be read")
_UNREADABLE = re.compile(r"table (?P<table>.+?) unreadable \(")
DAMAGE_NOTE = re.compile(r"table .+? (?:damaged|unreadable) \(")  # a reader's note of a damaged table


@dataclass(frozen=True)
class TableLoss:
    """Rows of one table that a load could not read, and the table's pages the file lacks."""

    table: str
    rows_read: int
    rows_lost: int  # at least this many (see ``TableDamage.rows_lost``)
    pages_missing: int


def table_losses(conn: sqlite3.Connection, path: str | os.PathLike, tables: list[str], read: dict[str, int],
                 notes: list[str], unreadable: list[str], rows_exact: bool = True) -> list[TableLoss]:
    """The tables of ``tables`` (those a card reads) that lost rows, from their pages and what was read:
    ``read`` (table → rows kept), the reader's ``notes`` (a damaged table's rows read, an unreadable
    table's none) and the tables whose columns were ``unreadable``. Without ``rows_exact`` (a card of one
    device of several, whose ``read`` counts only its own rows) a table read whole counts as whole."""
    roots = table_roots(conn)
    salvaged: dict[str, int] = {t: 0 for t in unreadable}
    for note in notes:
        hit = _DAMAGED.match(note)
        if hit:
            salvaged[hit["table"]] = int(hit["rows"].replace(",", ""))
            continue
        hit = _UNREADABLE.match(note)
        if hit:
            salvaged[hit["table"]] = 0
    wanted = {t: roots[t] for t in tables if t in roots}
    wanted[CATALOGUE] = CATALOGUE_ROOT  # entries lost there are tables lost whole
    out = []
    for table, damage in table_damage(path, wanted, {**roots, CATALOGUE: CATALOGUE_ROOT}).items():
        if table in salvaged:
            rows = salvaged[table]
        elif table in read and rows_exact:
            rows = read[table]
        else:  # read whole (its rows not counted by the reader): only pages it lacks are lost
            rows = damage.rows_on_pages
        lost = damage.rows_lost(rows)
        if lost:
            out.append(TableLoss(table, rows, lost, damage.pages_missing))
    return out
