"""Where an element starts: every caller of the one rule (``element_start``) agrees with a slow reference
written here from the format (docs/trace-format.md §2.1: the events are ``[{...},{...}]``, elements after the
array's '[' or a ',', pretty-printed with blanks by some writers), on random JSON-ish bytes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from timelineview.model.decode.damaged import range_split
from timelineview.model.decode.scan import element_start
from timelineview.model.decode.scan.scan_codes import LOOK
from timelineview.model.load.jit import scanner_available

BLANKS = rb"[ \t\r\n]"
KEY_AFTER = re.compile(BLANKS + b"{0,%d}\"" % LOOK)  # an object's first key, across at most LOOK blanks
BLANKS_BEFORE = re.compile(BLANKS + rb"*\Z")


def reference(data: bytes) -> dict[int, int]:
    """Every element start of ``data``, with the position of the ',' before it (-1: nothing before it,
    the buffer's first element): a '{' whose next non-blank byte, at most LOOK blanks on, is '"', and
    whose previous non-blank byte, at most LOOK blanks back, is ',' or the start of the buffer."""
    starts = {}
    for i in range(len(data)):
        if data[i:i + 1] != b"{" or not KEY_AFTER.match(data, i + 1):
            continue
        blanks = len(BLANKS_BEFORE.search(data[:i]).group())
        if blanks > LOOK:
            continue
        before = i - blanks - 1
        if before < 0 or data[before:before + 1] == b",":
            starts[i] = max(before, -1)
    return starts


PIECES = [b"{", b"}", b"[", b"]", b",", b":", b'"', b'\\"', b"\\\\", b" ", b"\n", b"\t", b"\r", b"1", b"null",
          b'"ph"', b'"a"', b'{"ph":"X"}', b',{"', b'"s\\",{\\"t"', b'"{\\"k\\":[{}]}"', b'[{"k":{"n":[]}}]',
          b" " * (LOOK - 1), b" " * LOOK, b" " * (LOOK + 1), b"\n" + b" " * (LOOK - 1)]
json_ish = st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join)


@st.composite
def buffer_and_window(draw):
    data = draw(json_ish)
    begin = draw(st.integers(0, len(data)))
    limit = draw(st.integers(begin, len(data)))
    return data, begin, limit


def _in(starts: dict[int, int], begin: int, limit: int) -> list[tuple[int, int]]:
    return [(i, c) for i, c in sorted(starts.items()) if begin <= i < limit]


@settings(max_examples=400, deadline=None)
@given(buffer_and_window())
def test_every_caller_agrees_with_the_reference(case):
    data, begin, limit = case
    want = reference(data)
    a = np.frombuffer(data, dtype=np.uint8)
    # the definition, byte by byte
    got = {i: element_start.comma_before_start(a, i) for i in range(len(data))}
    assert {i: c for i, c in got.items() if c != element_start.NOT_A_START} == want
    # its numpy form, and the damaged-range split's starts (the reader without compiled kernels)
    starts, commas = element_start.element_starts(a, begin, limit)
    assert list(zip(starts.tolist(), commas.tolist())) == _in(want, begin, limit)
    starts, commas = range_split._object_starts(data, limit, begin)
    assert list(zip(starts.tolist(), commas.tolist())) == _in(want, begin, limit)
    assert range_split.object_starts(data, limit, begin).tolist() == [i for i, _ in _in(want, begin, limit)]
    if scanner_available():
        _compiled_callers_agree(data, begin, limit, want)


def _compiled_callers_agree(data: bytes, begin: int, limit: int, want: dict[int, int]) -> None:
    from timelineview.model.decode.damaged import stretch_walk
    from timelineview.model.decode.scan import byte_scan_text

    # the scanner's resync: the next start at or after ``begin`` before ``limit`` (``limit`` when none)
    buf = np.frombuffer(bytearray(data), dtype=np.uint8)  # writable, as the loader passes it
    later = [i for i, _ in _in(want, begin, limit)]
    assert byte_scan_text.next_object_start(buf, begin, limit) == (later[0] if later else limit)
    for i in range(len(data)):
        assert byte_scan_text.comma_before_start(buf, i) == want.get(i, element_start.NOT_A_START), i
    # the compiled walk of the damaged-range split (from 0)
    room = max(1, data.count(b"{"))
    out = [np.zeros(room, dtype=np.int64) for _ in range(3)]
    n = stretch_walk.object_starts(np.frombuffer(data, dtype=np.uint8), limit, *out)
    assert list(zip(out[0][:n].tolist(), out[1][:n].tolist())) == _in(want, 0, limit)


# Where the scanner's resync (``next_object_start``) used to differ from the split: it refused a start with
# nothing before it, and judged a start before a range's end on the bytes before that end only.
EDGES = [
    (b'{"ph":"X"}', 0, 10, 0),  # the buffer's first element
    (b'  \n{"ph":"X"}', 0, 13, 3),  # ... after blanks
    (b'{"ph":"X"},{"ph":"i"}', 1, 12, 11),  # a start whose key lies at the range's end
    (b'{"ph":"X"},{ \n "ph":"i"}', 1, 13, 11),  # ... past blanks that reach past it
    (b'{"ph":"X"},' + b" " * LOOK + b'{"ph":"i"}', 1, 11 + LOOK + 1, 11 + LOOK),  # LOOK blanks before it
    (b'{"ph":"X"},' + b" " * (LOOK + 1) + b'{"ph":"i"}', 1, 11 + LOOK + 2, 11 + LOOK + 2),  # more: not a start
    (b'{"s":"a\\",{\\"b"}', 1, 16, 16),  # an escaped quote after ',{' inside a string: not a start
]


@pytest.mark.parametrize(("data", "begin", "end", "expected"), EDGES)
def test_edges(data, begin, end, expected):
    assert [i for i in reference(data) if begin <= i < end][:1] == ([expected] if expected < end else [])
    if not scanner_available():
        pytest.skip("numba is not installed")
    from timelineview.model.decode.scan import byte_scan_text

    buf = np.frombuffer(bytearray(data), dtype=np.uint8)
    assert byte_scan_text.next_object_start(buf, begin, end) == expected
