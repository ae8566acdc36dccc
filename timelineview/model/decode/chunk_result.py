"""What decoding one byte range gives: ``ChunkResult`` columns, and a task's results packed to cross processes.

Both decoders (the typed/tolerant one in ``chunk_decode`` and the compiled scanner's in
``scan_decode``) produce these; the card builder (``store.assemble``) consumes them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np


@dataclass
class FlowColumns:
    """Flow points of a range; ids are int64 when every id is an integer, else text."""

    ordinal: np.ndarray  # int64
    ph: np.ndarray  # int8: 0 s, 1 t, 2 f
    cat: np.ndarray  # int32 string id
    lane: np.ndarray  # int32 local lane
    ts: np.ndarray  # int64 ns
    bp_e: np.ndarray  # bool: binds to the enclosing slice
    id_num: np.ndarray | None  # int64 ids, or None
    id_text: list[str] | None  # text ids when some are not integers


@dataclass
class ChunkResult:
    """Columns of one range with chunk-local intern tables (remapped by the merge step)."""

    file_index: int
    start: int  # byte offset of the first element
    end: int  # byte offset just after the last complete element
    n_elements: int  # top-level elements seen (ordinals 0..n-1)
    fast: bool  # decoded by the fast path (so ``end`` is a verified boundary)
    strings: list[str] = field(default_factory=list)
    lane_keys: list[tuple[str, str]] = field(default_factory=list)  # normalised (pid, tid)
    x_start: np.ndarray = None
    x_dur: np.ndarray = None
    x_lane: np.ndarray = None
    x_name: np.ndarray = None
    x_cat: np.ndarray = None
    x_task: np.ndarray = None
    x_ord: np.ndarray = None
    meta: list = field(default_factory=list)  # (ordinal, name, pid, tid, args)
    counter_series: list = field(default_factory=list)  # local series id -> (pid text, counter name, key)
    counter_points: tuple | None = None  # (series int32, ts int64 ns, value float64) arrays
    flows: FlowColumns | None = None
    instants: tuple | None = None  # arrays: ordinal int64, lane int32, name id int32, ts ns int64
    be: list = field(default_factory=list)  # (ordinal, ph, lane, name_id, cat_id, ts_ns)
    counts_by_ph: Counter = field(default_factory=Counter)
    dropped: list = field(default_factory=list)  # (byte offset or -1, ordinal, reason)
    notes: list = field(default_factory=list)  # (byte offset, ordinal, warning) kept events
    closed: bool = False  # saw the array's closing bracket
    truncated: bool = False  # bytes ran out inside an element
    lossy_numbers: bool = False
    cut_names: int = 0  # strings of the task's table cut to MAX_NAME_CHARS (counted on its first range)
    problems: list = field(default_factory=list)  # (byte offset, text) structural problems


def token_text(tok: object) -> str:
    """Normalised text of a pid/tid token: ``519`` and ``"519"`` are the same thread."""
    if type(tok) is int:
        return str(tok)
    if type(tok) is str:
        s = tok.strip()
        if s[1:].isdigit() if s[:1] == "-" else s.isdigit():
            return str(int(s))
        return tok
    if tok is None:
        return "0"
    if type(tok) is float and tok.is_integer():
        return str(int(tok))
    return str(tok)


def id_text(tok: object) -> str:
    """Flow ids are opaque: the raw token's text (ints beyond 2^53 stay exact)."""
    if type(tok) is str:
        return tok
    if type(tok) is float:
        return repr(tok)
    return str(tok)


class InternTable(dict):
    """value -> id, where a value not seen yet takes the next id as it is looked up: a whole
    column is interned by one C-level ``map`` of ``__getitem__`` (the Python code runs once per
    distinct value). ``None`` is kept out of the ids (see ``_intern``)."""

    __slots__ = ()

    def __missing__(self, key: object) -> int:
        n = self[key] = len(self) - (None in self)
        return n


# Real names (operators with their full scope, categories, task types) stay under a few thousand
# characters. A longer one is damage or a crafted file: kept whole, every name match downstream costs
# seconds per megabyte (a 200 MB name took 22 s of classification) and every output copies it.
MAX_NAME_CHARS = 1 << 14
CUT_MARK = "\u2026"


