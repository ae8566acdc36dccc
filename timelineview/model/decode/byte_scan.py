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

Without numba (or with ``TIMELINEVIEW_JIT=0``) ``load.jit.scanner_available()`` is
false and the loader uses the typed decode alone.
"""

from __future__ import annotations

import numpy as np

try:  # numba is a dependency, but the loader must work (slower) without it
    import numba
    from numba.core import types
    from numba.extending import intrinsic
except ImportError:  # pragma: no cover - exercised only where numba is missing
    numba = None

from timelineview.model.decode.scan_codes import (
    KIND_C,
    KIND_F,
    KIND_I,
    KIND_META_COPY,
    KIND_OTHER,
    KIND_S,
    KIND_T,
    KIND_X,
    MAX_COUNTER_KEYS,
    RANGE_FAILED,
    TIME_EXACT,
    TIME_FLOAT,
    TOK_INT,
    TOK_NULL,
    TOK_STR,
)
from timelineview.model.decode.timestamps import FLOAT_EXACT_LIMIT_US

_FLOAT_EXACT_LIMIT = int(FLOAT_EXACT_LIMIT_US)  # µs: below it rint(x * 1000) is the written ns
_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)

# phases the typed decoder knows but the scanner leaves to it
_OTHER_PHASES = np.frombuffer(b"BEiICMbenSTFONDPR()cvV", dtype=np.uint8).copy()
_TASK_TYPE, _TRUE, _FALSE, _NULL = (np.frombuffer(w, dtype=np.uint8).copy() for w in (b"Task Type", b"true", b"false",
                                                                                       b"null"))

# ``at``: where a scan stands (resume point and counts so far)
AT_RANGE, AT_OFFSET, AT_ELEMENT, AT_STRINGS, AT_LANES, AT_SAMPLES, AT_SERIES = range(7)
# what a scan stopped to ask room for
ROOM_ELEMENTS, ROOM_STRINGS, ROOM_LANES, ROOM_SAMPLES, ROOM_SERIES = 1, 2, 4, 8, 16


def _jit(fn):
    # without NRT: no reference counting, which numba otherwise does with an atomic
    # instruction each time an array is handed to a helper (once 40 % of the scan). The
    # compiled code therefore allocates nothing; the caller owns every array.
    if numba is None:
        return fn
    return numba.njit(cache=True, nogil=True, boundscheck=False, _nrt=False)(fn)


def _byte(buf, i):
    return int(buf[i])


if numba is not None:
    @intrinsic
    def _byte(typingctx, arr, i):  # noqa: F811 - the compiled form of the one above
        """buf[i] without numba's negative-index wraparound: the scanner's indices are
        never negative, and the check cost a third of the scan."""
        sig = types.uint8(arr, i)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            return builder.load(builder.gep(ary.data, [args[1]]))

        return sig, codegen


@_jit
def _ws(buf, i, end):
    while i < end:
        c = _byte(buf, i)
        if c != 32 and c != 10 and c != 13 and c != 9:
            return i
        i += 1
    return i


@_jit
def _hexdigit(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


@_jit
def _string_checked(buf, i, end):
    """End of the string starting at buf[i] == '"' (after the closing quote), or -1,
    with every escape and UTF-8 sequence checked.

    Flags: 1 = has escapes, 2 = has non-ASCII bytes."""
    i += 1
    flags = 0
    while i < end:
        c = _byte(buf, i)
        if c == 34:
            return i + 1, flags
        if c == 92:
            flags |= 1
            if i + 1 >= end:
                return -1, 0
            e = _byte(buf, i + 1)
            if e == 117:
                if i + 5 >= end:
                    return -1, 0
                for k in range(2, 6):
                    if not _hexdigit(_byte(buf, i + k)):
                        return -1, 0
                i += 6
            elif e == 34 or e == 92 or e == 47 or e == 98 or e == 102 or e == 110 or e == 114 or e == 116:
                i += 2
            else:
                return -1, 0
        elif c < 32:
            return -1, 0
        elif c < 128:
            i += 1
        else:
            flags |= 2
            if 0xC2 <= c <= 0xDF:
                n = 1
            elif 0xE0 <= c <= 0xEF:
                n = 2
            elif 0xF0 <= c <= 0xF4:
                n = 3
            else:
                return -1, 0
            if i + n >= end:
                return -1, 0
            c1 = _byte(buf, i + 1)
            if c1 < 0x80 or c1 > 0xBF:
                return -1, 0
            if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 > 0x9F) or (c == 0xF0 and c1 < 0x90) or (
                    c == 0xF4 and c1 > 0x8F):
                return -1, 0
            for k in range(2, n + 1):
                ck = _byte(buf, i + k)
                if ck < 0x80 or ck > 0xBF:
                    return -1, 0
            i += n + 1
    return -1, 0


@_jit
def _string(buf, i, end):
    """End of the string starting at buf[i] == '"' and its flags (1 escapes, 2 non-ASCII);
    -1 at a control character or the end of the data.

    Escapes and non-ASCII bytes are only flagged here: a caller seeing flags re-reads the
    string with ``_string_checked``. A call inside this loop would keep it from being
    inlined, which costs the whole scan a fifth of its speed.
    """
    i += 1
    flags = 0
    while i < end:
        c = _byte(buf, i)
        if c == 34:
            return i + 1, flags
        if c == 92:
            flags |= 1
            i += 2
        elif c < 32:
            return -1, 0
        else:
            if c >= 128:
                flags |= 2
            i += 1
    return -1, 0


@_jit
def _number(buf, i, end):
    """Validate a JSON number at i: (end, int_end, frac_start, frac_end, has_exp), end -1 if invalid."""
    if _byte(buf, i) == 45:
        i += 1
    if i >= end:
        return -1, 0, 0, 0, False
    c = _byte(buf, i)
    if c == 48:
        i += 1
    elif 49 <= c <= 57:
        while i < end and 48 <= _byte(buf, i) <= 57:
            i += 1
    else:
        return -1, 0, 0, 0, False
    int_end = i
    frac_start = frac_end = i
    if i < end and _byte(buf, i) == 46:
        i += 1
        frac_start = i
        while i < end and 48 <= _byte(buf, i) <= 57:
            i += 1
        frac_end = i
        if frac_end == frac_start:
            return -1, 0, 0, 0, False
    exp = False
    if i < end and (_byte(buf, i) == 101 or _byte(buf, i) == 69):
        exp = True
        i += 1
        if i < end and (_byte(buf, i) == 43 or _byte(buf, i) == 45):
            i += 1
        d0 = i
        while i < end and 48 <= _byte(buf, i) <= 57:
            i += 1
        if i == d0:
            return -1, 0, 0, 0, False
    return i, int_end, frac_start, frac_end, exp


@_jit
def _digits(buf, a, b):
    v = 0
    for k in range(a, b):
        v = v * 10 + (_byte(buf, k) - 48)
    return v


@_jit
def _read_string(buf, i, end):
    """``_string``, with a string it flags re-read by ``_string_checked``: (end or -1, flags)."""
    e, flags = _string(buf, i, end)
    if flags and e >= 0:  # escapes or non-ASCII: checked off the hot loop
        return _string_checked(buf, i, end)
    return e, flags


@_jit
def _member_key(buf, i, end):
    """(position after the key string at i and its colon, or -1; key content start, end,
    flags)."""
    if i >= end or _byte(buf, i) != 34:
        return -1, 0, 0, 0
    q = i
    i, kfl = _read_string(buf, i, end)
    if i < 0:
        return -1, 0, 0, 0
    kb = i - 1
    i = _ws(buf, i, end)
    if i >= end or _byte(buf, i) != 58:
        return -1, 0, 0, 0
    return i + 1, q + 1, kb, kfl


@_jit
def _watch_key(buf, ka, kb, kfl, got):
    """(is this member key "Task Type", got): an escaped key might spell it, so it leaves
    the element to the typed path (got 2)."""
    if kfl & 1:
        return False, 2
    return kfl == 0 and kb - ka == len(_TASK_TYPE) and _literal(buf, ka, kb, _TASK_TYPE) == kb, got


@_jit
def _literal(buf, i, end, word):
    """End of ``word`` when the bytes at i spell it, else -1."""
    if i + len(word) > end:
        return -1
    for k in range(len(word)):
        if _byte(buf, i + k) != word[k]:
            return -1
    return i + len(word)


@_jit
def _skip(buf, i, end, stack, watch):
    """End of the JSON value at i (validated), or -1; with ``watch``, for an object, also
    its "Task Type" member: (end, a, b, flags, got) where [a, b) is the content of that
    string (got 1), got 0 without one, got 2 when the key is repeated or its value is
    neither a string nor null (left to the typed path)."""
    depth = 0
    want = False  # the value about to be read is the watched member's
    got = 0
    a = b = fl = 0
    while True:
        i = _ws(buf, i, end)
        if i >= end:
            return -1, a, b, fl, got
        c = _byte(buf, i)
        if want:
            if c == 34 and got == 0:
                a = i + 1
            elif c != 110 or got != 0:
                got = 2
        if c == 123 or c == 91:
            j = _ws(buf, i + 1, end)
            if j >= end:
                return -1, a, b, fl, got
            if (c == 123 and _byte(buf, j) == 125) or (c == 91 and _byte(buf, j) == 93):
                i = j + 1
            else:
                if depth >= len(stack):
                    return -1, a, b, fl, got
                stack[depth] = 0 if c == 123 else 1
                depth += 1
                i = j
                want = False
                if c == 123:  # first key
                    i, ka, kb, kfl = _member_key(buf, i, end)
                    if i < 0:
                        return -1, a, b, fl, got
                    if watch and depth == 1:
                        want, got = _watch_key(buf, ka, kb, kfl, got)
                continue
        elif c == 34:
            i, sfl = _read_string(buf, i, end)
            if i < 0:
                return -1, a, b, fl, got
            if want and got == 0:
                b, fl, got = i - 1, sfl, 1
        elif c == 45 or 48 <= c <= 57:
            i = _number(buf, i, end)[0]
            if i < 0:
                return -1, a, b, fl, got
        elif c == 116 or c == 102 or c == 110:
            i = _literal(buf, i, end, _TRUE if c == 116 else (_FALSE if c == 102 else _NULL))
            if i < 0:
                return -1, a, b, fl, got
        else:
            return -1, a, b, fl, got
        want = False
        # after a value: close containers, or move to the next member
        while True:
            if depth == 0:
                return i, a, b, fl, got
            i = _ws(buf, i, end)
            if i >= end:
                return -1, a, b, fl, got
            c = _byte(buf, i)
            if c == 44:
                i = _ws(buf, i + 1, end)
                if stack[depth - 1] == 0:
                    i, ka, kb, kfl = _member_key(buf, i, end)
                    if i < 0:
                        return -1, a, b, fl, got
                    if watch and depth == 1:
                        want, got = _watch_key(buf, ka, kb, kfl, got)
                break
            if (c == 125 and stack[depth - 1] == 0) or (c == 93 and stack[depth - 1] == 1):
                i += 1
                depth -= 1
                continue
            return -1, a, b, fl, got


@_jit
def _skip_value(buf, i, end, stack):
    """End of the JSON value at i (validated), or -1."""
    return _skip(buf, i, end, stack, False)[0]


@_jit
def _key_code(buf, a, b):
    """Known keys (content bytes [a, b)): 1 ph, 2 name, 3 pid, 4 tid, 5 ts, 6 dur, 7 cat,
    8 id, 9 bp, 10 args; 0 any other."""
    n = b - a
    if n == 2:
        c0, c1 = _byte(buf, a), _byte(buf, a + 1)
        if c0 == 112 and c1 == 104:
            return 1
        if c0 == 116 and c1 == 115:
            return 5
        if c0 == 105 and c1 == 100:
            return 8
        if c0 == 98 and c1 == 112:
            return 9
    elif n == 3:
        c0, c1, c2 = _byte(buf, a), _byte(buf, a + 1), _byte(buf, a + 2)
        if c1 == 105 and c2 == 100:
            if c0 == 112:
                return 3
            if c0 == 116:
                return 4
        if c0 == 100 and c1 == 117 and c2 == 114:
            return 6
        if c0 == 99 and c1 == 97 and c2 == 116:
            return 7
    elif n == 4:
        if _byte(buf, a) == 110 and _byte(buf, a + 1) == 97 and _byte(buf, a + 2) == 109 and _byte(buf, a + 3) == 101:
            return 2
        if _byte(buf, a) == 97 and _byte(buf, a + 1) == 114 and _byte(buf, a + 2) == 103 and _byte(buf, a + 3) == 115:
            return 10
    return 0


@_jit
def _hash(buf, a, b):
    h = np.uint64(14695981039346656037)
    for k in range(a, b):
        h = (h ^ np.uint64(_byte(buf, k))) * np.uint64(1099511628211)
    return h


@_jit
def _lookup(buf, a, b, h, table, spans):
    """Id of the string with content bytes [a, b) (hash h), or -1 - its free slot.

    ``table`` rows are (hash >> 1, id + 1) in open addressing; ``spans`` rows (a, b, flags).
    """
    mask = len(table) - 1
    slot = np.int64(h & np.uint64(mask))
    hs = np.int64(h >> np.uint64(1))
    while True:
        sid1 = table[slot, 1]
        if sid1 == 0:
            break
        if table[slot, 0] == hs:
            s = sid1 - 1
            sa, sb = spans[s, 0], spans[s, 1]
            if sb - sa == b - a:
                same = True
                for k in range(b - a):
                    if _byte(buf, sa + k) != _byte(buf, a + k):
                        same = False
                        break
                if same:
                    return s
        slot = (slot + 1) & mask
    return -1 - slot  # not found: the free slot, encoded


@_jit
def _rehash_strings(buf, spans, count, table):
    """Fill the empty string ``table`` with the first ``count`` strings of ``spans``."""
    mask = len(table) - 1
    for s in range(count):
        h = _hash(buf, spans[s, 0], spans[s, 1])
        slot = np.int64(h & np.uint64(mask))
        while table[slot, 1] != 0:
            slot = (slot + 1) & mask
        table[slot, 0] = np.int64(h >> np.uint64(1))
        table[slot, 1] = s + 1


@_jit
def _time_number(buf, i, int_end, frac_start, frac_end, exp, pow10):
    """(state, ns) for a non-negative JSON number of µs starting at i: exact when the
    typed path's float64 result is certain to be the same, else state TIME_FLOAT."""
    if exp:
        return TIME_FLOAT, 0
    n_int = int_end - i
    n_dec = frac_end - frac_start
    if n_int > 13:
        return TIME_FLOAT, 0
    whole = _digits(buf, i, int_end)
    if whole >= _FLOAT_EXACT_LIMIT:
        return TIME_FLOAT, 0
    if n_dec <= 3:
        return TIME_EXACT, whole * 1000 + _digits(buf, frac_start, frac_end) * pow10[3 - n_dec]
    if n_int + n_dec > 18:
        return TIME_FLOAT, 0
    ns = whole * 1000 + _digits(buf, frac_start, frac_start + 3)
    m = n_dec - 3
    rest = _digits(buf, frac_start + 3, frac_end)
    frac = rest / pow10[m]
    # the typed path rounds twice in float64 (parse, then * 1000): the result can only
    # differ from exact rounding next to a tie, which goes through that same path instead
    if abs(frac - 0.5) <= (ns + 1) * 2.0 ** -50 + 1e-12:
        return TIME_FLOAT, 0
    return TIME_EXACT, ns + (1 if frac > 0.5 else 0)


