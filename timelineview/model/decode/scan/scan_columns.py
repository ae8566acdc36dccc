"""The arrays the compiled scanner writes, named once: their groups, dtypes and meaning.

``SCAN_ARRAYS`` is the only place their order is written. The scanner's allocation
(``byte_scan_arrays.ScanArrays``), the tuples the compiled ``_scan`` takes (one named tuple per
group, read by field name) and its output record ``Scan`` are all made from it, so a new
column is one line here plus the code that writes and reads it.

Kept apart from ``byte_scan`` so that reading a ``Scan`` does not import numba.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np

# ``at``: where a scan stands (resume point and counts so far)
AT_RANGE, AT_OFFSET, AT_ELEMENT, AT_STRINGS, AT_LANES, AT_SAMPLES, AT_SERIES = range(7)
AT_SIZE = 7
# what a scan stopped to ask room for
ROOM_ELEMENTS, ROOM_STRINGS, ROOM_LANES, ROOM_SAMPLES, ROOM_SERIES = 1, 2, 4, 8, 16
SLOTS_PER_ROW = 4  # a hash table starts with 4 slots per row of what it indexes, kept at most half full
# the columns of the 2-D tables, for the scanner that writes them and the code that reads them
SPAN_START, SPAN_END, SPAN_FLAGS = range(3)  # a string's content bytes [start, end), HAS_* flags
SAMPLE_ELEMENT, SAMPLE_SERIES, SAMPLE_TEXT, SAMPLE_LENGTH = range(4)  # length -1: converted, in ``values``
SPAN_FIELDS, SAMPLE_FIELDS = 3, 4
KEY_FIELDS = 4  # lane rows: pid kind, pid value, tid kind, tid value; series rows: pid kind, pid value, name, key
# the columns of the scan's scratch tables (``byte_scan_arrays.Scratch``)
PENDING_CODE, PENDING_START, PENDING_END, PENDING_FLAGS = range(4)  # a string kept until the phase is known
MEMBER_KEY_START, MEMBER_KEY_END, MEMBER_KEY_FLAGS, MEMBER_VALUE, MEMBER_LENGTH = range(5)  # a counter's member
LAST_LANE_ID = KEY_FIELDS  # ``last_lane``: the key fields of the last lane found, then its id
PENDING_FIELDS, MEMBER_FIELDS, LAST_LANE_FIELDS = 4, 5, KEY_FIELDS + 1


class ScanGroup(NamedTuple):
    """Arrays that grow together: one tuple argument of ``_scan``."""

    name: str
    count: int  # the ``at`` entry holding how many rows are used (-1: all, sized once)
    room: int  # the ROOM_* bit asking them to grow (0: never)


RANGES = ScanGroup("RangeColumns", -1, 0)
ELEMENTS = ScanGroup("ElementColumns", AT_ELEMENT, ROOM_ELEMENTS)
STRINGS = ScanGroup("StringTable", AT_STRINGS, ROOM_STRINGS)
LANES = ScanGroup("LaneTable", AT_LANES, ROOM_LANES)
SAMPLES = ScanGroup("SampleColumns", AT_SAMPLES, ROOM_SAMPLES)
SERIES = ScanGroup("SeriesTable", AT_SERIES, ROOM_SERIES)
GROUPS = (RANGES, ELEMENTS, STRINGS, LANES, SAMPLES, SERIES)


class ScanArray(NamedTuple):
    """One array the scanner fills."""

    name: str
    dtype: type
    group: ScanGroup
    width: int = 0  # columns of a table (0: one value per row)
    slots: bool = False  # an open-addressing hash table over the group's rows: rebuilt to grow, not returned
    doc: str = ""


SCAN_ARRAYS = (
    ScanArray("r_state", np.int8, RANGES, doc="per range: RANGE_OK or RANGE_HOLES"),
    ScanArray("r_count", np.int64, RANGES, doc="elements read"),
    ScanArray("r_first", np.int64, RANGES, doc="row of its first element"),
    ScanArray("kind", np.int8, ELEMENTS, doc="per element: KIND_*"),
    ScanArray("e_start", np.int64, ELEMENTS, doc="its bytes [e_start, e_end) in the buffer"),
    ScanArray("e_end", np.int64, ELEMENTS),
    ScanArray("ts", np.int64, ELEMENTS, doc="ns, or for TIME_FLOAT the number's text: start << 16 | length"),
    ScanArray("ts_st", np.int8, ELEMENTS, doc="TIME_EXACT, TIME_FLOAT, or -1 (absent or unreadable)"),
    ScanArray("dur", np.int64, ELEMENTS, doc="as ts"),
    ScanArray("dur_st", np.int8, ELEMENTS),
    ScanArray("lane", np.int32, ELEMENTS, doc="row of lane_rows, -1 for none"),
    ScanArray("name", np.int32, ELEMENTS, doc="string ids (rows of spans), -1 absent"),
    ScanArray("cat", np.int32, ELEMENTS),
    ScanArray("task", np.int32, ELEMENTS, doc="args: the hardware task type"),
    ScanArray("id_k", np.int8, ELEMENTS, doc="flow id: TOK_* kind (-1 none) and value (a string id for TOK_STR)"),
    ScanArray("id_v", np.int64, ELEMENTS),
    ScanArray("bp_e", np.bool_, ELEMENTS, doc='"bp": "e"'),
    ScanArray("string_slots", np.int64, STRINGS, 2, True, "(hash >> 1, id + 1)"),
    ScanArray("spans", np.int64, STRINGS, SPAN_FIELDS, doc="per string: SPAN_* columns"),
    ScanArray("lane_slots", np.int64, LANES, slots=True, doc="id + 1"),
    ScanArray("lane_rows", np.int64, LANES, KEY_FIELDS,
              doc="per lane: pid token kind and value, tid token kind and value"),
    ScanArray("samples", np.int64, SAMPLES, SAMPLE_FIELDS, doc="per counter sample: SAMPLE_* columns"),
    ScanArray("values", np.float64, SAMPLES, doc="counter sample values converted by the scanner"),
    ScanArray("series_slots", np.int64, SERIES, slots=True, doc="id + 1"),
    ScanArray("series_rows", np.int64, SERIES, KEY_FIELDS,
              doc="per series: pid token kind and value, name and key string ids"),
)


def group_arrays(group: ScanGroup) -> tuple[ScanArray, ...]:
    """The arrays of one group, in their order."""
    return tuple(a for a in SCAN_ARRAYS if a.group == group)


# one named tuple type per group: ``_scan`` reads ``elements.kind``, never a position
GROUP_TYPES = {g: namedtuple(g.name, [a.name for a in group_arrays(g)]) for g in GROUPS}
RangeColumns, ElementColumns, StringTable, LaneTable, SampleColumns, SeriesTable = (GROUP_TYPES[g] for g in GROUPS)
for _type in GROUP_TYPES.values():  # numba's cache pickles argument types: findable here by name
    _type.__module__ = __name__

Scan = namedtuple("Scan", [a.name for a in SCAN_ARRAYS if not a.slots])
Scan.__module__ = __name__
Scan.__doc__ = "Output of ``byte_scan.scan_ranges``: " + "; ".join(
    f"{a.name}: {a.doc}" for a in SCAN_ARRAYS if a.doc and not a.slots)
