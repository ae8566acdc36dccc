"""The column readers over bytes (numpy's and the compiled loops) read every shape of text as the exact
per-text readers do, and whole files as a plain ``csv`` + ``Decimal`` reading of them says (quoted names
with commas, blank lines, non-ASCII names, long names, odd numbers, line ends of every kind)."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from timelineview.model.memory import NEVER, csv_files, fields, load_memory, numbers
from timelineview.model.memory.csv_kernels import compiled
from timelineview.model.memory.records import Names

OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
WAYS = {"numpy": 1 << 62, "compiled": 0}

number_text = st.one_of(
    st.from_regex(r"\A[ \t]?[0-9]{0,20}(\.[0-9]{0,25})?[ \t]?\Z"),  # the usual shapes and their limits
    st.from_regex(r"\A[0-9+\-.eE_ \tx]{0,12}\Z"),  # signs, exponents, blanks inside, letters
    st.sampled_from(["", " ", "\t", "1e3", "+5", "-0", "5.", ".5", ".", "..", "1_0", "nan", "inf", "１０",
                     "1736408883573957.920\t", "99999999999999999", "9223372036854775.807", "9223372036854775.808",
                     "0.90576171875", "954.06787109375", "123456789012345678.5"]))


def as_fields(texts: list[str], way: str) -> fields.Fields:
    f = fields.Fields.of_texts(texts)
    if way == "compiled":
        f.text.kernels = compiled()
    return f


@pytest.mark.parametrize("way", list(WAYS))
@given(texts=st.lists(number_text, max_size=40))
def test_times_read_as_the_exact_reader_does(way, texts):
    got = fields.micros_to_ns(as_fields(texts, way))
    want = numbers.micros_to_ns(texts)
    for g, w in zip(got, want, strict=True):
        assert g.tolist() == w.tolist()


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")  # sizes past int64 bytes, either way
@pytest.mark.parametrize("way", list(WAYS))
@given(texts=st.lists(number_text, max_size=40))
def test_sizes_read_as_the_exact_reader_does(way, texts):
    values, ok, empty = fields.floats(as_fields(texts, way))
    want_values, want_ok, want_empty = numbers.floats(texts)
    assert ok.tolist() == want_ok.tolist() and empty.tolist() == want_empty.tolist()
    for unit in (1 << 10, 1 << 20):  # what is kept: whole bytes
        assert numbers.scaled_bytes(values, ok, unit).tolist() == numbers.scaled_bytes(want_values, want_ok,
                                                                                       unit).tolist()
    if way == "compiled":  # the compiled loop reads the nearest double itself
        assert values[ok].tolist() == want_values[ok].tolist()


@pytest.mark.parametrize("way", list(WAYS))
def test_names_are_interned_by_their_text(way):
    texts = ["aten::mm", " aten::mm", "aten::mm\t", "", "  ", "x" * 300, "x" * 300, "é", "aten::mm2"] * 3
    f = as_fields(texts, way)
    distinct, inverse = fields.distinct_texts(f)
    assert [distinct[k] for k in inverse] == [t.strip() for t in texts]
    names = Names()
    ids = fields.intern(distinct, inverse, names)
    assert [names.strings[k] for k in ids] == [t.strip() for t in texts]
    assert len(names.strings) == len({t.strip() for t in texts})  # one id per text


def reference(path: Path) -> list[tuple[str, int, int, int]]:
    """(name, bytes, allocated ns, released ns) of each row a plain reading keeps, in file order."""
    out = []
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        if len(r) < 14 or not r[0].strip():
            continue
        try:
            size = Decimal(r[1]) * 1024
            t0 = Decimal(r[2].strip()) * 1000
            t1 = Decimal(r[3].strip()) * 1000 if r[3].strip() else None
        except ArithmeticError:
            continue
        out.append((r[0].strip(), int(size.to_integral_value()), int(t0), NEVER if t1 is None else int(t1)))
    return out


def row(name: str, kb: str, t0: str, t1: str, stream: str = "897357296") -> str:
    return f"{name},{kb},{t0}\t,{t1 + chr(9) if t1 else ''},,,,1.0,2.0,1.0,,,,{stream},NPU:0"


def shapes_file(folder: Path, rows: int, end: str) -> Path:
    rng = np.random.default_rng(rows)
    names = ['"aten::add, fused"', "aten::mm", '"say ""hi"""', "算子", "cann::ReduceSum", "y" * 400, "aten::mm"]
    lines = [OPERATOR_HEADER]
    for k in range(rows):
        t0 = 1736408883000000000 + int(rng.integers(0, 10**12))
        t1 = t0 + int(rng.integers(0, 10**9))
        kb = f"{rng.integers(1, 10**6) / 2}"
        lines.append(row(names[k % len(names)], kb, f"{t0 // 1000}.{t0 % 1000:03d}",
                         "" if k % 5 == 0 else f"{t1 // 1000}.{t1 % 1000:03d}", stream="" if k % 7 == 0 else "1"))
        if k % 97 == 0:
            lines.append("")  # a blank line: no row
    path = folder / "operator_memory.csv"
    path.write_bytes((end.join(lines) + end).encode("utf-8"))
    return path


@pytest.mark.parametrize("end", ["\r\n", "\n"])
@pytest.mark.parametrize("way", list(WAYS))
def test_a_file_of_every_shape_reads_as_csv_says(tmp_path, monkeypatch, way, end):
    monkeypatch.setattr(csv_files, "COMPILED_MIN_BYTES", WAYS[way])
    monkeypatch.setattr(csv_files, "CHUNK_BYTES", 4096)  # rows straddle blocks
    path = shapes_file(tmp_path, 3000, end)
    (tmp_path / "trace_view.json").write_text("[]")
    m = load_memory([tmp_path / "trace_view.json"])
    a = m.allocations
    got = list(zip([m.name(k) for k in a.name], a.size.tolist(), a.allocated_ns.tolist(), a.released_ns.tolist(),
                   strict=True))
    assert got == reference(path)
    assert m.report.dropped_rows == 0
    ge = [m.name(int(n)).startswith("cann::") for n in a.name]
    with open(path, newline="", encoding="utf-8") as f:
        streams = [r[13] for r in list(csv.reader(f))[1:] if len(r) > 13]
    assert [m.name(int(c)) for c in a.component] == ["GE" if g or not s.strip() else "PTA"
                                                     for g, s in zip(ge, streams, strict=True)]


@pytest.mark.parametrize("way", list(WAYS))
def test_a_lone_cr_splits_lines_as_before(tmp_path, monkeypatch, way):
    monkeypatch.setattr(csv_files, "COMPILED_MIN_BYTES", WAYS[way])
    text = OPERATOR_HEADER + "\r\n" + row("a", "1.0", "10.0", "20.0") + "\r" + row("b", "2.0", "11.0", "") + "\r\n"
    (tmp_path / "operator_memory.csv").write_bytes(text.encode())
    (tmp_path / "trace_view.json").write_text("[]")
    m = load_memory([tmp_path / "trace_view.json"])
    assert [m.name(k) for k in m.allocations.name] == ["a", "b"]
    assert m.allocations.released_ns.tolist() == [20000, NEVER]
