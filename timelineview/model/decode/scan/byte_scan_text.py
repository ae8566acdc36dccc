"""Scanner kernels for JSON text: whitespace, strings, literals, member keys, and skipping a value.

Each validates what it reads as a JSON parser would and returns -1 (or a flag) where
the bytes are not valid JSON, so that the scanner declines the range.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.decode.scan import element_start
from timelineview.model.decode.scan.byte_scan_numbers import number
from timelineview.model.decode.scan.element_start import NOT_A_START
from timelineview.model.decode.scan.scan_codes import (
    BACKSLASH,
    CLOSE_ARRAY,
    CLOSE_OBJECT,
    COLON,
    COMMA,
    CONT_MAX,
    CONT_MIN,
    ESCAPE_LETTERS,
    ESCAPE_UNICODE,
    FALSE_START,
    FIRST_NON_ASCII,
    FIRST_PRINTABLE,
    HAS_ESCAPES,
    HAS_NON_ASCII,
    HEX_LOWER_A,
    HEX_LOWER_F,
    HEX_UPPER_A,
    HEX_UPPER_F,
    KEY_ARGS,
    KEY_BP,
    KEY_CAT,
    KEY_DUR,
    KEY_ID,
    KEY_NAME,
    KEY_OTHER,
    KEY_PH,
    KEY_PID,
    KEY_TID,
    KEY_TS,
    LAST4_MAX,
    LEAD2_MAX,
    LEAD2_MIN,
    LEAD3_MAX,
    LEAD3_MIN,
    LEAD3_OVERLONG,
    LEAD3_SURROGATE,
    LEAD4_LAST,
    LEAD4_MAX,
    LEAD4_MIN,
    LEAD4_OVERLONG,
    MINUS,
    NEWLINE,
    NINE,
    NULL_START,
    OPEN_ARRAY,
    OPEN_OBJECT,
    OVERLONG3_MIN,
    OVERLONG4_MIN,
    QUOTE,
    RETURN,
    SPACE,
    SURROGATE_MAX,
    TAB,
    TRUE_START,
    WORD_ARGS,
    WORD_BP,
    WORD_CAT,
    WORD_DUR,
    WORD_ID,
    WORD_NAME,
    WORD_PH,
    WORD_PID,
    WORD_TID,
    WORD_TS,
    ZERO,
)
from timelineview.model.decode.scan.scan_columns import (
    MEMBER_KEY_END,
    MEMBER_KEY_FLAGS,
    MEMBER_KEY_START,
    MEMBER_LENGTH,
    MEMBER_VALUE,
)
from timelineview.model.decode.scan.scan_jit import byte_at, jit
from timelineview.producers import TASK_TYPE_ARG

TASK_TYPE, TRUE, FALSE, NULL = (np.frombuffer(w, dtype=np.uint8).copy()
                                 for w in (TASK_TYPE_ARG.encode(), b"true", b"false", b"null"))
# The task type's key in an object ``skip`` watches: not there, read, or left to the typed path
WATCH_NONE, WATCH_FOUND, WATCH_DECLINED = 0, 1, 2
IN_OBJECT, IN_ARRAY = 0, 1  # ``skip``'s stack of open containers
ESCAPE_LEN, UNICODE_ESCAPE_LEN = 2, 6  # bytes of \n and of \uXXXX


@jit
def skip_ws(buf, i, end):
    """The first non-whitespace position from i (end if none)."""
    while i < end:
        c = byte_at(buf, i)
        if c != SPACE and c != NEWLINE and c != RETURN and c != TAB:
            return i
        i += 1
    return i


comma_before_start = jit(element_start.comma_before_start)  # the kernel form of the rule


@jit
def next_object_start(buf, i, end):
    """The first '{' at or after i, before ``end``, where an element starts (``element_start``);
    ``end`` if none."""
    while i < end:
        if byte_at(buf, i) == OPEN_OBJECT and comma_before_start(buf, i) != NOT_A_START:
            return i
        i += 1
    return end


@jit
def is_hex_digit(c):
    return (ZERO <= c <= NINE) or (HEX_UPPER_A <= c <= HEX_UPPER_F) or (HEX_LOWER_A <= c <= HEX_LOWER_F)


@jit
def string_checked(buf, i, end):
    """End of the string starting at buf[i] == '"' (after the closing quote), or -1,
    with every escape and UTF-8 sequence checked, and its flags (HAS_ESCAPES,
    HAS_NON_ASCII)."""
    i += 1
    flags = 0
    while i < end:
        c = byte_at(buf, i)
        if c == QUOTE:
            return i + 1, flags
        if c == BACKSLASH:
            flags |= HAS_ESCAPES
            if i + 1 >= end:
                return -1, 0
            e = byte_at(buf, i + 1)
            if e == ESCAPE_UNICODE:
                if i + UNICODE_ESCAPE_LEN - 1 >= end:
                    return -1, 0
                for k in range(ESCAPE_LEN, UNICODE_ESCAPE_LEN):
                    if not is_hex_digit(byte_at(buf, i + k)):
                        return -1, 0
                i += UNICODE_ESCAPE_LEN
            elif e in ESCAPE_LETTERS:
                i += ESCAPE_LEN
            else:
                return -1, 0
        elif c < FIRST_PRINTABLE:
            return -1, 0
        elif c < FIRST_NON_ASCII:
            i += 1
        else:
            flags |= HAS_NON_ASCII
            if LEAD2_MIN <= c <= LEAD2_MAX:
                n = 1
            elif LEAD3_MIN <= c <= LEAD3_MAX:
                n = 2
            elif LEAD4_MIN <= c <= LEAD4_MAX:
                n = 3
            else:
                return -1, 0
            if i + n >= end:
                return -1, 0
            c1 = byte_at(buf, i + 1)
            if c1 < CONT_MIN or c1 > CONT_MAX:
                return -1, 0
            if ((c == LEAD3_OVERLONG and c1 < OVERLONG3_MIN) or (c == LEAD3_SURROGATE and c1 > SURROGATE_MAX)
                    or (c == LEAD4_OVERLONG and c1 < OVERLONG4_MIN) or (c == LEAD4_LAST and c1 > LAST4_MAX)):
                return -1, 0
            for k in range(2, n + 1):
                ck = byte_at(buf, i + k)
                if ck < CONT_MIN or ck > CONT_MAX:
                    return -1, 0
            i += n + 1
    return -1, 0


@jit
def string(buf, i, end):
    """End of the string starting at buf[i] == '"' and its flags (HAS_ESCAPES,
    HAS_NON_ASCII); -1 at a control character or the end of the data.

    Escapes and non-ASCII bytes are only flagged here: a caller seeing flags re-reads the
    string with ``string_checked``. A call inside this loop would keep it from being
    inlined, which costs the whole scan a fifth of its speed.
    """
    i += 1
    flags = 0
    while i < end:
        c = byte_at(buf, i)
        if c == QUOTE:
            return i + 1, flags
        if c == BACKSLASH:
            flags |= HAS_ESCAPES
            i += ESCAPE_LEN
        elif c < FIRST_PRINTABLE:
            return -1, 0
        else:
            if c >= FIRST_NON_ASCII:
                flags |= HAS_NON_ASCII
            i += 1
    return -1, 0


@jit
def read_string(buf, i, end):
    """``string``, with a string it flags re-read by ``string_checked``: (end or -1, flags)."""
    e, flags = string(buf, i, end)
    if flags and e >= 0:  # escapes or non-ASCII: checked off the hot loop
        return string_checked(buf, i, end)
    return e, flags


@jit
def literal(buf, i, end, word):
    """End of ``word`` when the bytes at i spell it, else -1."""
    if i + len(word) > end:
        return -1
    for k in range(len(word)):
        if byte_at(buf, i + k) != word[k]:
            return -1
    return i + len(word)


@jit
def member_key(buf, i, end):
    """(position after the key string at i and its colon, or -1; key content start, end,
    flags)."""
    if i >= end or byte_at(buf, i) != QUOTE:
        return -1, 0, 0, 0
    q = i
    i, kfl = read_string(buf, i, end)
    if i < 0:
        return -1, 0, 0, 0
    kb = i - 1
    i = skip_ws(buf, i, end)
    if i >= end or byte_at(buf, i) != COLON:
        return -1, 0, 0, 0
    return i + 1, q + 1, kb, kfl


@jit
def watch_key(buf, ka, kb, kfl, got):
    """(is this member key the task type's, got): an escaped key might spell it, so it leaves
    the element to the typed path (got WATCH_DECLINED)."""
    if kfl & HAS_ESCAPES:
        return False, WATCH_DECLINED
    return kfl == 0 and kb - ka == len(TASK_TYPE) and literal(buf, ka, kb, TASK_TYPE) == kb, got


@jit
def skip(buf, i, end, stack, watch):
    """End of the JSON value at i (validated), or -1; with ``watch``, for an object, also
    its task type member: (end, a, b, flags, got) where [a, b) is the content of that
    string (got WATCH_FOUND), got WATCH_NONE without one, WATCH_DECLINED when the key is
    repeated or its value is neither a string nor null (left to the typed path)."""
    depth = 0
    want = False  # the value about to be read is the watched member's
    got = WATCH_NONE
    a = b = fl = 0
    while True:
        i = skip_ws(buf, i, end)
        if i >= end:
            return -1, a, b, fl, got
        c = byte_at(buf, i)
        if want:
            if c == QUOTE and got == WATCH_NONE:
                a = i + 1
            elif c != NULL_START or got != WATCH_NONE:
                got = WATCH_DECLINED
        if c == OPEN_OBJECT or c == OPEN_ARRAY:
            j = skip_ws(buf, i + 1, end)
            if j >= end:
                return -1, a, b, fl, got
            if (c == OPEN_OBJECT and byte_at(buf, j) == CLOSE_OBJECT) or (
                    c == OPEN_ARRAY and byte_at(buf, j) == CLOSE_ARRAY):
                i = j + 1
            else:
                if depth >= len(stack):
                    return -1, a, b, fl, got
                stack[depth] = IN_OBJECT if c == OPEN_OBJECT else IN_ARRAY
                depth += 1
                i = j
                want = False
                if c == OPEN_OBJECT:  # first key
                    i, ka, kb, kfl = member_key(buf, i, end)
                    if i < 0:
                        return -1, a, b, fl, got
                    if watch and depth == 1:
                        want, got = watch_key(buf, ka, kb, kfl, got)
                continue
        elif c == QUOTE:
            i, sfl = read_string(buf, i, end)
            if i < 0:
                return -1, a, b, fl, got
            if want and got == WATCH_NONE:
                b, fl, got = i - 1, sfl, WATCH_FOUND
        elif c == MINUS or ZERO <= c <= NINE:
            i = number(buf, i, end)[0]
            if i < 0:
                return -1, a, b, fl, got
        elif c == TRUE_START or c == FALSE_START or c == NULL_START:
            i = literal(buf, i, end, TRUE if c == TRUE_START else (FALSE if c == FALSE_START else NULL))
            if i < 0:
                return -1, a, b, fl, got
        else:
            return -1, a, b, fl, got
        want = False
        # after a value: close containers, or move to the next member
        while True:
            if depth == 0:
                return i, a, b, fl, got
            i = skip_ws(buf, i, end)
            if i >= end:
                return -1, a, b, fl, got
            c = byte_at(buf, i)
            if c == COMMA:
                i = skip_ws(buf, i + 1, end)
                if stack[depth - 1] == IN_OBJECT:
                    i, ka, kb, kfl = member_key(buf, i, end)
                    if i < 0:
                        return -1, a, b, fl, got
                    if watch and depth == 1:
                        want, got = watch_key(buf, ka, kb, kfl, got)
                break
            if (c == CLOSE_OBJECT and stack[depth - 1] == IN_OBJECT) or (
                    c == CLOSE_ARRAY and stack[depth - 1] == IN_ARRAY):
                i += 1
                depth -= 1
                continue
            return -1, a, b, fl, got


@jit
def skip_value(buf, i, end, stack):
    """End of the JSON value at i (validated), or -1."""
    return skip(buf, i, end, stack, False)[0]


@jit
def key_code(buf, a, b):
    """The KEY_* code of the member key with content bytes [a, b) (KEY_OTHER for any other)."""
    n = b - a
    if n < 2 or n > 4:
        return KEY_OTHER
    w = 0
    for k in range(a, b):
        w = (w << 8) | byte_at(buf, k)
    if n == 2:
        if w == WORD_PH:
            return KEY_PH
        if w == WORD_TS:
            return KEY_TS
        if w == WORD_ID:
            return KEY_ID
        if w == WORD_BP:
            return KEY_BP
    elif n == 3:
        if w == WORD_PID:
            return KEY_PID
        if w == WORD_TID:
            return KEY_TID
        if w == WORD_DUR:
            return KEY_DUR
        if w == WORD_CAT:
            return KEY_CAT
    else:
        if w == WORD_NAME:
            return KEY_NAME
        if w == WORD_ARGS:
            return KEY_ARGS
    return KEY_OTHER


@jit
def counter_members(buf, i, end, members, stack):
    """Members of a counter's args object at buf[i] == '{' when every value is a JSON number:
    rows of MEMBER_* columns; their count, or -1."""
    n = 0
    i = skip_ws(buf, i + 1, end)
    if i < end and byte_at(buf, i) == CLOSE_OBJECT:
        return 0
    while True:
        i, ka, kb, kfl = member_key(buf, i, end)
        if i < 0 or n >= len(members):
            return -1
        i = skip_ws(buf, i, end)
        if i >= end or not (byte_at(buf, i) == MINUS or ZERO <= byte_at(buf, i) <= NINE):
            return -1  # strings, booleans, null, nesting: the typed decoder's rules
        v = i
        i = number(buf, i, end)[0]
        if i < 0:
            return -1
        members[n, MEMBER_KEY_START] = ka
        members[n, MEMBER_KEY_END] = kb
        members[n, MEMBER_KEY_FLAGS] = kfl
        members[n, MEMBER_VALUE] = v
        members[n, MEMBER_LENGTH] = i - v
        n += 1
        i = skip_ws(buf, i, end)
        if i < end and byte_at(buf, i) == COMMA:
            i = skip_ws(buf, i + 1, end)
            continue
        if i < end and byte_at(buf, i) == CLOSE_OBJECT:
            return n
        return -1
