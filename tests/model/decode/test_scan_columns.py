"""The scanner's arrays come from one spec: its groups, its output record, and what a scan writes."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.model.decode.scan import scan_codes as codes
from timelineview.model.decode.scan.scan_columns import (
    GROUP_TYPES,
    GROUPS,
    SAMPLE_ELEMENT,
    SAMPLE_LENGTH,
    SAMPLE_SERIES,
    SCAN_ARRAYS,
    SPAN_END,
    SPAN_START,
    Scan,
    group_arrays,
)
from timelineview.model.load.jit import scanner_available


def test_scan_record_and_group_tuples_are_the_spec_in_its_order():
    names = [a.name for a in SCAN_ARRAYS]
    assert len(set(names)) == len(names)
    assert Scan._fields == tuple(a.name for a in SCAN_ARRAYS if not a.slots)
    assert [name for g in GROUPS for name in GROUP_TYPES[g]._fields] == names  # groups partition the spec
    for g in GROUPS:
        assert GROUP_TYPES[g]._fields == tuple(a.name for a in group_arrays(g))


@pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
def test_a_scan_writes_every_array_with_the_spec_dtype_and_the_values_by_hand():
    from timelineview.model.decode.scan import byte_scan

    text = (b'[{"ph":"X","name":"a","pid":1,"tid":2,"ts":"1.5","dur":2},'
            b' {"ph":"C","name":"m","pid":1,"ts":3,"args":{"v":1.5}},'
            b' {"ph":"s","id":"77","pid":"p","tid":2,"ts":4.25,"cat":"c","bp":"e"}]')
    data = np.frombuffer(bytearray(text), dtype=np.uint8)
    scan = byte_scan.scan_ranges(data, np.array([1], np.int64), np.array([len(text) - 1], np.int64))
    for spec in SCAN_ARRAYS:
        if spec.slots:
            continue
        arr = getattr(scan, spec.name)
        assert arr.dtype == np.dtype(spec.dtype), spec.name
        assert arr.shape[1:] == ((spec.width,) if spec.width else ()), spec.name

    def text_of(sid: int) -> bytes:
        a, b = scan.spans[sid, SPAN_START], scan.spans[sid, SPAN_END]
        return text[a:b]

    assert scan.r_state.tolist() == [codes.RANGE_OK] and scan.r_count.tolist() == [3]
    assert scan.kind.tolist() == [codes.KIND_X, codes.KIND_C, codes.KIND_S]
    assert scan.ts.tolist() == [1500, 3000, 4250] and scan.ts_st.tolist() == [codes.TIME_EXACT] * 3
    assert scan.dur[0] == 2000
    assert text_of(scan.name[0]) == b"a" and text_of(scan.cat[2]) == b"c"
    assert scan.id_k[2] == codes.TOK_INT and scan.id_v[2] == 77 and scan.bp_e.tolist() == [False, False, True]
    assert scan.lane[1] == -1  # a counter has no lane
    pid_kind, pid_value, tid_kind, tid_value = scan.lane_rows[scan.lane[2]]
    assert (pid_kind, text_of(pid_value), tid_kind, tid_value) == (codes.TOK_STR, b"p", codes.TOK_INT, 2)
    assert scan.lane_rows[scan.lane[0]].tolist() == [codes.TOK_INT, 1, codes.TOK_INT, 2]
    assert scan.values.tolist() == [1.5]
    assert scan.samples[0, SAMPLE_ELEMENT] == 1 and scan.samples[0, SAMPLE_LENGTH] == -1  # converted here
    pid_kind, pid_value, name, key = scan.series_rows[scan.samples[0, SAMPLE_SERIES]]
    assert (pid_kind, pid_value, text_of(name), text_of(key)) == (codes.TOK_INT, 1, b"m", b"v")
