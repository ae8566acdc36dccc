"""Compiled scanner for the common shape of trace events: bytes straight to columns.

The typed msgspec decode builds one Python object per event and the column building
then touches each of them several times; that per-event Python work is most of a
load. This scanner, compiled by numba, reads the bytes of consecutive ranges once and
writes the columns of ``X`` and flow events directly, with the strings of a task
deduplicated in a hash table, so Python only sees each distinct string once. Other
phases (metadata, counters, B/E, instants) are left as byte spans for the typed
decoder.

It is a fast path, not a second parser with its own rules: it validates the JSON it
reads, and anything outside the narrow shape it knows (a value of an unusual type, a
number it cannot convert exactly as the typed path would, a duplicate key, an escaped
key, a damaged element) marks the range as not scanned, and that range goes through
the typed decode as before. Both paths therefore give identical results, which the
tests check on every generator layout and on adversarial input.

This module holds the state machine over one element (``_scan``) and its driver
(``scan_ranges``); the kernels it calls read JSON text (``byte_scan_text``), numbers
(``byte_scan_numbers``) and keep hash tables (``byte_scan_tables``). The arrays it
writes are named in ``scan_columns``. Without numba (or with ``TIMELINEVIEW_JIT=0``)
``load.jit.scanner_available()`` is false and the loader uses the typed decode alone.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.decode.scan.byte_scan_arrays import ScanArrays
from timelineview.model.decode.scan.byte_scan_numbers import (
    decimal_id,
    int_token,
    is_integer,
    number,
    plain_float,
    time_number,
    time_string,
)
from timelineview.model.decode.scan.byte_scan_tables import (
    earlier_copy,
    find_lane,
    find_string,
    insert_lane,
    string_hash,
)
from timelineview.model.decode.scan.byte_scan_text import (
    WATCH_DECLINED,
    WATCH_FOUND,
    counter_members,
    key_code,
    next_object_start,
    read_string,
    skip,
    skip_value,
    skip_ws,
)
from timelineview.model.decode.scan.scan_codes import (
    BP_END,
    CLOSE_OBJECT,
    COLON,
    COMMA,
    HAS_ESCAPES,
    KEY_ARGS,
    KEY_BP,
    KEY_CAT,
    KEY_COUNTER_ARG,
    KEY_DUR,
    KEY_ID,
    KEY_NAME,
    KEY_OTHER,
    KEY_PH,
    KEY_PID,
    KEY_TID,
    KEY_TS,
    KIND_C,
    KIND_F,
    KIND_I,
    KIND_META_COPY,
    KIND_OTHER,
    KIND_S,
    KIND_T,
    KIND_X,
    MINUS,
    NINE,
    NULL_START,
    OPEN_OBJECT,
    PH_COUNTER,
    PH_FLOW_END,
    PH_FLOW_START,
    PH_FLOW_STEP,
    PH_INSTANT,
    PH_METADATA,
    PH_X,
    QUOTE,
    RANGE_HOLES,
    TEXT_MAX_LENGTH,
    TEXT_SHIFT,
    TIME_FLOAT,
    TOK_INT,
    TOK_NULL,
    TOK_STR,
    ZERO,
)
from timelineview.model.decode.scan.scan_columns import (
    AT_ELEMENT,
    AT_LANES,
    AT_OFFSET,
    AT_RANGE,
    AT_SAMPLES,
    AT_SERIES,
    AT_SIZE,
    AT_STRINGS,
    ELEMENTS,
    LANES,
    LAST_LANE_ID,
    MEMBER_KEY_END,
    MEMBER_KEY_FLAGS,
    MEMBER_KEY_START,
    MEMBER_LENGTH,
    MEMBER_VALUE,
    PENDING_CODE,
    PENDING_END,
    PENDING_FLAGS,
    PENDING_START,
    RANGES,
    ROOM_ELEMENTS,
    ROOM_LANES,
    ROOM_SAMPLES,
    ROOM_SERIES,
    ROOM_STRINGS,
    SAMPLE_ELEMENT,
    SAMPLE_LENGTH,
    SAMPLE_SERIES,
    SAMPLE_TEXT,
    SAMPLES,
    SERIES,
    SPAN_END,
    SPAN_FLAGS,
    SPAN_START,
    STRINGS,
    Scan,
)
from timelineview.model.decode.scan.scan_jit import byte_at, jit

_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)
# phases the typed decoder knows but the scanner leaves to it
_OTHER_PHASES = np.frombuffer(b"BEiICMbenSTFONDPR()cvV", dtype=np.uint8).copy()


@jit
def _hold(pending, n, code, a, b, flags):
    """Keep a string value for interning once the element's phase is known."""
    pending[n, PENDING_CODE] = code
    pending[n, PENDING_START] = a
    pending[n, PENDING_END] = b
    pending[n, PENDING_FLAGS] = flags
    return n + 1


