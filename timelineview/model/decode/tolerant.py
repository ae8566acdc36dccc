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
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import msgspec
import numpy as np

from timelineview.model.decode.scan_codes import DEEP_RUN, DENSE, LOOK, STRAY_CHARS

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
_WS = " \t\r\n"
_CLOSE_OF = {"{": "}", "[": "]"}
_OPENERS_AFTER = {"{": ":", "[": ",["}  # what may precede an opener inside an object / array
_PHASE_KEY = '"ph"'
UNREADABLE = "unreadable bytes (damaged event)"
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


_decoder = json.JSONDecoder(parse_constant=_nan_const)


def parse_object(data: bytes) -> tuple[object, str]:
    """Parse one element; accepts NaN/Infinity, replaces invalid UTF-8. Returns (value, note)."""
    note = ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        note = f"invalid UTF-8 at byte {exc.start} of the event (replaced)"
    try:
        return _decoder.decode(text), note
    except (ValueError, RecursionError) as exc:
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        return None, f"unparseable event: {reason}"


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
    while k > floor and text[k] in _WS:
        k -= 1
    return text[k:k + 1]


class _Places:
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
    places = _Places(text, len(data))
    scanner = _Scanner(text, places, None if stop is None else places.char(stop), base)
    pieces = scanner.run(places.char(pos))
    scanner.sum_up()
    for piece in pieces:
        piece.start, piece.end = places.byte(piece.start), places.byte(piece.end)
    end = pieces[-1].end if pieces else pos
    if scanner.skipped_to > end and not scanner.truncated:
        end = places.byte(scanner.skipped_to)  # stray bytes after the last element are read too
    problems = [(places.byte(at), what) for at, what in scanner.problems]
    return pieces, ScanEnd(end, scanner.closed, scanner.truncated, problems)


class _ProblemLog:
    """The places a walk reports, the first MAX_PROBLEMS of them kept and the rest counted."""

    def __init__(self) -> None:
        self.problems: list[tuple[int, str]] = []
        self.more_problems = 0

    def problem(self, at: int, what: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((at, what))
        else:
            self.more_problems += 1


class _Scanner(_ProblemLog):
    """The walk over the text; positions are characters, texts give file offsets."""

    def __init__(self, text: str, places: _Places, stop: int | None, base: int) -> None:
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
        raw_decode = _decoder.raw_decode
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
            return _decoder.decode(self.text[at:end]), end
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
                    value = _decoder.decode(text[nxt:end])
                except (ValueError, RecursionError):
                    value = None
                if isinstance(value, dict) and "ph" in value:
                    return nxt
                probe = end  # a nested object of the damaged event
            elif _PHASE_KEY in text[nxt:end]:
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
        if _PHASE_KEY not in text[at:nxt] and nxt - at < STRAY_CHARS:
            where = "after the last event" if not text[nxt:].strip(_WS + ",]") else "between events"
            shown = text[at:min(nxt, at + 20)].encode("utf-8", "surrogateescape")
            self.problem(at, f"stray bytes {first}..{last} {where}: {shown!r}")
            return nxt
        self.problem(at, f"unreadable bytes {first}..{last}")
        self.pieces.append(Piece(at, nxt, None, UNREADABLE, max(1, text.count(_PHASE_KEY, at, nxt))))
        return nxt


# ---------------------------------------------------------------- the fast front: whole runs at once
_raw_value = msgspec.json.Decoder(msgspec.Raw)
_raw_list = msgspec.json.Decoder(list[msgspec.Raw])
_ERROR_AT = re.compile(r"\(byte (\d+)\)")
_INNER_START = re.compile(rb'\{[ \t\r\n]*"')
_TOP_BYTES = re.compile(rb"[^ \t\r\n,]")
_PHASE_BYTES = _PHASE_KEY.encode()
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # msgspec reads a lone one as the input cut short
_RISKY = re.compile(rb"NaN|Infinity|\\u[dD][89a-fA-F]")  # what the tolerant parse reads and msgspec refuses
_OPEN, _QUOTE, _COMMA = ord("{"), ord('"'), ord(",")
_NESTING = np.zeros(256, dtype=np.int8)  # +1 opens, -1 closes
_NESTING[[ord("{"), ord("[")]] = 1
_NESTING[[ord("}"), ord("]")]] = -1
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[ord(c) for c in _WS]] = True
INTACT, DAMAGED, UNSURE, WHOLE, RETRY = 0, 1, 2, 3, 4  # what a look at a stretch between object starts (or a run) found


