"""Tolerant reading of a damaged region: find each top-level element and parse it alone.

Used only when the fast decode of a chunk fails (truncated tail, NaN, invalid UTF-8,
wrong types, garbage). Each element is parsed on its own from its ``{``; one that does
not parse is followed with a few checks of JSON structure (bracket types match, a string
is followed by ``:`` ``,`` ``}`` or ``]``, an object or array opens only after ``:`` ``,``
or ``[``), so damage is noticed within a few bytes of where it is. A damaged element is
then skipped up to the next place where an event starts and parses: everything after it
is kept, and the scan never goes back more than one element, so its time is linear.

The bytes are scanned as text (invalid UTF-8 as lone surrogates, one per byte, so every
character maps back to its bytes); places are given in bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from timelineview.model.decode.scan.scan_codes import STRAY_CHARS

# a run of text an element may hold between brackets: plain characters, and strings that
# end properly and are followed by what may follow a string in JSON
_RUN = re.compile(r'(?:[^"{}\[\]]+|"[^"\\]*(?:\\.[^"\\]*)*"(?=[ \t\r\n]*(?:[:,\]}]|\Z)))*')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_TOP = re.compile(r"[^ \t\r\n,]")  # the next thing between elements
_EVENT_START = re.compile(r'\{[ \t\r\n]*"')  # where an event may start, when resyncing
_KEY = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"[ \t\r\n]*:')  # a member key of an enclosing object
_SCALAR = re.compile(r'(?:"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9][0-9.eE+-]*|null|true|false|NaN|-?Infinity)'
                     r"(?=[ \t\r\n]*(?:,|\]|\Z))")
_BAD_UTF8 = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of invalid bytes
BLANKS = " \t\r\n"
_CLOSE_OF = {"{": "}", "[": "]"}
_OPENERS_AFTER = {"{": ":", "[": ",["}  # what may precede an opener inside an object / array
PHASE_KEY = '"ph"'
UNREADABLE = "unreadable bytes (damaged event)"
DEEP_ARGS = "args nested too deep to read: dropped, the event kept"
DROPPED_ARGS = '{"(dropped)": "args nested too deep to read"}'  # what stands for them (the details show it)
WINDOW = 1 << 16  # characters parsed from at once: a parse error costs a count of the lines before it
MAX_PROBLEMS = 20  # problems kept per scan; the drops count the rest


@dataclass
class Piece:
    """One top-level element: its bytes [start, end) relative to the buffer, or a problem.

    A damaged region is one piece with ``value`` None; ``events`` is how many events it
    held as far as can be told (its ``"ph"`` keys), each one counted as dropped."""

    start: int
    end: int
    value: object = None  # parsed dict, or None when unreadable
    problem: str = ""
    events: int = 1


@dataclass
class ScanEnd:
    """Where scanning stopped: ``end`` is just after the last complete element."""

    end: int
    closed: bool = False  # met the closing ``]`` of the array
    truncated: bool = False  # ran out of bytes inside an element
    problems: list[tuple[int, str]] | None = None


def _nan_const(name: str) -> float:
    return float(name.replace("Infinity", "inf"))


JSON_DECODER = json.JSONDecoder(parse_constant=_nan_const)


def parse_object(data: bytes) -> tuple[object, str]:
    """Parse one element; accepts NaN/Infinity, replaces invalid UTF-8. Returns (value, note)."""
    note = ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        note = f"invalid UTF-8 at byte {exc.start} of the event (replaced)"
    try:
        return JSON_DECODER.decode(text), note
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, RecursionError):
            kept = _without_args(text)
            if kept is not None:  # only the args were too deep: the event's name, time and duration stay
                return kept, "; ".join(n for n in (note, DEEP_ARGS) if n)
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        return None, f"unparseable event: {reason}"


def _without_args(text: str) -> dict | None:
    """The object ``text`` with its top-level ``"args"`` value replaced by ``DROPPED_ARGS``, parsed; None when
    it has no such member or still does not parse. One pass, no recursion, strings skipped whole."""
    depth, pos, n = 0, 0, len(text)
    value_start = -1
    while pos < n:
        c = text[pos]
        if c == '"':
            m = _STRING.match(text, pos)
            if m is None:
                return None
            if depth == 1 and value_start < 0 and m.group() == '"args"':
                colon = text.find(":", m.end())
                if colon >= 0 and not text[m.end():colon].strip(BLANKS):
                    value_start, pos = colon + 1, colon + 1
                    continue
            pos = m.end()
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if value_start >= 0 and depth == 1:  # the args' own object or array closed
                end = pos + 1
                break
            if depth == 0:
                if value_start < 0:
                    return None
                end = pos  # a scalar args value closed by the object's brace
                break
        elif c == "," and depth == 1 and value_start >= 0:
            end = pos
            break
        pos += 1
    else:
        return None
    try:
        value = JSON_DECODER.decode(text[:value_start] + DROPPED_ARGS + text[end:])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


CLOSED, BROKEN, OPEN = 0, 1, 2  # how ``element_end`` found an element


def element_end(text: str, start: int) -> tuple[int, int]:
    """Follow the element opening at ``text[start]``: (just after its close, CLOSED), (where
    its structure breaks, BROKEN), or (len(text), OPEN) when the text runs out inside it."""
    stack: list[str] = []
    pos = start
    n = len(text)
    while True:
        c = text[pos]
        if c == "{" or c == "[":
            if stack and _before(text, pos, start) not in _OPENERS_AFTER[stack[-1]]:
                return pos, BROKEN
            stack.append(c)
        elif c == "}" or c == "]":
            if _CLOSE_OF[stack[-1]] != c or _before(text, pos, start) == ",":
                return pos, BROKEN
            stack.pop()
            if not stack:
                return pos + 1, CLOSED
        elif _STRING.match(text, pos) is None:  # a string that never ends: cut short
            return n, OPEN
        else:  # a string followed by something a string cannot be
            return pos, BROKEN
        pos = _RUN.match(text, pos + 1).end()
        if pos >= n:
            return n, OPEN


def _before(text: str, pos: int, floor: int) -> str:
    """The character before ``pos`` that is not whitespace (not looking before ``floor``)."""
    k = pos - 1
    while k > floor and text[k] in BLANKS:
        k -= 1
    return text[k:k + 1]


class CharPlaces:
    """Byte offsets of character positions (the identity for ASCII text)."""

    def __init__(self, text: str, nbytes: int) -> None:
        self.cum = None
        if len(text) != nbytes:
            code = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            width = 1 + (code >= 0x80).astype(np.int64) + (code >= 0x800) + (code >= 0x10000)
            width[(code >= 0xDC80) & (code <= 0xDCFF)] = 1  # an invalid byte, kept as itself
            self.cum = np.concatenate([[0], np.cumsum(width)])

    def byte(self, i: int) -> int:
        return i if self.cum is None else int(self.cum[i])

    def char(self, b: int) -> int:
        return b if self.cum is None else int(np.searchsorted(self.cum, b))


def scan(buf: bytes | bytearray | memoryview, pos: int = 0, stop: int | None = None, base: int = 0,
         ) -> tuple[list[Piece], ScanEnd]:
    """Split ``buf`` from ``pos`` (a top-level position between elements) into elements.

    Stops at the closing ``]``, at the end of the buffer, or before the first element
    that starts at or after ``stop``. Elements are parsed individually; a damaged stretch
    is one piece without a value, and scanning goes on at the next event after it.
    ``base`` is the file offset of ``buf[0]``: the problems' texts give file offsets.
    Offsets in the result are in bytes of ``buf``.
    """
    data = bytes(buf)
    text = data.decode("utf-8", "surrogateescape")
    places = CharPlaces(text, len(data))
    scanner = TolerantScan(text, places, None if stop is None else places.char(stop), base)
    pieces = scanner.run(places.char(pos))
    scanner.sum_up()
    for piece in pieces:
        piece.start, piece.end = places.byte(piece.start), places.byte(piece.end)
    end = pieces[-1].end if pieces else pos
    if scanner.skipped_to > end and not scanner.truncated:
        end = places.byte(scanner.skipped_to)  # stray bytes after the last element are read too
    problems = [(places.byte(at), what) for at, what in scanner.problems]
    return pieces, ScanEnd(end, scanner.closed, scanner.truncated, problems)


class ProblemLog:
    """The places a walk reports, the first MAX_PROBLEMS of them kept and the rest counted."""

    def __init__(self) -> None:
        self.problems: list[tuple[int, str]] = []
        self.more_problems = 0

    def problem(self, at: int, what: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((at, what))
        else:
            self.more_problems += 1


class TolerantScan(ProblemLog):
    """The walk over the text; positions are characters, texts give file offsets."""

    def __init__(self, text: str, places: CharPlaces, stop: int | None, base: int) -> None:
        super().__init__()
        self.text = text
        self.places = places
        self.stop = stop
        self.base = base
        self.bad_utf8 = not text.isascii() and _BAD_UTF8.search(text) is not None
        self.closed = False
        self.truncated = False
        self.pieces: list[Piece] = []
        self.skipped_to = 0
        self.known_damaged = -1  # an event start found damaged while resyncing
        self.pos = 0  # where the last ``run`` stopped

    def offset(self, i: int) -> int:
        """File offset of character ``i``."""
        return self.base + self.places.byte(i)

    def run(self, pos: int) -> list[Piece]:
        text = self.text
        top = _TOP.search
        raw_decode = JSON_DECODER.raw_decode
        pieces = self.pieces
        win_start, window = -WINDOW, ""  # the window is cut where the first element starts
        while True:
            m = top(text, pos)
            if m is None:
                break
            at = m.start()
            if self.stop is not None and at >= self.stop:
                pos = at
                break
            c = text[at]
            if c == "{":
                if at == self.known_damaged:  # found so while resyncing: not parsed twice
                    pos = self._damaged(at)
                    continue
                if not 0 <= at - win_start <= WINDOW // 2:
                    win_start = at
                    window = text[at:at + WINDOW]
                try:  # the common case, in C: a whole element that parses
                    value, end = raw_decode(window, at - win_start)
                    end += win_start
                except ValueError as exc:  # (a parse error's position is counted from the string's start:
                    value = None  # the window keeps that short)
                    at_end = getattr(exc, "pos", -1) >= len(window) - 1  # (an int of 4300+ digits: no pos)
                    if at_end and win_start + len(window) < len(text):
                        value, end = self._decode_whole(at)  # runs past the window
                except RecursionError:
                    value = None
                if value is not None and not (self.bad_utf8 and _BAD_UTF8.search(text, at, end)):
                    pieces.append(Piece(at, end, value))
                    pos = end
                    continue
                end, how = element_end(text, at)
                if how == OPEN:
                    self.truncated = True
                    break
                pos = self._element(at, end) if how == CLOSED else self._damaged(at)
            elif c == "[":  # events inside a nested array are events too
                self.problem(at, "stray '[' between events")
                pos = at + 1
            elif c == "]":
                pos = self._close_bracket(at)
                if pos < 0:
                    self.closed = True
                    break
            else:
                scalar = _SCALAR.match(text, at)
                if scalar is not None:
                    kind = "a string" if c == '"' else "a JSON constant" if c in "ntfN" else "a number"
                    pieces.append(Piece(at, scalar.end(), None, f"{kind} element, not an event"))
                    pos = scalar.end()
                else:
                    pos = self._damaged(at)
        self.pos = pos
        return pieces

    def sum_up(self) -> None:
        """Close the problems with a count of those not kept."""
        if self.more_problems:
            self.problems.append((self.pos, f"… and {self.more_problems} more damaged stretch(es)"))

    def _decode_whole(self, at: int) -> tuple[object, int]:
        """An element longer than the window, parsed from the whole text (None if it does not parse)."""
        end, how = element_end(self.text, at)
        if how != CLOSED:
            return None, at
        try:
            return JSON_DECODER.decode(self.text[at:end]), end
        except (ValueError, RecursionError):
            return None, at

    def _element(self, at: int, end: int) -> int:
        """A whole element the plain parse refused (invalid UTF-8, nesting): parsed from its bytes."""
        value, note = parse_object(self.text[at:end].encode("utf-8", "surrogateescape"))
        self.pieces.append(Piece(at, end, value, note))
        return end

    def _close_bracket(self, at: int) -> int:
        """A ``]`` between elements: the end of the array (-1: the data ends, the enclosing object
        closes, or its next key follows after a ','), a second array, or a stray byte (a flipped
        '{' before ``"ph": ...`` ended the read of its range, and the rest of it was lost)."""
        m = _TOP.search(self.text, at + 1)
        nxt = self.text[m.start()] if m else None
        if nxt is None or nxt == "}" and "," not in self.text[at + 1:m.start()]:
            return -1
        if nxt == '"' and "," in self.text[at + 1:m.start()] and _KEY.match(self.text, m.start()):
            return -1
        if nxt == "[":
            self.problem(at, f"a second event array starts at byte {self.offset(m.start())}: its events are read too")
            return m.start() + 1
        self.problem(at, "stray ']' between events")
        return at + 1

    def _next_event(self, probe: int) -> int:
        """Where the next event starts after ``probe``: an object with a ``"ph"`` that parses,
        or one that breaks after its own ``"ph"`` (damaged itself: a stretch of its own), or
        the first start at or after ``stop`` (the next range's business), or the end."""
        text = self.text
        n = len(text)
        while True:
            m = _EVENT_START.search(text, probe)
            if m is None:
                return n
            nxt = m.start()
            if self.stop is not None and nxt >= self.stop:
                return nxt
            end, how = element_end(text, nxt)
            if how == OPEN:  # runs to the end of the text: a truncated event, not damage
                return nxt
            if how == CLOSED:
                try:
                    value = JSON_DECODER.decode(text[nxt:end])
                except (ValueError, RecursionError):
                    value = None
                if isinstance(value, dict) and "ph" in value:
                    return nxt
                probe = end  # a nested object of the damaged event
            elif PHASE_KEY in text[nxt:end]:
                self.known_damaged = nxt
                return nxt
            else:
                probe = nxt + 1  # a start inside a string, or a fragment

    def _damaged(self, at: int) -> int:
        """Skip a damaged stretch from ``at`` to the next event; a piece without a value
        stands for it when it held (part of) an event."""
        text = self.text
        nxt = self._next_event(at + 1)
        self.skipped_to = nxt
        first, last = self.offset(at), self.offset(nxt)
        if PHASE_KEY not in text[at:nxt] and nxt - at < STRAY_CHARS:
            where = "after the last event" if not text[nxt:].strip(BLANKS + ",]") else "between events"
            shown = text[at:min(nxt, at + 20)].encode("utf-8", "surrogateescape")
            self.problem(at, f"stray bytes {first}..{last} {where}: {shown!r}")
            return nxt
        self.problem(at, f"unreadable bytes {first}..{last}")
        self.pieces.append(Piece(at, nxt, None, UNREADABLE, max(1, text.count(PHASE_KEY, at, nxt))))
        return nxt
