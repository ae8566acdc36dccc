"""A columns file: arrays one after the other, each at a multiple of ``ALIGN`` bytes, described by a small
record (dtype, shape, CRC-32, offset) kept beside it, and read back as views of one map of the file. The card
cache and the kept analysis results both store their arrays this way."""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

ALIGN = 64  # aligned for any dtype


class BadColumn(ValueError):
    """A column that is not where, or not what, its record says."""


def describe(a: np.ndarray, at: int) -> dict:
    """The record of array ``a`` written at offset ``at``."""
    return {"dtype": a.dtype.str, "shape": list(a.shape), "crc32": zlib.crc32(np.ascontiguousarray(a)), "offset": at}


def places(arrays: Iterable[np.ndarray]) -> list[int]:
    """Where each array starts in the file: one after the other, each at a multiple of ``ALIGN``."""
    out, at = [], 0
    for a in arrays:
        out.append(at)
        at += -(-a.nbytes // ALIGN) * ALIGN
    return out


def write_arrays(f: BinaryIO, arrays: Iterable[np.ndarray], offsets: Iterable[int]) -> None:
    """Write each array's bytes at its offset."""
    for a, at in zip(arrays, offsets, strict=True):
        f.seek(at)
        f.write(np.ascontiguousarray(a).reshape(-1).view(np.uint8).data if a.size else b"")


@functools.lru_cache(maxsize=256)
def dtype_of(text: str) -> np.dtype:
    """The dtype a record names (``np.dtype`` of its text, made once per text: a re-open of a thousand cards
    names a few dozen dtypes a hundred and fifty thousand times). Raises what ``np.dtype`` raises."""
    return np.dtype(text)


def column_view(data: np.ndarray, desc: dict, dtype: np.dtype, checksum: bool = True) -> np.ndarray:
    """The array record ``desc`` (of ``dtype``, checked by the caller) describes, as a view of the file's bytes
    ``data``: inside the file and, with ``checksum``, of the CRC-32 written (else :class:`BadColumn`)."""
    listed = desc["shape"]
    if type(listed) is list and len(listed) == 1 and type(listed[0]) is int:  # one dimension: most columns
        shape: tuple[int, ...] | None = None  # no reshape (a few microseconds a column, on every re-open)
        count = listed[0]
        if count < 0:
            raise BadColumn("not a column")
        nbytes = count * dtype.itemsize
    else:
        shape = tuple(int(n) for n in listed)
        if any(n < 0 for n in shape):
            raise BadColumn("not a column")
        nbytes = math.prod(shape) * dtype.itemsize  # exact (np.prod: 0.02 ms a call)
    at = desc["offset"]
    at = at if type(at) is int else int(at)
    if not nbytes:
        return np.zeros(listed[0] if shape is None else shape, dtype)  # nothing written (empty, or no bytes)
    if at < 0 or at + nbytes > len(data):
        raise BadColumn("past the end of the file")
    a = data[at:at + nbytes].view(dtype)
    if shape is not None:
        a = a.reshape(shape)
    if checksum and zlib.crc32(a) != desc["crc32"]:
        raise BadColumn("not the one written")
    return a
