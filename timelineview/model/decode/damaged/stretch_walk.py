"""Compiled verdicts on the stretches of a damaged range, for ``range_split.split``'s walk.

A stretch runs from one object start to the next. Where ``split`` would look at a stretch
alone, ``walk`` decides, stretch after stretch, the two cases dense damage is made of: a
whole element, and one damaged event with no intact one inside (what ``range_split._Splitter._look``
calls INTACT and DAMAGED, by the same tests). It stops at the first stretch it is not
sure of, which the Python walk then reads as before, so a split comes out the same with or
without it; only its time changes (about 12 µs of Python per damaged event).

Its JSON reading is narrower than msgspec's on purpose: ASCII only, the plain escapes,
numbers in JSON's own grammar, nesting below ``MAX_DEPTH``. Outside that it answers
UNSURE, so it never calls broken what msgspec would read, or the reverse.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.decode.scan.byte_scan_text import comma_before_start, is_hex_digit, literal, skip_ws
from timelineview.model.decode.scan.element_start import NOT_A_START
from timelineview.model.decode.scan.scan_codes import (
    BACKSLASH,
    CLOSE_ARRAY,
    CLOSE_OBJECT,
    COLON,
    COMMA,
    DENSE,
    ESCAPE_LETTERS,
    ESCAPE_UNICODE,
    EXP,
    EXP_UPPER,
    FALSE_START,
    FIRST_NON_ASCII,
    FIRST_PRINTABLE,
    MINUS,
    NEWLINE,
    NINE,
    NULL_START,
    ONE,
    OPEN_ARRAY,
    OPEN_OBJECT,
    PLUS,
    POINT,
    QUOTE,
    RETURN,
    SPACE,
    STRAY_CHARS,
    TAB,
    TRUE_START,
    ZERO,
)
from timelineview.model.decode.scan.scan_jit import byte_at, jit

DONE, BROKEN, UNSURE = 0, 1, 2  # how ``value_end`` found a value: whole, structurally broken, or not judged
MAX_DEPTH = 64  # deeper nesting is left to msgspec (which gives up far deeper, with a RecursionError)
EXPECT_VALUE, EXPECT_KEY, AFTER_VALUE = 0, 1, 2
INTACT, DAMAGED, STRAY_AFTER = 0, 1, 2  # the pieces ``walk`` writes
_LAST_PRINTABLE = 0x7E
_WORD_TRUE, _WORD_FALSE, _WORD_NULL = (np.frombuffer(w, dtype=np.uint8).copy() for w in (b"true", b"false", b"null"))
_PHASE = np.frombuffer(b'"ph"', dtype=np.uint8).copy()
_NAN, _INFINITY = (np.frombuffer(w, dtype=np.uint8).copy() for w in (b"NaN", b"Infinity"))
_SURROGATE_LEAD = np.frombuffer(b"dD", dtype=np.uint8).copy()
_SURROGATE_SECOND = np.frombuffer(b"89abcdefABCDEF", dtype=np.uint8).copy()


@jit
def _printable(c):
    return FIRST_PRINTABLE < c <= _LAST_PRINTABLE


@jit
def _in(c, choices):
    for x in choices:
        if c == x:
            return True
    return False


@jit
def _string_end(buf, i, end):
    """After the string at buf[i] == '"', or -1 when it is not plain (a control or non-ASCII
    byte, an escape other than the plain ones, a surrogate escape) or runs to ``end``."""
    i += 1
    while i < end:
        c = byte_at(buf, i)
        if c == QUOTE:
            return i + 1
        if c == BACKSLASH:
            if i + 1 >= end:
                return -1
            e = byte_at(buf, i + 1)
            if e == ESCAPE_UNICODE:
                if i + 6 > end:
                    return -1
                for k in range(i + 2, i + 6):
                    if not is_hex_digit(byte_at(buf, k)):
                        return -1
                if _in(byte_at(buf, i + 2), _SURROGATE_LEAD) and _in(byte_at(buf, i + 3), _SURROGATE_SECOND):
                    return -1  # msgspec reads a lone surrogate as the input cut short
                i += 6
                continue
            if not _in(e, ESCAPE_LETTERS):
                return -1
            i += 2
            continue
        if c < FIRST_PRINTABLE or c >= FIRST_NON_ASCII:
            return -1
        i += 1
    return -1


@jit
def _digits_end(buf, i, end):
    while i < end and ZERO <= byte_at(buf, i) <= NINE:
        i += 1
    return i


@jit
def _number_end(buf, i, end):
    """After the number at buf[i] in JSON's grammar, or -1 when it is not (or may go on past ``end``)."""
    if byte_at(buf, i) == MINUS:
        i += 1
    if i >= end:
        return -1
    c = byte_at(buf, i)
    if c == ZERO:
        i += 1
    elif ONE <= c <= NINE:
        i = _digits_end(buf, i, end)
    else:
        return -1
    if i < end and byte_at(buf, i) == POINT:
        j = _digits_end(buf, i + 1, end)
        if j == i + 1:
            return -1
        i = j
    if i < end and (byte_at(buf, i) == EXP or byte_at(buf, i) == EXP_UPPER):
        i += 1
        if i < end and (byte_at(buf, i) == PLUS or byte_at(buf, i) == MINUS):
            i += 1
        j = _digits_end(buf, i, end)
        if j == i:
            return -1
        i = j
    if i >= end or ZERO <= byte_at(buf, i) <= NINE:  # (a digit after a leading zero)
        return -1
    return i