@_jit
def _time_string(buf, a, b):
    """(state, ns) for the content [a, b) of a string of decimal µs, as the typed path
    converts it: digits, an optional point and digits, half up past the third decimal.
    State -1 for any other text (the typed path handles it)."""
    i = a
    while i < b and 48 <= _byte(buf, i) <= 57:
        i += 1
    int_end = i
    if int_end == a or int_end - a > 16:
        return -1, 0
    whole = _digits(buf, a, int_end)
    if whole > 9000000000000000:
        return -1, 0
    ns = whole * 1000
    if i == b:
        return TIME_EXACT, ns
    if _byte(buf, i) != 46 or i + 1 == b:
        return -1, 0
    scale = 100
    up = 0
    for k in range(i + 1, b):
        c = _byte(buf, k)
        if c < 48 or c > 57:
            return -1, 0
        if scale >= 1:
            ns += (c - 48) * scale
            scale //= 10
        elif scale == 0:
            up = 1 if c >= 53 else 0
            scale = -1
    return TIME_EXACT, ns + up


@_jit
def _int_token(buf, i, end):
    """A JSON integer at i: (end, value, ok); ok False for fractions, exponents or beyond int64."""
    e, int_end, fs, fe, exp = _number(buf, i, end)
    if e < 0:
        return -1, 0, False
    neg = _byte(buf, i) == 45
    a = i + 1 if neg else i
    n = int_end - a
    if exp or fe != fs or n > 19:
        return e, 0, False
    if n == 19:  # fits int64 only up to 9223372036854775807 (…808 negative)
        head = _digits(buf, a, int_end - 1)
        last = _byte(buf, int_end - 1) - 48
        if head > 922337203685477580 or (head == 922337203685477580 and last > (8 if neg else 7)):
            return e, 0, False
        if neg:
            return e, -head * 10 - last, True
        return e, head * 10 + last, True
    v = _digits(buf, a, int_end)
    return e, -v if neg else v, True


