"""Tables → slices, one function per source table, all columnar.

Each slice also records where its args live (``kind``, the ``rowid`` of its row, the ``rowid``
of its info row or -1), so that ``args.DatabaseArgs`` can read them when asked, not at load: not
slice by slice but block by block (``ArgLocator``), a block being the slices one ``SliceParts.add``
appended, whose rowids are mostly runs of consecutive rowids (tables are read in rowid order).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.bare_numbers import bare_number_note
from timelineview.model.database.devices import DEVICE_COLUMN, DeviceScope
from timelineview.model.database.keys import sorted_unique, unique_inverse
from timelineview.model.database.lanes import LaneBook
from timelineview.model.database.progress import RowMeter
from timelineview.model.database.sqlite.pages import fits_int32
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema, find_sorted, read_or_salvage
from timelineview.model.database.strings import UNKNOWN_ID, CardStrings
from timelineview.model.database.transports import note_untransported
from timelineview.model.store.interval_index import slice_index_dtype

# kinds of slice (where their args are read from)
KIND_HARDWARE, KIND_PLANE, KIND_OPERATOR, KIND_CANN, KIND_FRAMEWORK, KIND_OVERLAP, KIND_STEP = range(7)
TASK_COLUMNS = ("startNs", "endNs", "globalTaskId", "streamId", "taskType")
TASK_OPTIONAL = ("taskId", "contextId", "connectionId", DEVICE_COLUMN)
COMPUTE_COLUMNS = ("globalTaskId", "name", "taskType")
COMM_TASK_COLUMNS = ("globalTaskId", "taskType", "planeId", "groupName")
OP_COLUMNS = ("opName", "startNs", "endNs", "groupName")
OP_OPTIONAL = ("connectionId",)
OLD_TABLE = "_{}_old_"  # msprof renames a table it replaced to _<NAME>_old_<date>
HOST_COLUMNS = ("startNs", "endNs", "globalTid", "name", "type")
OVERLAP_COLUMNS = ("startNs", "endNs", "type")
CONNECTION_COLUMNS = ("id", "connectionId")
# the columns read as they are (times, and ids that pack two numbers); every other one is narrowed
WIDE_COLUMNS = frozenset(("startNs", "endNs", "globalTid", "globalPid"))
TID_BITS = 32  # globalTid = pid << 32 | tid
TID_MASK = (1 << TID_BITS) - 1
RUN_CHUNK = 1 << 20  # rowids compared at a time when finding runs (bounds the temporaries)
NO_ROW = -1
ABSENT_CHUNK = 256  # slices per count of those before without a row (a multiple of 8: whole bytes of bits)


def slice_numbers(positions: np.ndarray, first: int) -> np.ndarray:
    """``positions + first`` as slice numbers (int32 while the card's slices fit it: flows keep them)."""
    return (positions + first).astype(slice_index_dtype(first + len(positions)), copy=False)


@dataclass
class Endpoints:
    """Flow endpoints by side: connection id and slice, per side ("host", "framework", "device")."""

    cid: dict[str, list[np.ndarray]] = field(default_factory=dict)
    slice: dict[str, list[np.ndarray]] = field(default_factory=dict)

    def add(self, side: str, cid: np.ndarray, first_slice: int) -> None:
        keep = cid >= 0
        self.cid.setdefault(side, []).append(cid[keep])
        self.slice.setdefault(side, []).append(slice_numbers(np.flatnonzero(keep), first_slice))

    def of(self, side: str) -> tuple[np.ndarray, np.ndarray]:
        if side not in self.cid:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(self.cid[side]), np.concatenate(self.slice[side])


@dataclass
class SliceParts:
    """Slices gathered table by table (lanes provisional until ``LaneBook.finish``)."""

    strings: CardStrings
    book: LaneBook = field(default_factory=LaneBook)
    cols: dict[str, list[np.ndarray]] = field(default_factory=dict)
    n: int = 0
    ends: Endpoints = field(default_factory=Endpoints)
    read: dict[str, int] = field(default_factory=dict)  # table -> rows read
    notes: list[str] = field(default_factory=list)
    meter: RowMeter = field(default_factory=RowMeter)  # rows read, as the load's progress
    scope: DeviceScope | None = None  # the device this card is of, in a database of several
    task_devices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # TASK's distinct deviceId
    blocks: list[ArgBlock] = field(default_factory=list)  # one per ``add``: where its slices' args live

    def add(self, *, start: np.ndarray, end: np.ndarray, lane: np.ndarray, name: np.ndarray, kind: int,
            row: np.ndarray, info: np.ndarray | None = None, cat: np.ndarray | int = -1,
            task_type: np.ndarray | int = -1) -> int:
        """Append slices; returns the index of the first. Negative durations become 0."""
        k = len(start)
        first = self.n
        dur = np.subtract(end, start, dtype=np.int64)
        np.maximum(dur, 0, out=dur)
        for key, value, dtype in (("start", start, np.int64), ("dur", dur, np.int64),
                                  ("lane", lane, np.int32), ("name", name, np.int32),
                                  ("cat", cat, np.int32), ("task_type", task_type, np.int32)):
            arr = np.broadcast_to(np.asarray(value, dtype=dtype), (k,)) if np.ndim(value) == 0 else \
                np.asarray(value, dtype=dtype)
            self.cols.setdefault(key, []).append(np.ascontiguousarray(arr))
        del dur
        self.blocks.append(ArgBlock(first, k, int(kind), rowids_of(_integers(row)),
                                    rowids_of(_integers(info)) if info is not None else Rowids(k, constant=NO_ROW)))
        self.n += k
        return first

    def column(self, key: str, dtype) -> np.ndarray:
        """The whole column, each part let go as it is copied (together, the load's peak would hold the
        column twice)."""
        parts = self.cols.pop(key, None) or []
        out = np.empty(sum(len(p) for p in parts), parts[0].dtype if parts else dtype)
        at = 0
        parts.reverse()
        while parts:
            part = parts.pop()
            out[at:at + len(part)] = part
            at += len(part)
            del part
        return out

    def names_of(self, kind: int) -> list[np.ndarray]:
        """The names of the slices of ``kind``, one array per ``add`` of that kind (before ``column("name")``)."""
        return [name for name, block in zip(self.cols.get("name", []), self.blocks, strict=True) if block.kind == kind]

    def locator(self) -> ArgLocator:
        """Where every slice's args live, from the blocks ``add`` recorded."""
        return ArgLocator.of(self.blocks)


def _integers(values: np.ndarray) -> np.ndarray:
    """``values`` as an integer array, int32 ones as they are."""
    values = np.asarray(values)
    return values if values.dtype in (np.int32, np.int64) else values.astype(np.int64)


@dataclass(frozen=True)
class Rowids:
    """One block's rowids of one table, slice by slice, held as the least of: one ``constant`` for all;
    runs of consecutive rowids (``run_at``, each run's first slice as an offset in the block, and
    ``run_row``, its rowid); the ``values`` themselves (int32 while they fit)."""

    count: int
    constant: int | None = None
    run_at: np.ndarray | None = None
    run_row: np.ndarray | None = None
    values: np.ndarray | None = None

    @classmethod
    def of(cls, rowids: np.ndarray) -> Rowids:
        """``rowids`` in whichever of the three forms holds them in fewer bytes."""
        n = len(rowids)
        if not n or bool((rowids == rowids[0]).all()):
            return cls(n, constant=int(rowids[0]) if n else NO_ROW)
        narrow = fits_int32(rowids)
        row_size = 4 if narrow else 8
        offset_type = np.int32 if n < (1 << 31) else np.int64
        per_run = np.dtype(offset_type).itemsize + row_size
        at = _run_starts(rowids, limit=(n * row_size - 1) // per_run)  # runs must cost less than the values
        if at is None:
            return cls(n, values=rowids.astype(np.int32) if narrow else rowids.copy())
        run_row = rowids[at]
        return cls(n, run_at=at.astype(offset_type), run_row=run_row.astype(np.int32) if narrow else run_row)

    def at(self, offsets: np.ndarray) -> np.ndarray:
        """The rowids (int64) of the slices at ``offsets`` in the block."""
        if self.constant is not None:
            return np.full(len(offsets), self.constant, np.int64)
        if self.values is not None:
            return self.values[offsets].astype(np.int64)
        run = np.searchsorted(self.run_at, offsets, side="right") - 1
        return self.run_row[run].astype(np.int64) + (offsets - self.run_at[run])

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.run_at, self.run_row, self.values) if a is not None)