@jit
def value_end(buf, i, end, stack):
    """The JSON value at buf[i], read no further than ``end``: (DONE, the position after it),
    (BROKEN, the byte where its structure breaks: msgspec fails there too), or (UNSURE, i)."""
    depth = 0
    state = EXPECT_VALUE
    while True:
        if state == AFTER_VALUE and depth == 0:
            return DONE, i
        i = skip_ws(buf, i, end)
        if i >= end:
            return UNSURE, i
        c = byte_at(buf, i)
        if state == EXPECT_KEY:
            if c != QUOTE:
                return (BROKEN if _printable(c) else UNSURE), i
            i = _string_end(buf, i, end)
            if i < 0:
                return UNSURE, i
            i = skip_ws(buf, i, end)
            if i >= end:
                return UNSURE, i
            c = byte_at(buf, i)
            if c != COLON:
                return (BROKEN if _printable(c) else UNSURE), i
            i += 1
            state = EXPECT_VALUE
        elif state == EXPECT_VALUE:
            if c == OPEN_OBJECT or c == OPEN_ARRAY:
                if depth == MAX_DEPTH:
                    return UNSURE, i
                stack[depth] = c
                depth += 1
                i = skip_ws(buf, i + 1, end)
                if i >= end:
                    return UNSURE, i
                close = CLOSE_OBJECT if c == OPEN_OBJECT else CLOSE_ARRAY
                if byte_at(buf, i) == close:
                    depth -= 1
                    i += 1
                    state = AFTER_VALUE
                else:
                    state = EXPECT_KEY if c == OPEN_OBJECT else EXPECT_VALUE
                continue
            if c == QUOTE:
                i = _string_end(buf, i, end)
            elif c == MINUS or ZERO <= c <= NINE:
                i = _number_end(buf, i, end)
            elif c == TRUE_START:
                i = literal(buf, i, end, _WORD_TRUE)
            elif c == FALSE_START:
                i = literal(buf, i, end, _WORD_FALSE)
            elif c == NULL_START:
                i = literal(buf, i, end, _WORD_NULL)
            elif c == CLOSE_OBJECT or c == CLOSE_ARRAY or c == COMMA or c == COLON:
                return BROKEN, i
            else:
                return UNSURE, i
            if i < 0:
                return UNSURE, i
            state = AFTER_VALUE
        else:  # after a value inside a container: what the container takes next
            top = stack[depth - 1]
            if c == COMMA:
                i += 1
                state = EXPECT_KEY if top == OPEN_OBJECT else EXPECT_VALUE
            elif (c == CLOSE_OBJECT and top == OPEN_OBJECT) or (c == CLOSE_ARRAY and top == OPEN_ARRAY):
                depth -= 1
                i += 1
            else:
                return (BROKEN if _printable(c) else UNSURE), i


