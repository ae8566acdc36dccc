"""A fuzz of the database page reader against SQLite, value by value.

A small valid database (one rowid table of integer and decimal-text columns, 512-byte pages: a tree of
three levels) is copied and mutated with a seed — bytes flipped, serial types of records rewritten, cell
counts and cell pointers changed, child pointers aimed at page 1, at themselves or past the file, the page
size changed, the file cut. Each copy is read in a worker process (under a timeout) three ways:

- SQLite: ``select rowid, cast(.. as integer) ..`` whole, or the error it raises;
- the page reader (``read_int_columns``): its columns, or None (it leaves the table to SQLite);
- the load's path (``read_or_salvage`` then ``table_losses``), twice: rows read and rows reported lost.

Verdicts: ``agreed`` (both read the same values), ``fell back`` (SQLite reads it, the reader gives it to
SQLite), ``damage reported`` (SQLite calls it malformed, the load's path says so with a count),
``mismatch`` (the reader gave values that SQLite does not: different, or from a table it calls malformed),
``silent loss`` (the load's path reads fewer rows than were built and says nothing), ``unsteady`` (two
reads of one file differ), ``crash`` (a signal, a traceback), ``hang`` (the timeout). Informative:
``unnoticed`` (every row read, nothing said, where SQLite's ``integrity_check`` finds damage: a value
changed in place reads as SQLite reads it) and ``undercounted`` (damage said, but rows read + rows
reported lost < the rows built: a lost page counts as one row at least).

    python -m tests.model.database.page_fuzz_campaign [--inputs 400] [--seed 1] [--quick]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from tests.campaign_workers import judge_in_workers, work_through

PAGE_SIZE = 512
ROWS = 3000
TABLE = "T"
NAMES = ["rowid", "a", "b", "c"]
TIMEOUT_S = 60.0  # one input in a worker (the first one compiles the reader)
QUICK_INPUTS = 40  # the sample the test suite runs
BATCH = 40  # inputs per worker process (a dead or hung worker's later inputs go to a new one)
FAILURES = ("mismatch", "silent loss", "unsteady", "crash", "hang")
VERDICTS = ("agreed", "fell back", "damage reported", "unnoticed") + FAILURES
SERIALS = (0, 1, 4, 6, 7, 8, 9, 10, 11, 12, 13, 0x7F)
VARINT_SERIALS = (b"\x81\x00", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff", b"\x80\x80\x80\x80\x80\x80\x80\x80\x01",
                  b"\xc0\x00", b"\x88\x80\x80\x80\x00")


class Outcome(NamedTuple):
    """What came of one mutated database."""

    name: str
    verdict: str
    detail: str
    undercounted: bool = False


def build(path: Path) -> int:
    """The valid database: ``ROWS`` rows with rowid gaps; returns the rows it holds."""
    conn = sqlite3.connect(path)
    conn.execute(f"pragma page_size = {PAGE_SIZE}")
    conn.execute(f"create table {TABLE} (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c TEXT)")
    rng = random.Random(5)
    rows = [(None, rng.randrange(-2**40, 2**40), rng.choice([0, 1, -1, 300, 2**31, rng.randrange(2**62)]),
             str(rng.randrange(10**18))) for _ in range(ROWS)]
    conn.executemany(f"insert into {TABLE} values (?, ?, ?, ?)", rows)
    conn.execute(f"delete from {TABLE} where id % 31 = 0")
    conn.commit()
    held = conn.execute(f"select count(*) from {TABLE}").fetchone()[0]
    conn.close()
    return held


def _pages_of_kind(data: bytearray, kind: int) -> list[int]:
    n = len(data) // PAGE_SIZE
    return [p for p in range(2, n + 1) if data[(p - 1) * PAGE_SIZE] == kind]


def _cell_at(data: bytearray, page: int, k: int, header: int) -> int:
    base = (page - 1) * PAGE_SIZE
    ptr = base + header + 2 * k
    return base + int.from_bytes(data[ptr:ptr + 2], "big")


def mutate(data: bytearray, rng: random.Random) -> str:
    """Change ``data`` in place one way chosen by ``rng``; returns its name."""
    leaves, interiors = _pages_of_kind(data, 13), _pages_of_kind(data, 5)
    n_pages = len(data) // PAGE_SIZE
    way = rng.choice(("flip", "flips", "serial", "serial varint", "cells", "cell pointer", "child pointer",
                      "page size", "truncate", "payload size"))
    if way == "flip":
        at = rng.randrange(PAGE_SIZE, len(data))
        data[at] ^= 1 << rng.randrange(8)
        return f"flip@{at}"
    if way == "flips":
        page = rng.randrange(2, n_pages + 1)
        for _ in range(rng.randint(2, 20)):
            data[(page - 1) * PAGE_SIZE + rng.randrange(PAGE_SIZE)] = rng.randrange(256)
        return f"flips p{page}"
    if way in ("serial", "serial varint", "payload size"):
        page = rng.choice(leaves)
        cells = int.from_bytes(data[(page - 1) * PAGE_SIZE + 3:(page - 1) * PAGE_SIZE + 5], "big")
        at = _cell_at(data, page, rng.randrange(cells), 8)
        if way == "payload size":
            data[at] = rng.choice((0, 1, 2, 5, 0x7F, 0x81))
            return f"payload p{page}"
        while data[at] & 0x80:  # past the payload size and rowid varints to the record header
            at += 1
        at += 1
        while data[at] & 0x80:
            at += 1
        at += 1
        head_size = data[at]
        column = rng.randrange(1, max(2, head_size))
        if way == "serial":
            data[at + column] = rng.choice(SERIALS)
            return f"serial p{page} col{column}"
        raw = rng.choice(VARINT_SERIALS)
        data[at + column:at + column + len(raw)] = raw
        return f"serial varint p{page} col{column}"
    if way == "cells":
        page = rng.choice(leaves + interiors)
        value = rng.choice((0, 1, 2, 0xFFFF, rng.randrange(1, 200)))
        base = (page - 1) * PAGE_SIZE
        old = int.from_bytes(data[base + 3:base + 5], "big")
        value = rng.choice((value, old + 1, max(old - 1, 0)))
        data[base + 3:base + 5] = value.to_bytes(2, "big")
        return f"cells p{page} {old}->{value}"
    if way == "cell pointer":
        page = rng.choice(leaves + interiors)
        base = (page - 1) * PAGE_SIZE
        header = 8 if data[base] == 13 else 12
        cells = int.from_bytes(data[base + 3:base + 5], "big")
        k = rng.randrange(max(cells, 1))
        value = rng.choice((0, 1, header, PAGE_SIZE - 1, PAGE_SIZE, 0xFFFF, rng.randrange(PAGE_SIZE)))
        data[base + header + 2 * k:base + header + 2 * k + 2] = value.to_bytes(2, "big")
        return f"cell pointer p{page}#{k}={value}"
    if way == "child pointer":
        page = rng.choice(interiors)
        base = (page - 1) * PAGE_SIZE
        cells = int.from_bytes(data[base + 3:base + 5], "big")
        target = rng.choice((0, 1, page, n_pages + 1, 0xFFFFFFFF, rng.randrange(2, n_pages + 1)))
        if rng.random() < 0.3:
            data[base + 8:base + 12] = target.to_bytes(4, "big")
            return f"right child p{page}={target}"
        at = _cell_at(data, page, rng.randrange(cells), 12)
        data[at:at + 4] = target.to_bytes(4, "big")
        return f"child p{page}={target}"
    if way == "page size":
        value = rng.choice((1024, 256, 4096, 3, 0xFFFF, 1, 0))
        data[16:18] = value.to_bytes(2, "big")
        return f"page size {value}"
    cut = rng.choice((rng.randrange(len(data)), len(data) - PAGE_SIZE, len(data) - 1, 50, 100))
    del data[cut:]
    return f"truncate {cut}"


def _mutate_or_flip(data: bytearray, rng: random.Random) -> str:
    """``mutate``; a flip of a byte where an earlier mutation left nothing of the chosen kind to change."""
    try:
        return mutate(data, rng)
    except (IndexError, ValueError):
        if len(data) <= PAGE_SIZE:
            return "nothing left"
        at = rng.randrange(PAGE_SIZE, len(data))
        data[at] ^= 0xFF
        return f"flip@{at}"


def _sqlite_rows(path: str) -> tuple[list[list[int]] | None, str]:
    """SQLite's read of the table (None and its error when it raises), and what ``integrity_check`` finds
    wrong ("" when nothing): the oracle of whether the file is damaged."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            got = conn.execute(f"select rowid, cast(a as integer), cast(b as integer), cast(c as integer) "
                               f"from {TABLE}").fetchall()
            check = [r[0] for r in conn.execute("pragma integrity_check").fetchall()]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return None, str(exc)
    columns = [[-1 if v is None else v for v in col] for col in zip(*got)] if got else [[], [], [], []]
    return columns, "" if check == ["ok"] else "; ".join(check)[:200]