@jit
def _keeps(k_el, code):
    """Whether an element of kind ``k_el`` keeps its string of key ``code`` (a flow's name
    is read from the file when shown; other phases go to the typed decoder)."""
    if k_el == KIND_X:
        return code != KEY_ID
    if k_el == KIND_C:
        return code == KEY_NAME or code == KEY_PID or code == KEY_TID or code >= KEY_COUNTER_ARG
    if k_el == KIND_OTHER:
        return False
    if k_el == KIND_I:
        return code == KEY_NAME or code == KEY_PID or code == KEY_TID
    return code != KEY_NAME and code != KEY_ARGS


@jit
def _scan(buf, starts, ends, pow10, at, ranges, elements, strings, lanes, samples, series, work):
    """Scan ranges [starts[r], ends[r]) of ``buf`` as lists of events, from the point ``at``
    holds (see ``scan_ranges``), into the arrays given (``scan_columns`` names them).

    Returns 0 when done, else the ``ROOM_*`` bits of the arrays that must grow before the
    next element, with ``at`` saying where to resume.
    """
    el = elements
    pending, members, last_lane = work.pending, work.members, work.last_lane
    r0 = at[AT_RANGE]
    j = at[AT_ELEMENT]
    n_str = at[AT_STRINGS]
    n_lanes = at[AT_LANES]
    n_samples = at[AT_SAMPLES]
    n_series = at[AT_SERIES]
    s0 = 0
    for r in range(r0, len(starts)):
        end = ends[r]
        if r == r0 and at[AT_OFFSET] >= 0:  # resuming inside this range
            i = at[AT_OFFSET]
            first = ranges.r_first[r]
        else:
            i = starts[r]
            first = j
            ranges.r_first[r] = first
        while True:  # the range's elements; after one it does not read, on from the next event start
            ok = True
            while True:
                e0 = -1  # (no element open: a failure is at i)
                i = skip_ws(buf, i, end)
                if i >= end or byte_at(buf, i) != OPEN_OBJECT:
                    ok = False
                    break
                # room for one more element, with every string, lane and sample it may add
                room = 0
                if j >= len(el.kind):
                    room |= ROOM_ELEMENTS
                if n_str + len(pending) > len(strings.spans) or 2 * (n_str + len(pending)) > len(strings.string_slots):
                    room |= ROOM_STRINGS
                if n_lanes + 1 > len(lanes.lane_rows) or 2 * (n_lanes + 1) > len(lanes.lane_slots):
                    room |= ROOM_LANES
                if n_samples + len(members) > len(samples.samples):
                    room |= ROOM_SAMPLES
                if (n_series + len(members) > len(series.series_rows)
                        or 2 * (n_series + len(members)) > len(series.series_slots)):
                    room |= ROOM_SERIES
                if room:
                    at[AT_RANGE] = r
                    at[AT_OFFSET] = i
                    at[AT_ELEMENT] = j
                    at[AT_STRINGS] = n_str
                    at[AT_LANES] = n_lanes
                    at[AT_SAMPLES] = n_samples
                    at[AT_SERIES] = n_series
                    return room
                e0 = i
                # per-element fields; bit k of ``seen`` = key code k
                seen = 0
                ph = -1
                t_state = -1
                t_ns = 0
                d_state = -1
                d_ns = 0
                pk = TOK_NULL
                pv = 0
                tk = TOK_NULL
                tv = 0
                nm = -1
                ct = -1
                tt = -1
                ik = -1
                iv = 0
                be = False
                bad_x = False  # a field the X type declares has a type it rejects
                bad_flow = False
                n_pend = 0  # string values waiting to be interned: key code, span, flags
                args_a = -1  # where the args object starts
                i = skip_ws(buf, i + 1, end)
                if i < end and byte_at(buf, i) == CLOSE_OBJECT:
                    ok = False  # an empty object has no phase
                    break
                while True:
                    if i >= end or byte_at(buf, i) != QUOTE:
                        ok = False
                        break
                    ka = i + 1
                    i, kflags = read_string(buf, i, end)
                    if i < 0 or kflags & HAS_ESCAPES:
                        ok = False
                        break
                    code = key_code(buf, ka, i - 1)
                    if code != KEY_OTHER:
                        if seen & (1 << code):
                            ok = False
                            break
                        seen |= 1 << code
                    i = skip_ws(buf, i, end)
                    if i >= end or byte_at(buf, i) != COLON:
                        ok = False
                        break
                    i = skip_ws(buf, i + 1, end)
                    if i >= end:
                        ok = False
                        break
                    c = byte_at(buf, i)
                    is_str = False
                    a = b = fl = 0
                    if c == QUOTE and code != KEY_OTHER and code != KEY_ARGS:  # a string value: read it once here
                        a = i + 1
                        i, fl = read_string(buf, i, end)
                        if i < 0:
                            ok = False
                            break
                        b = i - 1
                        is_str = True
                    if code == KEY_OTHER:
                        i = skip_value(buf, i, end, work.stack)
                    elif code == KEY_PH:  # one character of a known phase
                        if not is_str or b - a != 1:
                            ok = False
                            break
                        ph = byte_at(buf, a)
                    elif code == KEY_NAME or code == KEY_CAT:  # strings (cat may be null)
                        if is_str:
                            n_pend = _hold(pending, n_pend, code, a, b, fl)
                        elif code == KEY_CAT and c == NULL_START:
                            i = skip_value(buf, i, end, work.stack)
                        else:
                            ok = False
                            break
                    elif code == KEY_PID or code == KEY_TID:  # integer, string or null
                        kk = TOK_NULL
                        vv = 0
                        if is_str:
                            n_pend = _hold(pending, n_pend, code, a, b, fl)
                            kk = TOK_STR
                        elif c == NULL_START:
                            i = skip_value(buf, i, end, work.stack)
                        else:
                            i, vv, good = int_token(buf, i, end)
                            if not good:
                                ok = False
                                break
                            kk = TOK_INT
                        if code == KEY_PID:
                            pk, pv = kk, vv
                        else:
                            tk, tv = kk, vv
                    elif code == KEY_TS or code == KEY_DUR:  # number or decimal string
                        st = -1
                        vv = 0
                        if is_str:
                            st, vv = time_string(buf, a, b)
                        elif c == MINUS or ZERO <= c <= NINE:
                            a = i
                            i, int_end, fs, fe, ex = number(buf, i, end)
                            if i < 0:
                                ok = False
                                break
                            st = TIME_FLOAT
                            if c != MINUS:
                                st, vv = time_number(buf, a, int_end, fs, fe, ex, pow10)
                            if st == TIME_FLOAT:  # the number's text, for the caller's float conversion
                                vv = (a << TEXT_SHIFT) | min(i - a, TEXT_MAX_LENGTH)
                        else:
                            i = skip_value(buf, i, end, work.stack)
                        if code == KEY_TS:
                            t_state, t_ns = st, vv
                        else:
                            d_state, d_ns = st, vv
                    elif code == KEY_ID:  # integer or string (flows only)
                        if is_str:
                            good, vv = decimal_id(buf, a, b)
                            if fl & HAS_ESCAPES:
                                bad_flow = True
                            elif good:
                                ik, iv = TOK_INT, vv
                            else:
                                n_pend = _hold(pending, n_pend, code, a, b, fl)
                                ik = TOK_STR
                        elif c == MINUS or ZERO <= c <= NINE:
                            a = i
                            i, vv, good = int_token(buf, i, end)
                            if good:
                                ik, iv = TOK_INT, vv
                            elif i >= 0 and is_integer(buf, a, i):  # beyond int64: its digits, as text
                                n_pend = _hold(pending, n_pend, code, a, i, 0)
                                ik = TOK_STR
                            else:
                                bad_flow = True
                        else:
                            i = skip_value(buf, i, end, work.stack)
                            bad_flow = True
                    elif code == KEY_BP:
                        if is_str:
                            be = b - a == 1 and byte_at(buf, a) == BP_END
                            bad_flow = bad_flow or (fl & HAS_ESCAPES) != 0
                        else:
                            bad_flow = bad_flow or c != NULL_START
                            i = skip_value(buf, i, end, work.stack)
                    else:  # args: an object (its task type string is kept) or null
                        if c == OPEN_OBJECT:
                            args_a = i
                            i, a, b, fl, got = skip(buf, i, end, work.stack, True)
                            if got == WATCH_FOUND:
                                n_pend = _hold(pending, n_pend, code, a, b, fl)
                            bad_x = bad_x or got == WATCH_DECLINED
                        else:
                            i = skip_value(buf, i, end, work.stack)
                            bad_x = bad_x or c != NULL_START
                    if i < 0:
                        ok = False
                        break
                    i = skip_ws(buf, i, end)
                    if i >= end:
                        ok = False
                        break
                    if byte_at(buf, i) == COMMA:
                        i = skip_ws(buf, i + 1, end)
                        continue
                    if byte_at(buf, i) == CLOSE_OBJECT:
                        i += 1
                        break
                    ok = False
                    break
                if not ok:
                    break
                # the element is complete: keep what its phase declares
                el.e_start[j] = e0
                el.e_end[j] = i
                if ph == PH_X:
                    if bad_x or t_state < 0 or d_state < 0:
                        ok = False
                        break
                    el.kind[j] = KIND_X
                elif ph == PH_FLOW_START or ph == PH_FLOW_STEP or ph == PH_FLOW_END:
                    if bad_flow or t_state < 0 or ik < 0:
                        ok = False
                        break
                    el.kind[j] = KIND_S if ph == PH_FLOW_START else (KIND_T if ph == PH_FLOW_STEP else KIND_F)
                elif ph == PH_INSTANT:
                    if t_state < 0:
                        ok = False
                        break
                    el.kind[j] = KIND_I
                else:
                    known = False
                    for p in _OTHER_PHASES:
                        if ph == p:
                            known = True
                    if not known:
                        ok = False
                        break
                    el.kind[j] = KIND_OTHER
                    if ph == PH_METADATA:  # Gen C repeats the same record for every event
                        k = earlier_copy(buf, e0, i, j, r + 1, work.meta_slots, el.e_start, el.e_end)
                        if k >= 0:
                            el.kind[k] = KIND_META_COPY
                    # a counter of plain numbers: its samples are kept here (ids and odd values
                    # are left to the typed decoder)
                    if (ph == PH_COUNTER and t_state >= 0 and args_a >= 0 and seen & (1 << KEY_NAME)
                            and not seen & (1 << KEY_ID)):
                        n_keys = counter_members(buf, args_a, i, members, work.stack)
                        if n_keys >= 0:
                            el.kind[j] = KIND_C
                            s0 = n_samples
                            for m in range(n_keys):
                                samples.samples[n_samples, SAMPLE_ELEMENT] = j
                                v0, vlen = members[m, MEMBER_VALUE], members[m, MEMBER_LENGTH]
                                exact, samples.values[n_samples] = plain_float(buf, v0, v0 + vlen, pow10)
                                samples.samples[n_samples, SAMPLE_TEXT] = v0
                                # else the caller converts it
                                samples.samples[n_samples, SAMPLE_LENGTH] = -1 if exact else vlen
                                n_samples += 1
                                n_pend = _hold(pending, n_pend, KEY_COUNTER_ARG + m, members[m, MEMBER_KEY_START],
                                               members[m, MEMBER_KEY_END], members[m, MEMBER_KEY_FLAGS])
                # the one place strings are interned: only those the element's phase keeps
                k_el = el.kind[j]
                for k in range(n_pend):
                    code = pending[k, PENDING_CODE]
                    if not _keeps(k_el, code):
                        continue
                    pa, pb = pending[k, PENDING_START], pending[k, PENDING_END]
                    h = string_hash(buf, pa, pb)
                    sid = find_string(buf, pa, pb, h, strings.string_slots, strings.spans)
                    if sid < 0:
                        slot = -1 - sid
                        sid = n_str
                        strings.spans[sid, SPAN_START] = pa
                        strings.spans[sid, SPAN_END] = pb
                        strings.spans[sid, SPAN_FLAGS] = pending[k, PENDING_FLAGS]
                        strings.string_slots[slot, 0] = np.int64(h >> np.uint64(1))
                        strings.string_slots[slot, 1] = sid + 1
                        n_str += 1
                    if code == KEY_NAME:
                        nm = sid
                    elif code == KEY_PID:
                        pv = sid
                    elif code == KEY_TID:
                        tv = sid
                    elif code == KEY_CAT:
                        ct = sid
                    elif code == KEY_ID:
                        iv = sid
                    elif code == KEY_ARGS:
                        tt = sid
                    else:  # a counter's args key
                        samples.samples[s0 + code - KEY_COUNTER_ARG, SAMPLE_SERIES] = sid  # its key, until the series
                el.ts[j] = t_ns
                el.ts_st[j] = t_state
                el.dur[j] = d_ns
                el.dur_st[j] = d_state
                if k_el == KIND_C:  # counters belong to their process: the pid token stands in the id
                    ik, iv = pk, pv
                    for m in range(s0, n_samples):  # each (pid, name, key) is a series
                        key = samples.samples[m, SAMPLE_SERIES]
                        sr = find_lane(pk, pv, nm, key, series.series_slots, series.series_rows)
                        if sr < 0:
                            sr = insert_lane(pk, pv, nm, key, -1 - sr, series.series_slots, series.series_rows,
                                             n_series)
                            n_series += 1
                        samples.samples[m, SAMPLE_SERIES] = sr
                if k_el == KIND_OTHER or k_el == KIND_C:  # no lane (or the typed decoder's business)
                    el.lane[j] = -1
                else:
                    if not (pk == last_lane[0] and pv == last_lane[1] and tk == last_lane[2] and tv == last_lane[3]):
                        ln = find_lane(pk, pv, tk, tv, lanes.lane_slots, lanes.lane_rows)
                        if ln < 0:
                            ln = insert_lane(pk, pv, tk, tv, -1 - ln, lanes.lane_slots, lanes.lane_rows, n_lanes)
                            n_lanes += 1
                        last_lane[0], last_lane[1], last_lane[2], last_lane[3] = pk, pv, tk, tv
                        last_lane[LAST_LANE_ID] = ln
                    el.lane[j] = last_lane[LAST_LANE_ID]
                el.name[j] = nm
                el.cat[j] = ct
                el.task[j] = tt
                el.id_k[j] = ik
                el.id_v[j] = iv
                el.bp_e[j] = be
                j += 1
                e0 = -1
                i = skip_ws(buf, i, end)
                if i >= end:
                    break
                if byte_at(buf, i) != COMMA:
                    ok = False
                    break
                i += 1
            if ok:
                break
            # a damaged or unusual element (or what follows one): the typed and tolerant reads settle
            # the range; the elements read here before and after it are kept for them (``RANGE_HOLES``)
            ranges.r_state[r] = RANGE_HOLES
            i = next_object_start(buf, i if e0 < 0 else e0 + 1, end)
            if i >= end:
                break
        ranges.r_count[r] = j - first
    at[AT_RANGE] = len(starts)
    at[AT_OFFSET] = -1
    at[AT_ELEMENT] = j
    at[AT_STRINGS] = n_str
    at[AT_LANES] = n_lanes
    at[AT_SAMPLES] = n_samples
    at[AT_SERIES] = n_series
    return 0


