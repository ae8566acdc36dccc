"""Lazy ``args``: re-read the chunk that holds an event and decode just that element.

Chunks are located by the ordinal of their first element; a fast-path chunk is split
into raw elements by msgspec (a scan, no objects built), a damaged one by the same
tolerant scanner the loader used, so ordinals always agree.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import orjson

from timelineview.model.decode.chunk_decode import read_range
from timelineview.model.decode.event_types import raw_list_decoder
from timelineview.model.decode.tolerant import parse_object, scan


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
    """Callable: ordinals -> list of args dicts (None when the event has none)."""

    def __init__(self, chunks: ChunkTable, cache_chunks: int = 2) -> None:
        self.chunks = chunks
        self._cache: OrderedDict[int, list] = OrderedDict()
        self._cache_size = cache_chunks
        self._lock = threading.Lock()

    def _elements(self, c: int) -> list:
        with self._lock:
            if c in self._cache:
                self._cache.move_to_end(c)
                return self._cache[c]
        t = self.chunks
        path, start, end = t.path[c], int(t.start[c]), int(t.end[c])
        buf = read_range(path, start, end)
        elems: list
        if t.fast[c]:
            try:
                elems = [bytes(r) for r in raw_list_decoder.decode(buf)]
            except msgspec.DecodeError:
                elems = None
        else:
            elems = None
        if elems is None:
            pieces, _ = scan(bytes(buf[1:-1]), 0)
            elems = [bytes(buf[1 + p.start:1 + p.end]) for p in pieces]
        with self._lock:
            self._cache[c] = elems
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return elems

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


def _event_of(data: bytes) -> dict[str, Any] | None:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        obj, _ = parse_object(data)  # NaN, invalid UTF-8 …
    return obj if isinstance(obj, dict) else None


def _args_of(data: bytes) -> dict[str, Any] | None:
    obj = _event_of(data)
    args = obj.get("args") if obj is not None else None
    return args if isinstance(args, dict) else None