def _load_path(path: str) -> tuple[int, int, list[str]]:
    """(rows read, rows reported lost, notes) by the load's own path."""
    from timelineview.model.database.sqlite.connection import connect
    from timelineview.model.database.sqlite.damage import table_losses
    from timelineview.model.database.sqlite.tables import read_or_salvage

    notes: list[str] = []
    try:
        conn = connect(path)
    except sqlite3.DatabaseError as exc:
        return 0, -1, [f"refused: {exc}"]
    try:
        try:
            got = read_or_salvage(conn, TABLE, {"a": "int", "b": "int", "c": "int"}, notes, with_rowid=True)
        except sqlite3.DatabaseError as exc:  # the catalogue itself unreadable: a named refusal
            return 0, -1, [f"refused: {exc}"]
        read = len(got["rowid"]) if got else 0
        losses = table_losses(conn, path, [TABLE], {TABLE: read}, notes, [] if got else [TABLE])
    finally:
        conn.close()
    return read, sum(loss.rows_lost for loss in losses if loss.table == TABLE), notes


def judge(path: str, built: int) -> Outcome:
    """The verdict on one database file (run in a worker)."""
    import numpy as np

    from timelineview.model.database.sqlite import pages
    from timelineview.model.database.sqlite.connection import connect

    name = Path(path).name
    pages.MIN_ROWS = 0  # the small table too
    want, error = _sqlite_rows(path)
    try:
        conn = connect(path)
        try:
            got = pages.read_int_columns(conn, path, TABLE, NAMES)
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        got = None  # the catalogue unreadable: nothing for the reader to read
    first, second = _load_path(path), _load_path(path)
    if first[:2] != second[:2]:
        return Outcome(name, "unsteady", f"{first[:2]} then {second[:2]}")
    read, lost, notes = first
    undercounted = lost >= 0 and read + lost < built
    said = lost != 0 or bool(notes)
    if got is not None and (want is None or not all(
            np.array_equal(np.asarray(g, np.int64), np.asarray(w, np.int64)) for g, w in zip(got, want))):
        why = "values differ from SQLite's" if want is not None else f"read a table SQLite cannot ({error})"
        return Outcome(name, "mismatch", why)
    if not said and read < built:
        return Outcome(name, "silent loss", f"read {read} of {built}, nothing said (SQLite: {error or 'ok'})")
    if said:
        return Outcome(name, "damage reported", f"read {read} lost {lost}: {'; '.join(notes)[:160]}", undercounted)
    if error:
        return Outcome(name, "unnoticed", f"every row read, SQLite finds: {error}")
    return Outcome(name, "agreed" if got is not None else "fell back", "")


