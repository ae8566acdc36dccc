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
UTF16_PROBE = 64  # bytes of the head looked at for NUL bytes
DAMAGED_START = HEAD  # a file whose first event starts within its head after damage is read from it
EVENT_PROBE = 4096  # ... and holds a "ph" key this soon
_PHASE_KEY = b'"ph"'
_FIRST_EVENT = re.compile(rb'\{[ \t\r\n]*"')
_WS = b" \t\r\n"
_TRACE_EVENTS = re.compile(rb'"traceEvents"\s*:\s*\[')
_HEAD_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]')
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
        nul = head.find(b"\x00", 0, UTF16_PROBE)
        # JSON text holds no NUL byte; UTF-16 text holds one in every ASCII character. A stray one before
        # the first event is damage: the events after it are read
        if nul >= 0 and _damaged_start(head, pos) is None:
            return ArrayBounds(0, 0, False, "empty", error=f"not a JSON trace: a NUL byte at byte {nul} (UTF-16 "
                                                              "text or binary?); traces are read as UTF-8")
        first = head[pos:pos + 1]
        problems: list[str] = []
        if first == b"]" and _skip_ws(head, pos + 1) >= len(head) >= size:  # what an interrupted CANN writer
            # leaves when nothing was written; a ']' with events after it is damage, read past below
            return ArrayBounds(pos, pos, True, "empty", ["the file holds only ']' (no events were written)"])
        if first == b"[":
            start = pos + 1
            form = "array"
        elif first == b"{":
            found, searched, nested = _top_level_key(head, pos)
            if found is None:
                found = _search_file(f, _TRACE_EVENTS, size, searched)
            event = None if found is not None else _damaged_start(head, pos)
            if event is not None:  # '{' and then events: a damaged '['
                start, form = event, "array"
                problems.append(f"the file starts with '{{', not '[': read from the event at byte {start}")
            elif found is None:
                return ArrayBounds(0, 0, False, "empty",
                                   error="a JSON object without a 'traceEvents' array")
            else:
                start, form = found, "object"
            problems += [f"a 'traceEvents' key nested inside another value at byte {k} was skipped" for k in nested]
        else:
            shown = head[pos:pos + 20].decode("utf-8", "replace")
            event = _damaged_start(head, pos)
            if event is None:
                return ArrayBounds(0, 0, False, "empty",
                                   error=f"not a JSON trace (byte {pos} starts with {shown!r})")
            start, form = event, "array"  # a damaged '[': the events are still there
            problems.append(f"the file starts with {shown!r}, not '[': read from the event at byte {start}")
        tail_at = max(start, size - TAIL)
        f.seek(tail_at)
        tail = f.read()
    end, closed, end_problems = _array_end(tail, tail_at, start, form)
    return ArrayBounds(start, end, closed, form, problems + end_problems)


def _damaged_start(head: bytes, pos: int) -> int | None:
    """Where the first event starts when the bytes before it are not a proper opening: an object
    holding a ``"ph"`` key within a few bytes of ``pos``, or None."""
    event = _FIRST_EVENT.search(head, pos, pos + DAMAGED_START)
    if event is None or _PHASE_KEY not in head[event.start():event.start() + EVENT_PROBE]:
        return None
    return event.start()


def _top_level_key(head: bytes, pos: int) -> tuple[int | None, int, list[int]]:
    """Find ``"traceEvents": [`` among the members of the object opening at ``head[pos]``
    (not inside one of their values). Returns (where its elements start or None, how far
    ``head`` was followed, where nested keys of that name were passed over)."""
    depth = 0
    nested: list[int] = []
    searched = pos
    for m in _HEAD_TOKEN.finditer(head, pos):
        token = m.group()
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return None, len(head), nested  # the object closed: no array in it
        elif token == b'"traceEvents"':
            key = _TRACE_EVENTS.match(head, m.start())
            if key is not None and depth == 1:
                return key.end(), m.end(), nested
            if key is not None:
                nested.append(m.start())
        searched = m.start()
    return None, searched, nested


def _search_file(f, pattern: re.Pattern, size: int, pos: int = 0) -> int | None:
    """Search the file from ``pos`` in overlapping blocks; return the match end or None."""
    block = 1 << 24
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
