"""Test-wide settings: Qt renders offscreen (no display in CI), and property tests have
no per-example deadline (a busy shared machine made one miss it: speed is measured in
benchmarks, not tests)."""

import gc
import os
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("timelineview", deadline=None)
settings.load_profile("timelineview")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the GUI load path caches cards: tests keep that cache out of the user's ~/.cache
_cache = tempfile.TemporaryDirectory(prefix="timelineview-test-cache-")
os.environ.setdefault("TIMELINEVIEW_CACHE", _cache.name)


@pytest.fixture(autouse=True)
def _qt_garbage_collected_on_the_gui_thread(request):
    """After a test with Qt objects, collect their cycles here, on the GUI thread. Left to the collector, a
    closed window's widgets were freed later by whichever thread allocated next: a load worker ran their C++
    destructors while the GUI thread deleted other widgets, each waiting on a lock the other held (the GIL,
    Qt's signal-slot mutex), and the suite hung."""
    yield
    if {"qapp", "qtbot", "window"} & set(request.fixturenames):
        gc.collect()
