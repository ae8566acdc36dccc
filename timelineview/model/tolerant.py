"""Tolerant reading of a damaged region: find each top-level object and parse it alone.

Used only when the fast decode of a chunk fails (truncated tail, NaN, invalid UTF-8,
wrong types, garbage). Tracks strings and brackets exactly from a known top-level
position, so object boundaries are never guessed; after a lost string it resyncs on
the next ``}, {`` and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|"|[{}\[\]]')
_RESYNC = re.compile(rb"\}\s*,\s*\{")
_OBJ_START = re.compile(rb"\s*,?\s*\{")


@dataclass
class Piece:
    """One top-level element: its bytes [start, end) relative to the buffer, or a problem."""

    start: int
    end: int
    value: object = None  # parsed dict, or None when unreadable
    problem: str = ""


@dataclass
class ScanEnd:
    """Where scanning stopped: ``end`` is just after the last complete element."""

    end: int
    closed: bool = False  # met the closing ``]`` of the array
    truncated: bool = False  # ran out of bytes inside an element
    problems: list[tuple[int, str]] | None = None


def _nan_const(name: str) -> float:
    return float(name.replace("Infinity", "inf"))


def parse_object(data: bytes) -> tuple[object, str]:
    """Parse one element; accepts NaN/Infinity, replaces invalid UTF-8. Returns (value, note)."""
    note = ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        note = f"invalid UTF-8 at byte {exc.start} of the event (replaced)"
    try:
        return json.loads(text, parse_constant=_nan_const), note
    except (ValueError, RecursionError) as exc:
        return None, f"unparseable event: {exc}"


def scan(buf: bytes | bytearray | memoryview, pos: int = 0, stop: int | None = None,
         ) -> tuple[list[Piece], ScanEnd]:
    """Split ``buf`` from ``pos`` (a top-level position between elements) into elements.

    Stops at the closing ``]``, at the end of the buffer, or before the first element
    that starts at or after ``stop``. Elements are parsed individually.
    """
    scanner = _Scanner(bytes(buf) if not isinstance(buf, bytes) else buf, stop)
    pieces = list(scanner.pieces(pos))
    info = ScanEnd(end=pieces[-1].end if pieces else pos, closed=scanner.closed,
                   truncated=scanner.truncated, problems=scanner.problems)
    return pieces, info


class _Scanner:
    def __init__(self, buf: bytes, stop: int | None) -> None:
        self.buf = buf
        self.stop = stop
        self.closed = False
        self.truncated = False
        self.problems: list[tuple[int, str]] = []

    def pieces(self, pos: int) -> Iterator[Piece]:
        buf = self.buf
        depth = 0
        obj_start = -1
        it = _TOKEN.finditer(buf, pos)
        for m in it:
            c = buf[m.start()]
            if c == 0x22:  # '"'
                if m.end() - m.start() > 1 or depth == 0:
                    continue
                # an unterminated string: strings are out of step; resync on "}, {"
                r = _RESYNC.search(buf, m.end())
                if r is None:
                    self.truncated = True
                    return
                self.problems.append((obj_start, f"unreadable bytes {obj_start}..{r.start() + 1}"))
                yield from self.pieces(r.end() - 1)
                return
            if c == 0x7B or c == 0x5B:  # { [
                if depth == 0:
                    if self.stop is not None and m.start() >= self.stop:
                        return
                    obj_start = m.start()
                depth += 1
                continue
            depth -= 1  # } or ]
            if depth == 0:
                data = buf[obj_start:m.end()]
                if data[:1] != b"{" or c != 0x7D:
                    yield Piece(obj_start, m.end(), None, "not an event object")
                else:
                    value, note = parse_object(data)
                    yield Piece(obj_start, m.end(), value, note)
            elif depth < 0:
                if c == 0x5D:
                    self.closed = True
                    return
                depth = 0
                self.problems.append((m.start(), "stray '}' between events"))
        if depth > 0:
            self.truncated = True


def next_element_start(buf: bytes, pos: int) -> int:
    """Position of the next ``{`` after optional whitespace and one comma, or -1."""
    m = _OBJ_START.match(buf, pos)
    return m.end() - 1 if m else -1
