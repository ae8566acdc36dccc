"""Build a ``TraceStore`` straight from columns: for tests, benchmarks and generated data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from timelineview.model.store.interval_index import build_index
from timelineview.model.store.report import LoadReport
from timelineview.model.store.trace_store import (
    CounterTable,
    FlowTable,
    InstantTable,
    LaneTable,
    ProcessTable,
    SliceColumns,
    TraceStore,
)


def empty_counters() -> CounterTable:
    return CounterTable(np.zeros(0, np.int32), [], [], [], np.zeros(0, np.int64), np.zeros(0),
                        np.zeros(1, np.int64))


def empty_instants() -> InstantTable:
    return InstantTable(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int64))


def empty_flows() -> FlowTable:
    z64, z32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
    return FlowTable(z64, z32, np.zeros(0, np.int64), z64, z32, z64, z64, z32, z64)


def store_from_columns(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, name: np.ndarray,
                       strings: list[str], processes: ProcessTable, lanes: LaneTable, *,
                       task_type: np.ndarray | None = None, cat: np.ndarray | None = None,
                       card: str = "rank 0", rank: int | None = 0, paths: Sequence[str] = ("card.json",),
                       args: Callable[[np.ndarray], list] | None = None,
                       counters: CounterTable | None = None, flows: FlowTable | None = None,
                       instants: InstantTable | None = None, generation: str = "test") -> TraceStore:
    """A store over the given slices (any order), with its interval index built.

    ``args`` maps event ordinals (here: slice positions) to args dicts, like the loader's
    lazy reader.
    """
    n = len(start)
    start = np.asarray(start, dtype=np.int64)
    dur = np.asarray(dur, dtype=np.int64)
    lane = np.asarray(lane, dtype=np.int32)
    index, depth, overlapping = build_index(start, dur, lane, len(lanes))
    report = LoadReport()
    report.counts_by_ph = Counter({"X": n})
    report.overlapping_slices = overlapping
    minus = np.full(n, -1, dtype=np.int32)
    return TraceStore(
        card=card,
        rank=rank,
        paths=[Path(p) for p in paths],
        strings=strings,
        processes=processes,
        lanes=lanes,
        slices=SliceColumns(start=start, dur=dur, lane=lane, name=np.asarray(name, dtype=np.int32),
                            cat=minus if cat is None else np.asarray(cat, dtype=np.int32),
                            task_type=minus if task_type is None else np.asarray(task_type, dtype=np.int32),
                            depth=depth, src=np.arange(n, dtype=np.int64), flags=np.zeros(n, dtype=np.uint8)),
        counters=counters or empty_counters(),
        instants=instants or empty_instants(),
        flows=flows or empty_flows(),
        report=report,
        generation=generation,
        index=index,
        _args_reader=args,
    )
