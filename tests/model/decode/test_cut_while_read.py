"""A file cut short or removed after its layout was read keeps what was read and says where it
stopped (truncation handled at any moment, not only before the load)."""

from __future__ import annotations

import json
import os

import pytest

from timelineview.model import load
from timelineview.model.load import loader
from timelineview.model.load.jit import scanner_available, warm_scanner

from ..tracefile import reference_slices, slice_set, x_event


def write_events(path, n: int) -> tuple[list[dict], list[int]]:
    """n events one a line; returns them and the byte offset just after each."""
    events = [x_event(f"op{i}", 1, i % 2, 1000 + 10 * i, 3, args={"i": i}) for i in range(n)]
    parts, ends, pos = [], [], 1
    for e in events:
        text = json.dumps(e).encode()
        pos += len(text)
        ends.append(pos)
        parts.append(text)
        pos += 2
    path.write_bytes(b"[" + b",\n".join(parts) + b"]")
    return events, ends


def after_planning(monkeypatch, change) -> None:
    """Run ``change`` on the file once its ranges are planned, before any of them is decoded."""
    real = loader.plan_ranges

    def plan_then_change(path, bounds, chunk_bytes):
        ranges = real(path, bounds, chunk_bytes)
        change(path)
        return ranges

    monkeypatch.setattr(loader, "plan_ranges", plan_then_change)


def use_scanner(monkeypatch, scanner: bool) -> None:
    if not scanner:
        monkeypatch.setenv("TIMELINEVIEW_JIT", "0")
    elif scanner_available():
        warm_scanner()  # small loads use it once it is ready in the process
    else:
        pytest.skip("numba is not installed")


@pytest.mark.parametrize("scanner", [False, True])
@pytest.mark.parametrize("keep", [0.3, 0.72])
def test_a_file_cut_while_it_is_read_keeps_what_was_read(tmp_path, monkeypatch, keep, scanner):
    use_scanner(monkeypatch, scanner)
    path = tmp_path / "t.json"
    events, ends = write_events(path, 400)
    cut = int(path.stat().st_size * keep)
    after_planning(monkeypatch, lambda p: os.truncate(p, cut))
    [store] = load(path, chunk_bytes=2048)
    whole = [e for e, end in zip(events, ends) if end <= cut]
    assert slice_set(store) == reference_slices(whole)
    assert store.report.truncated
    assert store.report.truncated_offset == max(end for end in ends if end <= cut)
    assert any(f"ends at byte {cut}" in w for w in store.report.warnings), store.report.warnings


@pytest.mark.parametrize("scanner", [False, True])
def test_a_file_removed_while_it_is_read_fails_only_itself(tmp_path, monkeypatch, scanner):
    use_scanner(monkeypatch, scanner)
    path = tmp_path / "t.json"
    write_events(path, 400)
    after_planning(monkeypatch, os.remove)
    [store] = load(path, chunk_bytes=2048)  # raised FileNotFoundError
    assert len(store.slices) == 0
    assert store.report.truncated
    assert any("cannot be read from here on" in w for w in store.report.warnings), store.report.warnings