@_jit
def _is_integer(buf, a, b):
    """[a, b) is an optionally signed run of digits (a JSON integer's text)."""
    if a < b and _byte(buf, a) == 45:
        a += 1
    if a >= b:
        return False
    for k in range(a, b):
        if _byte(buf, k) < 48 or _byte(buf, k) > 57:
            return False
    return True


@_jit
def _decimal_id(buf, a, b):
    """A string id that is a canonical decimal integer of at most 18 digits: (True, value)."""
    n = b - a
    if n == 0 or n > 18 or (_byte(buf, a) == 48 and n > 1):
        return False, 0
    for k in range(a, b):
        if _byte(buf, k) < 48 or _byte(buf, k) > 57:
            return False, 0
    return True, _digits(buf, a, b)


@_jit
def _lane_hash(pk, pv, tk, tv):
    h = np.uint64(pv) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(tv) * np.uint64(0xC2B2AE3D27D4EB4F)
    return (h ^ np.uint64(pk * 4 + tk)) >> np.uint64(17)


@_jit
def _find_lane(pk, pv, tk, tv, table, rows):
    """Local id of the (pid, tid) token pair, or -1 - its free slot.

    ``table`` slots hold id + 1 (0 = free); ``rows`` are (pid kind, pid value, tid kind, tid value).
    """
    mask = len(table) - 1
    slot = np.int64(_lane_hash(pk, pv, tk, tv) & np.uint64(mask))
    while table[slot] != 0:
        s = table[slot] - 1
        if rows[s, 0] == pk and rows[s, 1] == pv and rows[s, 2] == tk and rows[s, 3] == tv:
            return s
        slot = (slot + 1) & mask
    return -1 - slot


