"""Readiness of the compiled scanner: is it usable here, warm it, and keep numba's objects out of the GC.

The decoders take whether to scan as an argument; this module is the one place that
decides it (numba installed, not turned off with ``TIMELINEVIEW_JIT=0``) and that readies
the compiled code of this process.
"""

from __future__ import annotations

import functools
import gc
import importlib.util
import os
import threading

from timelineview.model.load.library_pages import drop_library_pages
from timelineview.model.store import stack_walk

_warm = False
_warm_lock = threading.Lock()


@functools.cache
def _numba_installed() -> bool:
    return importlib.util.find_spec("numba") is not None


def scanner_available() -> bool:
    """True when the compiled scanner can be used (numba installed, not turned off with
    ``TIMELINEVIEW_JIT=0``). Does not import numba."""
    return os.environ.get("TIMELINEVIEW_JIT", "1") != "0" and _numba_installed()


def warm_scanner() -> None:
    """Compile the scanner (or load it from numba's cache) now, not during the first load.

    numba leaves ~120 000 Python objects that live as long as the process; they are
    frozen out of the garbage collector's way (``gc.freeze``), since a full collection
    walking them held the GIL for 50-80 ms, twice per load, and stalled the GUI thread.
    """
    global _warm
    with _warm_lock:
        if scanner_available() and not _warm:
            from timelineview.model.decode import byte_scan  # imported only where it is used: ~100 MB

            byte_scan.warm()
            stack_walk.warm()  # the index build uses it once numba is here
            drop_library_pages("libllvmlite")  # compiling is done: LLVM's code is not needed to run
            gc.collect()
            gc.freeze()
            _warm = True


def scanner_is_warm() -> bool:
    """True when this process has the scanner ready (using it then costs nothing extra)."""
    return _warm and scanner_available()
