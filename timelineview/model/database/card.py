"""One profiler database → one card's ``TraceStore``, laid out as the JSON generation of the same
producer lays it out (trace-format.md §4.7, §8), so that every analysis reads it unchanged.

Never raises on bad input: what could not be read is said in the card's load report (the
file's problem, the tables missing or unreadable, a schema version this reader does not
know), and what could be read is shown.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.args import DatabaseArgs
from timelineview.model.database.counters import counter_table, read_counters
from timelineview.model.database.devices import DeviceScope, database_devices
from timelineview.model.database.flows import CATS_TABLE, build_flows
from timelineview.model.database.layout import COUNTERS
from timelineview.model.database.progress import RowMeter, RowProgress
from timelineview.model.database.slices.device_slices import add_device
from timelineview.model.database.slices.host_slices import add_host
from timelineview.model.database.slices.overlap_slices import add_overlap
from timelineview.model.database.slices.slice_parts import Endpoints, SliceParts
from timelineview.model.database.slices.step_slices import add_steps
from timelineview.model.database.slices.table_reads import renamed_copy
from timelineview.model.database.sqlite.connection import DatabaseHealth, check, connect, is_database
from timelineview.model.database.sqlite.damage import DAMAGE_NOTE, table_losses
from timelineview.model.database.sqlite.tables import STRING_TABLE, Schema, read_schema
from timelineview.model.database.strings import read_enums, read_strings
from timelineview.model.store.file_stamp import file_stamp
from timelineview.model.store.interval_index import build_index
from timelineview.model.store.report import LoadReport
from timelineview.model.store.store_factory import empty_counters, empty_flows, empty_instants
from timelineview.model.store.trace_store import LaneTable, ProcessTable, SliceColumns, TraceStore

GENERATION = "profiler-database"
DATABASE_KIND = "database"  # the CardSource kind discovery gives a database
KNOWN_MAJOR = 1  # META_DATA SCHEMA_VERSION major this reader was written against
META_TABLE = "META_DATA"
SCHEMA_VERSION = "SCHEMA_VERSION"
MISSING = {"TASK": "no device task is shown", "STRING_IDS": "names are shown as ids"}
DEVICE_TABLES = tuple(MISSING)
RANK_TABLE = "RANK_DEVICE_MAP"
DEVICES_NAMED = 8
RENUMBER_CHUNK = 1 << 20  # slices renumbered at a time
# the tables a card reads, in the order it reads them: their rows are the load's progress
READ_TABLES = ("TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "PYTORCH_API",
               "CONNECTION_IDS", "OVERLAP_ANALYSIS", "STEP_TIME", *(spec.table for spec in COUNTERS), CATS_TABLE)


def schema_version(conn: sqlite3.Connection, schema: Schema) -> str | None:
    """``META_DATA``'s ``SCHEMA_VERSION`` (None when absent)."""
    if not schema.has(META_TABLE, "name", "value"):
        return None
    try:
        row = conn.execute(f"select value from {META_TABLE} where name = ?", (SCHEMA_VERSION,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return str(row[0]) if row and row[0] is not None else None


def database_rank(path: str | os.PathLike) -> int | None:
    """The rank ``RANK_DEVICE_MAP`` names (the first row's; None when absent or unreadable)."""
    try:
        conn = connect(path)
    except (sqlite3.Error, OSError):
        return None
    try:
        schema = read_schema(conn)
        if not schema.has(RANK_TABLE, "rankId"):
            return None
        row = conn.execute(f"select rankId from {RANK_TABLE} where rankId >= 0 and rankId != ? limit 1",
                           (L.NONE_U32,)).fetchone()
        return int(row[0]) if row and isinstance(row[0], int) else None
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def load_database_card(label: str, rank: int | None, path: str | os.PathLike,
                       notes: list[str] | None = None, progress: RowProgress | None = None,
                       cancel: threading.Event | None = None, device: int | None = None) -> TraceStore:
    """The card in the database at ``path``; ``notes`` (the card's discovery notes) go to its report.
    With ``device``, the card of that device of a database holding several (``devices``).

    ``progress(rows read, rows to read)`` is told the rows read over the tables the card reads as
    they are read; once ``cancel`` is set the read stops with ``ReadCancelled``.
    """
    meter = RowMeter(progress, cancel)
    report = LoadReport()
    for note in notes or ():
        report.warn(note)
    stamp = file_stamp(path)
    health = check(path)
    report.warn_all(health.warnings)
    if health.expected:
        _say_truncated(report, str(path), health)
    if health.error:
        report.error = health.error
        return _empty_card(label, rank, path, report)
    report.bytes_read = health.size
    try:
        conn = connect(path)
    except (sqlite3.Error, OSError) as exc:
        report.error = f"{path}: not readable as a database ({exc})"
        _drop_missing_pages(report, str(path), health)
        return _empty_card(label, rank, path, report)
    try:
        schema = _catalogue(conn, path, report)
    except (sqlite3.Error, OSError) as exc:
        conn.close()
        report.error = f"{path}: not readable as a database ({exc})"
        _drop_missing_pages(report, str(path), health)
        return _empty_card(label, rank, path, report)
    try:
        return _read_card(conn, schema, label, rank, str(path), stamp, report, meter, device)
    except sqlite3.Error as exc:  # damage past the catalogue that the per-table reads did not catch
        report.error = f"{path}: damaged database ({exc}); nothing more could be read"
        _drop_missing_pages(report, str(path), health)
        return _empty_card(label, rank, path, report)
    finally:
        conn.close()


def _say_truncated(report: LoadReport, path: str, health: DatabaseHealth) -> None:
    """A file shorter than its header says is a truncated capture: the report says so, and where."""
    report.truncated = True
    report.truncated_path = path
    report.truncated_offset = health.size
    held = health.size // health.page_size
    report.truncated_why = (f"its header announces {health.expected:,} bytes: pages {held + 1:,} to "
                            f"{health.expected // health.page_size:,} are missing")


def _drop_missing_pages(report: LoadReport, path: str, health: DatabaseHealth) -> None:
    """Nothing could be read of a truncated file: the count dropped is its missing pages (the tables
    they held cannot be told: the catalogue is unreadable)."""
    if health.expected:
        missing = -(-(health.expected - health.size) // health.page_size)
        report.drop("database pages past the end of the truncated file (catalogue unreadable)", path, n=missing)


def _count_losses(conn: sqlite3.Connection, schema: Schema, path: str, parts: SliceParts,
                  report: LoadReport) -> None:
    """Per table the card reads, the rows a damaged or truncated file lost: counted as dropped, said where."""
    if not report.truncated and not any(DAMAGE_NOTE.match(n) for n in parts.notes) and not schema.unreadable:
        return
    tables = [*READ_TABLES, STRING_TABLE, renamed_copy(schema, "COMPUTE_TASK_INFO") or ""]
    for loss in table_losses(conn, path, tables, parts.read, parts.notes, list(schema.unreadable),
                             rows_exact=parts.scope is None):
        missing = f", {loss.pages_missing:,} of its pages missing" if loss.pages_missing else ""
        report.drop(f"rows of table {loss.table} not readable (damaged or truncated file)", path, n=loss.rows_lost)
        report.warn(f"{path}: table {loss.table}: {loss.rows_read:,} rows read, at least {loss.rows_lost:,} "
                    f"not readable{missing}")


def _catalogue(conn: sqlite3.Connection, path: str | os.PathLike, report: LoadReport) -> Schema:
    """The tables; a file shorter than its header says is refused by SQLite as a whole unless told to
    read the catalogue anyway (``writable_schema``: a read-only connection still writes nothing)."""
    try:
        return read_schema(conn)
    except sqlite3.DatabaseError as exc:
        conn.execute("pragma writable_schema = 1")
        schema = read_schema(conn)
        report.warn(f"{path}: damaged ({exc}); each table is read up to the damage")
        return schema


def _read_card(conn: sqlite3.Connection, schema: Schema, label: str, rank: int | None, path: str, stamp,
               report: LoadReport, meter: RowMeter, device: int | None = None) -> TraceStore:
    meter.plan(conn, schema, [*READ_TABLES, renamed_copy(schema, "COMPUTE_TASK_INFO") or ""])
    for table, why in schema.unreadable.items():
        report.warn(f"{path}: table {table} unreadable ({why}): not read")
    version = schema_version(conn, schema)
    if version is None:
        report.warn(f"{path}: no {SCHEMA_VERSION} in {META_TABLE}: read by table and column names")
    elif not version.split(".")[0].isdigit() or int(version.split(".")[0]) != KNOWN_MAJOR:
        report.warn(f"{path}: schema version {version} is not one this reader knows ({KNOWN_MAJOR}.x): read by "
                    f"table and column names; check the figures against the producer's")
    for table in DEVICE_TABLES:
        if table not in schema.columns:
            report.warn(f"{path}: table {table} missing: {MISSING[table]}")
    notes: list[str] = []
    strings = read_strings(conn, schema, notes)
    enums = read_enums(conn, schema)
    parts = SliceParts(strings, notes=notes, meter=meter, scope=_scope(path, device))
    return _make_card(conn, schema, label, rank, path, stamp, report, meter, device, strings, enums, parts)


def _make_card(conn: sqlite3.Connection, schema: Schema, label: str, rank: int | None, path: str, stamp,
               report: LoadReport, meter: RowMeter, device: int | None, strings, enums,
               parts: SliceParts) -> TraceStore:
    add_device(conn, schema, parts)
    add_host(conn, schema, parts, enums)
    add_overlap(conn, schema, parts)
    add_steps(conn, schema, parts)
    series = read_counters(conn, schema, parts.book, strings, parts.notes, parts.read, meter, device)
    if device is None:
        _check_devices(parts.task_devices, path, report)

    procs, lanes, lane_new, proc_new = parts.book.finish({})
    start = parts.column("start", np.int64)
    dur = parts.column("dur", np.int64)
    lane = _renumbered(parts.column("lane", np.int32), lane_new)
    n = len(start)
    # what needs no index first, each source let go as it is used: the index's build is the load's peak
    flows = build_flows(conn, schema, parts.ends, strings, start, lane, parts.notes)
    parts.ends = Endpoints()  # (the flows hold them, until they are made)
    locator = parts.locator()
    name, cat, task_type = parts.column("name", np.int32), parts.column("cat", np.int32), \
        parts.column("task_type", np.int32)
    index, depth, overlapping = build_index(start, dur, lane, len(lanes))  # ties: as the rows were read
    report.overlapping_slices += overlapping
    report.counts_by_ph = Counter({"X": n, "C": sum(len(s[3]) for s in series)})
    slices = SliceColumns(start=start, dur=dur, lane=lane, name=name, cat=cat, task_type=task_type, depth=depth,
                          src=None, flags=np.zeros(n, np.uint8))  # the args reader finds a slice's by its number
    meter.finish()
    report.warn_all([f"{path}: {n}" for n in parts.notes])
    store = TraceStore(card=label, rank=rank, paths=[Path(path)], strings=strings.strings, processes=procs,
                       lanes=lanes, slices=slices, counters=counter_table(series, proc_new),
                       instants=empty_instants(), flows=flows, report=report, generation=GENERATION, index=index)
    store._args_reader = DatabaseArgs(path, schema, strings, enums, locator, task_type, dur, stamp)
    _count_losses(conn, schema, path, parts, report)
    if report.warnings:  # something is amiss: say what was read
        report.warn(f"{path}: read " + ", ".join(f"{t} ({k:,} rows)" for t, k in parts.read.items()))
    return store


def _renumbered(values: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``new[values]`` written over ``values``, a part at a time (no second column at the load's peak)."""
    for a in range(0, len(values), RENUMBER_CHUNK):
        values[a:a + RENUMBER_CHUNK] = new[values[a:a + RENUMBER_CHUNK]]
    return values


def _scope(path: str, device: int | None) -> DeviceScope | None:
    if device is None:
        return None
    devices = [d.device for d in database_devices(path)]
    return DeviceScope(device, first=not devices or device == devices[0])


def _check_devices(devices: np.ndarray, path: str, report: LoadReport) -> None:
    """One card is one device: say so when the tasks (their distinct ``deviceId``) come from several."""
    if len(devices) > 1:
        named = devices[:DEVICES_NAMED].tolist()
        report.warn(f"{path}: tasks of several devices ({', '.join(map(str, named))}"
                    f"{', …' if len(devices) > DEVICES_NAMED else ''}) drawn as one card; their streams share "
                    f"lanes by stream id")


def _empty_card(label: str, rank: int | None, path: str | os.PathLike, report: LoadReport) -> TraceStore:
    z64, z32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
    index, depth, _ = build_index(z64, z64, z32, 0)
    slices = SliceColumns(start=z64, dur=z64, lane=z32, name=z32, cat=z32, task_type=z32, depth=depth, src=z64,
                          flags=np.zeros(0, np.uint8))
    return TraceStore(card=label, rank=rank, paths=[Path(path)], strings=[],
                      processes=ProcessTable([], [], [], z64), lanes=LaneTable(z32, [], [], z64), slices=slices,
                      counters=empty_counters(), instants=empty_instants(), flows=empty_flows(), report=report,
                      generation=GENERATION, index=index)


def is_database_source(src) -> bool:
    """Whether a ``CardSource`` is a profiler database (by kind, or a lone file's SQLite header)."""
    return src.kind == DATABASE_KIND or (len(src.files) == 1 and is_database(src.files[0]))


def database_bytes(src) -> int:
    """The size of a database ``CardSource``'s file (0 when it has none or it is gone)."""
    try:
        return os.stat(src.files[0]).st_size if src.files else 0
    except OSError:
        return 0


def load_database_source(src, progress: RowProgress | None = None, cancel: threading.Event | None = None
                         ) -> TraceStore:
    """``load_database_card`` for a ``CardSource`` from discovery (its notes go to the report)."""
    if not src.files:
        report = LoadReport()
        report.error = f"{src.label}: no readable database ({'; '.join(src.problems)})"
        return _empty_card(src.label, src.rank, src.label, report)
    return load_database_card(src.label, src.rank, src.files[0], src.problems, progress, cancel,
                              getattr(src, "device", None))
