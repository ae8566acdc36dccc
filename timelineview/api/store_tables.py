"""Tables read from the loaded columns of each card (``TraceStore``), without the analysis: slices,
counters, flows and instants. Numeric columns are handed to Arrow as the store's numpy buffers (no copy);
text columns are dictionary-encoded from the store's interned ids and its string table."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from timelineview.api.schema import DICT, DOUBLE, INT16, INT32, INT64, STRING, Column, TableSource, TableSpec
from timelineview.model.store.trace_store import TraceStore

CARD_COLUMNS = (Column("card", DICT, "the card's name (\"rank 0\", or the file's stem)"),
                Column("rank", INT32, "the card's rank; null when the input does not say"))
NO_ID = -1  # the stores' "absent" code (a slice without category, a flow end bound to no slice)


def _pa():
    from timelineview.api.extras import require

    return require("pyarrow")


def dictionary(codes: np.ndarray, values: list[str], absent: np.ndarray | None = None):
    """A dictionary-encoded text column: ``values[codes[i]]`` per row (null where ``absent``). The codes are
    shared with Arrow when they are int32 and ``values`` are distinct, else remapped onto distinct values."""
    pa = _pa()
    codes = np.asarray(codes)
    if len(set(values)) != len(values):  # e.g. two processes both with a lane "Stream 2"
        distinct: dict[str, int] = {}
        remap = np.array([distinct.setdefault(v, len(distinct)) for v in values] or [0], dtype=np.int32)
        codes = remap[np.where(codes < 0, 0, codes)] if len(codes) else codes.astype(np.int32)
        values = list(distinct)
    if codes.dtype != np.int32:
        codes = codes.astype(np.int32)
    if absent is not None and absent.any():  # the codes under a null are not read: -1 stays, no copy
        indices = pa.array(codes, mask=absent)
    else:
        indices = pa.array(codes)
    return pa.DictionaryArray.from_arrays(indices, pa.array(values, pa.string()))


def card_columns(store: TraceStore, n: int) -> list:
    """The ``card`` and ``rank`` columns of ``n`` rows of ``store``."""
    pa = _pa()
    card = dictionary(np.zeros(n, dtype=np.int32), [store.card])
    rank = pa.nulls(n, pa.int32()) if store.rank is None else pa.array(np.full(n, store.rank, dtype=np.int32))
    return [card, rank]


def _table(spec: TableSpec, source: TableSource, one_card: Callable[[TraceStore], list]) -> object:
    """The rows of every card by rank (one Arrow chunk per card), or an empty table of ``spec``'s schema."""
    pa = _pa()
    schema = spec.arrow_schema()
    parts = [pa.Table.from_arrays(one_card(source.stores[i]), schema=schema) for i in source.order]
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _spec(name: str, doc: str, columns: tuple[Column, ...], one_card: Callable[[TraceStore], list]) -> TableSpec:
    """A table of the loaded columns: ``one_card(store)`` gives one card's arrays, in ``columns``' order."""
    spec = TableSpec(name, doc, columns, lambda source: _table(spec, source, one_card), needs_analysis=False)
    return spec


def lane_process(store: TraceStore, lanes: np.ndarray) -> np.ndarray:
    """The process (index into the process table) of each lane in ``lanes``."""
    return np.asarray(store.lanes.process, dtype=np.int32)[lanes] if len(lanes) else np.zeros(0, np.int32)


def lane_columns(store: TraceStore, lanes: np.ndarray, absent: np.ndarray | None = None) -> list:
    """The ``process`` and ``thread`` columns of rows on ``lanes`` (null where ``absent``)."""
    if absent is not None and absent.any():
        lanes = np.where(absent, 0, lanes)
    return [dictionary(lane_process(store, lanes), list(store.processes.name), absent),
            dictionary(lanes, list(store.lanes.name), absent)]


def _slices(store: TraceStore) -> list:
    s = store.slices
    n = len(s)
    return [*card_columns(store, n), *lane_columns(store, np.asarray(s.lane)),
            dictionary(s.name, store.strings),
            dictionary(s.cat, store.strings, absent=np.asarray(s.cat) < 0),
            _pa().array(np.asarray(s.start)), _pa().array(np.asarray(s.dur)), _pa().array(s.end),
            _pa().array(np.asarray(s.depth)), _pa().array(np.arange(n, dtype=np.int64))]


