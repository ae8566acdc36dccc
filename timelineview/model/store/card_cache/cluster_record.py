"""A whole cluster's result kept in the card cache: one file per key, ``cluster-<key>.record``, for a command whose
output is a function of many cached cards (``stats``: its document). Served, it replaces the command's own work on
the loaded cards (on a thousand small cards, most of a run served from the cache).

The file is a header line, the SHA-1 of the rest, then ``{"format", "key", "value"}`` in MessagePack: it gives
back every float as written, NaN and infinities too (JSON would write them as null), without a walk over the
value to look for them, and numpy values as their Python ones. A record is served
only when its bytes match that digest and it names this format and the key asked for: a damaged or edited file,
or one copied under another key's name, is never served (the caller computes the value and writes it anew). The
key is the caller's: it names every input of the value (each card's cache key, the code, the options). Records
are written whole (``whole_file``) and lie in the cache's folder, where its size limit and pruning count them
(``cache``: least recently used first; a record served is touched, as a card's entry is).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from timelineview.model.store.card_cache.json_digest import digest_of
from timelineview.model.store.card_cache.whole_file import write_whole
from timelineview.model.store.regular_file import read_regular

CLUSTER_FORMAT = "timelineview-cluster-2"
RECORD_NAME = re.compile(r"^cluster-[0-9a-f]{40}\.record$")  # what the cache's pruning counts as a record
_MISSING = object()


def record_path(cache_dir: Path, key: str) -> Path:
    """Where the record of ``key`` lies."""
    return cache_dir / f"cluster-{key}.record"


def read_record(cache_dir: Path, key: str) -> Any:
    """The value recorded under ``key``, or ``None`` when there is none that passes its checks (missing,
    unreadable, damaged, another format or key)."""
    path = record_path(cache_dir, key)
    try:
        data = read_regular(path)  # a FIFO there is refused, never waited on
    except OSError:
        return None
    digest, _, body = data.partition(b"\n")
    if digest != digest_of(body):
        return None
    try:
        record = msgspec.msgpack.decode(body)
    except msgspec.DecodeError:
        return None
    if not isinstance(record, dict) or record.get("format") != CLUSTER_FORMAT or record.get("key") != key:
        return None
    value = record.get("value", _MISSING)
    if value is _MISSING:
        return None
    try:
        os.utime(path)  # recently used: kept longest by the cache's pruning
    except OSError:
        pass
    return value


def _plain(value: Any) -> Any:
    """A numpy value as its Python one (MessagePack knows the builtins only)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not recordable: {type(value).__name__}")


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_plain)


def write_record(cache_dir: Path, key: str, value: Any, fits: Callable[[int], bool]) -> bool:
    """Record ``value`` (builtins, numpy values allowed) under ``key`` if ``fits(its bytes)``; whether it was
    written (no room, a cache that cannot be written, or a value of another kind: only not recorded)."""
    try:
        body = _ENCODER.encode({"format": CLUSTER_FORMAT, "key": key, "value": value})
    except (TypeError, ValueError, OverflowError):
        return False
    if not fits(len(body)):
        return False
    try:
        write_whole(record_path(cache_dir, key), [digest_of(body), b"\n", body])
    except OSError:
        return False
    return True
