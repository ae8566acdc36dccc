"""One column of many CSV rows as byte spans of a buffer, turned into numbers, names and blanks with numpy.

A :class:`Fields` is (buffer, start, end) per row: no Python object per row. The usual shapes are read
by whole-column array operations: a time ``1736408883573957.920`` (digits, a dot, three decimals, a tab
after it as torch_npu writes it) and a size such as ``954.06787109375`` (at most 16 digits each side
of the dot) by gathering each field's bytes into a small matrix aligned on its dot and reading eight
ASCII digits at a time as one 64-bit integer (three multiplications, the "SWAR" digit trick). Every other
shape (a sign, an exponent, blanks inside, more digits, a non-ASCII byte) is read by the exact
per-text readers of :mod:`numbers`, so the figures and what counts as bad are theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from timelineview.model.memory import numbers
from timelineview.model.memory.csv_kernels import EMPTY, FALLBACK, OK, Kernels
from timelineview.model.memory.records import Names

PAD = 64  # zero bytes before and after a buffer's text (more after, to a multiple of 8): every read stays inside
SWAR_DIGITS = 16  # digits read before and after a dot: two 8-digit words each
NS_DIGITS = 3  # the decimals of a µs time that are ns
MAX_NAME_BYTES = 256  # longer names are read one by one
FEW_VALUES = 8  # distinct names found by a pass each before a sort finds the rest
_FEW_TEXTS = 1000  # fewer texts are cut from the buffer one by one, more from one copy of it
_TAB, _SPACE, _DOT = 9, 32, 46
_INT64_MAX = np.uint64(np.iinfo(np.int64).max)
_U = np.uint64
_ZEROS = _U(0x3030303030303030)  # eight ASCII '0'
_F0, _SIX = _U(0xF0F0F0F0F0F0F0F0), _U(0x0606060606060606)
_THREES, _FOUR = _U(0x3333333333333333), _U(4)
_MASKS = (_U(0x0F0F0F0F0F0F0F0F), _U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF))
_MULS = (_U(2561), _U(6553601), _U(42949672960001))
_SHIFTS = (_U(8), _U(16), _U(32))
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # the k lowest bytes set
_ONE, _SIXTY_THREE, _E8, _E16 = _U(1), _U(63), _U(10**8), float(10**16)
_FRAC_SCALE = _U(10 ** (8 - NS_DIGITS))
_HASH_PRIME = _U(0x100000001B3)


class Text:
    """Bytes of CSV text with ``PAD`` zero bytes around them, readable as bytes and as 64-bit words."""

    def __init__(self, data: bytes | np.ndarray, kernels: Kernels | None = None, size: int | None = None) -> None:
        """``data``: the text's bytes, or a buffer already laid out (``PAD`` zero bytes, ``size`` bytes of text,
        ``PAD`` zero bytes and more, a multiple of 8 in all)."""
        if isinstance(data, np.ndarray):
            self.size, self.buf = int(size), data
        else:
            self.size = len(data)
            tail = PAD + (-(self.size + 2 * PAD) % 8)
            self.buf = np.frombuffer(b"".join((bytes(PAD), data, bytes(tail))), dtype=np.uint8)
        self.kernels = kernels  # the compiled loops, when the numbers are read with them
        self._words = self.buf.view("<u8")
        self._dots: np.ndarray | None = None

    @property
    def body(self) -> np.ndarray:
        """The text's bytes, without the padding."""
        return self.buf[PAD:PAD + self.size]

    def last_byte(self) -> int:
        return int(self.buf[PAD + self.size - 1]) if self.size else -1

    @property
    def dots(self) -> np.ndarray:
        """Where the dots are (computed once for every column of the text)."""
        if self._dots is None:
            self._dots = np.flatnonzero(self.buf == _DOT)
        return self._dots

    def word(self, at: np.ndarray) -> np.ndarray:
        """The eight bytes from each byte position ``at`` as a little-endian uint64 (first byte lowest)."""
        q = at >> 3
        shift = ((at & 7) << 3).astype(np.uint64)
        lo, hi = self._words[q], self._words[q + 1]
        return (lo >> shift) | ((hi << (_SIXTY_THREE - shift)) << _ONE)  # two shifts: no shift by 64


