"""Operator descriptions of a JSON trace's compute tasks from the producer's ``kernel_details.csv`` beside it.

Each row of the table names the task it describes by its stream (the hardware lane's thread id), its task
id and its start (µs with the ns digits, as the trace writes the task's ``ts``). A row is matched to the
compute task on that stream that starts at that instant (the nearest within ``MATCH_TOLERANCE_NS``): the
start alone tells the tasks of one stream apart, so no task's args need reading.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from timelineview.analysis.kernels.table import NO_VALUE, SOURCE_KERNEL_DETAILS, Interner
from timelineview.analysis.kernels.task_sources.source_result import SourceResult, shape_text
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import torch_npu

FILE_PATTERN = torch_npu.KERNEL_DETAILS_FILES
MATCH_TOLERANCE_NS = 1000  # a row's start and its task's, both written from one clock, differ by rounding only
PMU_COLUMN = torch_npu.KERNEL_DETAILS_PMU_COLUMN  # the PMU figures the table carries per task
MISSING_TEXT = ("", "N/A")
COLUMNS = torch_npu.KERNEL_DETAILS_COLUMNS
DYNAMIC_STATE = torch_npu.KERNEL_DETAILS_DYNAMIC_STATE  # the OP State of a task compiled for dynamic shapes


def kernel_details_file(store: TraceStore) -> Path | None:
    """The ``kernel_details.csv`` in the folder of the card's trace file, if there is exactly one card file."""
    folders = {Path(p).parent for p in store.paths}
    if len(folders) != 1:
        return None
    found = sorted(next(iter(folders)).glob(FILE_PATTERN))
    return found[0] if found else None


def kernel_details_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner) -> SourceResult | None:
    """The descriptions of the ``compute`` slices from the table beside the trace; None without one."""
    path = kernel_details_file(store)
    if path is None:
        return None
    try:
        rows = _read(path)
    except (OSError, csv.Error, UnicodeDecodeError):
        return None
    if rows is None:
        return None
    header, records = rows
    stream = np.array([_int(r[header["stream"]]) for r in records], np.int64)
    start = np.array([_start_ns(r[header["start"]]) for r in records], np.int64)
    task_of_row = _match(store, compute, stream, start)
    result = SourceResult.empty(SOURCE_KERNEL_DETAILS, interner, len(compute))
    matched = np.flatnonzero(task_of_row >= 0)
    tasks = task_of_row[matched]
    result.described[tasks] = True
    picked = [records[i] for i in matched.tolist()]
    for key, target in (("op_type", "op_type"), ("core", "core_type"), ("shapes", "shapes"), ("dtypes", "dtypes"),
                        ("formats", "formats"), ("out_shapes", "out_shapes")):
        if key in header:
            column = header[key]
            texts = [_text(r[column], key in ("shapes", "out_shapes")) for r in picked]
            getattr(result.found, target)[tasks] = interner.ids(texts)
    if "op_state" in header:
        result.dynamic = np.zeros(len(compute), bool)
        result.dynamic[tasks] = [r[header["op_state"]].strip().lower() == DYNAMIC_STATE for r in picked]
    if "block_dim" in header:
        result.block_dim[tasks] = [_int(r[header["block_dim"]]) for r in picked]
    for name, column in header.items():
        if PMU_COLUMN.match(name):
            values = np.full(len(compute), np.nan, np.float32)
            values[tasks] = [_float(r[column]) for r in picked]
            result.pmu[name] = values
    return result


def _read(path: Path) -> tuple[dict[str, int], list[list[str]]] | None:
    """(column of each wanted field and of each PMU figure, the rows), None when the table lacks stream/start/type."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        names = [h.strip() for h in next(reader, [])]
        header = {key: names.index(title) for key, title in COLUMNS.items() if title in names}
        if not {"stream", "start", "op_type"} <= header.keys():
            return None
        header.update({name: k for k, name in enumerate(names) if PMU_COLUMN.match(name)})
        width = len(names)
        return header, [r for r in reader if len(r) >= width]


def _match(store: TraceStore, compute: np.ndarray, stream: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per row, the position in ``compute`` of the task it describes (-1: none)."""
    sl = store.slices
    lane_stream = np.array([_int(t) for t in store.lanes.tid], np.int64)
    task_stream = lane_stream[sl.lane[compute]] if len(compute) else np.zeros(0, np.int64)
    task_start = sl.start[compute]
    out = np.full(len(stream), -1, np.int64)
    for s in np.unique(stream).tolist():
        mine = np.flatnonzero(task_stream == s)
        rows = np.flatnonzero(stream == s)
        if not len(mine):
            continue
        order = mine[np.argsort(task_start[mine], kind="stable")]
        starts = task_start[order]
        right = np.clip(np.searchsorted(starts, start[rows]), 0, len(order) - 1)
        left = np.maximum(right - 1, 0)
        near_left = np.abs(starts[left] - start[rows]) < np.abs(starts[right] - start[rows])
        best = np.where(near_left, left, right)
        close = np.abs(starts[best] - start[rows]) <= MATCH_TOLERANCE_NS
        out[rows[close]] = order[best[close]]
    return out


def _start_ns(text: str) -> int:
    """µs with up to three decimals (``1736408883704643.212``, a tab after it at times) → integer ns."""
    whole, _, frac = text.strip().partition(".")
    try:
        return int(whole) * 1000 + int((frac + "000")[:3])
    except ValueError:
        return NO_VALUE


def _int(text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        return NO_VALUE


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def _text(text: str, shapes: bool) -> str | None:
    value = shape_text(text) if shapes else text.strip()
    return None if value in MISSING_TEXT else value
