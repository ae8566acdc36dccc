"""Columns of one card summary: named numpy arrays in one uncompressed ``columns.npz`` next to the manifest.

An ``.npz`` is a zip of ``.npy`` files: ``numpy.load`` reads it with nothing else installed, keeps
dtypes and shapes exactly, and reads one member without the others. One file per card rather than
one per column: creating files dominated writing a summary (0.6 ms each here, ~45 per card), and a
shared file system holding thousands of cards counts files too. The manifest lists every column.

The writer lays the zip out itself (stored members, no compression, as ``numpy.savez`` writes them,
in half its time for ~45 small arrays; each column's data 64-byte aligned) and returns each column's
layout — the byte offset of its data in the file, its dtype and shape — which the manifest keeps, so a
reader takes a table's columns with one seek and read, without parsing the zip directory and the
``.npy`` headers (most of the client's time reading the tables of thousands of cards). Each column's
layout also holds where its ``.npy`` header starts and the zip's CRC-32 of its member (header and data):
the reader checks both — the CRC, and that the header's dtype and shape are the layout's — so a column
cut, flipped or re-typed is an error, never other numbers. Columns without a layout (arrays
``numpy.savez`` writes) are read through the zip directory, each member's CRC checked. Every file is
opened as :mod:`~timelineview.model.summary.guarded_files` opens a summary's files.
"""

from __future__ import annotations

import io
import math
import os
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

from timelineview.model.summary.guarded_files import SummaryFileError, checked_name, open_inside

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
Layout = dict[str, list]  # {column: [data offset in the file, dtype descr, shape, header offset, member CRC-32]}
LAYOUT_FIELDS = 5
_PLAIN_KINDS = "biufcmM"  # numbers, booleans, times: what a column may hold (never objects)
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


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
        simple = all(a.dtype.kind in _PLAIN_KINDS and not a.dtype.fields for a in self.arrays.values())
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
                header_at = offset + _LOCAL.size + len(member) + len(pad)
                layout[name] = [header_at + len(header), descr, list(array.shape), header_at, crc]
                central.append(_CENTRAL.pack(_CENTRAL_SIG, _ZIP_VERSION, _ZIP_VERSION, flags, 0, 0, _DOS_DATE,
                                             crc, size, size, len(member), 0, 0, 0, 0, 0, offset) + member)
                offset += _LOCAL.size + len(member) + len(pad) + size
            directory = b"".join(central)
            f.write(directory)
            f.write(_END.pack(_END_SIG, 0, 0, len(central), len(central), len(directory), offset, 0))
        return layout


