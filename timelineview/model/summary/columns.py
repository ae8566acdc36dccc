"""Columns of one card summary: named numpy arrays in one uncompressed ``columns.npz`` next to the manifest.

An ``.npz`` is a zip of ``.npy`` files: ``numpy.load`` reads it with nothing else installed, keeps
dtypes and shapes exactly, and reads one member without the others. One file per card rather than
one per column: creating files dominated writing a summary (0.6 ms each here, ~45 per card), and a
shared file system holding thousands of cards counts files too. The manifest lists every column.

The writer lays the zip out itself (stored members, no compression, as ``numpy.savez`` writes them,
in half its time for ~45 small arrays; each column's data 64-byte aligned) and returns each column's
layout — the byte offset of its data in the file, its dtype and shape — which the manifest keeps, so a
reader takes a table's columns with one seek and read, without parsing the zip directory and the
``.npy`` headers (most of the client's time reading the tables of thousands of cards). Manifests
without a layout (older summaries) are read with ``numpy.load``.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import numpy as np

COLUMNS_FILE = "columns.npz"
NPY_SUFFIX = ".npy"

# zip records (APPNOTE 4.3.7, 4.3.12, 4.3.16): stored members, sizes under 4 GiB (no zip64)
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LOCAL_SIG, _CENTRAL_SIG, _END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
_ZIP_VERSION = 20  # 2.0: what a stored member needs
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01, the earliest DOS date: the file's content does not change with time
_UTF8_NAMES = 0x800
_MAX_MEMBER = 0xFFFFFFFF  # a member this large or larger needs zip64: then ``numpy.savez`` writes the file
_MAX_MEMBERS = 0xFFFF
_NPY_MAGIC = b"\x93NUMPY\x01\x00"  # format version 1.0
_NPY_LENGTH = struct.Struct("<H")
NPY_ALIGN = 64  # numpy pads a header to this
_EXTRA_HEAD = struct.Struct("<HH")  # an extra field's id and data size
_ALIGN_EXTRA_ID = 0xD935  # the id zip tools use for alignment padding
ALIGN = 64  # every column's data starts at a multiple of this in the file: read in one block, its views are aligned

COALESCE_GAP = 64 << 10  # columns at most this far apart are read in one read (skipping the bytes between)
Layout = dict[str, list]  # {column: [data offset in the file, dtype descr, shape]}


def _padding(data_at: int) -> bytes:
    """A local header's extra field that moves a member's array data from ``data_at`` to the next
    multiple of ``ALIGN`` (readers skip extra fields they do not know; at least 4 bytes: its id and size)."""
    pad = -data_at % ALIGN
    if 0 < pad < _EXTRA_HEAD.size:
        pad += ALIGN
    return _EXTRA_HEAD.pack(_ALIGN_EXTRA_ID, pad - _EXTRA_HEAD.size) + bytes(pad - _EXTRA_HEAD.size) if pad else b""


def _npy_header(array: np.ndarray, descr: str) -> bytes:
    """The ``.npy`` version 1.0 header of a C-ordered ``array``: the magic string, the header's length,
    and the dict literal numpy reads, padded with spaces to a multiple of 64 bytes and ended by a newline."""
    text = f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': {tuple(array.shape)!r}, }}"
    size = len(_NPY_MAGIC) + _NPY_LENGTH.size + len(text) + 1
    text += " " * (-size % NPY_ALIGN) + "\n"
    return _NPY_MAGIC + _NPY_LENGTH.pack(len(text)) + text.encode("latin1")


class ColumnWriter:
    """Collects a card's arrays, then writes them in one file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.arrays: dict[str, np.ndarray] = {}
        self.layout: Layout = {}  # filled by ``close``

    def put(self, name: str, array: np.ndarray) -> str:
        """Keep ``array`` as column ``name``; returns the name."""
        self.arrays[name] = np.ascontiguousarray(array)
        return name

    def close(self) -> dict[str, str]:
        """Write the columns; returns {column: its file} for the manifest (``layout`` then holds where
        each column's data lies in it)."""
        path = self.folder / COLUMNS_FILE
        simple = all(a.dtype.kind in "biufcmM" and not a.dtype.fields for a in self.arrays.values())
        if not simple or len(self.arrays) > _MAX_MEMBERS or \
                sum(a.nbytes for a in self.arrays.values()) >= _MAX_MEMBER:
            np.savez(path, allow_pickle=False, **self.arrays)
            self.layout = {}
        else:
            self.layout = self._write_zip(path)
        return {name: COLUMNS_FILE for name in self.arrays}

    def _write_zip(self, path: Path) -> Layout:
        layout: Layout = {}
        central = []
        offset = 0
        with open(path, "wb") as f:
            for name, array in self.arrays.items():
                member = (name + NPY_SUFFIX).encode("utf-8")
                flags = 0 if member.isascii() else _UTF8_NAMES
                descr = np.lib.format.dtype_to_descr(array.dtype)
                header = _npy_header(array, descr)
                data = array.reshape(-1).view(np.uint8)
                crc = zlib.crc32(data, zlib.crc32(header))
                size = len(header) + data.nbytes
                pad = _padding(offset + _LOCAL.size + len(member) + len(header))
                f.write(_LOCAL.pack(_LOCAL_SIG, _ZIP_VERSION, flags, 0, 0, _DOS_DATE, crc, size, size,
                                    len(member), len(pad)))
                f.write(member)
                f.write(pad)
                f.write(header)
                f.write(data)
                layout[name] = [offset + _LOCAL.size + len(member) + len(pad) + len(header), descr, list(array.shape)]
                central.append(_CENTRAL.pack(_CENTRAL_SIG, _ZIP_VERSION, _ZIP_VERSION, flags, 0, 0, _DOS_DATE,
                                             crc, size, size, len(member), 0, 0, 0, 0, 0, offset) + member)
                offset += _LOCAL.size + len(member) + len(pad) + size
            directory = b"".join(central)
            f.write(directory)
            f.write(_END.pack(_END_SIG, 0, 0, len(central), len(central), len(directory), offset, 0))
        return layout