def scan_ranges(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, smallest: bool = False) -> Scan:
    """Scan each range [starts[r], ends[r]) of ``buf`` (uint8) as a list of events.

    Returns per-range states, element counts and first rows, the per-element columns
    (rows of the ranges that failed are overwritten), the task's string spans, lanes,
    and counter samples, values and series. ``smallest`` starts every output array at
    its smallest size, so that the scan stops to grow them again and again (for tests).
    """
    arrays = ScanArrays(len(starts), int((ends - starts).sum()), smallest)
    at = np.zeros(AT_SIZE, np.int64)
    at[AT_OFFSET] = -1
    g = arrays.groups
    while True:
        room = _scan(buf, starts, ends, _POW10, at, g[RANGES], g[ELEMENTS], g[STRINGS], g[LANES], g[SAMPLES],
                     g[SERIES], arrays.work)
        if not room:
            break
        arrays.grow(room, buf, at)
    return arrays.result(at)


def warm() -> None:
    """Compile (or load from numba's cache) the scanner."""
    # a writable buffer, as the loader passes (a read-only one would compile another version)
    data = np.frombuffer(bytearray(b'{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1.5","dur":2}'), dtype=np.uint8)
    scan_ranges(data, np.zeros(1, np.int64), np.array([len(data)], np.int64))
