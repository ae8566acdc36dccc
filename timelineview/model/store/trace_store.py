"""Columnar store of one card: slices, lanes, counters, instants and flows.

Everything is numpy columns; strings are interned into ``TraceStore.strings``.
Times are absolute int64 nanoseconds as written in the file (``t_origin`` is the
first slice start, handy for relative display).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from timelineview.model.store.report import LoadReport

if TYPE_CHECKING:
    from timelineview.model.store.interval_index import IntervalIndex

# Slice flags
FLAG_OPEN = 1  # an unclosed ``B``: drawn to the end of the trace
FLAG_FROM_BE = 2  # built from a ``B``/``E`` pair


@dataclass
class ProcessTable:
    """Processes of one card in display order."""

    pid: list[str]  # raw pid token, as text
    name: list[str]  # display name
    label: list[str]  # ``process_labels`` or ""
    sort_index: np.ndarray  # int64, producer's sort index (or the fallback order)

    def __len__(self) -> int:
        return len(self.pid)


@dataclass
class LaneTable:
    """Thread/stream lanes of one card in display order: lane i is drawn i-th."""

    process: np.ndarray  # int32 index into ProcessTable
    tid: list[str]  # raw tid token, as text
    name: list[str]  # display name
    sort_index: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.tid)


@dataclass
class SliceColumns:
    """One row per slice (``X`` events and completed or open ``B``/``E`` pairs)."""

    start: np.ndarray  # int64 ns
    dur: np.ndarray  # int64 ns (>= 0)
    lane: np.ndarray  # int32 into LaneTable
    name: np.ndarray  # int32 into strings
    cat: np.ndarray  # int32 into strings, -1 when absent
    task_type: np.ndarray  # int32 into strings (the hardware task type in args), -1 when absent
    depth: np.ndarray  # int16 row within the lane (nesting depth, then extra rows)
    src: np.ndarray | None  # int64 ordinal of the event in the card's files (for lazy args); None where that
    # is the slice's own number (a database card, whose args are found by slice)
    flags: np.ndarray  # uint8, FLAG_*

    def __len__(self) -> int:
        return len(self.start)

    def ordinals(self, slice_indices: np.ndarray) -> np.ndarray:
        """The args reader's ordinals of these slices."""
        slice_indices = np.asarray(slice_indices, dtype=np.int64)
        return slice_indices if self.src is None else self.src[slice_indices]

    @property
    def end(self) -> np.ndarray:
        """``start + dur``, computed once for these two columns (the analyses of one card ask for it
        about twenty times) and read-only, since every caller shares it."""
        kept = self.__dict__.get("_end")
        if kept is None or kept[0] is not self.start or kept[1] is not self.dur:
            end = self.start + self.dur
            end.setflags(write=False)
            kept = self.__dict__["_end"] = (self.start, self.dur, end)
        return kept[2]