@_jit
def _insert_lane(pk, pv, tk, tv, slot, table, rows, count):
    """Add a new lane at the free ``slot`` (the caller made room): its id."""
    rows[count, 0] = pk
    rows[count, 1] = pv
    rows[count, 2] = tk
    rows[count, 3] = tv
    table[slot] = count + 1
    return count


@_jit
def _rehash_lanes(rows, count, table):
    """Fill the empty lane ``table`` with the first ``count`` lanes of ``rows``."""
    mask = len(table) - 1
    for s in range(count):
        slot = np.int64(_lane_hash(rows[s, 0], rows[s, 1], rows[s, 2], rows[s, 3]) & np.uint64(mask))
        while table[slot] != 0:
            slot = (slot + 1) & mask
        table[slot] = s + 1


@_jit
def _plain_float(buf, a, b, pow10):
    """(True, value) for a JSON number of at most 15 digits and no exponent: the digits
    and the power of ten are exact doubles, so one division rounds as a full parser
    does. (False, 0.0) for anything else."""
    neg = _byte(buf, a) == 45
    if neg:
        a += 1
    digits = 0
    point = -1
    v = 0
    for k in range(a, b):
        c = _byte(buf, k)
        if c == 46:
            point = k
        elif 48 <= c <= 57:
            v = v * 10 + (c - 48)
            digits += 1
        else:
            return False, 0.0
    if digits > 15:
        return False, 0.0
    x = float(v)
    if point >= 0:
        x = x / float(pow10[b - point - 1])
    return True, -x if neg else x