@dataclass
class Fields:
    """Field k of a column is ``text.buf[start[k]:end[k]]``."""

    text: Text
    start: np.ndarray  # int64
    end: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.start)

    @property
    def buf(self) -> np.ndarray:
        return self.text.buf

    @classmethod
    def of_texts(cls, texts: list[str]) -> Fields:
        """The fields of some texts (the rows read one by one)."""
        encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        end = PAD + np.cumsum(lengths)
        return cls(Text(b"".join(encoded)), end - lengths, end)

    def take(self, rows: np.ndarray) -> Fields:
        return Fields(self.text, self.start[rows], self.end[rows])

    def texts(self, rows: np.ndarray | None = None) -> list[str]:
        """The text of the fields ``rows`` (all when None), decoded as UTF-8 (a bad byte replaced)."""
        start, end = (self.start, self.end) if rows is None else (self.start[rows], self.end[rows])
        raw = self.buf.tobytes() if len(start) > _FEW_TEXTS else self.buf  # a few: no copy of the whole text
        return [bytes(raw[a:b]).decode("utf-8", "replace") for a, b in zip(start.tolist(), end.tolist(),
                                                                            strict=True)]


def concat_fields(parts: list[Fields]) -> Fields:
    """The fields of several texts as one (their rows in order)."""
    if len(parts) == 1:
        return parts[0]
    datas, starts, ends, offset = [], [], [], 0
    for p in parts:
        datas.append(p.buf[PAD:].tobytes())  # the text and what pads it: the offsets stay valid
        starts.append(p.start + offset)
        ends.append(p.end + offset)
        offset += len(p.buf) - PAD
    return Fields(Text(b"".join(datas), parts[0].text.kernels), np.concatenate(starts), np.concatenate(ends))


def blank_buffer(size: int) -> np.ndarray:
    """A buffer for ``size`` bytes of text laid out as ``Text`` wants (its padding zero, the rest not set)."""
    total = PAD + size + PAD
    buf = np.empty(total + (-total % 8), dtype=np.uint8)
    buf[:PAD] = 0
    return buf


def _eight_digits(words: np.ndarray) -> np.ndarray:
    """The value of eight ASCII digits held in each uint64 (first digit in the lowest byte)."""
    v = words - _ZEROS
    for mask, mul, shift in zip(_MASKS, _MULS, _SHIFTS, strict=True):
        v = ((v & mask) * mul) >> shift
    return v


def _all_digits(words: np.ndarray) -> np.ndarray:
    """True where each of the eight bytes is an ASCII digit."""
    return ((words & _F0) | (((words + _SIX) & _F0) >> _FOUR)) == _THREES


