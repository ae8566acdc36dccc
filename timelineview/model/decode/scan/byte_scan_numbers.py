"""Scanner kernels for JSON numbers: validation, and timestamps, ids and values read as the typed path reads them.

Whatever these cannot convert exactly as the typed decoder would is left to it (a state
or flag says so), never approximated.
"""

from __future__ import annotations

from timelineview.model.decode.scan.scan_codes import (
    EXP,
    EXP_UPPER,
    MINUS,
    NINE,
    ONE,
    PLUS,
    POINT,
    TIME_EXACT,
    TIME_FLOAT,
    ZERO,
)
from timelineview.model.decode.scan.scan_jit import byte_at, jit
from timelineview.model.decode.timestamps import FLOAT_EXACT_LIMIT_US

FLOAT_EXACT_LIMIT = int(FLOAT_EXACT_LIMIT_US)  # µs: below it rint(x * 1000) is the written ns
NS_DIGITS = 3  # decimals of a µs value that are whole ns
MAX_EXACT_DIGITS = 18  # an int64 holds any 18-digit decimal
MAX_EXACT_FLOAT_DIGITS = 15  # any 15-digit decimal is an exact double
MAX_INT_DIGITS = 13  # integer digits of a µs time that can be below FLOAT_EXACT_LIMIT
MAX_TIME_STRING_US = 9_000_000_000_000_000  # µs of the longest time string converted here (x 1000 fits int64)
MAX_TIME_STRING_DIGITS = 16
INT64_DIGITS = 19
INT64_HEAD = 922337203685477580  # int64's bounds but their last digit, which is 7 (8 negative)
INT64_LAST, INT64_LAST_NEGATIVE = 7, 8
HALF_UP_DIGIT = 5  # a fourth decimal from this digit rounds the ns up


@jit
def number(buf, i, end):
    """Validate a JSON number at i: (end, int_end, frac_start, frac_end, has_exp), end -1 if invalid."""
    if byte_at(buf, i) == MINUS:
        i += 1
    if i >= end:
        return -1, 0, 0, 0, False
    c = byte_at(buf, i)
    if c == ZERO:
        i += 1
    elif ONE <= c <= NINE:
        while i < end and ZERO <= byte_at(buf, i) <= NINE:
            i += 1
    else:
        return -1, 0, 0, 0, False
    int_end = i
    frac_start = frac_end = i
    if i < end and byte_at(buf, i) == POINT:
        i += 1
        frac_start = i
        while i < end and ZERO <= byte_at(buf, i) <= NINE:
            i += 1
        frac_end = i
        if frac_end == frac_start:
            return -1, 0, 0, 0, False
    exp = False
    if i < end and (byte_at(buf, i) == EXP or byte_at(buf, i) == EXP_UPPER):
        exp = True
        i += 1
        if i < end and (byte_at(buf, i) == PLUS or byte_at(buf, i) == MINUS):
            i += 1
        d0 = i
        while i < end and ZERO <= byte_at(buf, i) <= NINE:
            i += 1
        if i == d0:
            return -1, 0, 0, 0, False
    return i, int_end, frac_start, frac_end, exp


@jit
def digits(buf, a, b):
    """The decimal digits [a, b) as an integer."""
    v = 0
    for k in range(a, b):
        v = v * 10 + (byte_at(buf, k) - ZERO)
    return v


@jit
def time_number(buf, i, int_end, frac_start, frac_end, exp, pow10):
    """(state, ns) for a non-negative JSON number of µs starting at i: exact when the
    typed path's float64 result is certain to be the same, else state TIME_FLOAT."""
    if exp:
        return TIME_FLOAT, 0
    n_int = int_end - i
    n_dec = frac_end - frac_start
    if n_int > MAX_INT_DIGITS:
        return TIME_FLOAT, 0
    whole = digits(buf, i, int_end)
    if whole >= FLOAT_EXACT_LIMIT:
        return TIME_FLOAT, 0
    if n_dec <= NS_DIGITS:
        return TIME_EXACT, whole * 1000 + digits(buf, frac_start, frac_end) * pow10[NS_DIGITS - n_dec]
    if n_int + n_dec > MAX_EXACT_DIGITS:
        return TIME_FLOAT, 0
    ns = whole * 1000 + digits(buf, frac_start, frac_start + NS_DIGITS)
    m = n_dec - NS_DIGITS
    rest = digits(buf, frac_start + NS_DIGITS, frac_end)
    frac = rest / pow10[m]
    # the typed path rounds twice in float64 (parse, then * 1000): the result can only
    # differ from exact rounding next to a tie, which goes through that same path instead
    if abs(frac - 0.5) <= (ns + 1) * 2.0 ** -50 + 1e-12:
        return TIME_FLOAT, 0
    return TIME_EXACT, ns + (1 if frac > 0.5 else 0)


