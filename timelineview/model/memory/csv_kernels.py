"""Compiled loops over the bytes of a memory CSV file: split its lines into the wanted fields, read µs times
and decimal sizes. One pass over the text instead of the dozen numpy passes of ``csv_files``' tokenizer.

Each is a plain Python function that numba compiles (``compiled`` returns them, None without numba or
with ``TIMELINEVIEW_JIT=0``): the readers use them for large files only, since a first compile costs a few
seconds (it is cached on disk). What the loops cannot read quickly they hand back (a field's status
``FALLBACK``; a line's ``odd`` flag) to the exact readers, so every figure and every reason a row is dropped
is theirs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

OK, EMPTY, FALLBACK = 0, 1, 2  # a field's status: read, blank, to be read by the exact reader
_LF, _CR, _COMMA, _QUOTE, _DOT, _ZERO, _TAB, _SPACE = 10, 13, 44, 34, 46, 48, 9, 32
_NS_DIGITS = 3
_MAX_WHOLE_DIGITS = 16  # µs before the dot: 10**16 µs is 10**19 ns, past int64
_MAX_EXACT_MANTISSA = 1 << 53  # a decimal m / 10**k is read exactly when m and 10**k are exact doubles
_MAX_EXACT_POWER = 22
_INT64_MAX = np.iinfo(np.int64).max
_POW10 = np.array([10.0**k for k in range(_MAX_EXACT_POWER + 1)])
_PLAIN, _IS_COMMA, _IS_LF, _IS_CR, _STRANGE = 0, 1, 2, 3, 4  # what a byte is to ``split_lines``
_KIND = np.full(256, _PLAIN, dtype=np.uint8)
_KIND[[_COMMA, _LF, _CR]] = _IS_COMMA, _IS_LF, _IS_CR
_KIND[[_QUOTE, 0]] = _STRANGE  # a quote, a NUL, a byte that is not ASCII: the line goes to ``csv``
_KIND[128:] = _STRANGE
_FNV_OFFSET, _FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3
_BLANK = np.zeros(256, dtype=np.bool_)  # the blanks the exact readers strip around a number
_BLANK[[_SPACE, _TAB, _CR, _LF, 0]] = True


def split_lines(buf, begin, end, slot_of, width, line_limit, line_start, line_stop, odd, field_start, field_stop):
    """Lines of ``buf[begin:end]`` (ending with a line feed): each line's span without its line end, whether
    ``csv`` must read it (a quote, a NUL, a byte that is not ASCII, fewer than ``width`` fields, a line too
    long for ``csv``), and the span of each wanted field (``slot_of[column]`` ≥ 0 for those: row
    ``slot_of[column]`` of ``field_start`` / ``field_stop``). Returns the
    number of lines, or -1 at a lone CR (a line break for ``readlines``: the caller reads the block with it)."""
    n = 0
    ls = begin
    commas = 0
    strange = False
    if slot_of[0] >= 0:
        field_start[slot_of[0], 0] = begin
    i = begin - 1
    while True:
        i += 1
        while _KIND[buf[i]] == _PLAIN:  # the text ends with a line feed: this stops there at the latest
            i += 1
        if i >= end:
            break
        kind = _KIND[buf[i]]
        if kind == _IS_COMMA:
            if commas < width:
                s = slot_of[commas]
                if s >= 0:
                    field_stop[s, n] = i
            commas += 1
            if commas < width:
                s = slot_of[commas]
                if s >= 0:
                    field_start[s, n] = i + 1
        elif kind == _IS_LF:
            stop = i
            if stop > ls and buf[stop - 1] == _CR:
                stop -= 1
            if commas < width:
                s = slot_of[commas]
                if s >= 0:
                    field_stop[s, n] = stop
            line_start[n] = ls
            line_stop[n] = stop
            odd[n] = strange or commas < width - 1 or stop - ls >= line_limit
            n += 1
            ls = i + 1
            commas = 0
            strange = False
            if slot_of[0] >= 0:
                field_start[slot_of[0], n] = ls
        elif kind == _IS_CR:
            if buf[i + 1] != _LF:
                return -1
        else:
            strange = True
    return n


def read_micros(buf, start, stop, ns, status):
    """µs times (digits, at most one dot) -> exact ns; ``status`` EMPTY for a blank field, FALLBACK for any
    other shape (a sign, a blank inside, too many digits: the exact reader says whether it is a time)."""
    for k in range(len(start)):
        a, b = start[k], stop[k]
        while a < b and _BLANK[buf[a]]:
            a += 1
        while b > a and _BLANK[buf[b - 1]]:
            b -= 1
        if a == b:
            status[k] = EMPTY
            continue
        whole = 0
        frac = 0
        whole_digits = 0
        decimals = 0
        dots = 0
        good = True
        for i in range(a, b):
            c = buf[i]
            if c == _DOT:
                dots += 1
            elif _ZERO <= c <= _ZERO + 9:
                if dots == 0:
                    whole = whole * 10 + (c - _ZERO)
                    whole_digits += 1
                    if whole_digits > _MAX_WHOLE_DIGITS:
                        good = False
                        break
                elif decimals < _NS_DIGITS:
                    frac = frac * 10 + (c - _ZERO)
                    decimals += 1
            else:
                good = False
                break
        if not good or dots > 1 or whole_digits + decimals == 0:
            status[k] = FALLBACK
            continue
        while decimals < _NS_DIGITS:
            frac *= 10
            decimals += 1
        if whole > (_INT64_MAX - frac) // 1000:
            status[k] = FALLBACK
            continue
        ns[k] = whole * 1000 + frac
        status[k] = OK


def read_decimals(buf, start, stop, values, status):
    """Decimal sizes (digits, at most one dot) -> float64, exactly the nearest double (mantissa and power of
    ten exact, one rounding); ``status`` EMPTY for a blank field, FALLBACK for any other shape."""
    for k in range(len(start)):
        a, b = start[k], stop[k]
        while a < b and _BLANK[buf[a]]:
            a += 1
        while b > a and _BLANK[buf[b - 1]]:
            b -= 1
        if a == b:
            status[k] = EMPTY
            continue
        mantissa = 0
        decimals = 0
        digits = 0
        dots = 0
        good = True
        for i in range(a, b):
            c = buf[i]
            if c == _DOT:
                dots += 1
            elif _ZERO <= c <= _ZERO + 9:
                mantissa = mantissa * 10 + (c - _ZERO)
                digits += 1
                if dots:
                    decimals += 1
                if mantissa > _MAX_EXACT_MANTISSA or digits > 18:
                    good = False
                    break
            else:
                good = False
                break
        if not good or dots > 1 or digits == 0 or decimals > _MAX_EXACT_POWER:
            status[k] = FALLBACK
            continue
        values[k] = mantissa / _POW10[decimals]
        status[k] = OK


def hash_fields(buf, start, stop, out):
    """A 64-bit FNV-1a hash of each field's bytes (names are told apart by it, then checked by ``same_bytes``)."""
    for k in range(len(start)):
        h = np.uint64(_FNV_OFFSET)
        for i in range(start[k], stop[k]):
            h = (h ^ np.uint64(buf[i])) * np.uint64(_FNV_PRIME)
        out[k] = h