@dataclass(frozen=True)
class AbsentBits:
    """Which slices of a block have no row: a bit each, and how many have none before each chunk of
    ``ABSENT_CHUNK`` slices (so that a slice's rank among those with a row is found without a scan)."""

    bits: np.ndarray  # uint8 (chunks, ABSENT_CHUNK // 8)
    before: np.ndarray  # per chunk: the slices without a row before it

    @classmethod
    def of(cls, absent: np.ndarray) -> AbsentBits:
        padded = np.zeros(-(-len(absent) // ABSENT_CHUNK) * ABSENT_CHUNK, bool)
        padded[:len(absent)] = absent
        per_chunk = padded.reshape(-1, ABSENT_CHUNK).sum(axis=1)
        before = np.concatenate([np.zeros(1, np.int64), np.cumsum(per_chunk)[:-1]])
        return cls(np.packbits(padded).reshape(-1, ABSENT_CHUNK // 8),
                   before.astype(np.int32) if len(absent) < (1 << 31) else before)

    def find(self, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per offset: whether its slice has no row, and its rank among the slices that have one."""
        chunk, within = offsets // ABSENT_CHUNK, offsets % ABSENT_CHUNK
        touched, which = _distinct(chunk)  # only the chunks asked about are unpacked
        bits = np.unpackbits(self.bits[touched], axis=1)
        earlier = np.cumsum(bits, axis=1, dtype=np.int32) - bits  # absent slices before each in its chunk
        which = which.reshape(-1)
        absent = bits[which, within].astype(bool)
        return absent, offsets - (self.before[chunk].astype(np.int64) + earlier[which, within])

    @property
    def nbytes(self) -> int:
        return self.bits.nbytes + self.before.nbytes


@dataclass(frozen=True)
class GappedRowids:
    """One block's rowids where some slices have none (``NO_ROW``): which (``absent``), and the rowids
    of the others as ``Rowids`` (runs that the slices without a row no longer break)."""

    absent: AbsentBits
    present: Rowids

    def at(self, offsets: np.ndarray) -> np.ndarray:
        """The rowids (int64, ``NO_ROW`` for none) of the slices at ``offsets`` in the block."""
        absent, rank = self.absent.find(offsets)
        out = np.full(len(offsets), NO_ROW, np.int64)
        out[~absent] = self.present.at(rank[~absent])
        return out

    @property
    def nbytes(self) -> int:
        return self.absent.nbytes + self.present.nbytes


RowidColumn = Rowids | GappedRowids


def rowids_of(rowids: np.ndarray) -> RowidColumn:
    """``rowids`` (``NO_ROW``: none) as ``Rowids``, or as ``GappedRowids`` when some slices have no row
    and that is smaller."""
    plain = Rowids.of(rowids)
    if plain.constant is not None:
        return plain
    absent = rowids == NO_ROW
    if not absent.any():
        return plain
    gapped = GappedRowids(AbsentBits.of(absent), Rowids.of(rowids[~absent]))
    return gapped if gapped.nbytes < plain.nbytes else plain


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``; one pass when ``values`` ascend (the slices asked for
    usually do), where ``unique`` would hash or sort them."""
    if len(values) < 2 or not (values[1:] >= values[:-1]).all():
        distinct, which = np.unique(values, return_inverse=True)
        return distinct, which.reshape(-1)
    starts = np.empty(len(values), bool)
    starts[0] = True
    np.not_equal(values[1:], values[:-1], out=starts[1:])
    which = np.cumsum(starts)
    which -= 1
    return values[starts], which


def _run_starts(rowids: np.ndarray, limit: int) -> np.ndarray | None:
    """The offsets where a run of consecutive rowids starts (0 first), or None when there are more
    than ``limit`` runs (then found no further)."""
    found = [np.zeros(1, np.int64)]
    runs = 1
    for a in range(0, len(rowids) - 1, RUN_CHUNK):
        part = rowids[a:a + RUN_CHUNK + 1]
        starts = np.flatnonzero(part[1:] != part[:-1] + 1) + (a + 1)
        runs += len(starts)
        if runs > limit:
            return None
        found.append(starts)
    return np.concatenate(found)


class ArgBlock(NamedTuple):
    """The ``count`` slices from ``first`` that one ``SliceParts.add`` appended: the table their args
    are read from (``kind``), their rows' rowids and their info rows' (-1: none)."""

    first: int
    count: int
    kind: int
    row: RowidColumn
    info: RowidColumn


class ArgPlaces(NamedTuple):
    """Per slice asked for: its kind, its row's rowid (None when not asked for), its info row's rowid (-1:
    none)."""

    kind: np.ndarray
    row: np.ndarray | None
    info: np.ndarray


@dataclass(frozen=True)
class ArgLocator:
    """Slice ordinal → where its args live (``ArgPlaces``), from the card's blocks of slices."""

    blocks: tuple[ArgBlock, ...]  # the non-empty ones, in slice order
    starts: np.ndarray  # each block's first slice
    kinds: np.ndarray  # each block's kind
    n: int  # slices

    @classmethod
    def of(cls, blocks: list[ArgBlock]) -> ArgLocator:
        kept = tuple(b for b in blocks if b.count)
        return cls(kept, np.array([b.first for b in kept], np.int64), np.array([b.kind for b in kept], np.uint8),
                   max((b.first + b.count for b in kept), default=0))

    def __len__(self) -> int:
        return self.n

    def locate(self, ordinals: np.ndarray, rows: bool = True) -> ArgPlaces:
        """Where the args of ``ordinals`` (each in ``[0, len)``) live; ``rows=False``: their kinds and info rows
        only (``row`` None), for a reader of the info table alone."""
        ordinals = np.asarray(ordinals, dtype=np.int64)
        block = np.searchsorted(self.starts, ordinals, side="right") - 1
        row = np.empty(len(ordinals), np.int64) if rows else None
        info = np.empty(len(ordinals), np.int64)
        blocks = _distinct(block)[0].tolist()
        for b in blocks:
            # a chunk of one block (the usual case): every ordinal, no mask
            here = slice(None) if len(blocks) == 1 else block == b
            offsets = ordinals[here] - self.blocks[b].first
            if row is not None:
                row[here] = self.blocks[b].row.at(offsets)
            info[here] = self.blocks[b].info.at(offsets)
        return ArgPlaces(self.kinds[block], row, info)

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays (the per-block records aside)."""
        return self.starts.nbytes + self.kinds.nbytes + sum(b.row.nbytes + b.info.nbytes for b in self.blocks)


def _columns(schema: Schema, table: str, wanted: tuple[str, ...], optional: tuple[str, ...],
             scoped: bool) -> dict[str, str]:
    """The int columns ``_read`` reads of ``table`` (it has every one of ``wanted``)."""
    cols = {c: "int" for c in wanted + tuple(c for c in optional if schema.has(table, c))}
    if scoped:  # what tells this device's rows apart
        cols.update({c: "int" for c in (DEVICE_COLUMN, *_SCOPE_COLUMNS.get(table, ())) if schema.has(table, c)})
    return cols


def _read(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, table: str, wanted: tuple[str, ...],
          optional: tuple[str, ...] = ()) -> dict[str, np.ndarray] | None:
    """The int columns ``wanted`` (+ ``optional`` when present) of ``table`` with rowid, or None
    with a note saying what is missing."""
    if table not in schema.columns:
        return None
    missing = schema.missing(table, wanted)
    if missing:
        parts.notes.append(f"table {table} lacks column(s) {', '.join(missing)}: not read")
        return None
    cols = _columns(schema, table, wanted, optional, parts.scope is not None)
    got = read_or_salvage(conn, table, cols, parts.notes, with_rowid=True, progress=parts.meter.step(table),
                          narrow=_narrow(cols))
    if got is not None and parts.scope is not None:
        got = _in_scope(parts.scope, table, got)
    if got is not None:
        parts.read[table] = len(got[ROWID])
    parts.meter.table_done(table)
    return got


def _narrow(cols: dict[str, str]) -> set[str]:
    """The columns read as int32 when they fit (``read_columns``): the tables a load holds at once take
    a third less room."""
    return {c for c in cols if c not in WIDE_COLUMNS} | {ROWID}


_SCOPE_COLUMNS = {"TASK": ("globalPid",), "COMMUNICATION_TASK_INFO": ("opId",), "COMMUNICATION_OP": ("opId",)}


def _in_scope(scope: DeviceScope, table: str, got: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows of ``table`` that are the scope's device's (see ``devices``)."""
    n = len(got[ROWID])
    if DEVICE_COLUMN in got:
        keep = scope.device_rows(got[DEVICE_COLUMN])
        if table == "TASK":
            scope.note_tasks(got, keep)
    elif table in ("CANN_API", "PYTORCH_API"):
        keep = scope.host_rows(got["globalTid"])
    elif table == "COMMUNICATION_TASK_INFO":
        keep = np.isin(got["globalTaskId"], scope.task_ids) if scope.task_ids is not None else np.ones(n, bool)
        if "opId" in got:
            scope.ops = np.unique(got["opId"][keep])
            scope.other_ops = np.setdiff1d(np.unique(got["opId"][~keep]), scope.ops)
    elif table == "COMMUNICATION_OP":
        keep = scope.op_rows(got.get("opId"))
        if keep is None:
            keep = np.full(n, scope.first)
    else:
        return got
    return {name: col[keep] for name, col in got.items()}


def _table(schema: Schema, parts: SliceParts, table: str) -> str:
    """``table``, or the renamed copy msprof left of it when only that exists (with a note)."""
    if table in schema.columns:
        return table
    old = renamed_copy(schema, table)
    if old is not None:
        parts.notes.append(f"table {table} missing: its renamed copy {old} is read")
        return old
    return table


def renamed_copy(schema: Schema, table: str) -> str | None:
    """The newest copy msprof left of ``table`` under another name (``_<NAME>_old_<date>``), or None."""
    return max((t for t in schema.columns if t.startswith(OLD_TABLE.format(table))), default=None)


def _join(keys: np.ndarray, table_keys: np.ndarray) -> np.ndarray:
    """Row of ``table_keys`` holding each of ``keys`` (-1 when none)."""
    if not len(table_keys):
        return np.full(len(keys), -1, np.int64)
    if len(table_keys) < 2 or bool((table_keys[1:] >= table_keys[:-1]).all()):  # ascending already (as written)
        return find_sorted(table_keys, keys)
    order = np.argsort(table_keys, kind="stable")
    pos = find_sorted(table_keys[order], keys)
    return np.where(pos >= 0, order[pos], -1)


def join_all(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``sorted_keys`` holding each of ``keys``: (the rows, key by key; how many each key has)."""
    lo = np.searchsorted(sorted_keys, keys, side="left")
    counts = np.searchsorted(sorted_keys, keys, side="right") - lo
    rows = np.repeat(lo, counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    return rows, counts


def add_device(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """``TASK`` on ``Ascend Hardware`` stream lanes (name and ``Task Type`` from the info tables), plane
    tasks on ``HCCL`` ``Plane N`` lanes, ``COMMUNICATION_OP`` on each group's operator lane."""
    s = parts.strings
    task = _read(conn, schema, parts, "TASK", TASK_COLUMNS, TASK_OPTIONAL)
    if task is not None:
        if DEVICE_COLUMN in task:
            parts.task_devices = sorted_unique(task.pop(DEVICE_COLUMN))
        task = _without_parents(task)
        for done_with in ("taskId", "contextId"):
            task.pop(done_with, None)
    compute = _read(conn, schema, parts, _table(schema, parts, "COMPUTE_TASK_INFO"), COMPUTE_COLUMNS)
    comm = _read(conn, schema, parts, "COMMUNICATION_TASK_INFO", COMM_TASK_COLUMNS)
    if comm is not None and parts.scope is None:  # (of a database of several devices: counted in none)
        note_untransported(conn, schema, parts.notes)
    ops = _read(conn, schema, parts, "COMMUNICATION_OP", OP_COLUMNS, OP_OPTIONAL)
    group_tid = _group_lanes(comm, ops)
    if task is not None:
        n = len(task["startNs"])
        name, ttype, info = _task_names(s, task, compute, parts.notes)
        compute = None  # let go: each table is held only while it is needed (the load's peak)
        uniq, inverse = unique_inverse(task.pop("streamId"))
        lane_of = np.array([parts.book.lane(L.HARDWARE, str(int(u)), L.STREAM_LANE.format(int(u)), int(u))
                            for u in uniq], dtype=np.int32)
        lanes = lane_of[inverse] if n else np.zeros(0, np.int32)
        del inverse
        first = parts.add(start=task["startNs"], end=task["endNs"], lane=lanes, name=name, kind=KIND_HARDWARE,
                          row=task[ROWID], info=info, task_type=ttype)
        del lanes, name, ttype, info
        if "connectionId" in task:
            parts.ends.add("device", task["connectionId"], first)
        if comm is not None:
            _add_planes(parts, task, comm, group_tid)
    if ops is not None:
        groups, inverse = np.unique(ops["groupName"], return_inverse=True)
        lane_of = np.array([parts.book.lane(L.HCCL, str(group_tid[g][0]), L.GROUP_LANE.format(_text(s, g)),
                                            group_tid[g][0]) for g in groups.tolist()], dtype=np.int32)
        lanes = lane_of[inverse.reshape(-1)] if len(groups) else np.zeros(0, np.int32)
        first = parts.add(start=ops["startNs"], end=ops["endNs"], lane=lanes, name=s.of_ids(ops["opName"]),
                          kind=KIND_OPERATOR, row=ops[ROWID])
        if "connectionId" in ops:
            parts.ends.add("device", ops["connectionId"], first)


def _task_names(s: CardStrings, task: dict[str, np.ndarray], compute: dict[str, np.ndarray] | None,
                notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each task's name, ``Task Type`` and ``COMPUTE_TASK_INFO`` rowid (-1: none): from its compute info,
    else its own ``taskType``; a kernel of a compute unit without compute info is untyped (-1), with a
    note. Takes ``task``'s ``taskType`` (no longer needed after)."""
    own_type = s.of_ids(task.pop("taskType"))
    n = len(own_type)
    ci = _join(task["globalTaskId"], compute["globalTaskId"]) if compute else np.full(n, -1, np.int64)
    has = np.flatnonzero(ci >= 0)
    ci = ci[has]
    name, ttype = own_type.copy(), own_type
    info = np.full(n, NO_ROW, compute[ROWID].dtype if compute else np.int32)
    if compute is not None and len(has):
        name[has] = s.of_ids(compute["name"][ci])
        info_type = s.of_ids(compute["taskType"][ci])
        ttype[has] = np.where(np.isin(info_type, _ids_of(s, L.NO_TASK_TYPE)), _json_types(s, own_type[has]),
                              info_type)
        info[has] = compute[ROWID][ci]
        _say_bare_number_names(s, name[has], notes)
    if compute is not None:
        _untype_kernels_without_info(s, own_type, ttype, _without_info(n, has), notes)
    return name, ttype, info


def _say_bare_number_names(s: CardStrings, names: np.ndarray, notes: list[str]) -> None:
    """Note the kernels whose ``COMPUTE_TASK_INFO.name`` is a bare number (``bare_numbers``)."""
    ids, counts = np.unique(names[names >= 0], return_counts=True)
    note = bare_number_note((s.strings[i] for i in ids.tolist()), counts.tolist(), "kernels", "COMPUTE_TASK_INFO")
    if note:
        notes.append(note)


def _without_info(n: int, has: np.ndarray) -> np.ndarray:
    """A mask of the ``n`` tasks that are not among ``has`` (the tasks with a compute info row)."""
    missing = np.ones(n, bool)
    missing[has] = False
    return missing


def _untype_kernels_without_info(s: CardStrings, own_type: np.ndarray, ttype: np.ndarray, missing: np.ndarray,
                                 notes: list[str]) -> None:
    """Kernels of a compute unit with no ``COMPUTE_TASK_INFO`` row lose their ``Task Type`` (-1): nothing
    says which operator they ran, and counted as compute they would add time the producer's Computing
    leaves out. The note counts them by their unit."""
    seen = np.unique(own_type[missing])  # the units looked up by text: none is added to the card's strings
    units = [i for i in seen.tolist() if i >= 0 and s.strings[i] in L.COMPUTE_UNIT_TYPES]
    untyped = missing & np.isin(own_type, units)
    if not untyped.any():
        return
    kinds, counts = np.unique(own_type[untyped], return_counts=True)  # (``ttype`` may be ``own_type`` itself)
    each = ", ".join(f"{s.strings[k]} ×{c:,}" for k, c in zip(kinds.tolist(), counts.tolist(), strict=True))
    ttype[untyped] = -1
    notes.append(f"{int(untyped.sum()):,} TASK rows of a compute unit ({each}) have no COMPUTE_TASK_INFO row: "
                 f"drawn untyped, named by their unit, not counted as compute")


def _ids_of(s: CardStrings, texts) -> np.ndarray:
    return np.array([s.intern(t) for t in texts], dtype=np.int32)


def _json_types(s: CardStrings, own: np.ndarray) -> np.ndarray:
    """``TASK.taskType`` spelt as the JSON's ``Task Type`` of a kernel (``KERNEL_AIVEC`` → ``AI_VECTOR_CORE``)."""
    out = own.copy()
    for raw, spelt in L.KERNEL_TASK_TYPE.items():
        out[own == s.intern(raw)] = s.intern(spelt)
    return out


def _without_parents(task: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``TASK`` without the parents of sub-tasks: a task with no context id whose stream and task id
    a task with a context id shares, starting inside it, is an FFTS+ (or collective) task drawn
    through its sub-tasks, as the JSON generation draws it (drawn too, it would count its sub-tasks'
    time twice and a collective's whole span as an AI Core task)."""
    if "taskId" not in task or "contextId" not in task or not len(task["taskId"]):
        return task
    is_child = task["contextId"] != L.NONE_U32
    if not is_child.any():
        return task
    key = (task["streamId"].astype(np.int64) << 32) + task["taskId"]
    # only the rows of a (stream, task id) that has sub-tasks can be parents: sort those alone
    rows = np.flatnonzero(np.isin(key, key[is_child]))
    # parents before children at equal (key, start): a parent's next row is its first sub-task
    order = rows[np.lexsort((is_child[rows], task["startNs"][rows], key[rows]))]
    k, c, st = key[order], is_child[order], task["startNs"][order]
    parent = ~c & np.roll(c, -1) & (np.roll(k, -1) == k) & (np.roll(st, -1) <= task["endNs"][order])
    parent[-1] = False
    drop = np.zeros(len(key), bool)
    drop[order[parent]] = True
    return {name: col[~drop] for name, col in task.items()} if drop.any() else task


def _text(s: CardStrings, db_id: int) -> str:
    """The text of a database string id; one ``STRING_IDS`` lacks is said to be unknown, never shown bare."""
    value = s.value(db_id)
    return value if value is not None else UNKNOWN_ID.format(db_id)


def _group_lanes(comm: dict | None, ops: dict | None) -> dict[int, tuple[int, int]]:
    """Per communication group: (tid of its operator lane, planes), as the C++ export numbers them:
    the group's lane at its start index, ``Plane k`` at start + k + 1."""
    groups = set()
    planes: dict[int, int] = {}
    if comm is not None and len(comm["groupName"]):  # one row per plane task: millions, reduced in numpy
        names, inverse = np.unique(comm["groupName"], return_inverse=True)
        top = np.full(len(names), -1, np.int64)
        np.maximum.at(top, inverse.reshape(-1), comm["planeId"])
        planes = dict(zip(names.tolist(), top.tolist(), strict=True))
        groups.update(planes)
    if ops is not None:
        groups.update(np.unique(ops["groupName"]).tolist())
    out, start = {}, 0
    for g in sorted(groups):
        out[g] = (start, planes.get(g, -1) + 1)
        start += planes.get(g, -1) + 2
    return out


def _add_planes(parts: SliceParts, task: dict, comm: dict, group_tid: dict[int, tuple[int, int]]) -> None:
    s = parts.strings
    ti = _join(comm["globalTaskId"], task["globalTaskId"])
    lost = int((ti < 0).sum())
    if lost:
        parts.notes.append(f"{lost:,} COMMUNICATION_TASK_INFO rows name no TASK row: not drawn")
    keep = ti >= 0
    ti = ti[keep]
    groups, plane_ids = comm["groupName"][keep], comm["planeId"][keep]
    key = np.stack([groups, plane_ids], axis=1) if len(groups) else np.zeros((0, 2), np.int64)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    lane_of = []
    for g, p in uniq.tolist():
        base = group_tid[g][0]
        lane_of.append(parts.book.lane(L.HCCL, str(base + p + 1), L.PLANE_LANE.format(p), base + p + 1))
    lanes = np.array(lane_of, dtype=np.int32)[inverse] if len(uniq) else np.zeros(0, np.int32)
    parts.add(start=task["startNs"][ti], end=task["endNs"][ti], lane=lanes, name=s.of_ids(comm["taskType"][keep]),
              kind=KIND_PLANE, row=task[ROWID][ti], info=comm[ROWID][keep])


def add_host(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, enums: dict[str, dict[int, str]]) -> None:
    """``CANN_API`` on ``CANN`` thread lanes (``AscendCL@…`` names), ``PYTORCH_API`` on ``Python`` thread
    lanes (with their categories)."""
    api_names = enums.get("ENUM_API_TYPE", {})
    cann = _read(conn, schema, parts, "CANN_API", HOST_COLUMNS, ("connectionId",))
    if cann is not None:
        prefixes = sorted(set(L.API_PREFIX.values()))
        types, inverse = np.unique(cann["type"], return_inverse=True)
        per_type = np.array([prefixes.index(L.API_PREFIX[api_names[t]]) if api_names.get(t) in L.API_PREFIX else -1
                             for t in types.tolist()], dtype=np.int64)
        prefix_of = per_type[inverse.reshape(-1)] if len(types) else np.zeros(0, np.int64)
        name = parts.strings.prefixed(prefix_of, prefixes, cann["name"])
        lanes = _thread_lanes(parts, L.CANN, cann["globalTid"])
        first = parts.add(start=cann["startNs"], end=cann["endNs"], lane=lanes, name=name, kind=KIND_CANN,
                          row=cann[ROWID])
        if "connectionId" in cann:
            parts.ends.add("host", cann["connectionId"], first)
    torch = _read(conn, schema, parts, "PYTORCH_API", HOST_COLUMNS, ("connectionId",))
    if torch is not None:
        name = parts.strings.of_ids(torch["name"])
        types, inverse = np.unique(torch["type"], return_inverse=True)
        cats = np.array([parts.strings.intern(L.FRAMEWORK_CAT[api_names[t]]) if api_names.get(t) in L.FRAMEWORK_CAT
                         else -1 for t in types.tolist()], dtype=np.int32)
        cat = cats[inverse.reshape(-1)] if len(types) else np.zeros(0, np.int32)
        cat = _queue_cats(parts.strings, name, cat)
        lanes = _thread_lanes(parts, L.PYTHON, torch["globalTid"])
        first = parts.add(start=torch["startNs"], end=torch["endNs"], lane=lanes, name=name, kind=KIND_FRAMEWORK,
                          row=torch[ROWID], cat=cat)
        if "connectionId" in torch:
            _framework_endpoints(conn, schema, parts, torch["connectionId"], first)


def _queue_cats(s: CardStrings, name: np.ndarray, cat: np.ndarray) -> np.ndarray:
    """``Enqueue@…`` / ``Dequeue@…`` ranges get the JSON's ``enqueue`` / ``dequeue`` category."""
    out = cat.copy()
    for u in np.unique(name).tolist():
        text = s.strings[u].split("@", 1)[0].lower() if u >= 0 else ""
        if text in L.QUEUE_CATS:
            out[name == u] = s.intern(L.QUEUE_CATS[text])
    return out


def _thread_lanes(parts: SliceParts, proc: tuple[str, str, int], global_tid: np.ndarray) -> np.ndarray:
    uniq, inverse = np.unique(global_tid, return_inverse=True)
    lane_of = []
    for g in uniq.tolist():
        tid = g & TID_MASK if g >= 0 else g
        lane_of.append(parts.book.lane(proc, str(tid), L.THREAD_LANE.format(tid), tid))
    return np.array(lane_of, dtype=np.int32)[inverse.reshape(-1)] if len(uniq) else np.zeros(0, np.int32)


def _framework_endpoints(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, ref: np.ndarray,
                         first: int) -> None:
    """``PYTORCH_API.connectionId`` is an id into ``CONNECTION_IDS(id, connectionId)`` (one range can
    hold several connections)."""
    ids = _read(conn, schema, parts, "CONNECTION_IDS", CONNECTION_COLUMNS)
    if ids is None:
        return
    order = np.argsort(ids["id"], kind="stable")
    key, cid = ids["id"][order], ids["connectionId"][order]
    slices = np.flatnonzero(ref >= 0)
    rows, counts = join_all(key, ref[slices])
    parts.ends.cid.setdefault("framework", []).append(cid[rows])
    parts.ends.slice.setdefault("framework", []).append(slice_numbers(np.repeat(slices, counts), first))


def add_overlap(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """The producer's ``OVERLAP_ANALYSIS`` rows on the ``Overlap Analysis`` lanes."""
    ov = _read(conn, schema, parts, "OVERLAP_ANALYSIS", OVERLAP_COLUMNS)
    if ov is None:
        return
    known = np.isin(ov["type"], list(L.OVERLAP_LANES))
    lane_of, name_of = {}, {}
    for t, lane_name in L.OVERLAP_LANES.items():
        lane_of[t] = parts.book.lane(L.OVERLAP, str(t), lane_name, t)
        name_of[t] = parts.strings.intern(lane_name)
    types = ov["type"][known]
    lut_lane = np.array([lane_of[t] for t in sorted(lane_of)], dtype=np.int32)
    lut_name = np.array([name_of[t] for t in sorted(name_of)], dtype=np.int32)
    parts.add(start=ov["startNs"][known], end=ov["endNs"][known], lane=lut_lane[types], name=lut_name[types],
              kind=KIND_OVERLAP, row=ov[ROWID][known])
    if (~known).any():
        parts.notes.append(f"{int((~known).sum()):,} OVERLAP_ANALYSIS rows of an unknown type: not drawn")


def add_steps(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """``STEP_TIME`` as ``ProfilerStep#N`` slices, unless the framework's ranges already name them."""
    steps = _read(conn, schema, parts, "STEP_TIME", ("id", "startNs", "endNs"))
    if steps is None or not len(steps["id"]):
        return
    wanted = {parts.strings.intern(L.PROFILER_STEP.format(int(i))) for i in steps["id"].tolist()}
    for nm in parts.names_of(KIND_FRAMEWORK):
        if np.isin(nm, list(wanted)).any():
            return  # torch_npu: PYTORCH_API holds ProfilerStep#N itself
    lane = parts.book.lane(L.PYTHON, L.STEPS_LANE, L.STEPS_LANE, -1)
    name = np.array([parts.strings.intern(L.PROFILER_STEP.format(int(i))) for i in steps["id"].tolist()], np.int32)
    parts.add(start=steps["startNs"], end=steps["endNs"], lane=np.full(len(name), lane, np.int32), name=name,
              kind=KIND_STEP, row=steps[ROWID])