def _as_zeros(words: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``words`` with the bytes below ``low`` and from ``high`` on (0..8 each) replaced by ASCII '0'."""
    keep = _LOW_BYTES[high] & ~_LOW_BYTES[low]
    return (words & keep) | (_ZEROS & ~keep)


def _digits16(text: Text, at: np.ndarray, first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, ok) of the 16 bytes from each ``at`` with the bytes outside [first, stop) (0..16) read as '0';
    ``ok``: each byte read is a digit."""
    w0 = _as_zeros(text.word(at), np.minimum(first, 8), np.minimum(stop, 8))
    w1 = _as_zeros(text.word(at + 8), np.clip(first - 8, 0, 8), np.clip(stop - 8, 0, 8))
    return _eight_digits(w0) * _E8 + _eight_digits(w1), _all_digits(w0) & _all_digits(w1)


def _trim_trailing_blank(f: Fields) -> np.ndarray:
    """Each field's end without one trailing tab or space (torch_npu's tab after a time)."""
    last = f.buf[f.end - 1]
    return f.end - ((f.end > f.start) & ((last == _TAB) | (last == _SPACE)))


def _compiled_read(f: Fields, kernel, dtype, exact) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, ok, empty) by a compiled loop; the fields it hands back read by ``exact``."""
    values = np.zeros(len(f), dtype=dtype)
    status = np.empty(len(f), dtype=np.uint8)
    kernel(f.buf, f.start, f.end, values, status)
    ok, empty = status == OK, status == EMPTY
    rest = np.flatnonzero(status == FALLBACK)
    if len(rest):
        values[rest], ok[rest], empty[rest] = exact(f.texts(rest))
    if dtype == np.float64:
        values[empty] = np.nan
    return values, ok, empty


def micros_to_ns(f: Fields) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """µs times -> (ns int64, ok, empty) exactly as :func:`numbers.micros_to_ns` reads their texts."""
    if f.text.kernels is not None:
        return _compiled_read(f, f.text.kernels.read_micros, np.int64, numbers.micros_to_ns)
    n = len(f)
    ns = np.zeros(n, dtype=np.int64)
    ok = np.zeros(n, dtype=bool)
    end = _trim_trailing_blank(f)
    length = end - f.start
    empty = f.end == f.start
    dot = end - (NS_DIGITS + 1)
    usual = (length > NS_DIGITS + 1) & (length <= SWAR_DIGITS + NS_DIGITS + 1) & (f.buf[dot] == _DOT)
    rows = np.flatnonzero(usual)
    if len(rows):
        d = dot[rows]
        whole_digits = length[rows] - NS_DIGITS - 1
        whole, whole_ok = _digits16(f.text, d - SWAR_DIGITS, SWAR_DIGITS - whole_digits,
                                    np.full(len(rows), SWAR_DIGITS))
        frac_word = _as_zeros(f.text.word(d + 1), np.zeros(len(rows), np.int64), np.full(len(rows), NS_DIGITS))
        value = whole * _U(1000) + _eight_digits(frac_word) // _FRAC_SCALE
        good = whole_ok & _all_digits(frac_word) & (value <= _INT64_MAX)
        ns[rows[good]] = value[good].astype(np.int64)
        _settled(rows, good, ok, usual)
    return _the_rest_by(numbers.micros_to_ns, f, ns, ok, empty, usual)


def floats(f: Fields) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decimal sizes -> (float64, ok, empty) as :func:`numbers.floats` reads their texts (a value may differ
    from the nearest double by one unit in the last place: sizes are kept to the byte; the compiled loop reads
    the nearest double)."""
    if f.text.kernels is not None:
        return _compiled_read(f, f.text.kernels.read_decimals, np.float64, numbers.floats)
    n = len(f)
    values = np.full(n, np.nan)
    ok = np.zeros(n, dtype=bool)
    end = _trim_trailing_blank(f)
    length = end - f.start
    empty = f.end == f.start
    dots = f.text.dots
    k = np.searchsorted(dots, f.start)
    dot = np.append(dots, len(f.buf))[k]  # the first dot at or after the field's start
    second = np.append(dots, [len(f.buf)] * 2)[k + 1]
    has_dot = dot < end
    at = np.where(has_dot, dot, end)
    n_whole = at - f.start
    n_frac = np.where(has_dot, end - dot - 1, 0)
    usual = ((second >= end) & (n_whole <= SWAR_DIGITS) & (n_frac <= SWAR_DIGITS) & (n_whole + n_frac > 0)
             & (length > 0))
    rows = np.flatnonzero(usual)
    if len(rows):
        zero, full = np.zeros(len(rows), np.int64), np.full(len(rows), SWAR_DIGITS)
        whole, whole_ok = _digits16(f.text, at[rows] - SWAR_DIGITS, SWAR_DIGITS - n_whole[rows], full)
        frac, frac_ok = _digits16(f.text, at[rows] + 1, zero, n_frac[rows])
        good = whole_ok & frac_ok
        values[rows[good]] = whole[good].astype(np.float64) + frac[good].astype(np.float64) / _E16
        _settled(rows, good, ok, usual)
    return _the_rest_by(numbers.floats, f, values, ok, empty, usual)


def _settled(rows: np.ndarray, good: np.ndarray, ok: np.ndarray, usual: np.ndarray) -> None:
    """Of the ``usual`` ``rows`` the fast path read, the ``good`` ones are read; the others are left to the
    exact reader (``_the_rest_by``)."""
    ok[rows[good]] = True
    usual[rows[~good]] = False


