"""Exact conversion of trace time values (µs as numbers or decimal strings) to int64 ns.

A float64 holding epoch microseconds (~1.7e15) has a 0.25 µs ulp, so strings such as
``"1736412474721123.620"`` are parsed as decimal text, never through float.
Numbers are decoded as float64 by the JSON decoder; below 2^42 µs (about 50 days of
monotonic time) the written nanoseconds are recovered exactly, and a whole number of µs (Kineto's
epoch timestamps, ~1.7e15) exactly at any size float64 holds: its whole part is scaled as an
integer, since ``x * 1000`` in float64 would round it to a multiple of 256 ns.
"""

from __future__ import annotations

import re

import numpy as np

_DECIMAL = re.compile(r"\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*\Z")
FLOAT_EXACT_LIMIT_US = float(2**42)


def decimal_text_to_ns(text: str) -> int | None:
    """Exact ns from a decimal µs string (rounded half away from zero); None if not a number."""
    m = _DECIMAL.match(text)
    if m is None or (not m.group(2) and not m.group(3)):
        return None
    sign, whole, frac, exp = m.group(1), m.group(2) or "0", m.group(3) or "", m.group(4)
    shift = 3 + (int(exp) if exp else 0)  # decimal places to move right (µs -> ns)
    digits = whole + frac
    point = len(whole) + shift  # position of the decimal point within digits
    if point >= len(digits):
        value = int(digits + "0" * (point - len(digits)))
        rest = ""
    elif point <= 0:
        value, rest = 0, "0" * (-point) + digits
    else:
        value, rest = int(digits[:point]), digits[point:]
    if rest and rest[0] >= "5":
        value += 1
    return -value if sign == "-" else value


WIDTH = 32


def _horner(mat: np.ndarray, length: int, point: int) -> np.ndarray:
    """Integer value of the digit columns [0, length) of ``mat``, skipping column ``point``."""
    val = np.zeros(len(mat), dtype=np.int64)
    for j in range(length):
        if j != point:
            val *= 10
            val += mat[:, j]
            val -= 48
    return val