class ColumnReader:
    """Reads the columns a manifest names (no file stays open: thousands of cards). ``layout``: where
    each column's data lies in its file (the manifest's ``column_layout``); columns without one are
    read with ``numpy.load``."""

    def __init__(self, folder: Path, files: dict[str, str], layout: Layout | None = None) -> None:
        self.folder = folder
        self.files = files
        self.layout = layout or {}

    def __contains__(self, name: str) -> bool:
        return name in self.files

    def get(self, name: str) -> np.ndarray:
        return self.get_many([name])[name]

    def get_many(self, names: list[str]) -> dict[str, np.ndarray]:
        """Several columns, each file opened once."""
        out: dict[str, np.ndarray] = {}
        for file in dict.fromkeys(self.files[n] for n in names):
            here = [n for n in names if self.files[n] == file]
            direct = [n for n in here if n in self.layout]
            rest = [n for n in here if n not in self.layout]
            if direct:
                with open(self.folder / file, "rb") as f:
                    out.update(self._read_direct(f, direct))
            if rest:
                with np.load(self.folder / file, allow_pickle=False) as z:
                    out.update({n: z[n] for n in rest})
        return {n: out[n] for n in names}

    def _read_direct(self, f, names: list[str]) -> dict[str, np.ndarray]:
        """Columns by their layout; neighbours (a table's columns lie side by side) in one read."""
        spans = []
        for n in names:
            offset, descr, shape = self.layout[n]
            dtype = np.dtype(descr)
            spans.append((offset, offset + dtype.itemsize * math.prod(shape), n, dtype, shape))
        spans.sort()
        out: dict[str, np.ndarray] = {}
        k = 0
        while k < len(spans):
            j = k + 1
            while j < len(spans) and spans[j][0] - spans[j - 1][1] <= COALESCE_GAP:
                j += 1
            start, stop = spans[k][0], max(s[1] for s in spans[k:j])
            f.seek(start)
            block = np.empty(stop - start, np.uint8)  # writable, aligned arrays, as ``numpy.load`` gives
            if f.readinto(block) != len(block):
                raise ValueError(f"{f.name}: cut short (columns {', '.join(s[2] for s in spans[k:j])})")
            for a, b, n, dtype, shape in spans[k:j]:
                out[n] = block[a - start:b - start].view(dtype).reshape(shape)
            k = j
        return out