@_jit
def _counter_members(buf, i, end, members, stack):
    """Members of a counter's args object at buf[i] == '{' when every value is a JSON number:
    rows (key start, key end, key flags, value start, value length); their count, or -1."""
    n = 0
    i = _ws(buf, i + 1, end)
    if i < end and _byte(buf, i) == 125:
        return 0
    while True:
        i, ka, kb, kfl = _member_key(buf, i, end)
        if i < 0 or n >= len(members):
            return -1
        i = _ws(buf, i, end)
        if i >= end or not (_byte(buf, i) == 45 or 48 <= _byte(buf, i) <= 57):
            return -1  # strings, booleans, null, nesting: the typed decoder's rules
        v = i
        i = _number(buf, i, end)[0]
        if i < 0:
            return -1
        members[n, 0] = ka
        members[n, 1] = kb
        members[n, 2] = kfl
        members[n, 3] = v
        members[n, 4] = i - v
        n += 1
        i = _ws(buf, i, end)
        if i < end and _byte(buf, i) == 44:
            i = _ws(buf, i + 1, end)
            continue
        if i < end and _byte(buf, i) == 125:
            return n
        return -1


@_jit
def _hold(pending, n, code, a, b, flags):
    """Keep a string value for interning once the element's phase is known."""
    pending[n, 0] = code
    pending[n, 1] = a
    pending[n, 2] = b
    pending[n, 3] = flags
    return n + 1


@_jit
def _earlier_copy(buf, a, b, j, gen, table, e_start, e_end):
    """Row of an earlier element of this range (``gen``) with the same bytes as [a, b), or
    -1; element j takes its place in ``table`` (rows: hash, row, gen). Probes are capped:
    a crowded table only finds fewer copies."""
    h = _hash(buf, a, b)
    mask = len(table) - 1
    slot = np.int64(h & np.uint64(mask))
    hs = np.int64(h >> np.uint64(1))
    for _ in range(64):
        if table[slot, 2] != gen:  # free for this range
            table[slot, 0] = hs
            table[slot, 1] = j
            table[slot, 2] = gen
            return -1
        if table[slot, 0] == hs:
            k = table[slot, 1]
            if e_end[k] - e_start[k] == b - a and _same_bytes(buf, e_start[k], a, b - a):
                table[slot, 1] = j
                return k
        slot = (slot + 1) & mask
    return -1


@_jit
def _same_bytes(buf, a, b, n):
    for k in range(n):
        if _byte(buf, a + k) != _byte(buf, b + k):
            return False
    return True


