"""Typed events into columns: the columns of a ``ChunkResult`` from msgspec's typed events
(``event_types``), with names, categories and lanes interned, in a few passes per field.

Used by the typed decode of a whole range, by the tolerant path for the events it kept, and by
the compiled scanner's path for the rarer phases. No per-event Python objects outlive a call.
"""

from __future__ import annotations

import math
import operator
from itertools import compress, repeat
from operator import attrgetter

import numpy as np

from timelineview.model.decode import event_types as ev
from timelineview.model.decode.chunk_result import (
    NO_TS,
    ChunkResult,
    FlowColumns,
    Interner,
    InternTable,
    add_instants,
    id_text,
    in_file_order,
    token_text,
)
from timelineview.model.decode.timestamps import tokens_to_ns

_TASK = attrgetter("task_type")
_PHASE_CODE = {cls: code for code, cls in enumerate(ev.EVENT_TYPES)}  # event type -> small int
_PHASES = [ev.PHASE_OF[cls] for cls in ev.EVENT_TYPES]  # code -> phase letter
_X_CODE = _PHASE_CODE[ev.XEvent]
_FLOW_CODES = [_PHASE_CODE[cls] for cls in (ev.FlowStart, ev.FlowStep, ev.FlowEnd)]
_FLOW_PH = np.full(len(ev.EVENT_TYPES), -1, np.int8)  # code -> FlowColumns.ph (0 s, 1 t, 2 f)
_FLOW_PH[_FLOW_CODES] = (0, 1, 2)
BLOCK = 4096  # events whose structs stay in the CPU cache while each field is read from them


class _Codes(dict):
    """value -> 0, 1, 2, … in order of first lookup (``None`` is a value like any other)."""

    __slots__ = ()

    def __missing__(self, key: object) -> int:
        n = self[key] = len(self)
        return n


def _phase_codes(events: list) -> np.ndarray:
    return np.fromiter(map(_PHASE_CODE.__getitem__, map(type, events)), np.int8, len(events))


def _fields(structs: list, getters: tuple) -> list[list]:
    """Each field of ``structs`` as a list, read a block of structs at a time (all fields of a
    block while it is in the cache: twice as fast as one pass per field over a large range)."""
    if len(structs) <= BLOCK:
        return [list(map(get, structs)) for get in getters]
    out: list[list] = [[] for _ in getters]
    for b in range(0, len(structs), BLOCK):
        block = structs[b:b + BLOCK]
        for column, get in zip(out, getters):
            column.extend(map(get, block))
    return out


def _task_of(args: ev.XArgs | None) -> object:
    return None if args is None else args.task_type


_X_FIELDS = tuple(attrgetter(f) for f in ("name", "pid", "tid", "ts", "dur", "cat", "args"))


def columnarise(res: ChunkResult, events: list, ordinals: np.ndarray | None,
                offsets: list[int] | None = None, interner: Interner | None = None) -> None:
    """Fill ``res`` from typed events (``ordinals[i]`` is event i's element index).

    Ids refer to ``interner``'s tables, turned into lists by ``Interner.finish``.
    """
    interner = interner or Interner()
    strings = interner.strings
    lanes = interner.lanes
    n = len(events)
    if ordinals is None:
        ordinals = np.arange(n, dtype=np.int64)

    def where(k: int) -> int:
        return offsets[k] if offsets is not None else -1

    codes = _phase_codes(events)
    is_x = codes == _X_CODE
    xs = events if is_x.all() else list(compress(events, is_x.tolist()))
    x_idx = np.flatnonzero(is_x)
    res.counts_by_ph["X"] += len(xs)
    if xs:
        name, pid, tid, ts, dur, cat, args = _fields(xs, _X_FIELDS)
        start_ns, ok_ts, lossy1 = tokens_to_ns(ts)
        missing_dur = [i for i, d in enumerate(dur) if d is None] if None in dur else []
        dur_ns, ok_dur, lossy2 = tokens_to_ns(dur)
        if missing_dur:
            ok_dur[missing_dur] = True
            dur_ns[missing_dur] = 0
            o = int(ordinals[x_idx[missing_dur[0]]])
            res.notes.append((where(o), o, f"{len(missing_dur)} X event(s) without 'dur': zero-length"))
        res.lossy_numbers |= lossy1 | lossy2
        keep = ok_ts & ok_dur & (dur_ns >= 0)
        tasks = list(map(_task_of, args)) if None in args else list(map(_TASK, args))
        if set(map(type, tasks)) - {str, type(None)}:  # numbers, lists …: their text
            tasks = [t if t is None or type(t) is str else str(t) for t in tasks]
        lane_ids = _intern_pairs(lanes, pid, tid)
        name_ids = _intern(strings, name, len(xs))
        cat_ids = _intern(strings, cat, len(xs))
        task_ids = _intern(strings, tasks, len(xs))
        x_ord = ordinals[x_idx]
        if not keep.all():
            for i in np.flatnonzero(~keep):
                reason = ("'ts' is not a number" if not ok_ts[i] else
                          "'dur' is not a number" if not ok_dur[i] else "negative 'dur'")
                res.dropped.append((where(int(x_ord[i])), int(x_ord[i]), reason))
        res.x_start = start_ns[keep]
        res.x_dur = dur_ns[keep]
        res.x_lane = lane_ids[keep]
        res.x_name = name_ids[keep]
        res.x_cat = cat_ids[keep]
        res.x_task = task_ids[keep]
        res.x_ord = x_ord[keep]
    else:
        empty_i = np.zeros(0, np.int32)
        res.x_start = res.x_dur = res.x_ord = np.zeros(0, np.int64)
        res.x_lane = res.x_name = res.x_cat = res.x_task = empty_i
    if len(x_idx) < n:
        other_events(res, events, ordinals, np.flatnonzero(~is_x), strings, lanes, where, codes)
    in_file_order(res)