def same_bytes(buf, start, stop, rep_start, rep_stop, out):
    """Whether each field's bytes equal those of its representative."""
    for k in range(len(start)):
        a, b, ra = start[k], stop[k], rep_start[k]
        same = b - a == rep_stop[k] - ra
        if same:
            for i in range(b - a):
                if buf[a + i] != buf[ra + i]:
                    same = False
                    break
        out[k] = same


class Kernels(NamedTuple):
    """The loops, compiled."""

    split_lines: Callable
    read_micros: Callable
    read_decimals: Callable
    hash_fields: Callable
    same_bytes: Callable


@functools.cache
def compiled() -> Kernels | None:
    """The loops compiled by numba (cached on disk), or None where the
    compiled scanner is not used (numba missing, ``TIMELINEVIEW_JIT=0``)."""
    from timelineview.model.load.jit import scanner_available

    if not scanner_available():
        return None
    from timelineview.model.decode.scan.scan_jit import numba

    if numba is None:  # pragma: no cover - only where numba is missing
        return None
    jit = numba.njit(cache=True, nogil=True, boundscheck=False)
    return Kernels(jit(split_lines), jit(read_micros), jit(read_decimals), jit(hash_fields), jit(same_bytes))


WARM_TEXT = b"a,1.5\nb,2\n"  # two lines of two fields: a name, a number (a µs time or a size)
WARM_PAD = 8  # zero bytes around the warm-up's text, as the readers lay a text out


def warm() -> None:
    """Compile (or load from numba's cache) the loops for the argument types the readers pass: the text of a
    block as read (a writable buffer) and that of rows merged or read one by one (a read-only one)."""
    kernels = compiled()
    if kernels is None:
        return
    laid_out = bytes(WARM_PAD) + WARM_TEXT + bytes(WARM_PAD)
    writable = np.frombuffer(bytearray(laid_out), dtype=np.uint8)
    begin, end = WARM_PAD, WARM_PAD + len(WARM_TEXT)
    lines = WARM_TEXT.count(b"\n")
    width = 2
    line_start, line_stop = np.empty(lines, np.int64), np.empty(lines, np.int64)
    starts, stops = np.empty((width, lines + 1), np.int64), np.empty((width, lines + 1), np.int64)
    kernels.split_lines(writable, begin, end, np.arange(width, dtype=np.int64), width, 1 << 17, line_start,
                        line_stop, np.empty(lines, np.bool_), starts, stops)
    for buf in (writable, np.frombuffer(laid_out, dtype=np.uint8)):
        names, numbers = (starts[0, :lines], stops[0, :lines]), (starts[1, :lines], stops[1, :lines])
        kernels.read_micros(buf, *numbers, np.empty(lines, np.int64), np.empty(lines, np.uint8))
        kernels.read_decimals(buf, *numbers, np.empty(lines, np.float64), np.empty(lines, np.uint8))
        kernels.hash_fields(buf, *names, np.empty(lines, np.uint64))
        kernels.same_bytes(buf, *names, *names, np.empty(lines, np.bool_))