@_jit
def _scan(buf, starts, ends, pow10, at, ranges, cols, strings, lanes, counters, work):
    """Scan ranges [starts[r], ends[r]) of ``buf`` as lists of events, from the point ``at``
    holds (see ``scan_ranges``), into the arrays given.

    Returns 0 when done, else the ``ROOM_*`` bits of the arrays that must grow before the
    next element, with ``at`` saying where to resume.
    """
    r_state, r_count, r_first = ranges
    kind, e_start, e_end, ts, ts_st, dur, dur_st, lane, name, cat, task, id_k, id_v, bp_e = cols
    table, spans = strings
    lane_table, lane_rows, last_lane = lanes
    samples, values, series_table, series_rows = counters
    stack, pending, members, meta_table = work
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
            first = r_first[r]
        else:
            i = starts[r]
            first = j
            r_first[r] = first
        ok = True
        while True:
            i = _ws(buf, i, end)
            if i >= end or _byte(buf, i) != 123:
                ok = False
                break
            # room for one more element, with every string, lane and sample it may add
            room = 0
            if j >= len(kind):
                room |= ROOM_ELEMENTS
            if n_str + len(pending) > len(spans) or 2 * (n_str + len(pending)) > len(table):
                room |= ROOM_STRINGS
            if n_lanes + 1 > len(lane_rows) or 2 * (n_lanes + 1) > len(lane_table):
                room |= ROOM_LANES
            if n_samples + len(members) > len(samples):
                room |= ROOM_SAMPLES
            if n_series + len(members) > len(series_rows) or 2 * (n_series + len(members)) > len(series_table):
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
            i = _ws(buf, i + 1, end)
            if i < end and _byte(buf, i) == 125:
                ok = False  # an empty object has no phase
                break
            while True:
                if i >= end or _byte(buf, i) != 34:
                    ok = False
                    break
                ka = i + 1
                i, kflags = _read_string(buf, i, end)
                if i < 0 or kflags & 1:
                    ok = False
                    break
                code = _key_code(buf, ka, i - 1)
                if code:
                    if seen & (1 << code):
                        ok = False
                        break
                    seen |= 1 << code
                i = _ws(buf, i, end)
                if i >= end or _byte(buf, i) != 58:
                    ok = False
                    break
                i = _ws(buf, i + 1, end)
                if i >= end:
                    ok = False
                    break
                c = _byte(buf, i)
                is_str = False
                a = b = fl = 0
                if c == 34 and code != 0 and code != 10:  # a string value: read it once here
                    a = i + 1
                    i, fl = _read_string(buf, i, end)
                    if i < 0:
                        ok = False
                        break
                    b = i - 1
                    is_str = True
                if code == 0:
                    i = _skip_value(buf, i, end, stack)
                elif code == 1:  # ph: one character of a known phase
                    if not is_str or b - a != 1:
                        ok = False
                        break
                    ph = _byte(buf, a)
                elif code == 2 or code == 7:  # name, cat: strings (cat may be null)
                    if is_str:
                        n_pend = _hold(pending, n_pend, code, a, b, fl)
                    elif code == 7 and c == 110:
                        i = _skip_value(buf, i, end, stack)
                    else:
                        ok = False
                        break
                elif code == 3 or code == 4:  # pid, tid: integer, string or null
                    kk = TOK_NULL
                    vv = 0
                    if is_str:
                        n_pend = _hold(pending, n_pend, code, a, b, fl)
                        kk = TOK_STR
                    elif c == 110:
                        i = _skip_value(buf, i, end, stack)
                    else:
                        i, vv, good = _int_token(buf, i, end)
                        if not good:
                            ok = False
                            break
                        kk = TOK_INT
                    if code == 3:
                        pk, pv = kk, vv
                    else:
                        tk, tv = kk, vv
                elif code == 5 or code == 6:  # ts, dur: number or decimal string
                    st = -1
                    vv = 0
                    if is_str:
                        st, vv = _time_string(buf, a, b)
                    elif c == 45 or 48 <= c <= 57:
                        a = i
                        i, int_end, fs, fe, ex = _number(buf, i, end)
                        if i < 0:
                            ok = False
                            break
                        st = TIME_FLOAT
                        if c != 45:
                            st, vv = _time_number(buf, a, int_end, fs, fe, ex, pow10)
                        if st == TIME_FLOAT:  # the number's text, for the caller's float conversion
                            vv = (a << 16) | min(i - a, 65535)
                    else:
                        i = _skip_value(buf, i, end, stack)
                    if code == 5:
                        t_state, t_ns = st, vv
                    else:
                        d_state, d_ns = st, vv
                elif code == 8:  # id: integer or string (flows only)
                    if is_str:
                        good, vv = _decimal_id(buf, a, b)
                        if fl & 1:
                            bad_flow = True
                        elif good:
                            ik, iv = TOK_INT, vv
                        else:
                            n_pend = _hold(pending, n_pend, code, a, b, fl)
                            ik = TOK_STR
                    elif c == 45 or 48 <= c <= 57:
                        a = i
                        i, vv, good = _int_token(buf, i, end)
                        if good:
                            ik, iv = TOK_INT, vv
                        elif i >= 0 and _is_integer(buf, a, i):  # beyond int64: its digits, as text
                            n_pend = _hold(pending, n_pend, code, a, i, 0)
                            ik = TOK_STR
                        else:
                            bad_flow = True
                    else:
                        i = _skip_value(buf, i, end, stack)
                        bad_flow = True
                elif code == 9:  # bp
                    if is_str:
                        be = b - a == 1 and _byte(buf, a) == 101
                        bad_flow = bad_flow or (fl & 1) != 0
                    else:
                        bad_flow = bad_flow or c != 110
                        i = _skip_value(buf, i, end, stack)
                else:  # args: an object (its "Task Type" string is kept) or null
                    if c == 123:
                        args_a = i
                        i, a, b, fl, got = _skip(buf, i, end, stack, True)
                        if got == 1:
                            n_pend = _hold(pending, n_pend, code, a, b, fl)
                        bad_x = bad_x or got == 2
                    else:
                        i = _skip_value(buf, i, end, stack)
                        bad_x = bad_x or c != 110
                if i < 0:
                    ok = False
                    break
                i = _ws(buf, i, end)
                if i >= end:
                    ok = False
                    break
                if _byte(buf, i) == 44:
                    i = _ws(buf, i + 1, end)
                    continue
                if _byte(buf, i) == 125:
                    i += 1
                    break
                ok = False
                break
            if not ok:
                break
            # the element is complete: keep what its phase declares
            e_start[j] = e0
            e_end[j] = i
            if ph == 88:  # X
                if bad_x or t_state < 0 or d_state < 0:
                    ok = False
                    break
                kind[j] = KIND_X
            elif ph == 115 or ph == 116 or ph == 102:  # s t f
                if bad_flow or t_state < 0 or ik < 0:
                    ok = False
                    break
                kind[j] = KIND_S if ph == 115 else (KIND_T if ph == 116 else KIND_F)
            elif ph == 105:  # i
                if t_state < 0:
                    ok = False
                    break
                kind[j] = KIND_I
            else:
                known = False
                for p in _OTHER_PHASES:
                    if ph == p:
                        known = True
                if not known:
                    ok = False
                    break
                kind[j] = KIND_OTHER
                if ph == 77:  # metadata: Gen C repeats the same record for every event
                    k = _earlier_copy(buf, e0, i, j, r + 1, meta_table, e_start, e_end)
                    if k >= 0:
                        kind[k] = KIND_META_COPY
                # a counter of plain numbers: its samples are kept here (ids and odd values
                # are left to the typed decoder)
                if ph == 67 and t_state >= 0 and args_a >= 0 and seen & (1 << 2) and not seen & (1 << 8):
                    n_keys = _counter_members(buf, args_a, i, members, stack)
                    if n_keys >= 0:
                        kind[j] = KIND_C
                        s0 = n_samples
                        for m in range(n_keys):
                            samples[n_samples, 0] = j
                            v0, vlen = members[m, 3], members[m, 4]
                            exact, values[n_samples] = _plain_float(buf, v0, v0 + vlen, pow10)
                            samples[n_samples, 2] = v0
                            samples[n_samples, 3] = -1 if exact else vlen  # else the caller converts it
                            n_samples += 1
                            n_pend = _hold(pending, n_pend, 11 + m, members[m, 0], members[m, 1], members[m, 2])
            # the one place strings are interned: only those the element's phase keeps (a
            # flow's name is read from the file when shown; other phases go to the typed decoder)
            k_el = kind[j]
            for k in range(n_pend):
                code = pending[k, 0]
                if k_el == KIND_X:
                    keep = code != 8
                elif k_el == KIND_C:
                    keep = code == 2 or code == 3 or code == 4 or code >= 11
                elif k_el == KIND_OTHER:
                    keep = False
                elif k_el == KIND_I:
                    keep = code == 2 or code == 3 or code == 4
                else:
                    keep = code != 2 and code != 10
                if not keep:
                    continue
                pa, pb = pending[k, 1], pending[k, 2]
                h = _hash(buf, pa, pb)
                sid = _lookup(buf, pa, pb, h, table, spans)
                if sid < 0:
                    slot = -1 - sid
                    sid = n_str
                    spans[sid, 0] = pa
                    spans[sid, 1] = pb
                    spans[sid, 2] = pending[k, 3]
                    table[slot, 0] = np.int64(h >> np.uint64(1))
                    table[slot, 1] = sid + 1
                    n_str += 1
                if code == 2:
                    nm = sid
                elif code == 3:
                    pv = sid
                elif code == 4:
                    tv = sid
                elif code == 7:
                    ct = sid
                elif code == 8:
                    iv = sid
                elif code == 10:
                    tt = sid
                else:  # a counter's args key
                    samples[s0 + code - 11, 1] = sid
            ts[j] = t_ns
            ts_st[j] = t_state
            dur[j] = d_ns
            dur_st[j] = d_state
            if k_el == KIND_C:  # counters belong to their process: the pid token stands in the id
                ik, iv = pk, pv
                for m in range(s0, n_samples):  # each (pid, name, key) is a series
                    key = samples[m, 1]
                    sr = _find_lane(pk, pv, nm, key, series_table, series_rows)
                    if sr < 0:
                        sr = _insert_lane(pk, pv, nm, key, -1 - sr, series_table, series_rows, n_series)
                        n_series += 1
                    samples[m, 1] = sr
            if k_el == KIND_OTHER or k_el == KIND_C:  # no lane (or the typed decoder's business)
                lane[j] = -1
            else:
                if not (pk == last_lane[0] and pv == last_lane[1] and tk == last_lane[2] and tv == last_lane[3]):
                    ln = _find_lane(pk, pv, tk, tv, lane_table, lane_rows)
                    if ln < 0:
                        ln = _insert_lane(pk, pv, tk, tv, -1 - ln, lane_table, lane_rows, n_lanes)
                        n_lanes += 1
                    last_lane[0], last_lane[1], last_lane[2], last_lane[3], last_lane[4] = pk, pv, tk, tv, ln
                lane[j] = last_lane[4]
            name[j] = nm
            cat[j] = ct
            task[j] = tt
            id_k[j] = ik
            id_v[j] = iv
            bp_e[j] = be
            j += 1
            i = _ws(buf, i, end)
            if i >= end:
                break
            if _byte(buf, i) != 44:
                ok = False
                break
            i += 1
        if ok:
            r_count[r] = j - first
        else:
            r_state[r] = RANGE_FAILED
            j = first
            while n_samples > 0 and samples[n_samples - 1, 0] >= first:  # the range's counter samples
                n_samples -= 1
    at[AT_RANGE] = len(starts)
    at[AT_OFFSET] = -1
    at[AT_ELEMENT] = j
    at[AT_STRINGS] = n_str
    at[AT_LANES] = n_lanes
    at[AT_SAMPLES] = n_samples
    at[AT_SERIES] = n_series
    return 0


