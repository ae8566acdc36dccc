"""A database card locates its slices' args block by block (``ArgLocator``): every slice gets the
args of the rows it was drawn from, checked against a reference worked out from the tables, on a
database whose cards skip rows (sub-tasks' parents, another device's rows, overlap rows of an
unknown type); rowids compress to runs, a bit per absent row, or stay an array when that is smaller."""

from __future__ import annotations

import pickle
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from timelineview.model import load
from timelineview.model.database.args import DatabaseArgs
from timelineview.model.database.layout import NONE_U32, OVERLAP_LANES
from timelineview.model.database.slices.arg_locator import ArgPlaces
from timelineview.model.database.slices.rowids import ABSENT_CHUNK, NO_ROW, GappedRowids, rowids_of
from timelineview.model.database.slices.slice_parts import (
    KIND_CANN,
    KIND_FRAMEWORK,
    KIND_HARDWARE,
    KIND_OPERATOR,
    KIND_OVERLAP,
    KIND_PLANE,
)
from timelineview.synthetic import CardSpec
from timelineview.synthetic.database import add_device_copy, generate_database

COPIED = ("TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "PYTORCH_API",
          "CONNECTION_IDS", "OVERLAP_ANALYSIS")  # the tables add_device_copy doubles
PARENT_EVERY = 13  # every 13th task of the rewritten TASK becomes a sub-task, its parent inserted before it
UNKNOWN_OVERLAP = 9
UNKNOWN_EVERY = 3  # every 3rd overlap row gets an unknown type


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("one") / "ascend_pytorch_profiler_0.db"
    generate_database(path, CardSpec(steps=2))
    return path


