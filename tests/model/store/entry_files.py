"""Read and change the columns of a card cache entry as a damaged disk or a crafted entry would (independent
of the cache's reader: the layout is its meta's dtype, shape and offset into ``columns.bin``)."""

from __future__ import annotations

import hashlib
import mmap
import zlib
from pathlib import Path

import numpy as np
import orjson

from timelineview.model.store.card_cache.cluster_record import RECORD_NAME

COLUMNS = "columns.bin"
ALIGN = 64


def mapped(column: np.ndarray) -> bool:
    """Whether ``column`` is a view of a memory-mapped file (a cached card's column), not an array in memory."""
    base = column
    while base is not None:
        if isinstance(base, (np.memmap, mmap.mmap)):
            return True
        base = getattr(base, "base", None)
    return False


def write_meta(entry: Path, meta: dict | bytes) -> None:
    """Put ``meta`` as the entry's meta with the SHA-1 beside it that agrees (what a crafted entry holds)."""
    data = meta if isinstance(meta, bytes) else orjson.dumps(meta)
    (entry / "meta.json").write_bytes(data)
    (entry / "meta.json.sha1").write_bytes(hashlib.sha1(data).hexdigest().encode("ascii"))


def meta_of(entry: Path) -> dict:
    return orjson.loads((entry / "meta.json").read_bytes())


def place(entry: Path, name: str) -> tuple[int, int]:
    """(offset, bytes) of column ``name`` in the columns file."""
    desc = meta_of(entry)["arrays"][name]
    dtype = np.dtype(desc["dtype"])
    return int(desc["offset"]), int(np.prod(desc["shape"], dtype=np.int64)) * dtype.itemsize


def read_column(entry: Path, name: str) -> np.ndarray:
    """A copy of column ``name`` as saved."""
    desc = meta_of(entry)["arrays"][name]
    at, nbytes = place(entry, name)
    data = (entry / COLUMNS).read_bytes()[at:at + nbytes]
    return np.frombuffer(data, dtype=np.dtype(desc["dtype"])).reshape(desc["shape"]).copy()


def write_column(entry: Path, name: str, arr: np.ndarray) -> None:
    """Put ``arr`` as column ``name`` (appended to the columns file) with a meta that agrees with it: dtype,
    shape, offset and CRC-32 (what a crafted entry holds)."""
    f = entry / COLUMNS
    size = f.stat().st_size
    at = -(-size // ALIGN) * ALIGN
    arr = np.ascontiguousarray(arr)
    with open(f, "r+b") as out:
        out.seek(at)
        out.write(arr.tobytes())
    meta = meta_of(entry)
    meta["arrays"][name] = {"dtype": arr.dtype.str, "shape": list(arr.shape), "crc32": zlib.crc32(arr), "offset": at}
    write_meta(entry, meta)


def flip_byte(entry: Path, name: str, from_end: int = 3) -> None:
    """Flip a bit of a byte of column ``name`` (``from_end`` bytes before its end), meta untouched."""
    at, nbytes = place(entry, name)
    f = entry / COLUMNS
    data = bytearray(f.read_bytes())
    data[at + nbytes - from_end] ^= 0x40
    f.write_bytes(bytes(data))


def cluster_records(cache: Path) -> list[Path]:
    """The cache's whole-cluster records (``cluster_record``), by name."""
    return sorted(p for p in cache.iterdir() if RECORD_NAME.match(p.name)) if cache.exists() else []


def forget_cluster_records(cache: Path) -> None:
    """Remove the cache's whole-cluster records: served, a ``stats`` reads its document there and opens no card's
    analysis, and a test about each card's entry and kept results wants the cards read."""
    for record in cluster_records(cache):
        record.unlink()
