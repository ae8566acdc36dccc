"""The fast front of the tolerant reader: a damaged range split into its elements in about the
time of one msgspec pass when most of them are whole (``split``).

Objects start at a '{"' after ','; the stretches between starts are checked in runs by one
``list[Raw]`` decode, a stretch where that fails is looked at alone, and what a look cannot
settle goes to the tolerant scan (``tolerant.TolerantScan``). The steps it is sure of run
compiled when numba's kernels are ready (``stretch_walk``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import msgspec
import numpy as np

from timelineview.model.decode.damaged.tolerant import (
    MAX_PROBLEMS,
    PHASE_KEY,
    UNREADABLE,
    CharPlaces,
    Piece,
    ProblemLog,
    ScanEnd,
    TolerantScan,
    parse_object,
)
from timelineview.model.decode.scan.element_start import PAST_LOOK, across_blanks, element_starts
from timelineview.model.decode.scan.scan_codes import DEEP_RUN, DENSE

_raw_value = msgspec.json.Decoder(msgspec.Raw)
_raw_list = msgspec.json.Decoder(list[msgspec.Raw])
_ERROR_AT = re.compile(r"\(byte (\d+)\)")
_INNER_START = re.compile(rb'\{[ \t\r\n]*"')
_TOP_BYTES = re.compile(rb"[^ \t\r\n,]")
_PHASE_BYTES = PHASE_KEY.encode()
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # msgspec reads a lone one as the input cut short
_RISKY = re.compile(rb"NaN|Infinity|\\u[dD][89a-fA-F]")  # what the tolerant parse reads and msgspec refuses
_OPEN, _QUOTE = ord("{"), ord('"')
_NESTING = np.zeros(256, dtype=np.int8)  # +1 opens, -1 closes
_NESTING[[ord("{"), ord("[")]] = 1
_NESTING[[ord("}"), ord("]")]] = -1
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


def _object_starts(data: bytes, limit: int, begin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Where top-level objects start in data[begin:limit] as far as the bytes around them tell
    (``element_start``), and the place of the ',' before each (-1 for none)."""
    return element_starts(np.frombuffer(data, dtype=np.uint8), begin, limit)


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

class _Splitter(ProblemLog):
    """The walk of ``split``: runs of stretches checked by one msgspec pass, a stretch that
    fails looked at alone, and the tolerant scan (``TolerantScan``) for what that cannot settle."""

    def __init__(self, data: bytes, stop: int | None, base: int, compiled: bool = False) -> None:
        super().__init__()
        self.data = data
        self.n = len(data)
        self.stop = stop
        self.limit = self.n if stop is None else min(stop, self.n)
        self.base = base
        a = np.frombuffer(data, dtype=np.uint8)
        if compiled:
            from timelineview.model.decode.damaged import stretch_walk  # (numba: imported where it is used)

            room = max(1, int(np.count_nonzero(a[:self.limit] == _OPEN)))
            starts, comma, ends = (np.empty(room, dtype=np.int64) for _ in range(3))
            n = stretch_walk.object_starts(a, self.limit, starts, comma, ends)
            self.starts, comma, self.ends = starts[:n], comma[:n], ends[:n]
        else:
            self.starts, comma = _object_starts(data, self.limit)
            # each stretch's element ends at the last non-blank byte before the next start's ','
            ends = across_blanks(a, comma[1:] - 1, -1)
            for k in np.flatnonzero(ends == PAST_LOOK).tolist():  # a long run of blanks
                ends[k] = len(data[:comma[k + 1]].rstrip(b" \t\r\n")) - 1
            self.ends = np.append(ends + 1, -1)
        # the buffer behind one extra byte, so that '[' and ']' can stand in for the ',' around a run
        self.work = bytearray(1) + bytearray(data[:self.limit + 1])
        self.view = memoryview(self.work)
        self.comma = (comma + 1).tolist()  # in ``work``: the byte before each start's run ('[' goes there)
        self.at = self.starts.tolist()  # (lists: read one item at a time)
        self.ends = self.ends.tolist()
        self.scanner: TolerantScan | None = None
        self.places: CharPlaces | None = None
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
            self.places = CharPlaces(text, self.n - pos)
            self.scanner = TolerantScan(text, self.places, None, self.base + pos)
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
