"""A card summary's ``columns.npz``: a plain ``.npz`` that numpy alone reads, whose manifest layout lets a
reader take columns straight from their byte offsets; older summaries (no layout) still read."""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import pytest

from timelineview.model.summary.columns import ALIGN, COLUMNS_FILE, ColumnReader, ColumnWriter
from timelineview.model.summary.guarded_files import SummaryFileError


def _columns() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    return {
        "derived.free.starts": np.sort(rng.integers(0, 1 << 40, 1000)),
        "derived.free.ends": np.sort(rng.integers(0, 1 << 40, 1000)),
        "operators.by_name.count": rng.integers(0, 100, 7).astype(np.int32),
        "comm.ops.transit": rng.random(3),
        "comm.links.src": np.zeros(0, np.int64),  # a card without links
        "flags": np.array([True, False, True]),
        "pyramid.0": rng.integers(0, 256, (5, 4096)).astype(np.uint8),
        "pyramid.empty": np.zeros((0, 256), np.uint8),
        "small": np.arange(3, dtype=np.uint16),
    }


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _written(folder, columns):
    w = ColumnWriter(folder)
    for name, array in columns.items():
        w.put(name, array)
    return w.close(), w.layout


def test_the_file_is_an_npz_that_numpy_and_zip_tools_read(tmp_path):
    columns = _columns()
    _written(tmp_path, columns)
    with zipfile.ZipFile(tmp_path / COLUMNS_FILE) as z:
        assert z.testzip() is None  # every member's CRC checks
        assert z.namelist() == [f"{n}.npy" for n in columns]
        for name, array in columns.items():  # each member is what numpy.save writes, byte for byte
            saved = io.BytesIO()
            np.save(saved, array, allow_pickle=False)
            assert z.read(f"{name}.npy") == saved.getvalue(), name
    with np.load(tmp_path / COLUMNS_FILE, allow_pickle=False) as z:
        assert sorted(z.files) == sorted(columns)
        for name, array in columns.items():
            assert _same(z[name], array), name


def test_the_layout_points_at_each_columns_bytes(tmp_path):
    columns = _columns()
    files, layout = _written(tmp_path, columns)
    assert set(files) == set(layout) == set(columns)
    raw = (tmp_path / COLUMNS_FILE).read_bytes()
    with zipfile.ZipFile(tmp_path / COLUMNS_FILE) as z:
        crcs = {info.filename: info.CRC for info in z.infolist()}
    for name, array in columns.items():
        offset, descr, shape, header_at, crc = layout[name]
        assert offset % ALIGN == 0
        assert np.dtype(descr) == array.dtype and tuple(shape) == array.shape
        assert raw[offset:offset + array.nbytes] == array.tobytes()
        saved = io.BytesIO()
        np.save(saved, array, allow_pickle=False)
        assert raw[header_at:offset + array.nbytes] == saved.getvalue()  # the whole member: header and data
        assert crc == crcs[f"{name}.npy"]  # the zip's own CRC of the member


def test_reader_with_the_layout_gives_what_numpy_load_gives(tmp_path):
    columns = _columns()
    files, layout = _written(tmp_path, columns)
    reader = ColumnReader(tmp_path, files, layout)
    got = reader.get_many(list(columns))
    for name, array in columns.items():
        assert _same(got[name], array), name
        assert got[name].flags.writeable and got[name].flags.aligned
    some = ["comm.ops.transit", "small", "operators.by_name.count"]
    assert list(reader.get_many(some)) == some  # in the order asked
    assert _same(reader.get("pyramid.0"), columns["pyramid.0"])
    got["small"][0] = 99  # a column is its own: changing it changes no other column nor the file
    assert _same(reader.get("small"), columns["small"]) and _same(got["flags"], columns["flags"])


def test_a_summary_without_a_layout_is_read_with_numpy(tmp_path):
    columns = _columns()
    np.savez(tmp_path / COLUMNS_FILE, allow_pickle=False, **columns)  # what format-1 summaries hold
    reader = ColumnReader(tmp_path, {n: COLUMNS_FILE for n in columns})
    got = reader.get_many(list(columns))
    for name, array in columns.items():
        assert _same(got[name], array), name


