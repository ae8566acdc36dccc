"""torch_npu's memory CSV files read as columns: exact values on small hand-written files, and every
kind of bad input losing only its own rows, counted with its line. Every test runs with each way a file
is read: numpy's tokenizer, the compiled loops, and either with blocks so small that rows straddle them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from timelineview.model.memory import NEVER, csv_files, load_memory
from timelineview.model.memory.csv_files import (
    BAD_NUMBER,
    BAD_TIME,
    RELEASE_BEFORE_ALLOCATION,
    SHORT_ROW,
    UNFINISHED_ROW,
)

MB = 1 << 20
RECORD_HEADER = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
MODULE_HEADER = "Component,Timestamp(us),Total Reserved(MB),Device"
READERS = {"numpy": (1 << 62, csv_files.CHUNK_BYTES), "compiled": (0, csv_files.CHUNK_BYTES),
           "numpy, small blocks": (1 << 62, 7), "compiled, small blocks": (0, 7)}


@pytest.fixture(autouse=True, params=list(READERS))
def reader(request, monkeypatch):
    """Read files with numpy or with the compiled loops (the size from which a file is), in blocks of some size."""
    compiled_from, block = READERS[request.param]
    monkeypatch.setattr(csv_files, "COMPILED_MIN_BYTES", compiled_from)
    monkeypatch.setattr(csv_files, "CHUNK_BYTES", block)
    return request.param


def write(folder: Path, name: str, header: str, rows: list[str], end: str = "\r\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(end.join([header, *rows]) + end, encoding="utf-8")
    return path


def card(tmp_path: Path) -> list[Path]:
    """A card folder: the trace file's path (memory files are found beside it)."""
    trace = tmp_path / "trace_view.json"
    trace.write_text("[]")
    return [trace]


def op_row(name: str, kb: str, t0: str, t1: str, stream: str = "123") -> str:
    return f"{name},{kb},{t0}\t,{t1 + chr(9) if t1 else ''},,,,1.0,2.0,1.0,,,,{stream},NPU:0"


def test_memory_record_columns_exact(tmp_path):
    write(tmp_path, "memory_record.csv", RECORD_HEADER, [
        "APP,1736408883573957.920\t,,2109.6015625,,,NPU:0",
        "PTA,1736408883749097.030\t,954.06787109375,1452.0,954.06787109375,897357296,NPU:0",
        "GE,1736408883704614.040\t,49.125,74.75,,,NPU:0",
    ])
    m = load_memory(card(tmp_path))
    c = m.curves
    assert [m.name(k) for k in c.component] == ["APP", "PTA", "GE"]
    # exact ns: a float64 µs would be off by up to 256 ns at this magnitude
    assert c.time_ns.tolist() == [1736408883573957920, 1736408883749097030, 1736408883704614040]
    assert c.allocated.tolist() == [-1, int(954.06787109375 * MB), int(49.125 * MB)]
    assert c.reserved.tolist() == [int(2109.6015625 * MB), 1452 * MB, int(74.75 * MB)]
    assert c.active.tolist() == [-1, int(954.06787109375 * MB), -1]
    assert m.report.rows_read == 3 and m.report.dropped_rows == 0 and not m.report.warnings


def test_operator_memory_sizes_times_components(tmp_path):
    write(tmp_path, "operator_memory.csv", OPERATOR_HEADER, [
        op_row("aten::empty_strided", "18816.5", "1736408883694624.810", ""),
        op_row("aten::_convolution", "25009.5", "1736408883702735.700", "1736408883736793.940"),
        op_row("cann::ReduceSum7", "3072.0", "1736408883743502.860", "1736408883743521.500", stream=""),
    ])
    m = load_memory(card(tmp_path))
    a = m.allocations
    assert [m.name(k) for k in a.name] == ["aten::empty_strided", "aten::_convolution", "cann::ReduceSum7"]
    assert a.size.tolist() == [18816 * 1024 + 512, 25009 * 1024 + 512, 3072 * 1024]
    assert a.allocated_ns.tolist() == [1736408883694624810, 1736408883702735700, 1736408883743502860]
    assert a.released_ns.tolist() == [NEVER, 1736408883736793940, 1736408883743521500]  # empty: still held
    assert [m.name(k) for k in a.component] == ["PTA", "PTA", "GE"]


