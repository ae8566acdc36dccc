"""Where a top-level element of the event array starts, as far as the bytes around a '{' tell.

The one rule behind the scanner's resync after a damaged event (``byte_scan_text.next_object_start``),
the split of a damaged range (``range_split``) and its compiled walk (``stretch_walk.object_starts``):
a '{' starts an element when the first byte after it, across at most LOOK blanks, is '"' (an event's
first key), and the first byte before it, across at most LOOK blanks, is ',' or there is none. A buffer
handed to these starts at a top-level position (just after the array's '[' or an element's ','), so a
'{' with only blanks before it is the first element of the buffer (docs/trace-format.md §2.1: ``[{...},{...}]``,
pretty-printed with indents and newlines by some writers). A start near the end of a range is judged on
the bytes that follow in the buffer, as any other: where a range ends says nothing about the format.

A '{"' after ',' inside a string or a nested array passes too; the decode of the stretches between
the starts tells those apart.

``comma_before_start`` is the definition: plain Python on a uint8 array, compiled into the kernels that
call it (``byte_scan_text``). ``element_starts`` is the same rule over a whole buffer at once with numpy,
for the callers that run without the compiled kernels; a property test holds both (and every caller)
to a reference.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.decode.scan.scan_codes import COMMA, LOOK, NEWLINE, OPEN_OBJECT, QUOTE, RETURN, SPACE, TAB

FIRST = -1  # the element has nothing before it: the buffer's first
NOT_A_START = -2
BEFORE_THE_BUFFER, PAST_LOOK = -1, -2  # what ``across_blanks`` gives where it finds no byte
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[SPACE, NEWLINE, RETURN, TAB]] = True


def comma_before_start(buf, i):
    """For the byte buf[i]: when an element starts there, the position of the ',' before it (FIRST when
    only blanks precede it); else NOT_A_START."""
    n = len(buf)
    if buf[i] != OPEN_OBJECT:
        return NOT_A_START
    k = i + 1
    while k < n and k - i - 1 < LOOK:
        c = buf[k]
        if c != SPACE and c != NEWLINE and c != RETURN and c != TAB:
            break
        k += 1
    if k >= n or buf[k] != QUOTE:
        return NOT_A_START
    b = i - 1
    while b >= 0 and i - 1 - b < LOOK:
        c = buf[b]
        if c != SPACE and c != NEWLINE and c != RETURN and c != TAB:
            break
        b -= 1
    if b < 0:
        return FIRST
    return b if buf[b] == COMMA else NOT_A_START


def across_blanks(a: np.ndarray, at: np.ndarray, step: int) -> np.ndarray:
    """From each position ``at``, the first byte of ``a`` that is not whitespace going by ``step``
    (BEFORE_THE_BUFFER before the start, len(a) past the end; PAST_LOOK when more than LOOK blanks
    were crossed)."""
    at = at.copy()
    live = np.flatnonzero((at >= 0) & (at < len(a)))
    for _ in range(LOOK):
        blank = _BLANK[a[at[live]]]
        live = live[blank]
        if not len(live):
            return at
        at[live] += step
        live = live[(at[live] >= 0) & (at[live] < len(a))]
    at[live[_BLANK[a[at[live]]]]] = PAST_LOOK
    return at


def element_starts(a: np.ndarray, begin: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """``comma_before_start`` of every position in a[begin:limit] at once (``a``: uint8): the element
    starts, and for each the position of the ',' before it (FIRST for none)."""
    opens = np.flatnonzero(a[begin:limit] == OPEN_OBJECT) + begin
    after = across_blanks(a, opens + 1, 1)
    before = across_blanks(a, opens - 1, -1)
    quoted = np.zeros(len(opens), dtype=bool)
    inside = (after >= 0) & (after < len(a))
    quoted[inside] = a[after[inside]] == QUOTE
    comma = np.zeros(len(opens), dtype=bool)
    inside = before >= 0
    comma[inside] = a[before[inside]] == COMMA
    first = before == BEFORE_THE_BUFFER
    keep = quoted & (comma | first)
    return opens[keep], np.where(first[keep], FIRST, before[keep])