def test_a_cut_file_is_an_error_not_short_columns(tmp_path):
    columns = _columns()
    files, layout = _written(tmp_path, columns)
    path = tmp_path / COLUMNS_FILE
    last = max(layout, key=lambda n: layout[n][0])
    path.write_bytes(path.read_bytes()[:layout[last][0] + 1])
    with pytest.raises(ValueError, match="cut short"):
        ColumnReader(tmp_path, files, layout).get(last)


# ------------------------------------------------------------------------- a folder that is not trusted
def test_a_flipped_byte_in_a_column_is_an_error_naming_the_file(tmp_path):
    columns = _columns()
    files, layout = _written(tmp_path, columns)
    path = tmp_path / COLUMNS_FILE
    raw = bytearray(path.read_bytes())
    raw[layout["derived.free.ends"][0] + 17] ^= 0x40  # one bit of one value
    path.write_bytes(bytes(raw))
    reader = ColumnReader(tmp_path, files, layout)
    with pytest.raises(SummaryFileError, match=r"columns\.npz: column derived\.free\.ends: .*CRC"):
        reader.get("derived.free.ends")
    assert _same(reader.get("small"), columns["small"])  # the others still read


@pytest.mark.parametrize("change", [
    lambda e: [e[0], "<f8", e[2], e[3], e[4]],  # another dtype of the same width
    lambda e: [e[0], "<i4", [e[2][0] * 2], e[3], e[4]],  # the same bytes as twice as many int32
    lambda e: [e[0], "|O", e[2], e[3], e[4]],  # objects: never
    lambda e: [e[0], "<i8", e[2]],  # a layout without its header offset and CRC
    lambda e: [e[0] + 8, "<i8", [e[2][0] - 1], e[3], e[4]],  # skips the first value
    lambda e: [e[0], "<i8", [1 << 40], e[3], e[4]],  # far past the end of the file
    lambda e: "/dev/urandom",
])
def test_a_layout_that_is_not_the_files_is_an_error(tmp_path, change):
    columns = _columns()
    files, layout = _written(tmp_path, columns)
    layout["derived.free.starts"] = change(layout["derived.free.starts"])
    with pytest.raises(SummaryFileError, match="column derived.free.starts"):
        ColumnReader(tmp_path, files, layout).get("derived.free.starts")


@pytest.mark.parametrize("where", ["/dev/urandom", "../columns.npz", "sub/columns.npz", "link.npz", "fifo.npz"])
def test_columns_are_read_only_from_a_regular_file_inside_the_folder(tmp_path, where):
    card = tmp_path / "card"
    card.mkdir()
    files, layout = _written(card, _columns())
    (tmp_path / COLUMNS_FILE).write_bytes((card / COLUMNS_FILE).read_bytes())  # a good file one level up
    (card / "link.npz").symlink_to(card / COLUMNS_FILE)  # even a link to the card's own file is refused
    os.mkfifo(card / "fifo.npz")  # opening it must not wait for a writer
    reader = ColumnReader(card, {n: where for n in files}, layout)
    with pytest.raises(SummaryFileError):
        reader.get("small")


def test_a_column_without_a_layout_has_its_zip_crc_checked(tmp_path):
    columns = _columns()
    np.savez(tmp_path / COLUMNS_FILE, allow_pickle=False, **columns)
    path = tmp_path / COLUMNS_FILE
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("small.npy")
    raw[info.header_offset + 30 + len("small.npy") + 128] ^= 1  # the first byte of its data (after the header)
    path.write_bytes(bytes(raw))
    with pytest.raises(SummaryFileError, match="CRC"):
        ColumnReader(tmp_path, {n: COLUMNS_FILE for n in columns}).get("small")


def test_an_object_column_without_a_layout_is_never_unpickled(tmp_path):
    np.savez(tmp_path / COLUMNS_FILE, allow_pickle=True, things=np.array([{"a": 1}], dtype=object))
    with pytest.raises(SummaryFileError, match="holds object, not numbers"):
        ColumnReader(tmp_path, {"things": COLUMNS_FILE}).get("things")
    with pytest.raises(SummaryFileError) as caught:
        ColumnReader(tmp_path, {"things": COLUMNS_FILE}).get("things")
    assert "allow_pickle" not in str(caught.value)  # numpy's advice to load it unsafely is not passed on