@jit
def _find(buf, word, a, b):
    """The first position of ``word`` in buf[a:b], or -1."""
    n = len(word)
    for i in range(a, b - n + 1):
        k = 0
        while k < n and byte_at(buf, i + k) == word[k]:
            k += 1
        if k == n:
            return i
    return -1


@jit
def _spells(buf, i, b, word):
    """buf[i:b] starts with ``word``."""
    if i + len(word) > b:
        return False
    for k in range(len(word)):
        if byte_at(buf, i + k) != word[k]:
            return False
    return True


@jit
def _nothing_inside(buf, a, b, phase, stack):
    """buf[a:b] (one damaged event) is plain: ASCII without NaN, Infinity or a surrogate escape
    (what ``_look`` leaves to the tolerant scan, and more: any non-ASCII byte), and no '{"'
    inside starts an object that parses whole or around its "ph" (``_look``'s inner starts)."""
    i = a
    while i < b:
        c = byte_at(buf, i)
        if c >= FIRST_NON_ASCII:
            return False
        if c == _NAN[0] and _spells(buf, i, b, _NAN) or c == _INFINITY[0] and _spells(buf, i, b, _INFINITY):
            return False
        if c == BACKSLASH and i + 3 < b and byte_at(buf, i + 1) == ESCAPE_UNICODE and _in(
                byte_at(buf, i + 2), _SURROGATE_LEAD) and _in(byte_at(buf, i + 3), _SURROGATE_SECOND):
            return False
        if c == OPEN_OBJECT and i > a:
            v = skip_ws(buf, i + 1, b)
            if v < b and byte_at(buf, v) == QUOTE:
                how, p = value_end(buf, i, b, stack)
                if how == UNSURE:
                    return False
                if how == DONE:
                    q = skip_ws(buf, p, b)
                    if q >= b or i <= phase <= q:
                        return False
                i = v  # (blanks between: nothing risky)
        i += 1
    return True


@jit
def _damaged_to(buf, at, s, last, phase_at, stack):
    """For stretch s, which breaks before its end: the start t its damaged event runs to (the
    next whose stretch holds a "ph"), or -1 unless it is surely one damaged event (one "ph",
    no object inside that parses around it, everything plain)."""
    a, b = at[s], at[s + 1]
    phase = _find(buf, _PHASE, a, b)
    if phase < 0 or _find(buf, _PHASE, phase + 1, b) >= 0:
        return -1
    t = last
    if phase_at >= 0:
        t = s + 1
        while t < last and at[t + 1] <= phase_at:
            t += 1
    if t >= last:
        return -1
    return t if _nothing_inside(buf, a, at[t], phase, stack) else -1


@jit
def _stray_close(buf, at, s, last, q, phase_at):
    """Stretch s is a whole element and then a stray '}' at q: a few bytes without a "ph" or
    an object start before the next start, whose stretch holds the next "ph" (the tolerant scan
    keeps the element and reports the bytes as stray)."""
    b = at[s + 1]
    if byte_at(buf, q) != CLOSE_OBJECT or s + 1 >= last or b - q >= STRAY_CHARS:
        return False
    if phase_at < 0 or phase_at >= at[s + 2] or _find(buf, _PHASE, q, b) >= 0:
        return False
    for i in range(q + 1, b):
        c = byte_at(buf, i)
        if c >= FIRST_NON_ASCII:
            return False
        if c == OPEN_OBJECT:
            v = skip_ws(buf, i + 1, b)
            if v < b and byte_at(buf, v) == QUOTE:
                return False
    return True