def _doubled(rows: np.ndarray, count: int) -> np.ndarray:
    out = np.empty((2 * len(rows),) + rows.shape[1:], dtype=rows.dtype)
    out[:count] = rows[:count]
    return out


class _ScanArrays:
    """The arrays one scan writes into, grown here whenever the scanner stops to ask."""

    def __init__(self, n_ranges: int, total_bytes: int, smallest: bool = False) -> None:
        k = 1 if smallest else 64  # first room: k lanes and series, 16 k strings and samples
        cap = 1 if smallest else total_bytes // 128 + 16  # elements: most events are longer
        self.ranges = (np.zeros(n_ranges, np.int8), np.zeros(n_ranges, np.int64), np.zeros(n_ranges, np.int64))
        types = (np.int8, np.int64, np.int64, np.int64, np.int8, np.int64, np.int8, np.int32, np.int32, np.int32,
                 np.int32, np.int8, np.int64, np.bool_)  # in the order of ``_scan``'s columns
        self.cols = tuple(np.empty(cap, t) for t in types)
        self.strings = (np.zeros((64 * k, 2), np.int64), np.empty((16 * k, 3), np.int64))
        self.lanes = (np.zeros(4 * k, np.int64), np.empty((k, 4), np.int64), np.full(5, -7, np.int64))
        self.counters = (np.empty((16 * k, 4), np.int64), np.empty(16 * k, np.float64), np.zeros(4 * k, np.int64),
                         np.empty((k, 4), np.int64))
        self.work = (np.empty(256, np.int8), np.empty((16, 4), np.int64), np.empty((MAX_COUNTER_KEYS, 5), np.int64),
                     np.zeros((4096, 3), np.int64))  # metadata records of a range (not grown)

    def grow(self, room: int, buf: np.ndarray, at: np.ndarray) -> None:
        if room & ROOM_ELEMENTS:
            self.cols = tuple(_doubled(c, at[AT_ELEMENT]) for c in self.cols)
        if room & ROOM_STRINGS:
            table, spans = self.strings
            spans = _doubled(spans, at[AT_STRINGS])
            table = np.zeros((2 * len(table), 2), np.int64)
            _rehash_strings(buf, spans, at[AT_STRINGS], table)
            self.strings = (table, spans)
        if room & ROOM_LANES:
            table, rows, last = self.lanes
            rows = _doubled(rows, at[AT_LANES])
            table = np.zeros(2 * len(table), np.int64)
            _rehash_lanes(rows, at[AT_LANES], table)
            self.lanes = (table, rows, last)
        samples, values, table, rows = self.counters
        if room & ROOM_SAMPLES:
            samples, values = _doubled(samples, at[AT_SAMPLES]), _doubled(values, at[AT_SAMPLES])
        if room & ROOM_SERIES:
            rows = _doubled(rows, at[AT_SERIES])
            table = np.zeros(2 * len(table), np.int64)
            _rehash_lanes(rows, at[AT_SERIES], table)
        self.counters = (samples, values, table, rows)


