"""Dropping a library's code pages frees memory and leaves the library working."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc and madvise")

CODE = """
import re, numpy as np
from timelineview.model.load.library_pages import drop_library_pages
def rss_file():
    return int(re.search(r'RssFile:\\s+(\\d+)', open('/proc/self/status').read()).group(1))
a = np.random.default_rng(0).random(200_000)
before = np.sort(a).sum()
rss0 = rss_file()
advised = drop_library_pages('_multiarray_umath')
rss1 = rss_file()
after = np.sort(a).sum()  # the code is read back from the file
print(advised, rss0 - rss1, before == after)
"""


def test_dropped_pages_come_back_when_used():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    advised, freed_kb, same = out.stdout.split()
    assert int(advised) > 0
    assert int(freed_kb) > 0
    assert same == "True"


def test_nothing_is_advised_for_a_library_not_loaded():
    from timelineview.model.load.library_pages import drop_library_pages

    assert drop_library_pages("no-such-library-here") == 0
