"""Heap trimming hands freed pages inside glibc's heap back to the kernel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from timelineview.model.load import heap

pytestmark = pytest.mark.skipif(heap._glibc() is None, reason="not glibc")


def _rss_anon_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise AssertionError("no RssAnon")


def test_trim_returns_pages_freed_inside_the_heap():
    # In a fresh process: what earlier tests left in this one's heap (free chunks the blocks
    # below would be carved from, a raised trim threshold) changes what a trim can return.
    code = "from tests.model.load.test_heap import trim_after_freeing_blocks as t; t()"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[3])
    assert run.returncode == 0, run.stderr


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def trim_after_freeing_blocks() -> None:
    """Free ~51 MB of heap blocks kept from the top, trim, and check most of it left the process."""
    # 64 KiB blocks come from the heap, not mmap; a 1 KiB block after each keeps the
    # freed ones from being the heap's top, which glibc would return by itself. Where the
    # pins land depends on the holes imports left in the heap, so glibc is also told not to
    # return a free top by itself, and to serve these blocks from the heap whatever it saw before
    libc = heap._glibc()
    libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
    libc.mallopt(M_MMAP_THRESHOLD, 1 << 20)
    blocks, pins = [], []
    for _ in range(800):
        block = bytearray(64 << 10)  # zero-filled: its pages are touched
        blocks.append(block)
        pins.append(bytearray(1024))  # past pymalloc's 512 bytes: from the heap too
    del block
    blocks.clear()
    before = _rss_anon_kb()
    assert heap.trim()
    after = _rss_anon_kb()
    assert before - after > 10_000, (before, after)  # of the ~51 MB freed (others may reuse some)
    assert len(pins) == 800


class _RecordingLibc:
    """glibc's ``mallopt`` and ``malloc_trim`` as calls written down (the process's heap left alone)."""

    def __init__(self) -> None:
        self.thresholds: list[int] = []
        self.trim_thresholds: list[int] = []

    def mallopt(self, param: int, value: int) -> int:
        if param == M_MMAP_THRESHOLD:
            self.thresholds.append(value)
        if param == M_TRIM_THRESHOLD:
            self.trim_thresholds.append(value)
        return 1

    def malloc_trim(self, pad: int) -> int:
        return 0


def test_a_database_load_fixes_the_mmap_threshold_for_its_own_time_only(tmp_path, monkeypatch):
    """While a database loads, blocks of 128 KiB and more are mapped alone; after it, glibc's ceiling again
    and the trim threshold glibc's own rule gives it (kept fixed, or the trim threshold left at its start,
    every array-sized temporary of the analysis that follows was mapped or faulted in anew)."""
    from timelineview.model import load
    from timelineview.synthetic import CardSpec
    from timelineview.synthetic.database import generate_database

    path = tmp_path / "ascend_pytorch_profiler_0.db"
    generate_database(path, CardSpec(steps=1))
    libc = _RecordingLibc()
    monkeypatch.setattr(heap, "_glibc", lambda: libc)
    during: list[list[int]] = []
    [store] = load(path, progress=lambda done, total: during.append(list(libc.thresholds)), cache=False)
    assert len(store.slices) > 0
    assert during and during[0][-1] == heap.MMAP_THRESHOLD_BYTES  # fixed while the load ran
    assert libc.thresholds[-1] == heap.MMAP_THRESHOLD_CEILING
    assert libc.trim_thresholds == [2 * heap.MMAP_THRESHOLD_CEILING]


def test_a_json_load_leaves_glibcs_thresholds_alone(tmp_path, monkeypatch):
    """A JSON load's decode and merge make many array-sized temporaries: mapped alone, each is faulted in
    anew (0.3 s of CPU on a 363 MB trace), so glibc keeps serving them as it does by itself."""
    from timelineview.model import load

    from ..tracefile import dump_events, x_event

    libc = _RecordingLibc()
    monkeypatch.setattr(heap, "_glibc", lambda: libc)
    path = dump_events([x_event("a", 1, 1, 0.0, 10.0), x_event("b", 1, 1, 20.0, 5.0)], tmp_path / "t.json")
    [store] = load(path, cache=False)
    assert len(store.slices) == 2
    assert libc.thresholds == [] and libc.trim_thresholds == []


def test_the_threshold_is_set_back_when_the_last_of_two_loads_under_way_ends(monkeypatch):
    libc = _RecordingLibc()
    monkeypatch.setattr(heap, "_glibc", lambda: libc)
    with heap.load_mmap_threshold():
        with heap.load_mmap_threshold():
            pass
        assert libc.thresholds[-1] == heap.MMAP_THRESHOLD_BYTES  # the other load still runs
    assert libc.thresholds[-1] == heap.MMAP_THRESHOLD_CEILING
