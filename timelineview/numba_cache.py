"""Where the commands keep numba's machine code: the user's cache folder, not beside the package's sources
(a compile that outlives a command must not write into a checkout: removing it meanwhile would fail on the
files that keep appearing). Imports nothing heavy: the console entry calls it before anything else."""

from __future__ import annotations

import os
import sys
from pathlib import Path

NUMBA_FOLDER = "numba"


def user_cache_root() -> Path:
    """timelineview's folder in the user's cache (``XDG_CACHE_HOME``, else ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "timelineview"


def use_user_numba_cache() -> None:
    """Point numba at the user's cache folder unless ``NUMBA_CACHE_DIR`` says where. For the commands'
    processes only, before numba is imported: a library user's own numba functions keep their own cache."""
    if "NUMBA_CACHE_DIR" not in os.environ and "numba" not in sys.modules:
        os.environ["NUMBA_CACHE_DIR"] = str(user_cache_root() / NUMBA_FOLDER)