def test_module_memory(tmp_path):
    write(tmp_path, "npu_module_mem.csv", MODULE_HEADER, ["SLOG,10.5\t,0.0,NPU:0", "HCCL,11\t,404.0625,NPU:0"],
          end="\n")
    m = load_memory(card(tmp_path))
    assert [m.name(k) for k in m.modules.module] == ["SLOG", "HCCL"]
    assert m.modules.time_ns.tolist() == [10500, 11000]
    assert m.modules.reserved.tolist() == [0, int(404.0625 * MB)]


def test_bad_rows_lose_only_themselves(tmp_path):
    write(tmp_path, "operator_memory.csv", OPERATOR_HEADER, [
        op_row("good_a", "1.0", "10.0", "20.0"),  # line 2
        op_row("bad_size", "x1", "10.0", "20.0"),  # line 3
        op_row("bad_time", "1.0", "10.0.5", "20.0"),  # line 4
        op_row("neg_size", "-4", "10.0", "20.0"),  # line 5
        op_row("early_release", "1.0", "30.0", "20.0"),  # line 6
        "short,1.0,10.0",  # line 7: too few fields
        op_row("bad_release", "1.0", "10.0", "2O.0"),  # line 8: a letter O
        op_row("good_b", "2.0", "11.0", ""),  # line 9
    ])
    m = load_memory(card(tmp_path))
    assert [m.name(k) for k in m.allocations.name] == ["good_a", "good_b"]
    r = m.report
    assert r.rows_read == 2
    assert dict(r.dropped) == {BAD_NUMBER: 2, BAD_TIME: 2, RELEASE_BEFORE_ALLOCATION: 1, SHORT_ROW: 1}
    assert "operator_memory.csv:3: bad number" in r.examples
    assert "operator_memory.csv:6: release before allocation" in r.examples
    assert "operator_memory.csv:7: too few fields" in r.examples


def test_file_cut_mid_row(tmp_path):
    path = write(tmp_path, "memory_record.csv", RECORD_HEADER,
                 ["PTA,10.0\t,1.0,2.0,1.0,1,NPU:0", "PTA,11.0\t,3.0,4.0,3.0,1,NPU:0"])
    path.write_bytes(path.read_bytes() + b"PTA,12.0\t,5.")  # half-written: no line end
    m = load_memory(card(tmp_path))
    assert m.curves.time_ns.tolist() == [10000, 11000]
    assert dict(m.report.dropped) == {UNFINISHED_ROW: 1}
    assert m.report.examples == ["memory_record.csv:4: unfinished last row"]


def test_missing_column_loses_that_file_only(tmp_path):
    write(tmp_path, "memory_record.csv", "Component,Total Reserved(MB)", ["PTA,1.0"])
    write(tmp_path, "npu_module_mem.csv", MODULE_HEADER, ["SLOG,10\t,1.0,NPU:0"])
    m = load_memory(card(tmp_path))
    assert len(m.curves) == 0 and len(m.modules) == 1
    assert len(m.report.warnings) == 1 and "no column Timestamp(us)" in m.report.warnings[0]


def test_header_only_and_empty_file(tmp_path):
    write(tmp_path, "memory_record.csv", RECORD_HEADER, [])
    (tmp_path / "operator_memory.csv").write_bytes(b"")
    m = load_memory(card(tmp_path))
    assert m.empty
    assert any("empty file" in w for w in m.report.warnings)


def test_non_ascii_and_nul_bytes(tmp_path):
    path = write(tmp_path, "memory_record.csv", RECORD_HEADER,
                 ["PTA,１０.0\t,1.0,2.0,1.0,1,NPU:0", "PTA,11.0\t,3.0,4.0,3.0,1,NPU:0"])
    path.write_bytes(path.read_bytes() + b"PTA,1\x002.0,1,1,1,1,NPU:0\r\n")
    m = load_memory(card(tmp_path))
    assert m.curves.time_ns.tolist() == [11000]  # full-width digits are not a time
    assert dict(m.report.dropped) == {BAD_TIME: 2}  # a NUL inside a time is no digit either


def test_no_memory_files(tmp_path):
    m = load_memory(card(tmp_path))
    assert m.empty and m.sources == [] and m.report.dropped_rows == 0


