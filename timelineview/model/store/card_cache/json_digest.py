"""The SHA-1 of a JSON file the cache writes (an entry's meta, a kept analysis field), kept beside it in
``<name>.sha1``: the columns carry their CRC-32 in the JSON, the JSON itself is checked against this digest, so a
value edited by hand or damaged on disk is never served (it is computed again)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from timelineview.model.store.regular_file import read_regular

SUFFIX = ".sha1"


def digest_path(path: Path) -> Path:
    """Where the digest of ``path`` lies."""
    return path.with_name(path.name + SUFFIX)


def digest_of(data: bytes) -> bytes:
    """The digest file's content for ``data``."""
    return hashlib.sha1(data).hexdigest().encode("ascii")


def matches(path: Path, data: bytes) -> bool:
    """Whether ``data`` (read from ``path``) is what was written with its digest; False when the digest is
    missing or unreadable."""
    try:
        return read_regular(digest_path(path), limit=64).strip() == digest_of(data)
    except OSError:
        return False
