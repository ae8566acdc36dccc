"""The producer's steps as ``ProfilerStep#N`` slices, where the framework does not name them."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.slices.slice_parts import KIND_FRAMEWORK, KIND_STEP, SliceParts
from timelineview.model.database.slices.table_reads import read_table
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema


def add_steps(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """``STEP_TIME`` as ``ProfilerStep#N`` slices, unless the framework's ranges already name them."""
    steps = read_table(conn, schema, parts, "STEP_TIME", ("id", "startNs", "endNs"))
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
