"""glibc heap hygiene for a load: one arena for the decode threads, large blocks mapped alone
while a database loads, and free pages handed back before the index build.

A load frees many medium-sized blocks (each task's arrays) between longer-lived ones, so
glibc's heap ends up with tens of megabytes free inside it that stay resident. None of
these does anything where the C library is not glibc.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import threading
from collections.abc import Iterator

M_ARENA_MAX = -8
M_MMAP_THRESHOLD = -3
M_TRIM_THRESHOLD = -1
MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's starting value, kept through a load
MMAP_THRESHOLD_CEILING = 32 << 20  # the most glibc raises it to by itself (64-bit): set again after a load
# with the ceiling, the free top of the heap kept up to where glibc's own rule (twice the threshold) keeps it
TRIM_THRESHOLD_AFTER = 2 * MMAP_THRESHOLD_CEILING

_loads = 0  # loads under way with the threshold fixed
_loads_lock = threading.Lock()


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas() -> None:
    """One malloc arena for all threads. glibc gives each allocating thread its own, and
    freed blocks stay in the arena that held them: with decode threads that kept ~40 MB
    more resident on a 300 MB load. The threads allocate little between long compiled
    scans, so sharing one arena costs them no measurable time."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, 1)


def fixed_mmap_threshold() -> None:
    """Every block of ``MMAP_THRESHOLD_BYTES`` or more gets pages of its own, given back when freed.

    glibc raises the threshold to the size of each large block freed (up to 32 MB), so after
    the first few columns are let go, the load's column-sized arrays come from the heap, and
    what they free stays resident between the blocks that live on. Fixing the threshold
    lowered the peak of a 307 MB database's load from 991 to 730 MB. A database load sets it for
    its own time only (``load_mmap_threshold``); a JSON load does not: its decode and merge make
    many array-sized temporaries, each then mapped and faulted in anew, which cost a 363 MB msprof
    trace 0.3 s of CPU (1.55 against 1.25 s) for 5 % less at its peak (305 against 322 MB).
    """
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


@contextlib.contextmanager
def load_mmap_threshold() -> Iterator[None]:
    """``fixed_mmap_threshold`` while loads run; once the last one under way ends, the threshold is
    ``MMAP_THRESHOLD_CEILING`` (glibc no longer raises it by itself once it was set). Kept fixed after
    the load, it slowed what follows: an analysis of many array-sized temporaries, each mapped and
    faulted in anew, ran ~25 % slower (a whole-card ``card_document`` of 2 M slices: 0.77 s against
    0.62 s, with 20 MB more at its peak once the ceiling is set again). The trim threshold is set with
    it (``TRIM_THRESHOLD_AFTER``): glibc stops moving that one too once the threshold was set, and left
    at its 128 KiB the heap's free top went back to the kernel after each large temporary, to be faulted
    in again by the next (``stats_document`` of a 363 MB trace: 0.45 against 0.37 s of CPU)."""
    global _loads
    libc = _glibc()
    if libc is None:
        yield
        return
    with _loads_lock:
        _loads += 1
        fixed_mmap_threshold()
    try:
        yield
    finally:
        with _loads_lock:
            _loads -= 1
            if not _loads:
                libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_CEILING)
                libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_AFTER)


def trim() -> bool:
    """Hand the free pages inside the heap back to the kernel (``malloc_trim``); True when
    some were. Before the index build of a 300 MB load this lowered the peak from ~282 MB
    to ~254 MB, for ~6 ms and the page faults of reusing those pages (~25 ms)."""
    libc = _glibc()
    return libc is not None and bool(libc.malloc_trim(0))
