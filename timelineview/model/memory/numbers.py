"""Columns of text numbers to numpy, a whole column at a time, telling which entries are bad.

Times are read exactly: ``1736408883573957.920`` µs is 1 736 408 883 573 957 920 ns, more digits than a
float64 holds, so the digits are summed as integers (a float would be off by up to 256 ns). torch_npu
writes a tab after each timestamp; blanks around a number are ignored.
"""

from __future__ import annotations

import numpy as np

NS_DIGITS = 3  # decimals of a µs time that are ns
MAX_TIME_CHARS = 64  # no time is longer (16 digits, a dot, decimals, blanks); longer text is no time
_MAX_WHOLE_DIGITS = 16  # µs before the dot: 10**16 µs is 10**19 ns, past int64
_POW10 = np.array([10**k for k in range(NS_DIGITS + 1)], dtype=np.uint64)
_INT64_MAX = np.iinfo(np.int64).max
_DOT, _ZERO, _NINE = ord("."), ord("0"), ord("9")
_BLANKS = np.array([0, ord(" "), ord("\t"), ord("\r"), ord("\n")], dtype=np.uint8)


MAX_BYTES = float(1 << 62)  # past any memory a device has, short of int64's end (rounding kept inside)


def _byte_matrix(texts: list[str]) -> np.ndarray | None:
    """The texts as rows of ASCII bytes (padded with 0), or None when one is not ASCII."""
    try:
        a = np.array(texts, dtype="S")
    except UnicodeEncodeError:
        return None
    width = max(a.dtype.itemsize, 1)
    if a.dtype.itemsize == 0:
        a = a.astype("S1")
    return a.view(np.uint8).reshape(len(texts), width)


def micros_to_ns(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """µs times as text -> (ns int64, ok, empty): ``ok`` false for anything that is not a plain
    non-negative decimal (a sign, a letter, two dots, blanks inside, more than 16 digits before the
    dot); ``empty`` true for a blank entry (not ok either). Decimals past the ns are dropped.

    The digits are read column by column over all texts at once (Horner's rule on uint64), so the
    cost is a few vector operations per character of the longest text."""
    n = len(texts)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros(0, bool)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    too_long = lengths > MAX_TIME_CHARS
    if too_long.any():  # a field of garbage would widen the byte matrix of the whole chunk to its length
        texts = ["x" if long else t for t, long in zip(texts, too_long.tolist(), strict=True)]
    m = _byte_matrix(texts)
    if m is None:  # a non-ASCII entry: entry by entry
        return _slow_micros(texts)
    value = np.zeros(n, dtype=np.uint64)
    started, ended, bad = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    dots, decimals, digits = np.zeros(n, np.int8), np.zeros(n, np.int8), np.zeros(n, np.int8)
    ten = np.uint64(10)
    for c in np.ascontiguousarray(m.T):
        d = c - np.uint8(_ZERO)  # wraps below '0': only digits are < 10
        is_digit = d < 10
        is_dot = c == _DOT
        blank = np.isin(c, _BLANKS)
        body = ~blank
        bad |= body & (ended | ~(is_digit | is_dot))  # a blank inside, or a character no number has
        ended |= started & blank
        started |= body
        after_dot = dots > 0
        take = is_digit & ~(after_dot & (decimals >= NS_DIGITS))  # digits past the ns are dropped
        value = np.where(take, value * ten + d, value)
        decimals += take & after_dot
        digits += take
        dots += is_dot
    bad |= (dots > 1) | (digits == 0) | ((digits - decimals) > _MAX_WHOLE_DIGITS)
    ns = value * _POW10[NS_DIGITS - np.clip(decimals, 0, NS_DIGITS)]
    ok = ~bad & (ns <= np.uint64(_INT64_MAX))
    return np.where(ok, ns, 0).astype(np.int64), ok, ~started


def _one_micros(text: str) -> int | None:
    t = text.strip()
    whole, dot, frac = t.partition(".")
    if not (whole or frac) or not (whole.isdigit() or whole == "") or not (frac.isdigit() or frac == ""):
        return None
    if not (whole + frac).isascii():
        return None
    value = int(whole or "0") * 10**NS_DIGITS + int((frac[:NS_DIGITS]).ljust(NS_DIGITS, "0"))
    return value if value <= _INT64_MAX else None


def _slow_micros(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vals = [_one_micros(t) for t in texts]
    ok = np.array([v is not None for v in vals], dtype=bool)
    out = np.array([v if v is not None else 0 for v in vals], dtype=np.int64)
    empty = np.array([not t.strip() for t in texts], dtype=bool)
    return out, ok, empty


def _one_float(text: str) -> float:
    try:
        return float(text) if text.strip() else np.nan
    except ValueError:
        return -np.inf  # marks a bad entry (sizes are never negative)


def floats(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decimal texts -> (float64, ok, empty): ``ok`` false for text that is no finite number ≥ 0;
    ``empty`` true for a blank entry (not ok either)."""
    try:
        values = np.array([t or "nan" for t in texts], dtype=np.float64)
    except ValueError:  # some entry is not a number: entry by entry
        values = np.array([_one_float(t) for t in texts], dtype=np.float64)
    empty = np.zeros(len(values), dtype=bool)
    nan = np.flatnonzero(np.isnan(values))
    empty[nan] = [not texts[k].strip() for k in nan.tolist()]
    ok = np.isfinite(values) & (values >= 0)
    return values, ok, empty


def scaled_bytes(values: np.ndarray, ok: np.ndarray, unit: int) -> np.ndarray:
    """Sizes in ``unit`` bytes (KB or MB as the producer writes them) -> whole bytes; MISSING where not ok or
    where the size is beyond ``MAX_BYTES`` (``beyond_bytes`` finds those rows, to drop them with a reason)."""
    out = np.full(len(values), -1, dtype=np.int64)
    fits = ok & ~beyond_bytes(values, ok, unit)
    out[fits] = np.rint(values[fits] * unit).astype(np.int64)
    return out


def beyond_bytes(values: np.ndarray, ok: np.ndarray, unit: int) -> np.ndarray:
    """Rows whose size in ``unit`` bytes is a number but more bytes than a 64-bit count holds (1e300 KB,
    9e12 MB): cast, they would wrap to negative sizes."""
    return ok & ~(values * float(unit) < MAX_BYTES)
