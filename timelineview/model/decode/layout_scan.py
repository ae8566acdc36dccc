"""Find the event array inside a trace file and cut it into ranges at event boundaries.

Cut points are candidates (``}`` , ``{`` with optional whitespace); the decode of each
range validates them: a range that starts at a real boundary and ends at a false one
never parses (it ends inside a string or with unbalanced brackets).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

HEAD = 1 << 16
TAIL = 1 << 20
_WS = b" \t\r\n"
_TRACE_EVENTS = re.compile(rb'"traceEvents"\s*:\s*\[')
EVENT_BOUNDARY = re.compile(rb"\}\s*,\s*\{")  # a candidate cut between two events


@dataclass
class ArrayBounds:
    """Byte range [start, end) of the elements of the event array (brackets excluded)."""

    start: int
    end: int
    closed: bool  # the closing bracket was found
    form: str  # "array", "object" or "empty"
    problems: list[str] = field(default_factory=list)
    error: str = ""  # nothing readable


def _skip_ws(buf: bytes, pos: int) -> int:
    while pos < len(buf) and buf[pos] in _WS:
        pos += 1
    return pos


def locate_array(path: str) -> ArrayBounds:
    """Locate the event array: ``[...]`` or ``{"traceEvents": [...], ...}``; tolerate damage.

    Problems and the error are plain sentences: the caller names the file (the one the
    user gave, which for a ``.gz`` is not the ``path`` read here)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(HEAD)
        pos = 3 if head.startswith(b"\xef\xbb\xbf") else 0
        pos = _skip_ws(head, pos)
        if pos >= len(head):
            return ArrayBounds(0, 0, False, "empty", error="the file is empty")
        first = head[pos:pos + 1]
        if first == b"]":  # what an interrupted CANN writer leaves when nothing was written
            return ArrayBounds(pos, pos, True, "empty", ["the file holds only ']' (no events were written)"])
        if first == b"[":
            start = pos + 1
            form = "array"
        elif first == b"{":
            m = _TRACE_EVENTS.search(head, pos)
            found = m.end() if m else _search_file(f, _TRACE_EVENTS, size)
            if found is None:
                return ArrayBounds(0, 0, False, "empty",
                                   error="a JSON object without a 'traceEvents' array")
            start, form = found, "object"
        else:
            shown = head[pos:pos + 20].decode("utf-8", "replace")
            return ArrayBounds(0, 0, False, "empty",
                               error=f"not a JSON trace (byte {pos} starts with {shown!r})")
        tail_at = max(start, size - TAIL)
        f.seek(tail_at)
        tail = f.read()
    end, closed, problems = _array_end(tail, tail_at, start, form)
    return ArrayBounds(start, end, closed, form, problems)


def _search_file(f, pattern: re.Pattern, size: int) -> int | None:
    """Search the whole file in overlapping blocks; return the match end or None."""
    block = 1 << 24
    pos = 0
    while pos < size:
        f.seek(pos)
        data = f.read(block + 64)
        m = pattern.search(data)
        if m:
            return pos + m.end()
        pos += block
    return None


def _array_end(tail: bytes, tail_at: int, start: int, form: str) -> tuple[int, bool, list[str]]:
    """Where the elements end: before ``]`` (and, for objects, a valid remainder)."""
    k = len(tail)
    while k > 0 and tail[k - 1] in _WS:
        k -= 1
    if form == "array":
        if k > 0 and tail[k - 1] == 0x5D and tail_at + k - 1 >= start:
            return tail_at + k - 1, True, []
        return _trim_open_end(tail, tail_at, k), False, []
    # object form: find a ']' whose remainder completes the outer object
    j = k
    while True:
        j = tail.rfind(b"]", 0, j)
        if j < 0 or tail_at + j < start:
            return _trim_open_end(tail, tail_at, k), False, ["no closing ']' for 'traceEvents'"]
        rest = tail[j + 1:k]
        before = tail[:j].rstrip(_WS)[-1:]
        if before in (b"}", b"[", b",") or tail_at + j == start:
            try:
                json.loads(b'{"_":0' + rest)
                return tail_at + j, True, []
            except ValueError:
                pass
        if k - j > TAIL:
            return tail_at + k, False, ["no closing ']' for 'traceEvents'"]


def _trim_open_end(tail: bytes, tail_at: int, k: int) -> int:
    """Drop the trailing commas and whitespace an interrupted writer leaves."""
    while k > 0 and (tail[k - 1] in _WS or tail[k - 1] == 0x2C):
        k -= 1
    return tail_at + k


def plan_ranges(path: str, bounds: ArrayBounds, chunk_bytes: int) -> list[tuple[int, int]]:
    """Cut [start, end) into ranges of about ``chunk_bytes`` at candidate event boundaries.

    Each range starts at the ``{`` of an element and ends just after a ``}``; the last
    one ends at the array end (and may hold a damaged tail).
    """
    start, end = bounds.start, bounds.end
    if end <= start:
        return []
    cuts: list[tuple[int, int]] = []
    with open(path, "rb") as f:
        p = start + chunk_bytes
        window = 1 << 12
        while p < end - chunk_bytes // 4:
            f.seek(p)
            data = f.read(min(window, end - p))
            m = EVENT_BOUNDARY.search(data)
            if m is None:
                if window < (1 << 24) and p + window < end:
                    window *= 4
                    continue
                break
            cuts.append((p + m.start() + 1, p + m.end() - 1))
            p = p + m.end() - 1 + chunk_bytes
            window = 1 << 12
    ranges = []
    a = start
    for b, next_a in cuts:
        ranges.append((a, b))
        a = next_a
    ranges.append((a, end))
    return ranges
