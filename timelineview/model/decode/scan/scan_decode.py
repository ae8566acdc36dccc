"""Turn the compiled scanner's output for a group of ranges into ``ChunkResult``s.

Python work here is per distinct string, per lane and per non-slice event, not per
slice. Ranges the scanner could not read go through ``decode_range`` (the typed
decode, then the tolerant reader), so results never depend on which path read a range.
"""

from __future__ import annotations

from collections import Counter

import msgspec
import numpy as np

from timelineview.model.decode import event_types as ev
from timelineview.model.decode.chunk_decode import PENDING_LANE, ScannedRows, decode_range, read_range
from timelineview.model.decode.chunk_result import (
    NO_TS,
    ChunkResult,
    FlowColumns,
    Interner,
    PackedResults,
    add_instants,
    in_file_order,
    pack,
    token_text,
)
from timelineview.model.decode.scan import scan_codes as codes
from timelineview.model.decode.scan import scan_columns as cols
from timelineview.model.decode.scan.scan_columns import Scan
from timelineview.model.decode.timestamps import FLOAT_EXACT_LIMIT_US, float_us_to_ns
from timelineview.model.decode.typed_columns import other_events

_floats = msgspec.json.Decoder(list[float])
# the kinds the typed decode reads in a range the scanner could not read whole
GATHER_BYTES = 1 << 22  # string bytes gathered by one vectorised copy (its index takes 24 bytes a byte)
_TYPED_AROUND_DAMAGE = np.array([codes.KIND_OTHER, codes.KIND_META_COPY, codes.KIND_C], dtype=np.int8)
_float = msgspec.json.Decoder(float)


def decode_group(path: str, file_index: int, ranges: list[tuple[int, int]], last_is_final: bool,
                 scanner: bool) -> PackedResults:
    """Decode consecutive small ranges with shared intern tables (one worker task).

    With ``scanner`` (the caller knows it is usable here: ``load.jit.scanner_available``)
    the compiled scanner reads them when it can; otherwise (or for the ranges it declines)
    each range gets the typed decode, whose small ranges keep each batch of decoded
    objects inside the CPU cache.
    """
    interner = Interner()
    if scanner:
        results = scan_group(path, file_index, ranges, last_is_final, interner)
    else:
        results = _typed_group(path, file_index, ranges, last_is_final, interner)
    interner.finish(results)
    return pack(results)


def _typed_group(path: str, file_index: int, ranges: list[tuple[int, int]], last_is_final: bool,
                 interner: Interner) -> list[ChunkResult]:
    return [decode_range(path, file_index, a, b, last_is_final and k == len(ranges) - 1, interner)
            for k, (a, b) in enumerate(ranges)]


def _texts(data: memoryview, spans: np.ndarray) -> list[str]:
    """The strings of the scanner's table (content spans; HAS_ESCAPES: escapes to decode).

    Strings without escapes are gathered into one buffer, a newline after each, and
    decoded and split at once: the scanner never accepts a raw control character inside
    a string, and an ASCII newline cannot sit inside a UTF-8 sequence, so the split is
    exact and the decode fails exactly where a string on its own would.
    """
    escaped = (spans[:, cols.SPAN_FLAGS] & codes.HAS_ESCAPES) != 0
    plain = np.flatnonzero(~escaped)
    out: list = []
    if len(plain):
        out = _plain_texts(np.frombuffer(data, dtype=np.uint8), spans[plain, cols.SPAN_START],
                           spans[plain, cols.SPAN_END])
    if not escaped.any():
        return out
    texts: list = [None] * len(spans)
    for k, text in zip(plain.tolist(), out):
        texts[k] = text
    for k in np.flatnonzero(escaped).tolist():
        a, b = int(spans[k, cols.SPAN_START]), int(spans[k, cols.SPAN_END])
        texts[k] = msgspec.json.decode(data[a - 1:b + 1])
    return texts