def test_million_row_times_parse_exactly():
    from timelineview.model.memory.numbers import micros_to_ns

    rng = np.random.default_rng(3)
    ns = rng.integers(10**18, 2 * 10**18, 2000)
    texts = [f"{v // 1000}.{v % 1000:03d}\t" for v in ns]
    got, ok, empty = micros_to_ns(texts)
    assert ok.all() and not empty.any() and np.array_equal(got, ns)
    got, ok, _ = micros_to_ns(["5", "5.", ".5", "5.1234", "1e3", "+5", " 7 ", "7 7", "99999999999999999"])
    assert ok.tolist() == [True, True, True, True, False, False, True, False, False]
    assert got[ok].tolist() == [5000, 5000, 500, 5123, 7000]


def test_huge_fields_lose_their_rows_only(tmp_path):
    write(tmp_path, "memory_record.csv", RECORD_HEADER,
          ["PTA," + "9" * 100_000 + ",1.0,2.0,1.0,1,NPU:0",  # a long time: not the width of the whole chunk
           "PTA," + "9" * 5_000_000 + ",1.0,2.0,1.0,1,NPU:0",  # past csv's field limit
           "PTA,11.0\t,3.0,4.0,3.0,1,NPU:0"])
    m = load_memory(card(tmp_path))
    assert m.curves.time_ns.tolist() == [11000]
    assert m.report.dropped[BAD_TIME] == 1 and m.report.dropped_rows == 2
    assert any("field larger than field limit" in e for e in m.report.examples)


def test_sizes_beyond_a_64_bit_count_of_bytes_are_rows_dropped_with_their_reason(tmp_path):
    from timelineview.model.memory.csv_files import SIZE_BEYOND_INT64

    write(tmp_path, "operator_memory.csv", OPERATOR_HEADER, [
        op_row("good", "4.0", "10.0", "20.0"),  # line 2
        op_row("huge_kb", "1e300", "10.0", "20.0"),  # line 3: would wrap to a negative size
        op_row("big_kb", str(2**53), "10.0", "20.0"),  # line 4: 2^63 bytes
    ])
    write(tmp_path, "memory_record.csv", RECORD_HEADER, [
        "PTA,10.0\t,1.0,2.0,1.0,1,NPU:0",
        "PTA,11.0\t,9e12,2.0,1.0,1,NPU:0",  # 9e12 MB: past 2^62 bytes
    ])
    write(tmp_path, "npu_module_mem.csv", MODULE_HEADER, ["SLOG,10\t,1.0,NPU:0", "HCCL,11\t,9e12,NPU:0"])
    m = load_memory(card(tmp_path))
    assert [m.name(k) for k in m.allocations.name] == ["good"] and m.allocations.size.tolist() == [4096]
    assert m.curves.allocated.tolist() == [MB] and m.modules.reserved.tolist() == [MB]
    assert dict(m.report.dropped) == {SIZE_BEYOND_INT64: 4}
    assert "operator_memory.csv:3: a size beyond 2^62 bytes" in m.report.examples
    assert min(m.allocations.size.min(), m.curves.reserved.min(), m.modules.reserved.min()) > 0


def test_a_file_whose_lines_end_with_a_lone_carriage_return(tmp_path):
    write(tmp_path, "memory_record.csv", RECORD_HEADER,
          ["PTA,10.0\t,1.0,2.0,1.0,1,NPU:0", "GE,11.0\t,3.0,4.0,3.0,,NPU:0"], end="\r")
    m = load_memory(card(tmp_path))
    assert [m.name(k) for k in m.curves.component] == ["PTA", "GE"] and not m.report.warnings
    assert m.curves.time_ns.tolist() == [10000, 11000] and m.curves.allocated.tolist() == [MB, 3 * MB]


def test_a_short_name_at_the_end_of_a_file_beside_a_long_one_reads(tmp_path):
    """Names are compared eight bytes at a time up to the longest name's length: a short name near the end
    of the file must not be read past the file's buffer (it raised IndexError)."""
    long_name = "L" * 200  # longer than the buffer's padding, shorter than a name read apart
    rows = [f"{long_name},1736408883573957.920\t,1.0,2.0,1.0,,NPU:0"]
    rows += [f"PT{k % 3},17364088835739{k + 60}.000\t,1.0,2.0,1.0,,NPU:0" for k in range(5)]
    rows.append("G,1736408883573999.000\t,1.0,2.0,1.0,,N")
    write(tmp_path, "memory_record.csv", RECORD_HEADER, rows, end="\n")
    m = load_memory(card(tmp_path))
    assert m.report.rows_read == 7 and m.report.dropped_rows == 0
    assert [m.name(k) for k in m.curves.component] == [long_name, "PT0", "PT1", "PT2", "PT0", "PT1", "G"]
