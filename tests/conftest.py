"""Test-wide settings: Qt renders offscreen (no display in CI)."""

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the GUI load path caches cards: tests keep that cache out of the user's ~/.cache
_cache = tempfile.TemporaryDirectory(prefix="timelineview-test-cache-")
os.environ.setdefault("TIMELINEVIEW_CACHE", _cache.name)
