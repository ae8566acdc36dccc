"""Test-wide settings: Qt renders offscreen (no display in CI), and property tests have
no per-example deadline (a busy shared machine made one miss it: speed is measured in
benchmarks, not tests)."""

import os
import tempfile

from hypothesis import settings

settings.register_profile("timelineview", deadline=None)
settings.load_profile("timelineview")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the GUI load path caches cards: tests keep that cache out of the user's ~/.cache
_cache = tempfile.TemporaryDirectory(prefix="timelineview-test-cache-")
os.environ.setdefault("TIMELINEVIEW_CACHE", _cache.name)
