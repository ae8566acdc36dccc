"""Whether a load runs the compiled scanner is decided in one place (``load.jit``)."""

from __future__ import annotations

import pytest

from timelineview.model import load
from timelineview.model.load import jit

from ..tracefile import dump_events, reference_slices, slice_set, x_event

pytestmark = pytest.mark.skipif(not jit.scanner_available(), reason="numba is not installed")


def _counting_scanner(monkeypatch) -> list[int]:
    from timelineview.model.decode.scan import byte_scan

    calls: list[int] = []
    real = byte_scan.scan_ranges
    monkeypatch.setattr(byte_scan, "scan_ranges", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_warm_scanner_reads_the_load_and_jit_0_turns_it_off(tmp_path, monkeypatch):
    events = [x_event(f"op{i}", 1, i % 2, float(i), 0.5) for i in range(50)]
    path = dump_events(events, tmp_path / "t.json")
    jit.warm_scanner()
    assert jit.scanner_is_warm()
    calls = _counting_scanner(monkeypatch)
    [store] = load(path, workers=1)
    assert calls and slice_set(store) == reference_slices(events)
    calls.clear()
    monkeypatch.setenv("TIMELINEVIEW_JIT", "0")
    assert not jit.scanner_available() and not jit.scanner_is_warm()
    [store] = load(path, workers=1)
    assert not calls and slice_set(store) == reference_slices(events)
