"""Lazy ``args``: re-read the chunk that holds an event and decode just that element.

Chunks are located by the ordinal of their first element; a fast-path chunk is split
into raw elements by msgspec (a scan, no objects built), a damaged one by the same
tolerant split the loader used (``chunk_decode.split_chunk``), so ordinals always agree.

Ordinals only mean something in the file the card was read from. The reader keeps each
file's ``FileStamp`` from before the load and checks it before and after every read (and
that the chunk still holds as many elements): when the file changed, it raises
``TraceFileChanged`` instead of returning another event's args.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
import numpy as np
import orjson

from timelineview.model.decode.chunk_decode import read_range, split_chunk
from timelineview.model.decode.damaged.tolerant import parse_object
from timelineview.model.decode.event_types import raw_list_decoder
from timelineview.model.decode.unicode_repair import repair_in_place
from timelineview.model.store.file_stamp import FileStamp, file_stamp

CHANGED = "the trace file changed since it was loaded; args unavailable"
REMOVED = "the trace file is gone since it was loaded; args unavailable"
MAX_DEPTH = 64  # containers in args nested deeper are shown as unreadable
TOO_DEEP = f"(unreadable: nested more than {MAX_DEPTH} deep)"
ArgsType = TypeVar("ArgsType", bound=msgspec.Struct)


class TraceFileChanged(OSError):
    """The trace file is no longer the one the card was loaded from: its bytes at a card's
    offsets belong to other events (or to none)."""


@dataclass
class ChunkTable:
    """Where each decoded chunk of a card lives."""

    path: list[str]  # per chunk
    start: np.ndarray  # int64 byte offset
    end: np.ndarray  # int64
    first: np.ndarray  # int64 first global ordinal
    count: np.ndarray  # int64 elements
    fast: np.ndarray  # bool


class ArgsReader:
    """Callable: ordinals -> list of args dicts (None when the event has none). Raises
    ``TraceFileChanged`` when a file changed since the card was loaded."""

    def __init__(self, chunks: ChunkTable, cache_chunks: int = 2,
                 stamps: Mapping[str, FileStamp | None] | None = None) -> None:
        self.chunks = chunks
        self._cache: OrderedDict[int, list] = OrderedDict()
        self._cache_size = cache_chunks
        self._lock = threading.Lock()
        # files not pinned by the caller are taken as they are now (the end of the load)
        self._stamps = {p: file_stamp(p) for p in dict.fromkeys(chunks.path)}
        if stamps:
            self.pin(stamps)

    def pin(self, stamps: Mapping[str, FileStamp | None]) -> None:
        """Compare each file with ``stamps`` (taken before the load read it) from now on."""
        for path, stamp in stamps.items():
            if path in self._stamps:
                self._stamps[path] = stamp

    def check(self, path: str) -> None:
        """Raise ``TraceFileChanged`` unless ``path`` is still the file the card was read from."""
        now = file_stamp(path)
        if now is None or now != self._stamps.get(path):
            raise TraceFileChanged(f"{path}: {REMOVED if now is None else CHANGED}")

    def read_chunk(self, c: int) -> bytearray | memoryview:
        """Chunk ``c``'s bytes as ``read_range`` gives them, from the file
        the card was read from."""
        t = self.chunks
        path = t.path[c]
        self.check(path)
        buf = read_range(path, int(t.start[c]), int(t.end[c]))
        self.check(path)  # not rewritten while it was read
        return buf

    def _elements(self, c: int) -> list:
        with self._lock:
            if c in self._cache:
                self._cache.move_to_end(c)
                return self._cache[c]
        t = self.chunks
        elems: list | None = None
        if t.fast[c]:
            buf = self.read_chunk(c)
            try:
                elems = [bytes(r) for r in raw_list_decoder.decode(buf)]
            except msgspec.DecodeError:
                elems = None
        if elems is None:  # split as the loader did: the bytes after the end in sight, the end as stop
            path = t.path[c]
            data, found = split_chunk(path, int(t.start[c]), int(t.end[c]), bytes(self.read_chunk(c)[1:-1]))
            self.check(path)  # (not rewritten while the bytes after the end were read)
            elems = [data[a:b] for a, b in zip(found.starts.tolist(), found.ends.tolist())]
        if len(elems) != int(t.count[c]):
            raise TraceFileChanged(f"{t.path[c]}: {CHANGED}")
        with self._lock:
            self._cache[c] = elems
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return elems

    def _raw_elements(self, c: int) -> list[msgspec.Raw] | None:
        """Chunk ``c``'s elements as raw JSON (msgspec scans them, builds nothing) when the loader read
        it on its fast path, else None. Not cached: a bulk read goes through each chunk once."""
        if not self.chunks.fast[c]:
            return None
        try:
            return raw_list_decoder.decode(self.read_chunk(c))
        except msgspec.DecodeError:
            return None

    def args_as(self, ordinals: np.ndarray, args_type: type[ArgsType]) -> list[ArgsType | None]:
        """The args of the events at ``ordinals`` decoded straight into ``args_type`` (a msgspec
        ``Struct``: only its fields are built), None where an event has none. Each chunk is read once,
        and only the wanted elements of a fast-path chunk are decoded; those of a damaged chunk, and an
        element that does not decode so, give their args dict (as ``__call__``) converted
        (``convert_args``)."""
        ordinals = np.asarray(ordinals, dtype=np.int64)
        out: list[ArgsType | None] = [None] * len(ordinals)
        if not len(ordinals):
            return out
        chunk_of = np.searchsorted(self.chunks.first, ordinals, side="right") - 1
        order = np.argsort(chunk_of, kind="stable")
        decode = _args_decoder(args_type).decode
        for group in np.split(order, np.flatnonzero(np.diff(chunk_of[order])) + 1):
            c = int(chunk_of[group[0]])
            if c < 0:
                continue
            raw = self._raw_elements(c)
            first = int(self.chunks.first[c])
            for i in group.tolist():
                k = int(ordinals[i]) - first
                if raw is not None and 0 <= k < len(raw):
                    try:
                        out[i] = decode(raw[k]).args
                        continue
                    except msgspec.DecodeError:  # an odd element (args not an object …): as a dict
                        pass
                out[i] = convert_args(self(ordinals[i:i + 1])[0], args_type)
        return out

    def event(self, ordinal: int) -> dict[str, Any] | None:
        """The whole event at a card ordinal, decoded from the file."""
        c = int(np.searchsorted(self.chunks.first, ordinal, side="right")) - 1
        if c < 0:
            return None
        elems = self._elements(c)
        k = int(ordinal - self.chunks.first[c])
        return _event_of(elems[k]) if 0 <= k < len(elems) else None

    def __call__(self, ordinals: np.ndarray) -> list[dict[str, Any] | None]:
        ordinals = np.asarray(ordinals, dtype=np.int64)
        chunk_of = np.searchsorted(self.chunks.first, ordinals, side="right") - 1
        out: list[dict[str, Any] | None] = [None] * len(ordinals)
        for c in np.unique(chunk_of):
            if c < 0:
                continue
            elems = self._elements(int(c))
            for i in np.flatnonzero(chunk_of == c):
                k = int(ordinals[i] - self.chunks.first[c])
                if 0 <= k < len(elems):
                    out[i] = _args_of(elems[k])
        return out


@functools.cache
def _args_decoder(args_type: type) -> msgspec.json.Decoder:
    """A decoder of an event that builds only its ``args``, as ``args_type``."""
    event = msgspec.defstruct(f"EventWith{args_type.__name__}", [("args", args_type | None, None)], gc=False)
    return msgspec.json.Decoder(event)


def convert_args(args: dict[str, Any] | None, args_type: type[ArgsType]) -> ArgsType | None:
    """An args dict as ``args_type`` (None for no args, or args that do not fit it)."""
    if not isinstance(args, dict):
        return None
    try:
        return msgspec.convert(args, args_type)
    except msgspec.ValidationError:
        return None


def _event_of(data: bytes) -> dict[str, Any] | None:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        obj, _ = parse_object(data)  # NaN, invalid UTF-8, lone surrogates …
    if not isinstance(obj, dict):
        return None
    return repair_in_place(obj, MAX_DEPTH)[0]  # as the loader's strings: lone surrogates shown as U+FFFD


def _args_of(data: bytes) -> dict[str, Any] | None:
    obj = _event_of(data)
    args = obj.get("args") if obj is not None else None
    return _bounded(args) if isinstance(args, dict) else None


def _bounded(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with every container nested deeper than MAX_DEPTH replaced by a note (in
    place, without recursion): what shows or copies args recurses, and a value 1 000 deep
    would raise ``RecursionError`` there."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for k in keys:
            child = node[k]
            if isinstance(child, (dict, list)):
                if depth >= MAX_DEPTH:
                    node[k] = TOO_DEEP
                else:
                    stack.append((child, depth + 1))
    return value
