"""The producer's overlap analysis on its own lanes."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.slices.slice_parts import KIND_OVERLAP, SliceParts
from timelineview.model.database.slices.table_reads import read_table
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema

OVERLAP_COLUMNS = ("startNs", "endNs", "type")


def add_overlap(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """The producer's ``OVERLAP_ANALYSIS`` rows on the ``Overlap Analysis`` lanes."""
    ov = read_table(conn, schema, parts, "OVERLAP_ANALYSIS", OVERLAP_COLUMNS)
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