PAIR_TABLE_LIMIT = 1 << 20  # distinct pid x tid codes up to which pairs are told apart by a table


def _intern_pairs(table: dict, pid: list, tid: list) -> np.ndarray:
    """Ids of (pid, tid) pairs in ``table``: each side is coded by a hash table (few distinct values,
    one C-level pass), the pairs of codes in numpy, and only distinct pairs become tuples."""
    n = len(pid)
    p_codes, t_codes = _Codes(), _Codes()
    p = np.fromiter(map(p_codes.__getitem__, pid), np.int64, n)
    t = np.fromiter(map(t_codes.__getitem__, tid), np.int64, n)
    width = len(t_codes)
    pair = p * width + t
    space = len(p_codes) * width
    if space <= PAIR_TABLE_LIMIT:
        present = np.zeros(space, bool)
        present[pair] = True
        pairs = np.flatnonzero(present)
        inverse = (np.cumsum(present) - 1)[pair]
    else:
        pairs, inverse = np.unique(pair, return_inverse=True)
    p_keys, t_keys = list(p_codes), list(t_codes)
    keys = [(p_keys[code // width], t_keys[code % width]) for code in pairs.tolist()]
    order = range(len(keys))
    if all(type(k) is int for k in p_keys + t_keys):  # new lanes in numeric order, as np.unique gave them
        order = sorted(order, key=keys.__getitem__)
    local = np.empty(len(pairs), dtype=np.int32)
    for k in order:
        local[k] = table.setdefault(keys[k], len(table))
    return local[inverse.ravel()]


def _intern(table: dict, values, count: int) -> np.ndarray:
    """Ids of ``values`` in ``table`` (extended in place); None maps to -1.

    With an :class:`InternTable` one ``map`` interns and looks up in C; a plain dict takes a
    ``dict.fromkeys`` pass first.
    """
    values = values if isinstance(values, (list, tuple)) else list(values)
    if type(table) is not InternTable:
        for v in dict.fromkeys(values):
            if v is not None and v not in table:
                table[v] = len(table)
    table[None] = -1
    try:
        return np.fromiter(map(table.__getitem__, values), np.int32, count)
    finally:
        del table[None]


# names are not kept: torch_npu names most flows uniquely ("HostToDevice<id>"), so they
# would cost a string each; ``TraceStore.flow_name`` reads one from the file when shown
_FLOW_FIELDS = tuple(attrgetter(f) for f in ("pid", "tid", "ts", "cat", "id", "bp"))


def _decimal_ids(ids: list[str]) -> np.ndarray | None:
    """Text ids that are all canonical decimal integers ("965") as int64, else None.

    ``"965"`` and ``965`` name the same flow (``id_text``), so the numbers are exact keys.
    """
    length = np.fromiter(map(len, ids), np.int64, len(ids))
    width = int(length.max())
    if not 0 < width <= 18:  # ("" is an id of its own, not a number)
        return None
    try:
        mat = np.array(ids, dtype=f"S{width}").view(np.uint8).reshape(len(ids), width)
    except UnicodeEncodeError:
        return None
    digits = ((mat >= 48) & (mat <= 57)).sum(axis=1)  # (a NUL is not one: "1\0" is not 1)
    canonical = (digits == length) & (length > 0) & ((mat[:, 0] != 48) | (length == 1))
    if not canonical.all():
        return None
    return mat.reshape(-1).view(f"S{width}").astype(np.int64)


def _flow_events(res: ChunkResult, events: list, ordinals: np.ndarray, idx: np.ndarray, ph: np.ndarray,
                 strings: dict, lanes: dict, where) -> None:
    """Flow points in bulk (``ph``: each one's FlowColumns.ph): torch_npu files hold one ``s`` and
    one ``f`` per kernel launch."""
    fl = list(map(events.__getitem__, idx.tolist()))
    n = len(fl)
    pid, tid, ts, cat, ids, bp = _fields(fl, _FLOW_FIELDS)
    ts_ns, ok, lossy = tokens_to_ns(ts)
    res.lossy_numbers |= lossy
    id_types = set(map(type, ids))
    has_id = (np.fromiter(map(operator.is_not, ids, repeat(None)), bool, n) if type(None) in id_types
              else np.ones(n, dtype=bool))
    ords = ordinals[idx]
    for k in np.flatnonzero(~(ok & has_id)):
        reason = "flow event without 'id'" if not has_id[k] else NO_TS
        res.dropped.append((where(int(ords[k])), int(ords[k]), reason))
    keep = ok & has_id
    id_num = id_txt = None
    if id_types == {int}:
        try:
            id_num = np.array(ids, dtype=np.int64)[keep]
        except OverflowError:
            id_num = None
    elif id_types == {str}:
        id_num = _decimal_ids(ids)
        if id_num is not None:
            id_num = id_num[keep]
    if id_num is None:
        kept = ids if keep.all() else list(compress(ids, keep.tolist()))
        id_txt = list(map(str, kept)) if id_types <= {str, int, type(None)} else list(map(id_text, kept))
    res.flows = FlowColumns(
        ordinal=ords[keep],
        ph=ph[keep],
        cat=_intern(strings, [c or "" for c in cat] if None in cat else cat, n)[keep],
        lane=_intern_pairs(lanes, pid, tid)[keep],
        ts=ts_ns[keep],
        bp_e=np.fromiter(map(operator.eq, bp, repeat("e")), bool, n)[keep],
        id_num=id_num,
        id_text=id_txt,
    )


_INSTANT_DTYPES = (np.int64, np.int32, np.int32, np.int64)


def other_events(res: ChunkResult, events: list, ordinals: np.ndarray, idx: np.ndarray,
                 strings: dict, lanes: dict, where, codes: np.ndarray | None = None) -> None:
    """The rarer phases (``events[idx]``; ``codes``: every event's phase code when known); flows in
    bulk, the rest one by one (a small share of real files)."""
    own = codes[idx] if codes is not None else _phase_codes(list(map(events.__getitem__, idx.tolist())))
    flow_ph = _FLOW_PH[own]
    is_flow = flow_ph >= 0
    if is_flow.any():
        for code, count in zip(_FLOW_CODES, np.bincount(flow_ph[is_flow], minlength=3).tolist()):
            if count:
                res.counts_by_ph[_PHASES[code]] += count
        _flow_events(res, events, ordinals, idx[is_flow], flow_ph[is_flow], strings, lanes, where)
        idx = idx[~is_flow]
    # timestamps of the non-X events, in one vectorised call
    has_ts = [i for i in idx if "ts" in type(events[i]).__struct_fields__]
    ts_map = {}
    if has_ts:
        ns, ok, lossy = tokens_to_ns([events[i].ts for i in has_ts])
        res.lossy_numbers |= lossy
        ts_map = {i: (int(v) if good else None) for i, v, good in zip(has_ts, ns, ok)}
    series: dict[tuple, int] = {}
    instants: list[tuple] = []
    c_sid: list[int] = []
    c_ts: list[int] = []
    c_val: list[float] = []
    out_of_range: list[tuple] = []  # the first counter value beyond float64 (or not finite)
    for i in idx:
        e = events[i]
        ph = ev.PHASE_OF[type(e)]
        o = int(ordinals[i])
        res.counts_by_ph[ph] += 1
        if type(e) is ev.MEvent:
            res.meta.append((o, e.name, e.pid, e.tid, e.args))
            continue
        if ph in ev.IGNORED_PHASES:
            res.dropped.append((where(o), o, f"phase {ph!r} is not supported"))
            continue
        t = ts_map.get(i)
        if t is None:
            res.dropped.append((where(o), o, NO_TS))
            continue
        if type(e) is ev.CEvent:
            if not isinstance(e.args, dict):
                res.dropped.append((where(o), o, "counter without an args object"))
                continue
            cname = e.name if e.id is None else f"{e.name}[{id_text(e.id)}]"
            for k, v in e.args.items():
                try:  # numbers, numeric strings and booleans; anything else is not a sample
                    value = float(v)
                except (TypeError, ValueError):
                    continue
                except OverflowError:  # an int of 400 digits
                    value = math.inf
                if math.isinf(value):
                    if isinstance(v, (int, float, str)) and not out_of_range:
                        out_of_range.append((where(o), o, f"counter value {str(v)[:24]!r} out of range: skipped"))
                    continue
                c_sid.append(series.setdefault((e.pid, cname, str(k)), len(series)))
                c_ts.append(t)
                c_val.append(value)
            continue
        lane = lanes.setdefault((e.pid, e.tid), len(lanes))
        if ph in ("i", "I"):
            instants.append((o, lane, strings.setdefault(e.name, len(strings)), t))
        else:  # B / E
            cat = getattr(e, "cat", None)
            res.be.append((o, ph, lane, strings.setdefault(e.name, len(strings)),
                           -1 if cat is None else strings.setdefault(cat, len(strings)), t))
    res.notes.extend(out_of_range)
    if instants:
        add_instants(res, *(np.array(c, dtype=d) for c, d in zip(zip(*instants), _INSTANT_DTYPES)))
    if series:
        res.counter_series = [(token_text(p), name, key) for p, name, key in series]
        res.counter_points = (np.array(c_sid, dtype=np.int32), np.array(c_ts, dtype=np.int64),
                              np.array(c_val, dtype=np.float64))

