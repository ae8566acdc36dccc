"""Columns of text numbers to numpy, a whole column at a time, telling which entries are bad.

Times are read exactly: ``1736408883573957.920`` µs is 1 736 408 883 573 957 920 ns, more digits than a
float64 holds, so the digits are summed as integers (a float would be off by up to 256 ns). torch_npu
writes a tab after each timestamp; blanks around a number are ignored.
"""

from __future__ import annotations

import numpy as np

NS_DIGITS = 3  # decimals of a µs time that are ns
_MAX_DIGITS = 19  # 10**19 ns is past int64: such a time is refused
_POW10 = np.array([10**k for k in range(_MAX_DIGITS)], dtype=np.uint64)
_INT64_MAX = np.iinfo(np.int64).max
_DOT, _ZERO, _NINE = ord("."), ord("0"), ord("9")
_BLANKS = (0, ord(" "), ord("\t"), ord("\r"), ord("\n"))


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
    non-negative decimal (a sign, a letter, two dots, blanks inside, too many digits); ``empty`` true
    for a blank entry (not ok either). Decimals past the ns are dropped."""
    n = len(texts)
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out, np.zeros(0, bool), np.zeros(0, bool)
    m = _byte_matrix(texts)
    if m is None:  # a non-ASCII entry: entry by entry
        return _slow_micros(texts)
    is_digit = (m >= _ZERO) & (m <= _NINE)
    is_dot = m == _DOT
    is_blank = np.isin(m, _BLANKS)
    body = ~is_blank
    width = m.shape[1]
    cols = np.arange(width)
    has_body = body.any(axis=1)
    first = np.where(has_body, np.argmax(body, axis=1), 0)
    last = np.where(has_body, width - 1 - np.argmax(body[:, ::-1], axis=1), -1)
    n_dots = is_dot.sum(axis=1)
    ok = has_body & ((is_digit | is_dot) == body).all(axis=1) & (n_dots <= 1)
    ok &= body.sum(axis=1) == (last - first + 1)  # nothing blank between the digits
    ok &= (is_digit.sum(axis=1) > 0)
    dot = np.where(n_dots == 1, np.argmax(is_dot, axis=1), last + 1)
    # the weight of each digit in ns: 10^(dot - 1 - col + 3) before the dot, 10^(dot - col + 3) after
    exp = np.where(cols[None, :] < dot[:, None], dot[:, None] - 1 - cols[None, :] + NS_DIGITS,
                   dot[:, None] - cols[None, :] + NS_DIGITS)
    ok &= ~(is_digit & (exp >= _MAX_DIGITS)).any(axis=1)
    use = is_digit & (exp >= 0) & (exp < _MAX_DIGITS)
    digits = np.where(use, (m - _ZERO).astype(np.uint64), np.uint64(0))
    total = (digits * _POW10[np.clip(exp, 0, _MAX_DIGITS - 1)]).sum(axis=1, dtype=np.uint64)
    ok &= total <= np.uint64(_INT64_MAX)
    out[ok] = total[ok].astype(np.int64)
    return out, ok, ~has_body


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
    empty = np.isnan(values) & np.array([not t.strip() for t in texts], dtype=bool)
    ok = np.isfinite(values) & (values >= 0)
    return values, ok, empty


def scaled_bytes(values: np.ndarray, ok: np.ndarray, unit: int) -> np.ndarray:
    """Sizes in ``unit`` bytes (KB or MB as the producer writes them) -> whole bytes; MISSING where not ok."""
    out = np.full(len(values), -1, dtype=np.int64)
    out[ok] = np.rint(values[ok] * unit).astype(np.int64)
    return out
