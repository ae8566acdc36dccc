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