def run(inputs: int, seed: int, work: Path, timeout: float = TIMEOUT_S) -> list[Outcome]:
    """Make ``inputs`` mutated copies of the valid database under ``work`` and judge each."""
    base = work / "valid.db"
    built = build(base)
    clean = bytes(base.read_bytes())
    rng = random.Random(seed)
    paths = []
    for i in range(inputs):
        data = bytearray(clean)
        names = [_mutate_or_flip(data, rng) for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 4))]
        path = work / f"m{i:04d}.db"
        path.write_bytes(bytes(data))
        (work / f"m{i:04d}.txt").write_text("; ".join(names))
        paths.append(str(path))
    got = judge_in_workers(__spec__.name if __spec__ else "tests.model.database.page_fuzz_campaign", paths, work,
                           [str(built)], timeout, BATCH)
    return [Outcome(**o) for o in got]


def table(outcomes: list[Outcome]) -> dict[str, int]:
    """Counts by verdict (every verdict, zeros too), and ``undercounted``."""
    counts = collections.Counter(o.verdict for o in outcomes)
    out = {v: counts.get(v, 0) for v in VERDICTS}
    out["undercounted"] = sum(o.undercounted for o in outcomes)
    out["inputs"] = len(outcomes)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a sample of 40 inputs")
    parser.add_argument("--work", help="working folder (kept; default: a temporary one, removed)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        work_through(args.worker[0], args.worker[1], lambda path: judge(path, int(args.worker[2]))._asdict())
        return 0
    inputs = QUICK_INPUTS if args.quick else args.inputs
    with tempfile.TemporaryDirectory(prefix="page-fuzz-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        outcomes = run(inputs, args.seed, work)
        for o in outcomes:
            if o.verdict in FAILURES or o.undercounted:
                what = (work / o.name.replace(".db", ".txt"))
                how = what.read_text() if what.exists() else "?"
                print(f"{o.verdict:16} {o.name} [{how}] {o.detail}{' (undercounted)' if o.undercounted else ''}")
        counts = table(outcomes)
    print(json.dumps(counts))
    return 1 if any(counts[v] for v in FAILURES) else 0


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "timelineview-numba"))
    sys.exit(main())
