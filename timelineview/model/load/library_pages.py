"""Hand back the resident pages of a shared library this process no longer runs.

numba needs LLVM (``libllvmlite.so``, ~70 MB resident once touched) to compile the
scanner or to load it from its cache; calling the loaded machine code needs none of it.
Dropping the library's read-only pages from this process keeps that memory out of a
load's footprint; the kernel reads them back from the file if LLVM runs again.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

MADV_DONTNEED = 4


def drop_library_pages(name_part: str) -> int:
    """Advise the kernel to drop this process's pages of the read-only mappings whose
    file name contains ``name_part``; returns the bytes advised (0 where unsupported).

    Only executable, non-writable mappings (the library's code) are touched: their pages
    are plain copies of the file, so dropping them loses nothing. Read-only data is left
    alone, since relocated data (RELRO) is read-only too but differs from the file.
    """
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        madvise = libc.madvise
        madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except (OSError, AttributeError):
        return 0
    advised = 0
    for line in lines:
        parts = line.split(maxsplit=5)
        if len(parts) < 6 or name_part not in parts[5] or parts[1][:3] != "r-x":
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        if madvise(start, end - start, MADV_DONTNEED) == 0:
            advised += end - start
    return advised