@dataclass
class Elements:
    """The top-level elements of a buffer, as ``split`` finds them. Piece k spans bytes
    [starts[k], ends[k]); those read one by one by the tolerant scan (parsed values, damaged
    stretches, stray scalars) are in ``exact`` by k, and every other piece is a whole element
    that parses (not parsed here: the caller decodes runs of them in one call)."""

    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    exact: dict[int, Piece]
    info: ScanEnd
    objects: np.ndarray  # the object starts the walk went by (``object_starts``)
    # pieces that are one damaged event each (``UNREADABLE``), found by the compiled walk: kept
    # here rather than as a ``Piece`` each in ``exact`` (dense damage has thousands a range)
    unreadable: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def _across_blanks(a: np.ndarray, at: np.ndarray, step: int) -> np.ndarray:
    """From each position ``at``, the first byte that is not whitespace going by ``step``
    (-1 before the start, len(a) past the end; -2 when more than LOOK blanks were crossed)."""
    at = at.copy()
    live = np.flatnonzero((at >= 0) & (at < len(a)))
    for _ in range(LOOK):
        blank = _BLANK[a[at[live]]]
        live = live[blank]
        if not len(live):
            return at
        at[live] += step
        live = live[(at[live] >= 0) & (at[live] < len(a))]
    at[live[_BLANK[a[at[live]]]]] = -2
    return at