class ColumnReader:
    """Reads the columns a manifest names (no file stays open: thousands of cards), checked: each from a
    regular file inside ``folder``, its CRC and its ``.npy`` header matching ``layout`` (the manifest's
    ``column_layout``: where each column lies in its file); a violation is a ``SummaryFileError``."""

    def __init__(self, folder: Path, files: dict[str, str], layout: Layout | None = None) -> None:
        self.folder = folder
        self.files = files if isinstance(files, dict) else {}
        self.layout = layout if isinstance(layout, dict) else {}

    def __contains__(self, name: str) -> bool:
        return name in self.files

    def get(self, name: str) -> np.ndarray:
        return self.get_many([name])[name]

    def get_many(self, names: list[str]) -> dict[str, np.ndarray]:
        """Several columns, each file opened once."""
        out: dict[str, np.ndarray] = {}
        missing = [n for n in names if n not in self.files]
        if missing:
            raise SummaryFileError(f"{self.folder}: the manifest lists no column {missing[0]!r}")
        for file in dict.fromkeys(self.files[n] for n in names):
            name = checked_name(file, "column file")
            here = [n for n in names if self.files[n] == file]
            fd = open_inside(self.folder, (name,))
            with os.fdopen(fd, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                direct = [n for n in here if n in self.layout]
                rest = [n for n in here if n not in self.layout]
                if direct:
                    out.update(self._read_direct(f, self.folder / name, size, direct))
                if rest:
                    out.update(_read_zipped(f, self.folder / name, rest))
        return {n: out[n] for n in names}

    def check_extent(self) -> None:
        """Check, without reading them, that every column the layout places lies inside its file (a file cut
        short is said even by a reader that takes only some of its columns)."""
        for file in dict.fromkeys(self.files.values()):
            name = checked_name(file, "column file")
            fd = open_inside(self.folder, (name,))
            try:
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            for n in [n for n, f in self.files.items() if f == file and n in self.layout]:
                self._span(n, self.folder / name, size)

    def _span(self, n: str, where: Path, size: int) -> tuple:
        """(header offset, end of data, name, dtype, shape, CRC) of column ``n``, checked against the file."""
        entry = self.layout[n]
        try:
            if not isinstance(entry, list) or len(entry) != LAYOUT_FIELDS:
                raise ValueError("not [offset, dtype, shape, header offset, CRC]")
            offset, descr, shape, header_at, crc = entry
            dtype = np.dtype(descr) if isinstance(descr, str) else None
            if dtype is None or dtype.kind not in _PLAIN_KINDS or dtype.fields or dtype.hasobject:
                raise ValueError(f"dtype {descr!r} is not a plain numeric type")
            if not (isinstance(shape, list) and all(_count(k) for k in shape)):
                raise ValueError(f"shape {shape!r}")
            if not (_count(offset) and _count(header_at) and _count(crc) and header_at < offset):
                raise ValueError("offsets or CRC are not counts")
        except (TypeError, ValueError) as exc:
            raise SummaryFileError(f"{where}: column {n}: bad layout entry ({exc})") from None
        stop = offset + dtype.itemsize * math.prod(shape)
        if stop > size:
            raise SummaryFileError(f"{where}: cut short or wrong layout (column {n} ends at byte {stop:,} "
                                   f"of {size:,})")
        return header_at, stop, n, dtype, tuple(shape), offset, crc

    def _read_direct(self, f, where: Path, size: int, names: list[str]) -> dict[str, np.ndarray]:
        """Columns by their layout; neighbours (a table's columns lie side by side) in one read."""
        spans = sorted(self._span(n, where, size) for n in names)
        out: dict[str, np.ndarray] = {}
        k = 0
        while k < len(spans):
            j = k + 1
            while j < len(spans) and spans[j][0] - max(s[1] for s in spans[k:j]) <= COALESCE_GAP:
                j += 1
            start, stop = spans[k][0], max(s[1] for s in spans[k:j])
            f.seek(start)
            block = np.empty(stop - start, np.uint8)  # writable, aligned arrays, as ``numpy.load`` gives
            if f.readinto(block) != len(block):
                raise SummaryFileError(f"{where}: cut short (columns {', '.join(s[2] for s in spans[k:j])})")
            for a, b, n, dtype, shape, data_at, crc in spans[k:j]:
                member = block[a - start:b - start]
                if zlib.crc32(member) != crc:
                    raise SummaryFileError(f"{where}: column {n}: its bytes do not match their CRC (damaged)")
                _check_header(member[:data_at - a].tobytes(), dtype, shape, where, n)
                out[n] = block[data_at - start:b - start].view(dtype).reshape(shape)
            k = j
        return out


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_header(header: bytes, dtype: np.dtype, shape: tuple, where: Path, n: str) -> None:
    """The ``.npy`` header before a column's data says the layout's dtype and shape (C order)."""
    try:
        got_shape, fortran, got_dtype = _read_npy_header(io.BytesIO(header))
    except (ValueError, OSError, SyntaxError) as exc:
        raise SummaryFileError(f"{where}: column {n}: no readable .npy header ({exc})") from None
    if fortran or got_dtype != dtype or tuple(got_shape) != shape:
        raise SummaryFileError(f"{where}: column {n}: the file holds {got_dtype} {tuple(got_shape)}, the layout "
                               f"says {dtype} {shape}")


def _read_npy_header(stream) -> tuple[tuple, bool, np.dtype]:
    """(shape, Fortran order, dtype) of the ``.npy`` header at ``stream``'s position (version 1.0 or 2.0)."""
    version = np.lib.format.read_magic(stream)
    if version not in _HEADER_READERS:
        raise ValueError(f".npy version {version}")
    return _HEADER_READERS[version](stream)


def _read_zipped(f, where: Path, names: list[str]) -> dict[str, np.ndarray]:
    """Columns without a layout: through the zip directory, stored members only, each member's CRC checked
    (``ZipFile.read`` checks it), never unpickled."""
    out = {}
    try:
        with zipfile.ZipFile(f) as z:
            for n in names:
                info = z.getinfo(n + NPY_SUFFIX)
                if info.compress_type != zipfile.ZIP_STORED:
                    raise ValueError(f"column {n} is compressed (summaries store columns)")
                stream = io.BytesIO(z.read(info))
                dtype = _read_npy_header(stream)[2]
                if dtype.hasobject or dtype.kind not in _PLAIN_KINDS:
                    raise ValueError(f"column {n} holds {dtype}, not numbers (a summary never holds objects)")
                stream.seek(0)
                out[n] = np.lib.format.read_array(stream, allow_pickle=False)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as exc:
        raise SummaryFileError(f"{where}: {type(exc).__name__}: {exc}") from None
    return out