def _plain_texts(buf: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[str]:
    """The strings ``buf[a:b]`` (no escapes), gathered ``GATHER_BYTES`` at a time: the gather's index
    costs 24 bytes per byte, so a string longer than that (a 200 MB name) is copied on its own."""
    length = b - a + 1  # each with the byte after it (its closing quote), made a newline
    ends = np.cumsum(length)
    out: list[str] = []
    k, n = 0, len(a)
    while k < n:
        j = int(np.searchsorted(ends, ends[k] - length[k] + GATHER_BYTES, side="right"))
        if j <= k:  # longer than a batch
            out.append(bytes(buf[a[k]:b[k]]).decode("utf-8"))
            k += 1
            continue
        la, ll = a[k:j], length[k:j]
        cut = np.cumsum(ll)
        joined = buf[np.arange(cut[-1]) + np.repeat(la - (cut - ll), ll)]
        joined[cut - 1] = 10
        out += joined[:-1].tobytes().decode("utf-8").split("\n")
        k = j
    return out


def _numbers(data: memoryview, start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 of the JSON numbers at ``data[start:start + length]``, parsed as the typed
    decoder parses them, and which of them it refuses (beyond float64's range, as 1e400:
    the typed decode of their range fails too, and the caller leaves the range to it)."""
    parts = [data[a:a + k] for a, k in zip(start.tolist(), length.tolist())]
    refused = np.zeros(len(parts), dtype=bool)
    try:
        return np.array(_floats.decode(b"[" + b",".join(parts) + b"]"), dtype=np.float64), refused
    except msgspec.ValidationError:
        pass
    out = np.zeros(len(parts), dtype=np.float64)
    for k, part in enumerate(parts):
        try:
            out[k] = _float.decode(part)
        except msgspec.ValidationError:
            refused[k] = True
    return out, refused


def _times(data: memoryview, values: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, ...]:
    """(ns, valid, lossy, refused) per element. Numbers the scanner left to float64 (their
    text at ``start << TEXT_SHIFT | length``) are converted as the typed path converts them."""
    floats = np.flatnonzero(states == codes.TIME_FLOAT)
    ok = np.ones(len(values), dtype=bool)
    lossy = np.zeros(len(values), dtype=bool)
    refused = np.zeros(len(values), dtype=bool)
    if not len(floats):
        return values, ok, lossy, refused
    packed = values[floats]
    x, refused[floats] = _numbers(data, packed >> codes.TEXT_SHIFT, packed & codes.TEXT_MAX_LENGTH)
    good = np.isfinite(x) & (np.abs(x) < 9.2e15) & ~refused[floats]
    out = values.copy()
    out[floats] = 0
    out[floats[good]] = float_us_to_ns(x[good])
    ok[floats] = good
    lossy[floats] = good & (np.abs(x) >= FLOAT_EXACT_LIMIT_US)
    return out, ok, lossy, refused


def scan_group(path: str, file_index: int, ranges: list[tuple[int, int]], last_is_final: bool,
               interner: Interner) -> list[ChunkResult]:
    """Decode consecutive ranges with the compiled scanner (falling back range by range)."""
    base = ranges[0][0] - 1  # the buffer starts with the "[" read_range puts before the bytes
    data = read_range(path, ranges[0][0], ranges[-1][1], reuse="scan")
    starts = np.array([a - base for a, _ in ranges], dtype=np.int64)
    ends = np.array([max(a - base, min(b - base, len(data) - 1)) for a, b in ranges], dtype=np.int64)  # (file cut)
    from timelineview.model.decode.scan import byte_scan  # imported only where it is used: ~100 MB

    scan = byte_scan.scan_ranges(np.frombuffer(data, dtype=np.uint8), starts, ends)
    try:
        texts = _texts(data, scan.spans)
    except (msgspec.DecodeError, UnicodeDecodeError):  # an escape Python strings cannot hold
        return _typed_group(path, file_index, ranges, last_is_final, interner)
    # ids in the task's intern tables, for the string ids used as strings
    used = np.zeros(len(texts) + 1, dtype=bool)  # the last slot takes the -1s (absent)
    for ids in (scan.name, scan.cat, scan.task):
        used[ids] = True
    strings = interner.strings
    to_string = np.full(len(texts) + 1, -1, dtype=np.int32)  # index -1 (absent) stays -1
    for sid in np.flatnonzero(used[:-1]).tolist():
        to_string[sid] = strings.setdefault(texts[sid], len(strings))
    empty = strings.setdefault("", len(strings))
    lanes = interner.lanes
    ts, ts_ok, lossy_ts, refused_ts = _times(data, scan.ts, scan.ts_st)
    dur, dur_ok, lossy_dur, refused_dur = _times(data, scan.dur, scan.dur_st)
    lane_tokens = [(_token(pk, pv, texts), _token(tk, tv, texts)) for pk, pv, tk, tv in scan.lane_rows.tolist()]
    # an instant dropped for its time makes no lane (as in the typed decode); dropped slices and flows do
    lane_of = np.where((scan.kind == codes.KIND_I) & ~ts_ok, -1, scan.lane)
    # lanes of ranges read whole get their ids now; those only the elements around a damaged one
    # use wait (``PENDING_LANE - row``) until the typed path keeps those elements (``ScannedRows``)
    whole = np.repeat(scan.r_state == codes.RANGE_OK, scan.r_count)
    needed = np.zeros(len(lane_tokens) + 1, dtype=bool)  # the last slot takes the -1s (no lane)
    needed[lane_of[whole]] = True
    to_lane = np.array([lanes.setdefault(token, len(lanes)) if needed[k] else PENDING_LANE - k
                        for k, token in enumerate(lane_tokens)], dtype=np.int32)
    kind = scan.kind
    is_x = kind == codes.KIND_X
    is_flow = (kind >= codes.KIND_S) & (kind <= codes.KIND_F)
    is_instant = kind == codes.KIND_I
    lossy = (lossy_ts & (is_x | is_flow | is_instant | (kind == codes.KIND_C))) | (lossy_dur & is_x)
    # the whole task at once, then each range takes its part: per-range numpy calls
    # cost more than the columns themselves
    split = _Split(scan)
    x_views, x_total, x_dropped = _slices(scan, split, is_x, ts, ts_ok, dur, dur_ok, to_string, to_lane, empty)
    flow_views, flow_counts, flow_dropped = _flows(scan, split, is_flow, ts, ts_ok, to_string, to_lane, empty, texts)
    counter_views, counter_counts, counters_bad = _counters(scan, split, ts, ts_ok, data, texts)
    instant_views, instant_counts, instant_dropped = _instants(scan, split, is_instant, ts, ts_ok, to_string, to_lane,
                                                               empty)
    lossy_ranges = split.any(lossy)
    others = split.any(kind == codes.KIND_OTHER)
    refused = split.any(refused_ts | refused_dur) | counters_bad  # the typed path's business
    meta_copies = split.count(kind == codes.KIND_META_COPY)
    results = []
    for r, (a, b) in enumerate(ranges):
        res = None
        if scan.r_state[r] == codes.RANGE_OK or scan.r_count[r]:
            res = ChunkResult(file_index, a, b, int(scan.r_count[r]), True)
            res.lossy_numbers = bool(lossy_ranges[r])
            res.counts_by_ph = Counter({"X": int(x_total[r])})
            res.x_start, res.x_dur, res.x_lane, res.x_name, res.x_cat, res.x_task, res.x_ord = x_views(r)
            res.dropped = x_dropped.get(r, [])
            if flow_counts[r].any():
                res.flows = flow_views(r)
                res.counts_by_ph.update({p: int(n) for p, n in zip("stf", flow_counts[r]) if n})
                res.dropped += flow_dropped.get(r, [])
            holes = scan.r_state[r] == codes.RANGE_HOLES
            if counter_counts[r] and not holes:  # (around damage, counters are the typed path's: samples
                res.counts_by_ph["C"] = int(counter_counts[r])  # keep their file order only there)
                res.counter_series, res.counter_points = counter_views(r)
            if instant_counts[r]:
                res.counts_by_ph["i"] = int(instant_counts[r])
                add_instants(res, *instant_views(r))
                res.dropped += instant_dropped.get(r, [])
            if meta_copies[r] and not holes:  # the later copy of each is read (the last of a key wins)
                res.counts_by_ph["M"] = int(meta_copies[r])
            if refused[r] or (others[r] and not holes and not _other_phases(res, scan, split, r, data, interner)):
                res = None
        if res is None or scan.r_state[r] == codes.RANGE_HOLES:  # something in it is the typed path's business
            rows = None
            if res is not None:  # the elements read around the rest, for the typed path to keep
                j0, j1 = int(split.first[r]), int(split.stop[r])
                rows = ScannedRows(res, scan.e_start[j0:j1] + base, scan.e_end[j0:j1] + base,
                                   np.isin(kind[j0:j1], _TYPED_AROUND_DAMAGE),
                                   lane_of[j0:j1], lane_tokens)
            res = decode_range(path, file_index, a, b, last_is_final and r == len(ranges) - 1, interner, scanner=True,
                               rows=rows)
        in_file_order(res)
        results.append(res)
    return results


class _Split:
    """Where each range's elements lie among the task's scanned elements."""

    def __init__(self, scan: Scan) -> None:
        self.first = scan.r_first
        self.stop = scan.r_first + scan.r_count
        self.range_of = np.repeat(np.arange(len(scan.r_count)), scan.r_count)  # per element
        self.ordinal = np.arange(len(scan.kind)) - self.first[self.range_of]  # its place in its range

    def count(self, flags: np.ndarray) -> np.ndarray:
        """Per range: how many of its elements are flagged (``flags``: a mask over the task's
        elements, or the rows of the flagged ones)."""
        return np.bincount(self.range_of[flags], minlength=len(self.first))

    def any(self, flags: np.ndarray) -> np.ndarray:
        """Per range: some element of it is flagged."""
        return self.count(flags) > 0

    def bounds(self, rows: np.ndarray) -> tuple[list[int], list[int]]:
        """Per range, the part [lo, hi) of ``rows`` (sorted element rows) inside it."""
        return np.searchsorted(rows, self.first).tolist(), np.searchsorted(rows, self.stop).tolist()

    def views(self, rows: np.ndarray, cols: tuple[np.ndarray, ...]):
        """For columns over ``rows`` (sorted element rows): range -> its part of each."""
        lo, hi = self.bounds(rows)
        return lambda r: tuple(c[lo[r]:hi[r]] for c in cols)

    def dropped(self, rows: list[int], reasons: list[str]) -> dict[int, list]:
        """Load-report entries (byte offset unknown, ordinal, reason) of dropped elements,
        per range."""
        out: dict[int, list] = {}
        for i, reason in zip(rows, reasons):
            out.setdefault(int(self.range_of[i]), []).append((-1, int(self.ordinal[i]), reason))
        return out


def _names(ids: np.ndarray, to_string: np.ndarray, empty: int) -> np.ndarray:
    """Task string ids (-1: absent) as interned ids, an absent name or cat being ""."""
    return np.where(ids >= 0, to_string[ids], empty).astype(np.int32)


def _other_phases(res: ChunkResult, scan: Scan, split: _Split, r: int, data: memoryview,
                  interner: Interner) -> bool:
    """The phases the typed decoder reads (metadata, B/E, instants, odd counters) in range
    ``r``; False when the typed decode must read the whole range instead."""
    j0 = int(split.first[r])
    others = np.flatnonzero(scan.kind[j0:int(split.stop[r])] == codes.KIND_OTHER)
    pieces = [data[s:e] for s, e in zip(scan.e_start[j0 + others].tolist(), scan.e_end[j0 + others].tolist())]
    try:
        events = ev.typed_decoder.decode(b"[" + b",".join(pieces) + b"]")
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        return False
    scanned_counters = res.counts_by_ph["C"]
    other_events(res, events, others.astype(np.int64), np.arange(len(events)), interner.strings,
                  interner.lanes, lambda k: -1)
    # counters the scanner declined, next to ones it read: one series table must number
    # them all in file order, as the typed path does
    return not (scanned_counters and res.counts_by_ph["C"] > scanned_counters)


def _counters(scan: Scan, split: _Split, ts: np.ndarray, ts_ok: np.ndarray, data: memoryview, texts: list[str]):
    """The task's counter samples: (each range's series table and points, as
    ``other_events`` builds them, counters per range, ranges with an unreadable counter
    time or a value the typed decoder refuses, which the typed path reads instead)."""
    n_ranges = len(split.first)
    rows = np.flatnonzero(scan.kind == codes.KIND_C)
    counts = split.count(rows)
    bad = split.any(rows[~ts_ok[rows]])
    elem, series, start, length = (scan.samples[:, c] for c in (cols.SAMPLE_ELEMENT, cols.SAMPLE_SERIES,
                                                                 cols.SAMPLE_TEXT, cols.SAMPLE_LENGTH))
    value = scan.values.copy()
    text = np.flatnonzero(length >= 0)  # numbers the scanner left to a full float parser
    if len(text):
        value[text], refused = _numbers(data, start[text], length[text])
        bad |= split.any(elem[text[refused]])
    # each range numbers its series by first appearance
    sample_range = split.range_of[elem]
    uniq, first, inverse = np.unique(sample_range * (len(scan.series_rows) + 1) + series, return_index=True,
                                     return_inverse=True)
    order = np.lexsort((first, sample_range[first]))
    block = np.searchsorted(sample_range[first[order]], np.arange(n_ranges + 1))
    local = np.empty(len(uniq), dtype=np.int32)
    local[order] = np.arange(len(uniq)) - block[sample_range[first[order]]]
    local_id = local[inverse]
    series_order = series[first[order]].tolist()
    names = [(token_text(_token(pk, pv, texts)), texts[nm], texts[k]) for pk, pv, nm, k in scan.series_rows.tolist()]
    lo, hi = (np.searchsorted(elem, bound).tolist() for bound in (split.first, split.stop))
    points = (local_id, ts[elem], value)
    block = block.tolist()

    def views(r: int) -> tuple[list, tuple | None]:
        if lo[r] == hi[r]:  # counters with empty args
            return [], None
        return ([names[k] for k in series_order[block[r]:block[r + 1]]],
                tuple(c[lo[r]:hi[r]] for c in points))

    return views, counts, bad


def _token(kind: int, value: int, texts: list[str]) -> object:
    """The pid/tid token as the typed decoder gives it."""
    if kind == codes.TOK_INT:
        return value
    if kind == codes.TOK_STR:
        return texts[value]
    return None


def _slices(scan: Scan, split: _Split, is_x: np.ndarray, ts: np.ndarray, ts_ok: np.ndarray, dur: np.ndarray,
            dur_ok: np.ndarray, to_string: np.ndarray, to_lane: np.ndarray, empty: int):
    """The task's slice columns: (each range's views of them, X events per range, dropped
    ones per range)."""
    x = np.flatnonzero(is_x)
    total = split.count(x)
    keep = ts_ok[x] & dur_ok[x] & (dur[x] >= 0)
    bad = x[~keep].tolist()
    dropped = split.dropped(bad, ["'ts' is not a number" if not ts_ok[i] else
                                  "'dur' is not a number" if not dur_ok[i] else "negative 'dur'" for i in bad])
    x = x[keep]
    cols = (ts[x], dur[x], to_lane[scan.lane[x]], _names(scan.name[x], to_string, empty), to_string[scan.cat[x]],
            to_string[scan.task[x]], split.ordinal[x])
    return split.views(x, cols), total, dropped


def _instants(scan: Scan, split: _Split, is_instant: np.ndarray, ts: np.ndarray, ts_ok: np.ndarray,
              to_string: np.ndarray, to_lane: np.ndarray, empty: int):
    """The task's instants: (each range's columns, instants per range, dropped ones per range)."""
    rows = np.flatnonzero(is_instant)
    counts = split.count(rows)
    bad = rows[~ts_ok[rows]].tolist()
    dropped = split.dropped(bad, [NO_TS] * len(bad))
    rows = rows[ts_ok[rows]]
    cols = (split.ordinal[rows], to_lane[scan.lane[rows]], _names(scan.name[rows], to_string, empty), ts[rows])
    return split.views(rows, cols), counts, dropped


def _flows(scan: Scan, split: _Split, is_flow: np.ndarray, ts: np.ndarray, ts_ok: np.ndarray,
           to_string: np.ndarray, to_lane: np.ndarray, empty: int, texts: list[str]):
    """The task's flow points: (each range's ``FlowColumns``, s/t/f counts per range,
    dropped ones per range)."""
    rows = np.flatnonzero(is_flow)
    ph = (scan.kind[rows] - codes.KIND_S).astype(np.int8)
    counts = np.zeros((len(split.first), 3), dtype=np.int64)
    np.add.at(counts, (split.range_of[rows], ph), 1)
    keep = ts_ok[rows]
    bad = rows[~keep].tolist()
    dropped = split.dropped(bad, [NO_TS] * len(bad))
    rows, ph = rows[keep], ph[keep]
    cols = (split.ordinal[rows], ph, _names(scan.cat[rows], to_string, empty), to_lane[scan.lane[rows]], ts[rows],
            scan.bp_e[rows])
    id_k, id_v = scan.id_k[rows], scan.id_v[rows]
    lo, hi = split.bounds(rows)
    is_text = id_k != codes.TOK_INT
    text_ranges = split.any(rows[is_text])
    id_txt = None
    if is_text.any():  # as text for the ranges with a text id (a range's ids are numbers unless one is text)
        id_txt = [texts[v] if t else str(v) for t, v in zip(is_text.tolist(), id_v.tolist())]

    def views(r: int) -> FlowColumns:
        part = slice(lo[r], hi[r])
        if text_ranges[r]:
            return FlowColumns(*(c[part] for c in cols), id_num=None, id_text=id_txt[part])
        return FlowColumns(*(c[part] for c in cols), id_num=id_v[part], id_text=None)

    return views, counts, dropped
