"""Counter tables (``AICORE_FREQ``, ``HBM``, ``LLC``, ``NPU_MEM``, ``ACC_PMU``, …) → ``CounterTable``
series named as the JSON generation names its ``C`` events (``layout.COUNTERS``)."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database.devices import DEVICE_COLUMN
from timelineview.model.database.lanes import LaneBook
from timelineview.model.database.layout import COUNTERS, TEXT_SPELLING, CounterSpec
from timelineview.model.database.progress import RowMeter
from timelineview.model.database.sqlite.tables import Schema, read_or_salvage
from timelineview.model.database.strings import CardStrings
from timelineview.model.store.trace_store import CounterTable


def read_counters(conn: sqlite3.Connection, schema: Schema, book: LaneBook, strings: CardStrings,
                  notes: list[str], read: dict[str, int], meter: RowMeter | None = None,
                  device: int | None = None) -> list:
    """Series as (provisional process, name, counter, key, ts, values), in ``COUNTERS`` order; the
    rows read go to ``meter``; with ``device``, only the rows of that device (of a table with a
    ``deviceId``)."""
    meter = meter or RowMeter()
    series: list = []
    for spec in COUNTERS:
        if spec.table not in schema.columns:
            continue
        wanted = (spec.time, *spec.group, *(v[0] for v in spec.values))
        missing = schema.missing(spec.table, wanted)
        if missing:
            notes.append(f"table {spec.table} lacks column(s) {', '.join(missing)}: not read")
            continue
        kinds = {spec.time: "int", **{g: "int" for g in spec.group}, **{v[0]: "real" for v in spec.values}}
        scoped = device is not None and schema.has(spec.table, DEVICE_COLUMN) and DEVICE_COLUMN not in kinds
        if scoped:
            kinds[DEVICE_COLUMN] = "int"
        cols = read_or_salvage(conn, spec.table, kinds, notes, progress=meter.step(spec.table))
        meter.table_done(spec.table)
        if cols is None:
            continue
        if scoped:
            keep = cols.pop(DEVICE_COLUMN) == device
            cols = {name: col[keep] for name, col in cols.items()}
        read[spec.table] = len(cols[spec.time])
        series.extend(_series(spec, cols, book, strings))
    return series


def _series(spec: CounterSpec, cols: dict[str, np.ndarray], book: LaneBook, strings: CardStrings) -> list:
    proc = book.process(spec.process)
    n = len(cols[spec.time])
    if spec.group:
        key = np.stack([cols[g] for g in spec.group], axis=1)
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
    else:
        uniq, inverse = np.zeros((1, 0), np.int64), np.zeros(n, np.int64)
    out = []
    for gi, values in enumerate(uniq.tolist()):
        fields = {}
        for g, v in zip(spec.group, values, strict=True):
            text = strings.value(v) if g in spec.text_group else None
            fields[g] = TEXT_SPELLING.get(text, text[:1].upper() + text[1:]) if text else str(v)
        sel = np.flatnonzero(inverse == gi)
        ts = cols[spec.time][sel]
        order = np.argsort(ts, kind="stable")
        for column, name_fmt, key_fmt, divisor in spec.values:
            out.append((proc, name_fmt.format(**fields), key_fmt.format(**fields), ts[order],
                        cols[column][sel][order] / divisor))
    return out


def counter_table(series: list, process_remap: np.ndarray) -> CounterTable:
    """The card's ``CounterTable`` (series in the given order; one key per counter name)."""
    if not series:
        return CounterTable(np.zeros(0, np.int32), [], [], [], np.zeros(0, np.int64), np.zeros(0),
                            np.zeros(1, np.int64))
    lengths = np.array([len(s[3]) for s in series], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return CounterTable(
        series_process=np.array([process_remap[s[0]] for s in series], dtype=np.int32),
        series_name=[s[1] for s in series], series_counter=[s[1] for s in series],
        series_key=[s[2] for s in series],
        ts=np.concatenate([s[3] for s in series]).astype(np.int64),
        value=np.concatenate([s[4] for s in series]).astype(np.float64),
        offsets=offsets,
    )