def _interleave(conn: sqlite3.Connection, table: str, chunk: int) -> None:
    """Rewrite ``table`` (its rows, then their copy as another device) with the two devices' rows
    taken ``chunk`` at a time in turn: each device's card then skips the other's rows."""
    cols = [r[1] for r in conn.execute(f"pragma table_info({table})")
            if not (table == "OVERLAP_ANALYSIS" and r[1] == "id")]  # its own id: numbered anew
    rows = conn.execute(f"select {', '.join(cols)} from {table} order by rowid").fetchall()
    half = len(rows) // 2
    assert half * 2 == len(rows)
    order = sorted(range(len(rows)), key=lambda i: ((i % half) // chunk, i // half, i))
    rows = [rows[i] for i in order]
    if table == "TASK":
        rows = _with_parents(rows, cols)
    conn.execute(f"delete from {table}")
    conn.executemany(f"insert into {table} ({', '.join(cols)}) values ({', '.join('?' * len(cols))})", rows)


def _with_parents(rows: list[tuple], cols: list[str]) -> list[tuple]:
    """Every ``PARENT_EVERY``-th task made a sub-task (context id 0) with its parent (same stream,
    task id and times, no context id, a task id of its own) inserted before it."""
    gid, ctx = cols.index("globalTaskId"), cols.index("contextId")
    fresh = max(r[gid] for r in rows) + 1
    out = []
    for i, r in enumerate(rows):
        if i % PARENT_EVERY == PARENT_EVERY - 1:
            parent = list(r)
            parent[gid], parent[ctx] = fresh, NONE_U32
            fresh += 1
            child = list(r)
            child[ctx] = 0
            out += [tuple(parent), tuple(child)]
        else:
            out.append(r)
    return out


def _filtered_database(generated: Path, folder: Path, chunk: int) -> Path:
    path = folder / "msprof_20250101120500.db"
    shutil.copyfile(generated, path)
    add_device_copy(path, device=1, rank=1)
    conn = sqlite3.connect(path)
    for table in COPIED:
        _interleave(conn, table, chunk)
    conn.execute(f"update OVERLAP_ANALYSIS set type = {UNKNOWN_OVERLAP} where rowid % {UNKNOWN_EVERY} = 0")
    conn.commit()
    conn.close()
    return path


def _reference(path: Path, device: int, first: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per slice of the device's card, in the card's order (hardware tasks, plane tasks, collectives,
    CANN, PyTorch, overlap): kind, row's rowid, info row's rowid (-1: none), and the row's start."""
    conn = sqlite3.connect(path)
    q = lambda sql, *a: conn.execute(sql, a).fetchall()  # noqa: E731
    parts: list[tuple[int, list, list, list]] = []
    tasks = q("select rowid, globalTaskId, startNs, contextId, streamId, taskId from TASK where deviceId = ? "
              "order by rowid", device)
    # a parent: no context id, and the next task of the same stream and task id is a sub-task
    children = {(t[4], t[5]) for t in tasks if t[3] != NONE_U32}
    parents = {t[0] for t in tasks if t[3] == NONE_U32 and (t[4], t[5]) in children}
    assert parents  # the test's database has some
    kept = [t for t in tasks if t[0] not in parents]
    compute = dict((g, r) for r, g in q("select rowid, globalTaskId from COMPUTE_TASK_INFO order by rowid"))
    parts.append((KIND_HARDWARE, [t[0] for t in kept], [compute.get(t[1], -1) for t in kept], [t[2] for t in kept]))
    task_of = {t[1]: t for t in kept}
    device_gids = {t[1] for t in tasks}
    comm = [c for c in q("select rowid, globalTaskId, opId from COMMUNICATION_TASK_INFO order by rowid")
            if c[1] in device_gids]
    parts.append((KIND_PLANE, [task_of[c[1]][0] for c in comm], [c[0] for c in comm],
                  [task_of[c[1]][2] for c in comm]))
    all_comm = q("select globalTaskId, opId from COMMUNICATION_TASK_INFO")
    ops_mine = {c[2] for c in comm}
    ops_other = {op for g, op in all_comm if g not in device_gids} - ops_mine
    ops = [o for o in q("select rowid, opId, startNs from COMMUNICATION_OP order by rowid")
           if o[1] in ops_mine or (first and o[1] not in ops_other)]
    parts.append((KIND_OPERATOR, [o[0] for o in ops], [-1] * len(ops), [o[2] for o in ops]))
    pids = {p for (p,) in q("select distinct globalPid from TASK where deviceId = ?", device)}
    other_pids = {p for (p,) in q("select distinct globalPid from TASK where deviceId != ?", device)} - pids
    for kind, table in ((KIND_CANN, "CANN_API"), (KIND_FRAMEWORK, "PYTORCH_API")):
        rows = [r for r in q(f"select rowid, globalTid, startNs from {table} order by rowid")
                if r[1] >> 32 in pids or (first and r[1] >> 32 not in other_pids)]
        parts.append((kind, [r[0] for r in rows], [-1] * len(rows), [int(r[2]) for r in rows]))
    overlap = q(f"select rowid, startNs from OVERLAP_ANALYSIS where deviceId = ? and type in "
                f"({', '.join(map(str, OVERLAP_LANES))}) order by rowid", device)
    parts.append((KIND_OVERLAP, [r[0] for r in overlap], [-1] * len(overlap), [r[1] for r in overlap]))
    conn.close()
    kind = np.concatenate([np.full(len(p[1]), p[0], np.int64) for p in parts])
    return (kind, *(np.array(sum((p[i] for p in parts), []), np.int64) for i in (1, 2, 3)))


class ReferenceLocator:
    """The per-slice (kind, row, info) the card kept before blocks: what the args must be read from."""

    def __init__(self, kind: np.ndarray, row: np.ndarray, info: np.ndarray) -> None:
        self.kind, self.row, self.info = kind, row, info

    def __len__(self) -> int:
        return len(self.kind)

    def locate(self, ordinals: np.ndarray) -> ArgPlaces:
        return ArgPlaces(self.kind[ordinals], self.row[ordinals], self.info[ordinals])


@pytest.fixture(scope="module", params=[7, 1], ids=["runs", "every-other-row"])
def cards(generated, tmp_path_factory, request):
    path = _filtered_database(generated, tmp_path_factory.mktemp("two"), request.param)
    stores = load(path)
    assert [s.card for s in stores] == ["rank 0", "rank 1"]
    return request.param, path, stores


def test_every_slice_is_located_at_the_rows_it_was_drawn_from(cards):
    _, path, stores = cards
    for device, store in enumerate(stores):
        kind, row, info, start = _reference(path, device, first=device == 0)
        n = len(store.slices)
        assert n == len(kind)
        assert np.array_equal(store.slices.start, start)  # the reference is in the card's order
        locator = store._args_reader.locator
        assert len(locator) == n
        places = locator.locate(np.arange(n))
        assert np.array_equal(places.kind, kind)
        assert np.array_equal(places.row, row)
        assert np.array_equal(places.info, info)
        shuffled = np.random.default_rng(device).permutation(n)
        again = locator.locate(shuffled)
        assert np.array_equal(again.row, row[shuffled]) and np.array_equal(again.info, info[shuffled])
        # the info rows alone (what the compute-task reader asks), ascending, shuffled and within one block
        first = locator.blocks[0]
        for asked in (np.arange(n), shuffled, np.arange(first.first + first.count // 3, first.first + first.count)):
            info_only = locator.locate(asked, rows=False)
            assert info_only.row is None
            assert np.array_equal(info_only.kind, kind[asked]) and np.array_equal(info_only.info, info[asked])


def test_every_slice_has_the_args_of_the_reference_rows(cards):
    _, path, stores = cards
    for device, store in enumerate(stores):
        kind, row, info, _ = _reference(path, device, first=device == 0)
        reader = store._args_reader
        reference = DatabaseArgs(reader.path, reader.schema, reader.strings, reader.enums,
                                 ReferenceLocator(kind, row, info), reader.task_type, reader.dur, reader.stamp)
        every = np.arange(len(store.slices))
        got = store.args_many(every)
        assert got == reference(every)
        assert sum(a is not None and len(a) > 0 for a in got) > len(got) // 2
        assert pickle.loads(pickle.dumps(reader))(every) == got  # as sent to another process


def test_the_tables_compress_as_their_gaps_allow(cards):
    chunk, _, stores = cards
    hardware = stores[0]._args_reader.locator.blocks[0]
    assert hardware.kind == KIND_HARDWARE
    if chunk == 1:  # the other device's row between every two: no runs, the rowids themselves
        assert hardware.row.values is not None and hardware.row.values.dtype == np.int32
    else:
        assert hardware.row.run_at is not None and len(hardware.row.run_at) < hardware.count // 4
    for block in stores[0]._args_reader.locator.blocks:
        if block.kind not in (KIND_HARDWARE, KIND_PLANE):
            assert block.info.constant == NO_ROW


def test_ordinals_out_of_range_have_no_args(cards):
    _, _, stores = cards
    store = stores[0]
    n = len(store.slices)
    got = store._args_reader(np.array([-1, n, n + 5, 0, n - 1, -(1 << 40)]))
    assert got[0] is None and got[1] is None and got[2] is None and got[5] is None
    assert got[3] == store.args(0) and got[4] == store.args(n - 1) and got[3] is not None


@pytest.mark.parametrize("rowids, form", [
    (np.arange(5, 105), "runs"),
    (np.concatenate([np.arange(1, 50), np.arange(60, 90), np.arange(200, 260)]), "runs"),
    (np.arange(1, 400, 2), "values"),  # a gap after every row: runs would cost more than the rowids
    (np.full(30, 7), "constant"),
    (np.full(30, NO_ROW), "constant"),
    (np.arange(3, 0, -1), "values"),
    (np.where(np.arange(1000) % 9 == 4, NO_ROW, np.arange(1000)), "gapped"),  # rows where a slice has none
    (np.arange(1 << 33, (1 << 33) + 90), "runs"),  # past int32
    (np.arange(1 << 33, (1 << 33) + 90, 3), "values"),
])
def test_rowids_come_back_as_given_in_the_smallest_form(rowids, form):
    column = rowids_of(rowids.astype(np.int64))
    kind = "gapped" if isinstance(column, GappedRowids) else "constant" if column.constant is not None else \
        "runs" if column.run_at is not None else "values"
    assert kind == form
    assert column.nbytes <= rowids.size * 8
    if form == "values":
        assert column.values.dtype == (np.int32 if rowids.max() < (1 << 31) else np.int64)
    every = np.arange(len(rowids))
    assert np.array_equal(column.at(every), rowids)
    some = np.random.default_rng(0).integers(0, len(rowids), 50)
    assert np.array_equal(column.at(some), rowids[some])


def test_absent_rows_across_many_chunks_rank_the_present_ones():
    rng = np.random.default_rng(3)
    n = 10 * ABSENT_CHUNK + 17
    rowids = np.arange(100, 100 + n)
    rowids[rng.random(n) < 0.2] = NO_ROW
    column = rowids_of(rowids)
    assert isinstance(column, GappedRowids)
    assert np.array_equal(column.at(np.arange(n)), rowids)
    some = rng.integers(0, n, 300)
    assert np.array_equal(column.at(some), rowids[some])