def _the_rest_by(read: Callable, f: Fields, values: np.ndarray, ok: np.ndarray, empty: np.ndarray,
                 usual: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, ok, empty)`` with the fields the fast path did not read (neither usual nor empty) read by
    ``read``, the exact reader of their texts."""
    rest = np.flatnonzero(~usual & ~empty)
    if len(rest):
        values[rest], ok[rest], empty[rest] = read(f.texts(rest))
    return values, ok, empty


def blank(f: Fields) -> np.ndarray:
    """True where a field holds nothing but blanks."""
    out = f.end == f.start
    first = f.buf[f.start]
    maybe = np.flatnonzero(~out & ((first == _TAB) | (first == _SPACE) | (first == 13) | (first == 10)))
    if len(maybe):
        out[maybe] = [not t.strip() for t in f.texts(maybe)]
    return out


def _codes(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each distinct value, each row's number among them): by a pass per value while they
    are few (a column of a few components), then by a sort."""
    inverse = np.full(len(h), -1, dtype=np.int64)
    first: list[int] = []
    rest = np.arange(len(h))
    while len(rest) and len(first) < FEW_VALUES:
        same = h[rest] == h[rest[0]]
        inverse[rest[same]] = len(first)
        first.append(int(rest[0]))
        rest = rest[~same]
    if len(rest):
        _, at, codes = np.unique(h[rest], return_index=True, return_inverse=True)
        inverse[rest] = len(first) + codes.reshape(-1)
        first.extend(rest[at].tolist())
    return np.array(first, dtype=np.int64), inverse


def _distinct_compiled(f: Fields) -> tuple[np.ndarray, np.ndarray]:
    """``_distinct`` by the compiled loops: a hash of each field, then each checked against its representative."""
    k = f.text.kernels
    h = np.empty(len(f), dtype=np.uint64)
    k.hash_fields(f.buf, f.start, f.end, h)
    first, inverse = _codes(h)
    same = np.empty(len(f), dtype=np.bool_)
    rep = first[inverse]
    k.same_bytes(f.buf, f.start, f.end, f.start[rep], f.end[rep], same)
    return _split_clashes(f, first, inverse, np.flatnonzero(~same))


def _split_clashes(f: Fields, first: np.ndarray, inverse: np.ndarray, clash: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose hash another text shares (``clash``) numbered by their bytes."""
    if len(clash):
        raw = f.buf.tobytes()
        reps = first.tolist()
        extra: dict[bytes, int] = {}
        for k in clash.tolist():
            key = raw[f.start[k]:f.end[k]]
            if key not in extra:
                extra[key] = len(reps)
                reps.append(k)
            inverse[k] = extra[key]
        first = np.array(reps, dtype=np.int64)
    return np.asarray(first, dtype=np.int64), inverse.astype(np.int64)


def _distinct(f: Fields) -> tuple[np.ndarray, np.ndarray]:
    """(a representative row of each distinct field, each row's distinct number), by the bytes."""
    if f.text.kernels is not None:
        return _distinct_compiled(f)
    length = f.end - f.start
    words = []
    for k in range(max(1, -(-int(length.max()) // 8))):
        high = np.clip(length - 8 * k, 0, 8)
        # a field already ended reads its own start (masked to nothing): 8 k past it may be past the buffer's
        # padding, where a longer field of the column sets k (a name near the end of a file)
        words.append(f.text.word(np.where(high > 0, f.start + 8 * k, f.start)) & _LOW_BYTES[high])
    h = length.astype(np.uint64)
    for w in words:
        h = (h ^ w) * _HASH_PRIME
    first, inverse = _codes(h)
    rep = first[inverse]
    clash = length != length[rep]
    for w in words:
        clash |= w != w[rep]
    return _split_clashes(f, first, inverse, np.flatnonzero(clash))


def distinct_texts(f: Fields) -> tuple[list[str], np.ndarray]:
    """(the distinct texts, blanks around them stripped; each row's number among them) of fields holding names."""
    n = len(f)
    if n == 0:
        return [], np.zeros(0, dtype=np.int64)
    inverse = np.zeros(n, dtype=np.int64)
    long = (f.end - f.start) > MAX_NAME_BYTES
    short = np.flatnonzero(~long)
    texts: list[str] = []
    if len(short):
        rows = f.take(short)
        first, inverse[short] = _distinct(rows)
        texts = [t.strip() for t in rows.texts(first)]
    rest = np.flatnonzero(long)
    if len(rest):  # rare: one entry each
        inverse[rest] = len(texts) + np.arange(len(rest))
        texts += [t.strip() for t in f.texts(rest)]
    return texts, inverse


def intern(texts: list[str], inverse: np.ndarray, names: Names) -> np.ndarray:
    """The name ids of rows given as (distinct texts, each row's number among them); only the texts rows use
    are interned."""
    if not len(inverse):
        return np.zeros(0, dtype=np.int32)
    used = np.flatnonzero(np.bincount(inverse, minlength=len(texts)))
    table = np.full(len(texts), -1, dtype=np.int32)
    table[used] = names.ids([texts[k] for k in used.tolist()])
    return table[inverse]