@jit
def walk(buf, at, comma, s, last, dense, exact_count, stack, out_start, out_end, out_kind, out_stray):
    """Follow ``range_split._Splitter.run`` from stretch s while each of its steps is sure. A whole stretch
    (a whole element, its next start's ',' after it) is one piece, whether a run passes it or a
    look finds it. Where a run would break inside a stretch, or a look is made at it, the look
    finds one damaged event up to the next start with a "ph" (DAMAGED), or a whole element and a
    stray '}' (STRAY_AFTER, as the tolerant scan reads it). ``dense`` and ``exact_count`` are the
    walk's state (``exact_count``: the pieces read alone so far, which make damage dense at DENSE).

    Returns (where the Python walk goes on, pieces written to ``out_*``, dense now): at a stretch
    whose look it cannot settle, that stretch (a run would break there too, so Python looks at it
    next whatever its bounds); at one a run might read past, where its last look left the walk
    (a turn of Python's walk starts there, with the same state).
    """
    n = 0
    phase_at = -1  # the next "ph" at or after the current stretch's end (-2: none before the tail)
    turn_s, turn_n = s, 0  # after the last look: where Python's walk would start a turn
    while s < last:
        a, b = at[s], at[s + 1]
        how, p = value_end(buf, a, b, stack)
        q = skip_ws(buf, p, b) if how == DONE else b
        if how == DONE and q == comma[s + 1]:
            out_start[n], out_end[n], out_kind[n], out_stray[n] = a, p, INTACT, -1
            n += 1
            s += 1
            continue
        if not (how == BROKEN or how == DONE and q < b and byte_at(buf, q) == CLOSE_OBJECT):
            return turn_s, turn_n, dense  # a run may go on past it: Python's to run
        if phase_at != -2 and phase_at < b:
            phase_at = _find(buf, _PHASE, b, at[last])
            if phase_at < 0:
                phase_at = -2
        if how == DONE:
            if not _stray_close(buf, at, s, last, q, phase_at):
                return s, n, dense
            out_start[n], out_end[n], out_kind[n], out_stray[n] = a, p, STRAY_AFTER, q
            exact_count += 1
            s += 1
        else:
            t = _damaged_to(buf, at, s, last, phase_at, stack)
            if t < 0:
                return s, n, dense
            out_start[n], out_end[n], out_kind[n], out_stray[n] = a, at[t], DAMAGED, -1
            exact_count += 1
            dense = dense or exact_count >= DENSE
            s = t
        n += 1
        turn_s, turn_n = s, n
    return s, n, dense


@jit
def _blank(c):
    return c == SPACE or c == NEWLINE or c == RETURN or c == TAB


@jit
def object_starts(buf, limit, out_starts, out_comma, out_ends):
    """The element starts before ``limit`` (``element_start``: ``range_split._object_starts`` of buf from
    0) and the element ends the split derives from them, in one pass: each start with the ',' before
    it, and for each start but the last, where the element before the next start's ',' ends.
    Returns how many starts were written."""
    n = 0
    for i in range(limit):
        if byte_at(buf, i) != OPEN_OBJECT:
            continue
        b = comma_before_start(buf, i)
        if b == NOT_A_START:
            continue
        out_starts[n] = i
        out_comma[n] = b  # (FIRST, -1: the first element, nothing before it)
        n += 1
    for k in range(n - 1):
        b = out_comma[k + 1] - 1
        while b >= 0 and _blank(byte_at(buf, b)):
            b -= 1
        out_ends[k] = b + 1
    if n:
        out_ends[n - 1] = -1
    return n


def warm() -> None:
    """Compile (or load from numba's cache) ``walk`` for the arrays ``split`` passes."""
    data = b'{"ph":"X","args":[{"k":1}},{"ph":"X","a":1},{"ph":"i"}'
    at = np.array([0, 27, 44], dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    walk(np.frombuffer(data, dtype=np.uint8), at, np.array([-1, 26, 43], dtype=np.int64), 0, 2, False, 0,
         np.zeros(MAX_DEPTH, dtype=np.uint8), out, out.copy(), np.zeros(3, dtype=np.uint8), out.copy())
    starts = np.zeros(4, dtype=np.int64)
    object_starts(np.frombuffer(data, dtype=np.uint8), len(data), starts, starts.copy(), starts.copy())