@jit
def time_string(buf, a, b):
    """(state, ns) for the content [a, b) of a string of decimal µs, as the typed path
    converts it: digits, an optional point and digits, half up past the third decimal.
    State -1 for any other text (the typed path handles it)."""
    i = a
    while i < b and ZERO <= byte_at(buf, i) <= NINE:
        i += 1
    int_end = i
    if int_end == a or int_end - a > MAX_TIME_STRING_DIGITS:
        return -1, 0
    whole = digits(buf, a, int_end)
    if whole > MAX_TIME_STRING_US:
        return -1, 0
    ns = whole * 1000
    if i == b:
        return TIME_EXACT, ns
    if byte_at(buf, i) != POINT or i + 1 == b:
        return -1, 0
    scale = 100
    up = 0
    for k in range(i + 1, b):
        c = byte_at(buf, k)
        if c < ZERO or c > NINE:
            return -1, 0
        if scale >= 1:
            ns += (c - ZERO) * scale
            scale //= 10
        elif scale == 0:
            up = 1 if c >= ZERO + HALF_UP_DIGIT else 0
            scale = -1
    return TIME_EXACT, ns + up


@jit
def int_token(buf, i, end):
    """A JSON integer at i: (end, value, ok); ok False for fractions, exponents or beyond int64."""
    e, int_end, fs, fe, exp = number(buf, i, end)
    if e < 0:
        return -1, 0, False
    neg = byte_at(buf, i) == MINUS
    a = i + 1 if neg else i
    n = int_end - a
    if exp or fe != fs or n > INT64_DIGITS:
        return e, 0, False
    if n == INT64_DIGITS:  # fits int64 only up to 9223372036854775807 (…808 negative)
        head = digits(buf, a, int_end - 1)
        last = byte_at(buf, int_end - 1) - ZERO
        if head > INT64_HEAD or (head == INT64_HEAD and last > (INT64_LAST_NEGATIVE if neg else INT64_LAST)):
            return e, 0, False
        if neg:
            return e, -head * 10 - last, True
        return e, head * 10 + last, True
    v = digits(buf, a, int_end)
    return e, -v if neg else v, True


@jit
def is_integer(buf, a, b):
    """[a, b) is an optionally signed run of digits (a JSON integer's text)."""
    if a < b and byte_at(buf, a) == MINUS:
        a += 1
    if a >= b:
        return False
    for k in range(a, b):
        if byte_at(buf, k) < ZERO or byte_at(buf, k) > NINE:
            return False
    return True


@jit
def decimal_id(buf, a, b):
    """A string id that is a canonical decimal integer of at most 18 digits: (True, value)."""
    n = b - a
    if n == 0 or n > MAX_EXACT_DIGITS or (byte_at(buf, a) == ZERO and n > 1):
        return False, 0
    for k in range(a, b):
        if byte_at(buf, k) < ZERO or byte_at(buf, k) > NINE:
            return False, 0
    return True, digits(buf, a, b)


@jit
def plain_float(buf, a, b, pow10):
    """(True, value) for a JSON number of at most 15 digits and no exponent: the digits
    and the power of ten are exact doubles, so one division rounds as a full parser
    does. (False, 0.0) for anything else."""
    neg = byte_at(buf, a) == MINUS
    if neg:
        a += 1
    n_digits = 0
    point = -1
    v = 0
    for k in range(a, b):
        c = byte_at(buf, k)
        if c == POINT:
            point = k
        elif ZERO <= c <= NINE:
            v = v * 10 + (c - ZERO)
            n_digits += 1
        else:
            return False, 0.0
    if n_digits > MAX_EXACT_FLOAT_DIGITS:
        return False, 0.0
    x = float(v)
    if point >= 0:
        x = x / float(pow10[b - point - 1])
    return True, -x if neg else x
