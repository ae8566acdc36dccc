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
    add_instants,
    id_text,
    token_text,
)
from timelineview.model.decode.timestamps import tokens_to_ns

_TASK = attrgetter("task_type")


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

    kinds = list(map(type, events))
    if kinds.count(ev.XEvent) == n:
        is_x = np.ones(n, dtype=bool)
        xs = events
    else:
        is_x = np.fromiter(map(operator.is_, kinds, repeat(ev.XEvent)), dtype=bool, count=n)
        xs = list(compress(events, is_x.tolist()))
    x_idx = np.flatnonzero(is_x)
    res.counts_by_ph["X"] += len(xs)
    if xs:
        name, pid, tid, ts, dur, cat, args = (list(map(get, xs)) for get in _X_FIELDS)
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
        other_events(res, events, ordinals, np.flatnonzero(~is_x), strings, lanes, where)


def _intern_pairs(table: dict, pid: list, tid: list) -> np.ndarray:
    """Ids of (pid, tid) pairs; integer tokens are factorised in numpy."""
    if set(map(type, pid)) != {int} or set(map(type, tid)) != {int}:
        return _intern(table, zip(pid, tid), len(pid))
    try:
        p = np.array(pid, dtype=np.int64)
        t = np.array(tid, dtype=np.int64)
    except OverflowError:
        return _intern(table, zip(pid, tid), len(pid))
    pu, pi = np.unique(p, return_inverse=True)
    tu, ti = np.unique(t, return_inverse=True)
    pair = pi.astype(np.int64) * len(tu) + ti
    pairs, inverse = np.unique(pair, return_inverse=True)
    local = np.empty(len(pairs), dtype=np.int32)
    for k, code in enumerate(pairs.tolist()):
        key = (int(pu[code // len(tu)]), int(tu[code % len(tu)]))
        local[k] = table.setdefault(key, len(table))
    return local[inverse.ravel()]


def _intern(table: dict, values, count: int) -> np.ndarray:
    """Ids of ``values`` in ``table`` (extended in place); None maps to -1.

    ``dict.fromkeys`` and ``map`` keep the per-value work in C.
    """
    values = values if isinstance(values, (list, tuple)) else list(values)
    for v in dict.fromkeys(values):
        if v is not None and v not in table:
            table[v] = len(table)
    table[None] = -1
    try:
        return np.fromiter(map(table.__getitem__, values), np.int32, count)
    finally:
        del table[None]


_FLOW_TYPES = {ev.FlowStart: 0, ev.FlowStep: 1, ev.FlowEnd: 2}
# names are not kept: torch_npu names most flows uniquely ("HostToDevice<id>"), so they
# would cost a string each; ``TraceStore.flow_name`` reads one from the file when shown
_FLOW_FIELDS = tuple(attrgetter(f) for f in ("pid", "tid", "ts", "cat", "id", "bp"))


def _decimal_ids(ids: list[str]) -> np.ndarray | None:
    """Text ids that are all canonical decimal integers ("965") as int64, else None.

    ``"965"`` and ``965`` name the same flow (``id_text``), so the numbers are exact keys.
    """
    width = max(map(len, ids))
    if width > 18:
        return None
    try:
        mat = np.array(ids, dtype=f"S{width}").view(np.uint8).reshape(len(ids), width)
    except UnicodeEncodeError:
        return None
    length = (mat != 0).sum(axis=1)
    digits = ((mat >= 48) & (mat <= 57)).sum(axis=1)
    canonical = (digits == length) & (length > 0) & ((mat[:, 0] != 48) | (length == 1))
    if not canonical.all():
        return None
    return mat.reshape(-1).view(f"S{width}").astype(np.int64)


def _flow_events(res: ChunkResult, events: list, ordinals: np.ndarray, idx: list[int],
                 strings: dict, lanes: dict, where) -> None:
    """Flow points in bulk: torch_npu files hold one ``s`` and one ``f`` per kernel launch."""
    fl = [events[i] for i in idx]
    n = len(fl)
    pid, tid, ts, cat, ids, bp = (list(map(get, fl)) for get in _FLOW_FIELDS)
    ts_ns, ok, lossy = tokens_to_ns(ts)
    res.lossy_numbers |= lossy
    id_types = set(map(type, ids))
    has_id = (np.fromiter(map(operator.is_not, ids, repeat(None)), bool, n) if type(None) in id_types
              else np.ones(n, dtype=bool))
    ords = ordinals[np.asarray(idx, dtype=np.int64)]
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
        ph=np.fromiter(map(_FLOW_TYPES.__getitem__, map(type, fl)), np.int8, n)[keep],
        cat=_intern(strings, [c or "" for c in cat], n)[keep],
        lane=_intern_pairs(lanes, pid, tid)[keep],
        ts=ts_ns[keep],
        bp_e=np.fromiter(map(operator.eq, bp, repeat("e")), bool, n)[keep],
        id_num=id_num,
        id_text=id_txt,
    )


_INSTANT_DTYPES = (np.int64, np.int32, np.int32, np.int64)


def other_events(res: ChunkResult, events: list, ordinals: np.ndarray, idx: np.ndarray,
                  strings: dict, lanes: dict, where) -> None:
    """The rarer phases; flows in bulk, the rest one by one (a small share of real files)."""
    kinds = list(map(type, map(events.__getitem__, idx.tolist())))
    is_flow = np.fromiter(map(_FLOW_TYPES.__contains__, kinds), bool, len(kinds))
    if is_flow.any():
        res.counts_by_ph.update(ev.PHASE_OF[k] for k in compress(kinds, is_flow.tolist()))
        _flow_events(res, events, ordinals, idx[is_flow].tolist(), strings, lanes, where)
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

