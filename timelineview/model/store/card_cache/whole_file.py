"""A cache file written whole or not at all: its bytes go to a ``.partial-*`` file beside it, which is then put in
its place by one rename. A reader sees the old file or the new one, never one cut short; a write killed midway
leaves only the ``.partial-*`` file, which the cache's cleaners remove once stale."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

PARTIAL_PREFIX = ".partial-"  # a write in progress (the cache's cleaners know the prefix)
# a write or a save takes seconds at most: a partial untouched this long was killed, and is removed
STALE_PARTIAL_S = 600.0


def write_whole(final: Path, pieces: Iterable[bytes | memoryview]) -> None:
    """Put ``pieces``, one after the other, as the content of ``final``. Raises ``OSError`` when it cannot be
    written (nothing is left behind then)."""
    fd, tmp = tempfile.mkstemp(prefix=PARTIAL_PREFIX, dir=final.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            for piece in pieces:
                f.write(piece)
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