def _object_starts(data: bytes, limit: int, begin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Where top-level objects start before ``limit`` as far as the bytes around them tell: a
    '{' followed by '"' and preceded by ',' (or by nothing: the buffer's first element), and the
    place of that ',' (-1 for none). A '{"' after ',' inside a string or a nested array is
    found too; the decode of the stretches between them tells those apart. (Only those from
    ``begin`` on, with ``begin``.)"""
    a = np.frombuffer(data, dtype=np.uint8)[:limit + LOOK + 1]
    opens = np.flatnonzero(a[begin:limit] == _OPEN) + begin
    after = _across_blanks(a, opens + 1, 1)
    before = _across_blanks(a, opens - 1, -1)
    quoted = np.zeros(len(opens), dtype=bool)
    inside = (after >= 0) & (after < len(a))
    quoted[inside] = a[after[inside]] == _QUOTE
    comma = np.zeros(len(opens), dtype=bool)
    inside = before >= 0
    comma[inside] = a[before[inside]] == _COMMA
    first = before == -1
    keep = quoted & (comma | first)
    return opens[keep], np.where(first[keep], -1, before[keep])


def _decode_error(view) -> str | None:
    """msgspec's complaint about the JSON value at the start of ``view``; None when it parses (or is
    nested too deep to tell): the caller then cannot settle the stretch itself."""
    try:
        _raw_value.decode(view)
    except msgspec.DecodeError as exc:
        return str(exc)
    except RecursionError:
        return None
    return None

class _Splitter(_ProblemLog):
    """The walk of ``split``: runs of stretches checked by one msgspec pass, a stretch that
    fails looked at alone, and the tolerant scan (``_Scanner``) for what that cannot settle."""

    def __init__(self, data: bytes, stop: int | None, base: int, compiled: bool = False) -> None:
        super().__init__()
        self.data = data
        self.n = len(data)
        self.stop = stop
        self.limit = self.n if stop is None else min(stop, self.n)
        self.base = base
        a = np.frombuffer(data, dtype=np.uint8)
        if compiled:
            from timelineview.model.decode import stretch_walk  # (numba: imported where it is used)

            room = max(1, int(np.count_nonzero(a[:self.limit] == _OPEN)))
            starts, comma, ends = (np.empty(room, dtype=np.int64) for _ in range(3))
            n = stretch_walk.object_starts(a, self.limit, starts, comma, ends)
            self.starts, comma, self.ends = starts[:n], comma[:n], ends[:n]
        else:
            self.starts, comma = _object_starts(data, self.limit)
            # each stretch's element ends at the last non-blank byte before the next start's ','
            ends = _across_blanks(a, comma[1:] - 1, -1)
            for k in np.flatnonzero(ends == -2).tolist():  # a long run of blanks
                ends[k] = len(data[:comma[k + 1]].rstrip(b" \t\r\n")) - 1
            self.ends = np.append(ends + 1, -1)
        # the buffer behind one extra byte, so that '[' and ']' can stand in for the ',' around a run
        self.work = bytearray(1) + bytearray(data[:self.limit + 1])
        self.view = memoryview(self.work)
        self.comma = (comma + 1).tolist()  # in ``work``: the byte before each start's run ('[' goes there)
        self.at = self.starts.tolist()  # (lists: read one item at a time)
        self.ends = self.ends.tolist()
        self.scanner: _Scanner | None = None
        self.places: _Places | None = None
        self.origin = 0  # the byte where the scanner's text begins
        self.piece_starts: list[int] = []
        self.piece_ends: list[int] = []
        self.exact: dict[int, Piece] = {}
        self.stopped = False  # the array closed, or the bytes ran out inside an element
        self.last = len(self.starts) - 1  # the stretch from this start on is the tail, read by the tolerant scan
        self.deep = False  # some element is nested too deep for msgspec
        self.phase_seen = (0, -1)  # the last search for a "ph": from where, and what it found
        self.dense = False  # damage is dense: runs end before the next suspect (``_unbalanced``)
        self.suspects: list[int] | None = None  # (worked out when a run first needs them)
        self.walk = None  # the compiled walk over stretches (``stretch_walk``), with its arrays
        self.unreadable: list[np.ndarray] = []  # the damaged pieces it found (``Elements.unreadable``)
        self.walk_stuck = -1  # the stretch it stopped at last (the Python walk's to read)
        if compiled and self.last > 0:
            self.walk = stretch_walk
            self.bytes_np = a
            self.comma_np = comma
            self.walked = (np.empty(self.last, dtype=np.int64), np.empty(self.last, dtype=np.int64),
                           np.empty(self.last, dtype=np.uint8), np.empty(self.last, dtype=np.int64),
                           np.empty(stretch_walk.MAX_DEPTH, dtype=np.uint8))

    def run(self) -> Elements:
        starts = self.at
        pos, s = 0, 0
        while s < self.last and not self.stopped:
            last = self.last
            if pos > starts[s]:
                s = bisect_left(starts, pos)
                continue
            if self.data[pos:starts[s]].strip(b" \t\r\n,"):  # something between: the tolerant scan's
                pos = self._exact(pos, starts[s])
                continue
            if self.walk is not None and s != self.walk_stuck:  # the steps it is sure of, compiled
                walked = self._walked(s)
                if walked > s:
                    pos, s = starts[walked], walked
                    continue
                self.walk_stuck = s
            bound = min(last, s + DEEP_RUN) if self.deep else last
            if self.dense:  # runs end before the next stretch that looks damaged
                if self.suspects is None:
                    self.suspects = self._unbalanced(s)
                bound = min(bound, self.suspects[bisect_left(self.suspects, s)])
            good, verdict = self._run_from(s, bound) if bound > s else (s, None)
            self._intact(s, good)
            pos, s = starts[good], good
            if verdict == WHOLE or verdict == RETRY:  # a run bounded after a deep element ended well, or
                continue  # the tail starts earlier (its first start was inside an element)
            t = s + 1
            if verdict is None:
                verdict, t = self._look(s)
            if verdict == INTACT:
                self._intact(s, t)
                pos, s = self.ends[s], t
            elif verdict == DAMAGED:
                self._damaged(s, t)
                pos, s = starts[t], t
                self.dense = self.dense or self._read_alone() >= DENSE
            else:  # up to the next start with a "ph" (as the tolerant scan resyncs on events)
                pos = self._exact(starts[s], starts[self._next_phase(s)])
        if not self.stopped and pos < self.n:
            self._exact(pos, self.stop)
        return self._elements()

    def _walked(self, s: int) -> int:
        """The compiled walk from stretch s: the pieces it is sure of added, and the first
        stretch it left to the Python walk."""
        walk = self.walk
        out_start, out_end, out_kind, out_stray, stack = self.walked
        stop, n, dense = walk.walk(self.bytes_np, self.starts, self.comma_np, s, self.last, self.dense,
                                   self._read_alone(), stack, out_start, out_end, out_kind, out_stray)
        if not n:
            return stop
        first = len(self.piece_starts)
        self.piece_starts.extend(out_start[:n].tolist())
        self.piece_ends.extend(out_end[:n].tolist())
        kind = out_kind[:n]
        damaged = np.flatnonzero(kind == walk.DAMAGED)
        if len(damaged):
            self.unreadable.append(damaged + first)
        strays = np.flatnonzero(kind == walk.STRAY_AFTER).tolist()
        for k in strays:  # as the tolerant scan reads them
            a, b = int(out_start[k]), int(out_end[k])
            self.exact[first + k] = Piece(a, b, *parse_object(self.data[a:b]))
        reported = np.flatnonzero(kind != walk.INTACT)  # each says where, in file order, up to MAX_PROBLEMS
        room = max(0, MAX_PROBLEMS - len(self.problems))
        self.more_problems += max(0, len(reported) - room)
        for k in reported[:room].tolist():
            a = int(out_start[k])
            if kind[k] == walk.DAMAGED:
                self.problems.append((a, f"unreadable bytes {self.base + a}..{self.base + int(out_end[k])}"))
            else:
                q = int(out_stray[k])
                nxt = int(out_start[k + 1]) if k + 1 < n else self.at[stop]  # the next stretch's start
                shown = self.data[q:min(nxt, q + 20)]
                self.problems.append((q, f"stray bytes {self.base + q}..{self.base + nxt} between events: {shown!r}"))
        self.dense = dense
        return stop

    def _read_alone(self) -> int:
        """Pieces read one by one so far (damage is dense from DENSE on)."""
        return len(self.exact) + sum(len(u) for u in self.unreadable)

    def _unbalanced(self, s: int) -> list[int]:
        """The stretches from s on whose brackets or quotes do not pair up (one look each instead
        of a run that would stop at them), and ``last``. (The walk never goes back before s.)"""
        if s >= self.last:
            return [self.last]
        at = self.starts[s:self.last + 1]
        a = np.frombuffer(self.data, dtype=np.uint8)[at[0]:self.limit]
        at = at - at[0]
        depth = np.add.reduceat(_NESTING[a], at, dtype=np.int64)
        quotes = np.add.reduceat(a == _QUOTE, at, dtype=np.int64)
        odd = np.flatnonzero((depth != 0) | (quotes % 2 == 1)) + s
        return odd[odd < self.last].tolist() + [self.last]

    def _run_from(self, s: int, last: int) -> tuple[int, int | None]:
        """Check stretches s .. last-1 in one pass: (the first that is not a whole element, the
        verdict on it when the pass settled it already), or (``last``, WHOLE)."""
        work, open_at, close_at = self.work, self.comma[s], self.comma[last]
        keep_open, keep_close = work[open_at], work[close_at]
        work[open_at], work[close_at] = 0x5B, 0x5D
        try:
            found = _raw_list.decode(self.view[open_at:close_at + 1])
        except msgspec.DecodeError as exc:
            at = _ERROR_AT.search(str(exc))
            if at is None:  # ran out: the run's end is inside an element, which starts earlier
                if last < self.last or _SURROGATE.search(self.data, self.at[s], self.at[last]):
                    self.deep = True  # (msgspec says so at a lone surrogate's escape too): bounded runs
                    return s, None  # from here, and this one's first stretch alone
                self.last = last - 1  # the tail's first start: the tail starts earlier
                return s, RETRY
            bad = bisect_right(self.at, open_at + int(at.group(1)) - 1) - 1
            if bad <= s:
                return s, None
            good, verdict = self._run_from(s, bad)  # the stretches before: one element each?
            return good, None if verdict == WHOLE else verdict
        except RecursionError:  # nested too deep somewhere: runs of a few stretches from now on
            self.deep = True
            return s, None
        finally:
            work[open_at], work[close_at] = keep_open, keep_close
        if len(found) == last - s:
            return last, WHOLE
        return self._realign(s, last, found)

    def _realign(self, s: int, last: int, found: list) -> tuple[int, int | None]:
        """The run parsed, but not into one element per stretch: a start found inside an element
        (a nested array of objects, a string), or an element that is not an object. The
        stretches up to the first that is not exactly one element are kept; that one goes to
        the tolerant scan."""
        starts, data = self.at, self.data
        at = starts[s]
        for j in range(s, last):
            raw = found[j - s] if j - s < len(found) else b""
            end = at + len(raw)
            after = _TOP_BYTES.search(data, end)
            if at != starts[j] or not raw or after is None or after.start() != starts[j + 1]:
                return j, UNSURE
            at = after.start()
        return last, WHOLE

    def _look(self, s: int) -> tuple[int, int]:
        """A stretch the run stopped at, alone: (INTACT, s + 1) for a whole element; (DAMAGED, t)
        for one damaged event that holds no intact one, up to start t, the next whose stretch
        has a ``"ph"``; (UNSURE, s + 1) for something the tolerant scan must read."""
        a, b = self.at[s], self.at[s + 1]
        unsure = UNSURE, s + 1
        text = _decode_error(self.view[a + 1:b + 1])
        if text is None:
            return unsure
        if "trailing characters" in text:
            end = a + int(_ERROR_AT.search(text).group(1)) - 1  # the byte after the element and blanks
            return (INTACT, s + 1) if end == self.comma[s + 1] - 1 else unsure
        if "truncated" in text:
            return unsure
        data = self.data
        phase = data.find(_PHASE_BYTES, a, b)
        t = self._next_phase(s)
        if phase < 0 or data.find(_PHASE_BYTES, phase + 1, b) >= 0 or t >= self.last:
            return unsure
        b = self.at[t]
        stretch = data[a:b]
        if _RISKY.search(stretch) or not stretch.isascii() and not _utf8(stretch):
            return unsure
        view = self.view[a + 1:b + 1]
        for m in _INNER_START.finditer(stretch, 1):  # an object inside: must not be an event that parses
            u = m.start()
            text = _decode_error(view[u:])
            if text is None or "truncated" in text:
                return unsure
            if "trailing characters" in text and u <= phase - a < u + int(_ERROR_AT.search(text).group(1)):
                return unsure
        return DAMAGED, t

    def _next_phase(self, s: int) -> int:
        """The first start after s whose stretch holds a ``"ph"`` (``last`` if none before it)."""
        frm, (seen_from, found) = self.at[s + 1], self.phase_seen
        if not seen_from <= frm <= found:  # (searches go forward: each byte is searched about once)
            found = self.data.find(_PHASE_BYTES, frm, self.at[self.last])
            found = self.n if found < 0 else found
            self.phase_seen = frm, found
        return min(bisect_right(self.at, found) - 1, self.last)

    def _intact(self, s: int, stop: int) -> None:
        if stop > s:
            self.piece_starts.extend(self.at[s:stop])
            self.piece_ends.extend(self.ends[s:stop])

    def _damaged(self, s: int, t: int) -> None:
        a, b = self.at[s], self.at[t]
        self.problem(a, f"unreadable bytes {self.base + a}..{self.base + b}")
        self.exact[len(self.piece_starts)] = Piece(a, b, None, UNREADABLE, 1)
        self.piece_starts.append(a)
        self.piece_ends.append(b)

    def _exact(self, pos: int, stop: int | None) -> int:
        """The tolerant scan from ``pos`` up to the first element at or after ``stop``; returns
        where it stopped (bytes)."""
        if self.scanner is None:  # its text from here on (steps only go forward)
            self.origin = pos
            text = self.data[pos:].decode("utf-8", "surrogateescape")
            self.places = _Places(text, self.n - pos)
            self.scanner = _Scanner(text, self.places, None, self.base + pos)
        scanner = self.scanner
        scanner.stop = None if stop is None else self._char(stop)
        first = len(scanner.pieces)
        scanner.run(self._char(pos))
        for piece in scanner.pieces[first:]:
            piece.start, piece.end = self._byte(piece.start), self._byte(piece.end)
            self.exact[len(self.piece_starts)] = piece
            self.piece_starts.append(piece.start)
            self.piece_ends.append(piece.end)
        if scanner.closed or scanner.truncated or stop is None or scanner.pos < scanner.stop:
            self.stopped = scanner.closed or scanner.truncated
            return self.n  # the end of the array, of the bytes, or of what this split reads
        return self._byte(scanner.pos)

    def _char(self, b: int) -> int:
        """The scanner's text position of byte ``b``."""
        return self.places.char(b - self.origin)

    def _byte(self, c: int) -> int:
        return self.origin + self.places.byte(c)

    def _elements(self) -> Elements:
        scanner = self.scanner
        problems = self.problems
        more = self.more_problems
        end = self.piece_ends[-1] if self.piece_ends else 0
        closed = truncated = False
        if scanner is not None:
            closed, truncated = scanner.closed, scanner.truncated
            problems = sorted(problems + [(self._byte(at), what) for at, what in scanner.problems])
            more += scanner.more_problems + max(0, len(problems) - MAX_PROBLEMS)
            problems = problems[:MAX_PROBLEMS]
            skipped = self._byte(scanner.skipped_to)
            if scanner.skipped_to and skipped > end and not truncated:
                end = skipped  # stray bytes after the last element are read too
        if more:
            problems.append((end, f"… and {more} more damaged stretch(es)"))
        unreadable = np.concatenate(self.unreadable) if self.unreadable else np.zeros(0, dtype=np.int64)
        return Elements(np.array(self.piece_starts, dtype=np.int64), np.array(self.piece_ends, dtype=np.int64),
                        self.exact, ScanEnd(end, closed, truncated, problems), self.starts, unreadable)


def object_starts(buf: bytes | bytearray | memoryview, limit: int, begin: int = 0) -> np.ndarray:
    """The object starts ``split`` goes by in ``buf[begin:limit]``: two splits whose bytes before
    their ends are the same and that go by the same starts find the same pieces."""
    return _object_starts(bytes(buf), limit, begin)[0]


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def split(buf: bytes | bytearray | memoryview, stop: int | None = None, base: int = 0,
          compiled: bool = False) -> Elements:
    """The elements of ``buf`` (from a top-level position at its start), as ``scan`` reads them
    but in about the time of one msgspec pass when most of them are whole.

    Objects start at a '{"' after ','; the stretches between starts are checked in runs by one
    ``list[Raw]`` decode. A stretch where that fails is looked at alone: a whole element; or one
    damaged event (a structural error, one ``"ph"``, and no object inside that parses with it),
    counted as one unreadable piece up to the next start; anything else, and the last stretch
    (whose end may lie past ``stop``), go to the tolerant scan. Each stretch is decided from its
    own bytes, so the same bytes always give the same pieces (the args reader relies on that).
    ``compiled`` (numba's kernels are ready: ``load.jit.scanner_available``) decides the stretches
    it can in ``stretch_walk``, with the same result in a fraction of the time.
    """
    return _Splitter(bytes(buf), stop, base, compiled).run()