@dataclass
class CounterTable:
    """``C`` events: one series per (process, counter name, args key)."""

    series_process: np.ndarray  # int32 into ProcessTable, per series
    series_name: list[str]  # "<counter name>" or "<counter name>.<key>" when several keys
    series_counter: list[str]  # counter event name
    series_key: list[str]  # args key
    ts: np.ndarray  # int64 ns, grouped by series then sorted by time
    value: np.ndarray  # float64
    offsets: np.ndarray  # int64, series i is ts[offsets[i]:offsets[i+1]]

    def __len__(self) -> int:
        return len(self.series_name)

    def series(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.offsets[i], self.offsets[i + 1]
        return self.ts[a:b], self.value[a:b]


@dataclass
class InstantTable:
    """``i``/``I`` events."""

    ts: np.ndarray  # int64 ns
    lane: np.ndarray  # int32
    name: np.ndarray  # int32 into strings
    src: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.ts)

    def by_lane(self, n_lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(lane_ptr, ts, name, src) with the instants of lane k at
        ``lane_ptr[k]:lane_ptr[k + 1]``, in time order."""
        order = np.lexsort((self.ts, self.lane))
        lane_ptr = np.searchsorted(self.lane[order], np.arange(n_lanes + 1)).astype(np.int64)
        return lane_ptr, self.ts[order], self.name[order], self.src[order]


@dataclass
class FlowTable:
    """Flow arrows, one row per edge (``s``→``t``/``f``, fan-out gives several rows).

    ``*_slice`` is the bound slice index or -1 when no slice encloses/follows the point.
    """

    src_event: np.ndarray  # int64 (int32 on a database card) card ordinal of the start point (its name:
    # ``TraceStore.flow_name``)
    cat: np.ndarray  # int32 into strings
    flow_id: np.ndarray  # per edge: int64 when every id is an integer, else text (object)
    src_ts: np.ndarray  # int64 ns
    src_lane: np.ndarray  # int32
    src_slice: np.ndarray  # int64 (int32 on a database card)
    dst_ts: np.ndarray
    dst_lane: np.ndarray
    dst_slice: np.ndarray

    def __len__(self) -> int:
        return len(self.src_ts)

    def of_slice(self, i: int) -> np.ndarray:
        """Edge indices touching slice ``i`` (either end)."""
        return np.flatnonzero((self.src_slice == i) | (self.dst_slice == i))


class LazyFlowTable:
    """A ``FlowTable`` bound on first use: binding flows to slices costs load time that
    only matters once somebody looks at an arrow. Built once however many threads ask at
    once (the GUI draws arrows while a query job reads the flows); pickled unbuilt (a
    database card's build is a picklable partial)."""

    def __init__(self, build: Callable[[], FlowTable]) -> None:
        self._build: Callable[[], FlowTable] | None = build
        self._table: FlowTable | None = None
        self._lock = threading.Lock()

    def resolve(self) -> FlowTable:
        with self._lock:
            if self._table is None:
                assert self._build is not None
                self._table, self._build = self._build(), None
            return self._table

    def __getattr__(self, name: str):
        if name.startswith("_"):  # this object's own state (absent while unpickling): never the table's
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __len__(self) -> int:
        return len(self.resolve())

    def __getstate__(self) -> dict:
        return {"_build": self._build, "_table": self._table}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


@dataclass
class TraceStore:
    """Everything loaded for one card (one rank)."""

    card: str  # "rank 0" or the file stem
    rank: int | None
    paths: list[Path]
    strings: list[str]
    processes: ProcessTable
    lanes: LaneTable
    slices: SliceColumns
    counters: CounterTable
    instants: InstantTable
    flows: FlowTable | LazyFlowTable
    report: LoadReport
    generation: str = "unknown"
    index: IntervalIndex | None = None
    _args_reader: Callable[[np.ndarray], list[dict[str, Any] | None]] | None = field(
        default=None, repr=False
    )
    _string_ids: dict[str, int] | None = field(default=None, repr=False)
    _span: tuple | None = field(default=None, repr=False, compare=False)  # (columns it is of, span_ns)
    cache_entry: Path | None = field(default=None, repr=False, compare=False)  # its folder in the card cache

    @property
    def args_reader(self) -> Callable[[np.ndarray], list[dict[str, Any] | None]] | None:
        """What reads the card's ``args`` on demand (None: a card without them); its kind says where they
        live (a database card's reader locates each slice's row of the producer's tables)."""
        return self._args_reader

    @property
    def t_origin(self) -> int:
        """First slice start (ns), or 0 for an empty card."""
        return self.span_ns()[0]

    @property
    def t_end(self) -> int:
        """Last slice end (ns), or 0 for an empty card."""
        return self.span_ns()[1]

    def span_ns(self) -> tuple[int, int]:
        """(first start, last end) of the slices, a pass over them once per slice columns (the card cache
        gives it with the columns: ``known_span``)."""
        sl = self.slices
        key = (id(sl), id(sl.start), id(sl.dur), len(sl))
        if self._span is None or self._span[0] != key:
            span = (int(sl.start.min()), int(sl.end.max())) if len(sl) else (0, 0)
            self._span = (key, span)
        return self._span[1]

    def known_span(self, span: tuple[int, int]) -> None:
        """Take ``span`` as ``span_ns`` of the current slice columns (computed when they were saved)."""
        sl = self.slices
        self._span = ((id(sl), id(sl.start), id(sl.dur), len(sl)), (int(span[0]), int(span[1])))

    def string_id(self, s: str) -> int:
        """Id of an interned string, or -1."""
        if self._string_ids is None:
            self._string_ids = {v: i for i, v in enumerate(self.strings)}
        return self._string_ids.get(s, -1)

    def lane_full_name(self, lane: int) -> str:
        p = int(self.lanes.process[lane])
        return f"{self.processes.name[p]} / {self.lanes.name[lane]}"

    def lanes_of_process(self, p: int) -> np.ndarray:
        return np.flatnonzero(self.lanes.process == p)

    def args(self, slice_index: int) -> dict[str, Any] | None:
        """The ``args`` object of one slice, decoded from the file on demand. Raises
        ``args_reader.TraceFileChanged`` (an ``OSError``) when the file is no longer the one
        the card was loaded from."""
        return self.args_many(np.array([slice_index]))[0]

    def event_args(self, ordinal: int) -> dict[str, Any] | None:
        """The ``args`` object of the event at a card ordinal (an instant's ``src``), read
        from the file on demand."""
        if self._args_reader is None:
            return None
        return self._args_reader(np.array([ordinal], dtype=np.int64))[0]

    def flow_name(self, edge: int) -> str:
        """Name of a flow (its start point's), read from the file on demand: torch_npu names
        most flows uniquely, so keeping the names would cost a string per flow. Plain "flow"
        when the file changed or went away since the load (``args`` raises then)."""
        if self._args_reader is not None and hasattr(self._args_reader, "event"):
            try:
                event = self._args_reader.event(int(self.flows.src_event[edge]))
            except OSError:
                return "flow"
            if event is not None and isinstance(event.get("name"), str):
                return event["name"]
        return "flow"

    def slice_files(self) -> np.ndarray | None:
        """For each slice, the index of the file it was read from among the card's distinct files
        (in load order), or None when that is not known (a card built without its files)."""
        chunks = getattr(self._args_reader, "chunks", None)
        if chunks is None or not len(chunks.first) or self.slices.src is None:
            return None
        distinct: dict[str, int] = {}
        file_of_chunk = np.array([distinct.setdefault(p, len(distinct)) for p in chunks.path], dtype=np.int64)
        k = np.searchsorted(np.asarray(chunks.first), self.slices.src, side="right") - 1
        return file_of_chunk[np.clip(k, 0, len(file_of_chunk) - 1)]

    def args_many(self, slice_indices: np.ndarray) -> list[dict[str, Any] | None]:
        """``args`` of several slices (one file read per chunk touched)."""
        if self._args_reader is None:
            return [None] * len(slice_indices)
        return self._args_reader(self.slices.ordinals(slice_indices))

    def args_many_as(self, slice_indices: np.ndarray, args_type: type) -> list:
        """``args`` of several slices decoded into ``args_type`` (a msgspec ``Struct`` naming the keys
        wanted: only those are built), None where a slice has none. For many slices of a large card,
        several times faster than ``args_many``; the same values. Raises as ``args`` does when the
        file changed."""
        from timelineview.model.store.args_reader import convert_args  # (the decoders: not needed to hold a card)

        as_type = getattr(self._args_reader, "args_as", None)
        if as_type is None:  # a card built in memory, or read from a database
            return [convert_args(a, args_type) for a in self.args_many(slice_indices)]
        return as_type(self.slices.ordinals(slice_indices), args_type)
