"""The trace's own memory counters as memory curves: the ``C`` events of its ``NPU MEM`` process.

torch_npu and msprof write, per sample, ``APP/HBM``, ``APP/DDR``, ``APP/Memory`` (the application's
device memory: HBM, DDR and their sum) and the same for ``Device`` (the whole device's, every process
and the driver included), each with one args key naming the unit (``KB``). They are the figures of
``memory_record.csv``'s ``APP`` rows (there in MB) and of the database's ``NPU_MEM`` table, so each
owner becomes a component named as that table's ``type`` (``APP``, ``DEVICE``) with its reserved
memory only: a counter knows neither what was allocated inside that memory nor which blocks. Its
value is the ``…/Memory`` series, else ``…/HBM`` + ``…/DDR`` sampled together, else ``…/HBM`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.memory.records import (
    BAD_NUMBER,
    EXAMPLES_PER_CHECK,
    MISSING,
    MemoryCurves,
    MemoryRecords,
    MemoryReport,
    Names,
    concat,
)
from timelineview.model.store.trace_store import CounterTable, ProcessTable
from timelineview.producers.ascend import MEMORY_DDR, MEMORY_HBM, MEMORY_PROCESS, MEMORY_TOTAL

NPU_MEM_PROCESS = MEMORY_PROCESS.upper()  # compared upper-case
COUNTER_SOURCE = f"trace counters ({MEMORY_PROCESS})"  # named in a card's memory ``sources``
TOTAL, HBM, DDR = MEMORY_TOTAL, MEMORY_HBM, MEMORY_DDR  # the kinds of one owner's series: TOTAL = HBM + DDR
UNIT_BYTES = {"b": 1, "byte": 1, "bytes": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}  # the args key


@dataclass(frozen=True)
class _Series:
    """One memory counter series of the trace: its place in the counter table and its unit."""

    index: int
    counter: str
    unit_bytes: int


def _unit(key: str) -> int | None:
    """Bytes per unit of an args key such as ``KB`` or ``Size(MB)`` (None: no size unit)."""
    k = key.strip().lower()
    if "(" in k and k.endswith(")"):
        k = k[k.rindex("(") + 1:-1]
    return UNIT_BYTES.get(k)


def _memory_series(counters: CounterTable, processes: ProcessTable, report: MemoryReport
                   ) -> dict[str, dict[str, _Series]]:
    """The ``NPU MEM`` series by owner (``APP``, ``DEVICE``) then kind (``Memory``, ``HBM``, ``DDR``)."""
    out: dict[str, dict[str, _Series]] = {}
    for i in range(len(counters)):
        p = int(counters.series_process[i])
        if not 0 <= p < len(processes) or " ".join(processes.name[p].split()).upper() != NPU_MEM_PROCESS:
            continue
        counter = counters.series_counter[i]
        owner, _, kind = counter.rpartition("/")
        unit = _unit(counters.series_key[i])
        if not owner.strip() or kind.strip() not in (TOTAL, HBM, DDR):
            continue
        if unit is None:
            report.warn(f"trace counter {counter}: unit {counters.series_key[i]!r} is no size, not read")
            continue
        out.setdefault(owner.strip().upper(), {})[kind.strip()] = _Series(i, counter, unit)
    return out


def _bytes(counters: CounterTable, s: _Series, report: MemoryReport) -> tuple[np.ndarray, np.ndarray]:
    """(ns, bytes) of a series; a sample that is no finite size ≥ 0 is dropped and counted."""
    ts, values = counters.series(s.index)
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        where = np.flatnonzero(bad)
        places = [f"trace counter {s.counter} sample {int(k) + 1}" for k in where[:EXAMPLES_PER_CHECK + 1]]
        report.drop_rows(BAD_NUMBER, places[:EXAMPLES_PER_CHECK], len(where) - EXAMPLES_PER_CHECK, places[-1])
    keep = ~bad
    return ts[keep].astype(np.int64), np.rint(values[keep] * s.unit_bytes).astype(np.int64)


def _owner_curve(counters: CounterTable, kinds: dict[str, _Series], report: MemoryReport
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(ns, reserved bytes) of one owner: its total, else HBM + DDR when sampled together, else HBM (or DDR)."""
    if TOTAL in kinds:
        return _bytes(counters, kinds[TOTAL], report)
    if HBM in kinds and DDR in kinds:
        t_h, hbm = _bytes(counters, kinds[HBM], report)
        t_d, ddr = _bytes(counters, kinds[DDR], report)
        if np.array_equal(t_h, t_d):
            return t_h, hbm + ddr
    return _bytes(counters, kinds[HBM] if HBM in kinds else kinds[DDR], report)


def counter_curves(counters: CounterTable, processes: ProcessTable, names: Names, report: MemoryReport
                   ) -> MemoryCurves:
    """The trace's memory counters as one reserved curve per owner (allocated and active unknown)."""
    parts = []
    for owner, kinds in sorted(_memory_series(counters, processes, report).items()):
        t, reserved = _owner_curve(counters, kinds, report)
        if not len(t):
            continue
        missing = np.full(len(t), MISSING, dtype=np.int64)
        component = np.full(len(t), names.id(owner), dtype=np.int32)
        parts.append(MemoryCurves(component, t, missing, reserved, missing.copy()))
    return concat(parts, MemoryCurves)


def add_counter_curves(records: MemoryRecords, counters: CounterTable, processes: ProcessTable) -> MemoryRecords:
    """``records`` with the trace's memory counters added as curves of the components they lack (the
    records win where both give a component: they are the finer); ``COUNTER_SOURCE`` joins the sources
    when a curve was added."""
    curves = counter_curves(counters, processes, records.names, records.report)
    if not len(curves):
        return records
    new = ~np.isin(curves.component, np.unique(records.curves.component))
    if not new.any():
        return records
    added = MemoryCurves(curves.component[new], curves.time_ns[new], curves.allocated[new], curves.reserved[new],
                         curves.active[new])
    records.curves = concat([records.curves, added], MemoryCurves)
    records.sources.append(COUNTER_SOURCE)
    return records