def scan_ranges(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, smallest: bool = False) -> tuple:
    """Scan each range [starts[r], ends[r]) of ``buf`` (uint8) as a list of events.

    Returns per-range states, element counts and first rows, the per-element columns
    (rows of the ranges that failed are overwritten), the task's string spans, lanes,
    and counter samples, values and series. ``smallest`` starts every output array at
    its smallest size, so that the scan stops to grow them again and again (for tests).
    """
    arrays = _ScanArrays(len(starts), int((ends - starts).sum()), smallest)
    at = np.zeros(7, np.int64)
    at[AT_OFFSET] = -1
    while True:
        room = _scan(buf, starts, ends, _POW10, at, arrays.ranges, arrays.cols, arrays.strings, arrays.lanes,
                     arrays.counters, arrays.work)
        if not room:
            break
        arrays.grow(room, buf, at)
    j, n_str, n_lanes, n_samples, n_series = (int(at[k]) for k in (AT_ELEMENT, AT_STRINGS, AT_LANES, AT_SAMPLES,
                                                                       AT_SERIES))
    samples, values, _, series_rows = arrays.counters
    return (*arrays.ranges, *(c[:j] for c in arrays.cols), arrays.strings[1][:n_str], arrays.lanes[1][:n_lanes],
            samples[:n_samples], values[:n_samples], series_rows[:n_series])


def warm() -> None:
    """Compile (or load from numba's cache) the scanner."""
    # a writable buffer, as the loader passes (a read-only one would compile another version)
    data = np.frombuffer(bytearray(b'{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1.5","dur":2}'), dtype=np.uint8)
    scan_ranges(data, np.zeros(1, np.int64), np.array([len(data)], np.int64))