SLICES = _spec("slices", "one row per slice (complete event or B/E pair) of every card", (
    *CARD_COLUMNS,
    Column("process", DICT, "the process (display name) of the slice's lane"),
    Column("thread", DICT, "the slice's lane: a thread or stream (display name)"),
    Column("name", DICT, "the slice's name"),
    Column("category", DICT, "its category (cat); null when absent"),
    Column("start_ns", INT64, "start, ns on the card's own clock as written in its file"),
    Column("dur_ns", INT64, "duration, ns"),
    Column("end_ns", INT64, "start_ns + dur_ns"),
    Column("depth", INT16, "row within its lane (nesting depth)"),
    Column("id", INT64, "the slice's number in its card: (card, id) names one slice (the Query tab jumps to it)"),
), _slices)


def _counters(store: TraceStore) -> list:
    c = store.counters
    pa = _pa()
    offsets = np.asarray(c.offsets, dtype=np.int64)
    series = np.repeat(np.arange(len(c), dtype=np.int32), np.diff(offsets)) if len(c) else np.zeros(0, np.int32)
    process = np.asarray(c.series_process, dtype=np.int32)[series] if len(series) else series
    return [*card_columns(store, len(series)), dictionary(process, list(store.processes.name)),
            dictionary(series, list(c.series_counter)), dictionary(series, list(c.series_key)),
            dictionary(series, list(c.series_name)),
            pa.array(np.asarray(c.ts, dtype=np.int64)), pa.array(np.asarray(c.value, dtype=np.float64))]


COUNTERS = _spec("counters", "one row per counter sample (C events): a series is one (process, counter, key)", (
    *CARD_COLUMNS,
    Column("process", DICT, "the counter's process"),
    Column("counter", DICT, "the counter event's name"),
    Column("key", DICT, "the args key of the value"),
    Column("series", DICT, "\"<counter>\" or \"<counter>.<key>\" when the counter has several keys"),
    Column("ts_ns", INT64, "sample time, ns on the card's own clock"),
    Column("value", DOUBLE, "the sample's value"),
), _counters)


def _slice_ids(pa, ids: np.ndarray):
    ids = np.asarray(ids, dtype=np.int64)
    absent = ids < 0
    return pa.array(ids, mask=absent) if absent.any() else pa.array(ids)


def _flows(store: TraceStore) -> list:
    f = store.flows
    pa = _pa()
    n = len(f)
    src_lane, dst_lane = np.asarray(f.src_lane, dtype=np.int32), np.asarray(f.dst_lane, dtype=np.int32)
    ids = np.asarray(f.flow_id)  # int64, or text (object) when some id is not an integer
    flow_ids = pa.array(ids.astype(str) if ids.dtype == object else ids).cast(pa.string())
    return [*card_columns(store, n), flow_ids, dictionary(f.cat, store.strings, np.asarray(f.cat) < 0),
            pa.array(np.asarray(f.src_ts, dtype=np.int64)), *lane_columns(store, src_lane, src_lane < 0),
            _slice_ids(pa, f.src_slice),
            pa.array(np.asarray(f.dst_ts, dtype=np.int64)), *lane_columns(store, dst_lane, dst_lane < 0),
            _slice_ids(pa, f.dst_slice)]


FLOWS = _spec("flows", "one row per flow arrow (s → t/f; a fan-out gives several rows)", (
    *CARD_COLUMNS,
    Column("flow_id", STRING, "the flow's id as written in the file"),
    Column("category", DICT, "its category; null when absent"),
    Column("src_ts_ns", INT64, "the start point's time, ns"),
    Column("src_process", DICT, "the start point's process"),
    Column("src_thread", DICT, "the start point's lane"),
    Column("src_slice", INT64, "id (in slices) of the slice holding the start point; null when none"),
    Column("dst_ts_ns", INT64, "the end point's time, ns"),
    Column("dst_process", DICT, "the end point's process"),
    Column("dst_thread", DICT, "the end point's lane"),
    Column("dst_slice", INT64, "id (in slices) of the slice bound to the end point; null when none"),
), _flows)


def _instants(store: TraceStore) -> list:
    i = store.instants
    return [*card_columns(store, len(i)), *lane_columns(store, np.asarray(i.lane, dtype=np.int32)),
            dictionary(i.name, store.strings),
            _pa().array(np.asarray(i.ts, dtype=np.int64))]


INSTANTS = _spec("instants", "one row per instant event (i/I)", (
    *CARD_COLUMNS,
    Column("process", DICT, "the instant's process"),
    Column("thread", DICT, "its lane"),
    Column("name", DICT, "its name"),
    Column("ts_ns", INT64, "its time, ns on the card's own clock"),
), _instants)