def _to_ns(digits_value: np.ndarray, decimals: int) -> np.ndarray:
    """ns from the integer of all digits and the count of µs decimals (half up past 3)."""
    if decimals <= 3:
        return digits_value * 10 ** (3 - decimals)
    q = 10 ** (decimals - 3)
    return (digits_value + q // 2) // q


def _same_shape_to_ns(values: list[str]) -> np.ndarray | None:
    """Fast path: every string has the same length and the point in the same place
    (what every producer writing string timestamps does). None when that is not so."""
    first = values[0]
    width = len(first)
    point = first.find(".")
    if not 0 < width <= 20 or point < 0 or len(set(map(len, values))) != 1:
        return None
    try:
        mat = np.frombuffer("".join(values).encode("ascii"), dtype=np.uint8).reshape(len(values), width)
    except UnicodeEncodeError:
        return None
    digits = mat - np.uint8(48)  # wraps below '0', so one comparison checks both ends
    dec = width - 1 - point
    n_digits = width - 1 + max(3 - dec, 0)
    if (not (mat[:, point] == 46).all() or not (digits[:, :point] < 10).all()
            or not (digits[:, point + 1:] < 10).all() or n_digits > 19
            or (n_digits == 19 and digits[:, 0].max() > 8)):  # 19 digits fit int64 below 9e18
        return None
    return _to_ns(_horner(mat, width, point), dec)


def strings_to_ns(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """ns for a list of decimal µs strings, with a validity mask.

    Plain ``digits[.digits]`` strings are converted in numpy, one group per
    (length, point position), by Horner's rule over byte columns; anything else
    (signs, exponents, spaces, long strings) goes through ``decimal_text_to_ns``.
    """
    n = len(values)
    if n:
        fast = _same_shape_to_ns(values)
        if fast is not None:
            return fast, np.ones(n, dtype=bool)
    out = np.zeros(n, dtype=np.int64)
    ok = np.zeros(n, dtype=bool)
    if n == 0:
        return out, ok
    width = min(max(map(len, values)) + 1, WIDTH)  # one spare column marks over-long strings
    try:
        mat = np.array(values, dtype=f"S{width}").view(np.uint8).reshape(n, width)
    except UnicodeEncodeError:
        mat = None
    slow = np.ones(n, dtype=bool)
    if mat is not None:
        length = (mat != 0).sum(axis=1)
        is_dot = mat == 46
        n_dots = is_dot.sum(axis=1)
        n_digits = ((mat >= 48) & (mat <= 57)).sum(axis=1)
        point = np.where(n_dots == 1, is_dot.argmax(axis=1), length)
        decimals = np.where(n_dots == 1, length - 1 - point, 0)
        # 19 digits fit int64 when the first is below 9 (epoch µs with 3 decimals are 19 digits)
        room = np.where((mat[:, 0] >= 49) & (mat[:, 0] <= 56), 19, 18)
        fast = ((n_digits > 0) & (n_digits + n_dots == length) & (n_dots <= 1) & (length < width)
                & (n_digits + np.maximum(3 - decimals, 0) <= room))
        key = length * width + point
        for k in np.unique(key[fast]):
            rows = np.flatnonzero(fast & (key == k)) if not (fast.all() and key.min() == key.max()) else None
            sub = mat if rows is None else mat[rows]
            ln, pt = divmod(int(k), width)
            val = _to_ns(_horner(sub, ln, pt), ln - 1 - pt if pt < ln else 0)
            if rows is None:
                out[:] = val
                ok[:] = True
                return out, ok
            out[rows] = val
            ok[rows] = True
        slow = ~fast
    for i in np.flatnonzero(slow):
        v = decimal_text_to_ns(values[i])
        if v is not None and -(2**63) <= v < 2**63:
            out[i] = v
            ok[i] = True
    return out, ok


def float_us_to_ns(values: np.ndarray) -> np.ndarray:
    """int64 ns of finite float µs values below 9.2e15 in magnitude: ``rint(x * 1000)`` below 2^42 µs; above,
    the whole µs scaled as integers (exact) and the fraction (``x - floor(x)``, itself exact) rounded to the ns."""
    out = np.rint(values * 1000.0).astype(np.int64)
    big = np.flatnonzero(np.abs(values) >= FLOAT_EXACT_LIMIT_US)
    if len(big):
        whole = np.floor(values[big])
        out[big] = whole.astype(np.int64) * 1000 + np.rint((values[big] - whole) * 1000.0).astype(np.int64)
    return out


def floats_to_ns(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ns for float µs values, with a validity mask (finite and within int64)."""
    values = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(values) & (np.abs(values) < 9.2e15)
    out = np.zeros(len(values), dtype=np.int64)
    out[ok] = float_us_to_ns(values[ok])
    return out, ok


def tokens_to_ns(tokens: list) -> tuple[np.ndarray, np.ndarray, bool]:
    """ns for a list of decoded tokens (float, int, str or None), with a validity mask.

    Returns ``(ns, valid, lossy)``; ``lossy`` says a number of 2^42 µs or more was seen,
    whose last digits float64 may have rounded before we got it.
    """
    n = len(tokens)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, bool), False
    kinds = set(map(type, tokens))
    if kinds == {str}:
        ns, ok = strings_to_ns(tokens)
        return ns, ok, False
    if kinds <= {float, int} and int not in kinds:
        arr = np.array(tokens, dtype=np.float64)
        ns, ok = floats_to_ns(arr)
        return ns, ok, bool((np.abs(arr[ok]) >= FLOAT_EXACT_LIMIT_US).any())
    out = np.zeros(n, dtype=np.int64)
    ok = np.zeros(n, dtype=bool)
    str_idx = [i for i, t in enumerate(tokens) if type(t) is str]
    if str_idx:
        ns, valid = strings_to_ns([tokens[i] for i in str_idx])
        out[str_idx] = ns
        ok[str_idx] = valid
    float_idx = [i for i, t in enumerate(tokens) if type(t) is float]
    lossy = False
    if float_idx:  # one conversion for all of them, as a column of floats gets
        values = np.array([tokens[i] for i in float_idx], dtype=np.float64)
        ns, valid = floats_to_ns(values)
        out[float_idx] = ns
        ok[float_idx] = valid
        lossy = bool((np.abs(values[valid]) >= FLOAT_EXACT_LIMIT_US).any())
    for i, t in enumerate(tokens):
        if type(t) is int and -(2**63) <= t * 1000 < 2**63:  # Python ints: exact at any size
            out[i] = t * 1000
            ok[i] = True
    return out, ok, lossy