def cut_name(text: str) -> str:
    """``text``, or its first ``MAX_NAME_CHARS`` characters and ``CUT_MARK`` when it is longer."""
    return text if len(text) <= MAX_NAME_CHARS else text[:MAX_NAME_CHARS] + CUT_MARK


class Interner:
    """Intern tables shared by the ranges of one task, so each string crosses once."""

    def __init__(self) -> None:
        self.strings: dict = InternTable()
        self.lanes: dict = {}

    def finish(self, results: list[ChunkResult]) -> None:
        strings = list(self.strings)
        long = [k for k, s in enumerate(strings) if s is not None and len(s) > MAX_NAME_CHARS]
        for k in long:
            strings[k] = cut_name(strings[k])
        lane_keys = [(token_text(p), token_text(t)) for p, t in self.lanes]
        for r in results:  # the same list objects: pickled once for the whole task
            r.strings = strings
            r.lane_keys = lane_keys
        if results:
            results[0].cut_names += len(long)


_ORDINAL = itemgetter(1)  # of a drop or note: (offset, ordinal, text)
NO_TS = "'ts' missing or not a number"  # why a flow, instant, B/E or counter event was dropped
X_COLS = ("x_start", "x_dur", "x_lane", "x_name", "x_cat", "x_task", "x_ord")
_FLOW_COLS = ("ordinal", "ph", "cat", "lane", "ts", "bp_e")


@dataclass
class PackedResults:
    """The ranges of one task with their columns joined: a few large arrays cross the
    process boundary instead of hundreds of small ones."""

    results: list[ChunkResult]  # column attributes emptied
    x_counts: np.ndarray
    x_cols: list[np.ndarray]
    flow_counts: np.ndarray
    flow_cols: list[np.ndarray]
    flow_ids: list  # per range: (id_num, id_text)


def pack(results: list[ChunkResult]) -> PackedResults:
    x_counts = np.array([len(r.x_start) for r in results], dtype=np.int64)
    x_cols = [np.concatenate([getattr(r, c) for r in results]) for c in X_COLS]
    flows = [r.flows for r in results]
    flow_counts = np.array([0 if f is None else len(f.ts) for f in flows], dtype=np.int64)
    present = [f for f in flows if f is not None]
    flow_cols = [np.concatenate([getattr(f, c) for f in present]) if present else np.zeros(0) for c in _FLOW_COLS]
    flow_ids = [None if f is None else (f.id_num, f.id_text) for f in flows]
    for r in results:
        for c in X_COLS:
            setattr(r, c, None)
        r.flows = None
    return PackedResults(results, x_counts, x_cols, flow_counts, flow_cols, flow_ids)


def unpack(packed: PackedResults) -> list[ChunkResult]:
    """Give every range views of its part of the joined columns."""
    x_ends = np.cumsum(packed.x_counts).tolist()
    f_ends = np.cumsum(packed.flow_counts).tolist()
    x0 = f0 = 0
    for r, x1, f1, ids in zip(packed.results, x_ends, f_ends, packed.flow_ids):
        for c, col in zip(X_COLS, packed.x_cols):
            setattr(r, c, col[x0:x1])
        if ids is not None:
            r.flows = FlowColumns(*(col[f0:f1] for col in packed.flow_cols), id_num=ids[0], id_text=ids[1])
        x0, f0 = x1, f1
    return packed.results


def add_instants(res: ChunkResult, ordinal: np.ndarray, lane: np.ndarray, name: np.ndarray, ts: np.ndarray) -> None:
    """Add instant events (columns) to a range's result."""
    cols = (ordinal, lane, name, ts)
    if res.instants is not None:
        cols = tuple(np.concatenate([a, b]) for a, b in zip(res.instants, cols))
    res.instants = cols


def in_file_order(res: ChunkResult) -> None:
    """A range's drops and notes in the order of their elements, whichever path read each (the
    typed decode lists slices' drops first, the scanner each kind's in turn)."""
    for records in (res.dropped, res.notes):
        if len(records) > 1:
            records.sort(key=_ORDINAL)
