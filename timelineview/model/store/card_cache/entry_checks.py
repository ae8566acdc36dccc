"""What a cached card claims, checked before it is used.

A cache entry carries its own checksums, so they only prove that the columns are the ones its meta
describes, not that the meta describes a card: an entry written by other code, or crafted, can have
consistent checksums and name ids past the end of the strings, lanes or slices, unsorted index rows, or
chunks past the end of their file. Each of those would raise far from here (an ``IndexError`` in a view),
read gigabytes (an args lookup) or give wrong numbers without a word. ``check_entry`` raises
``CorruptEntry`` for any of them; the cache then deletes the entry and the card is loaded from its file.
Every check is one vectorised pass over columns the checksum has just read.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from timelineview.model.store.args_reader import ChunkTable
from timelineview.model.store.file_stamp import FileStamp
from timelineview.model.store.trace_store import TraceStore

NONE = -1  # "no string", "no slice": the one id below zero a column may hold


class CorruptEntry(ValueError):
    """A cache entry that does not hold what its meta says, or does not describe a card."""


def check_ids(what: str, ids: np.ndarray, count: int, none_ok: bool = False) -> None:
    """Every id of ``ids`` indexes a table of ``count`` rows (or is ``NONE`` where allowed)."""
    if len(ids) == 0:
        return
    low = NONE if none_ok else 0
    if int(ids.min()) < low or int(ids.max()) >= count:
        raise CorruptEntry(f"{what}: an id outside its table of {count}")


def _pointers(what: str, ptr: np.ndarray, rows: int, total: int) -> None:
    """``ptr`` cuts ``total`` items into ``rows`` consecutive runs: from 0 to ``total``, never backwards."""
    if len(ptr) != rows + 1 or int(ptr[0]) != 0 or int(ptr[-1]) != total or bool((np.diff(ptr) < 0).any()):
        raise CorruptEntry(f"{what}: pointers that do not cut the table in order")


def check_slices(store: TraceStore) -> None:
    """Slices name existing strings and lanes, with times an analysis can add up."""
    sl, n_strings = store.slices, len(store.strings)
    check_ids("slices.name", sl.name, n_strings)
    check_ids("slices.cat", sl.cat, n_strings, none_ok=True)
    check_ids("slices.task_type", sl.task_type, n_strings, none_ok=True)
    check_ids("slices.lane", sl.lane, len(store.lanes))
    if len(sl) and (int(sl.dur.min()) < 0 or int(sl.depth.min()) < 0 or int(sl.src.min()) < 0):
        raise CorruptEntry("slices: a negative duration, depth or event ordinal")
    if len(sl) and int(sl.start.max()) > np.iinfo(np.int64).max - int(sl.dur.max()):
        raise CorruptEntry("slices: an end past the largest time")


def check_tables(store: TraceStore) -> None:
    """Lanes, counters, instants and flows point into the tables they name."""
    n_lanes, n_strings, n_slices = len(store.lanes), len(store.strings), len(store.slices)
    check_ids("lanes.process", store.lanes.process, len(store.processes))
    c = store.counters
    check_ids("counters.series_process", c.series_process, len(store.processes))
    _pointers("counters.offsets", c.offsets, len(c), len(c.ts))
    check_ids("instants.lane", store.instants.lane, n_lanes)
    check_ids("instants.name", store.instants.name, n_strings)
    flows = store.flows
    check_ids("flows.cat", flows.cat, n_strings, none_ok=True)
    for end in ("src", "dst"):
        check_ids(f"flows.{end}_lane", getattr(flows, f"{end}_lane"), n_lanes)
        check_ids(f"flows.{end}_slice", getattr(flows, f"{end}_slice"), n_slices, none_ok=True)


def check_index(store: TraceStore) -> None:
    """The interval index holds every slice once, each row sorted by its slices' starts, in rows of existing
    lanes."""
    ix, sl, n_lanes = store.index, store.slices, len(store.lanes)
    if ix is None:
        raise CorruptEntry("index: missing")
    n_rows = len(ix.row_lane)
    check_ids("index.row_lane", ix.row_lane, n_lanes)
    _pointers("index.row_ptr", ix.row_ptr, n_rows, len(ix.order))
    check_ids("index.order", ix.order, len(sl))
    if len(ix.order) != len(sl) or (len(sl) and int(np.bincount(ix.order, minlength=len(sl)).max()) != 1):
        raise CorruptEntry("index.order: not every slice exactly once")
    starts = sl.start[ix.order]  # (not ``ix.starts``: a check keeps nothing)
    backwards = np.flatnonzero(starts[1:] < starts[:-1]) + 1  # positions where a start goes back
    if len(backwards) and not np.isin(backwards, ix.row_ptr).all():  # allowed only where a row begins
        raise CorruptEntry("index: a row not sorted by start")
    first, count = ix.lane_first_row, ix.lane_row_count
    if len(first) != n_lanes or len(count) != n_lanes:
        raise CorruptEntry("index: rows per lane of another card")
    if n_lanes and (int(count.min()) < 0 or int(first.min()) < 0 or int((first + count).max()) > n_rows):
        raise CorruptEntry("index: a lane's rows outside the index")


def check_chunks(chunks: ChunkTable, sizes: Mapping[str, FileStamp | None], n_ordinals: int) -> None:
    """The args reader's chunks lie inside their files as they are now and number the events in order,
    covering every slice's event ordinal (``n_ordinals`` = the largest + 1)."""
    start, end, first, count = chunks.start, chunks.end, chunks.first, chunks.count
    if len(start) == 0:
        return
    if int(start.min()) < 0 or bool((end < start).any()) or int(count.min()) < 0:
        raise CorruptEntry("chunks: a negative or reversed range")
    for path in set(chunks.path):
        stamp = sizes.get(path)
        here = np.array([p == path for p in chunks.path])
        if stamp is None or int(end[here].max()) > stamp.size:
            raise CorruptEntry(f"chunks: a range past the end of {path}")
    if int(first[0]) != 0 or not np.array_equal(first[1:], first[:-1] + count[:-1]):
        raise CorruptEntry("chunks: event ordinals that do not follow each other")
    if n_ordinals > int(first[-1] + count[-1]):
        raise CorruptEntry("chunks: slices whose events no chunk holds")


def check_entry(store: TraceStore) -> None:
    """Everything ``TraceStore`` promises its readers, checked on an entry just opened (chunks aside:
    ``check_chunks``)."""
    check_slices(store)
    check_tables(store)
    check_index(store)
