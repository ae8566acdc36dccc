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

from timelineview.model.decode.layout_scan import EVENT_BOUNDARY

_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|"|[{}\[\]]')


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
        """Elements from ``pos``; after a lost string, restart at the next ``}, {``."""
        while pos is not None:
            restart = yield from self._pieces_from(pos)
            pos = restart

    def _resync(self, obj_start: int, limit: int | None = None) -> int | None:
        """Where to restart after a damaged element, or None to give up."""
        region = self.buf[obj_start:limit]
        if region.count(b'"ph"') < 2:  # one event's worth: a plain truncation or a bad value
            return None
        r = EVENT_BOUNDARY.search(self.buf, obj_start + 1, limit if limit is not None else len(self.buf))
        if r is None:
            return None
        self.problems.append((obj_start, f"unreadable bytes {obj_start}..{r.start() + 1}"))
        return r.end() - 1

    def _pieces_from(self, pos: int):
        buf = self.buf
        depth = 0
        obj_start = -1
        for m in _TOKEN.finditer(buf, pos):
            c = buf[m.start()]
            if c == 0x22:  # '"'
                if m.end() - m.start() > 1 or depth == 0:
                    continue
                restart = self._resync(obj_start)  # an unterminated string
                if restart is None:
                    self.truncated = True
                return restart
            if c == 0x7B or c == 0x5B:  # { [
                if depth == 0:
                    if self.stop is not None and m.start() >= self.stop:
                        return None
                    obj_start = m.start()
                depth += 1
                continue
            depth -= 1  # } or ]
            if depth == 0:
                data = buf[obj_start:m.end()]
                if data[:1] != b"{" or c != 0x7D:
                    yield Piece(obj_start, m.end(), None, "not an event object")
                    continue
                value, note = parse_object(data)
                if value is None:
                    restart = self._resync(obj_start, m.end())
                    if restart is not None:
                        return restart
                yield Piece(obj_start, m.end(), value, note)
            elif depth < 0:
                if c == 0x5D:
                    self.closed = True
                    return None
                depth = 0
                self.problems.append((m.start(), "stray '}' between events"))
        if depth > 0:
            restart = self._resync(obj_start)
            if restart is None:
                self.truncated = True
            return restart
        return None
