"""Which code made a stored result: the package's version and a digest of the source that computes it.

Caches and summaries outlive the code that wrote them. Keyed on both, an upgraded install (or an edited
checkout, whose version does not change) never serves what an older version computed: a version bump that
somebody forgets, or a change of decoding between two releases, still gives a new key.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

_ROOT = Path(__file__).resolve().parent


def package_version() -> str:
    """The package's version (``timelineview.__version__``, which packaging reads too)."""
    from timelineview import __version__

    return __version__


def text_digest(paths: Iterable[Path], root: Path | None = None) -> str:
    """Digest of the text of ``paths`` in their order, each after its name relative to ``root`` when one is
    given (so a rename counts); a file that cannot be read counts as empty."""
    digest = hashlib.blake2b(digest_size=16)
    for path in paths:
        if root is not None:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
        digest.update(b"\0")
    return digest.hexdigest()


def source_digest(root: Path, parts: tuple[str, ...]) -> str:
    """``text_digest`` of every ``.py`` file under ``root``'s sub-packages ``parts``, with their names."""
    return text_digest((path for part in sorted(parts) for path in sorted((root / part).rglob("*.py"))), root)


@functools.cache
def code_stamp(*parts: str) -> str:
    """``<version>+<digest>`` of the package's sub-packages ``parts`` (e.g. ``"model"``): what a stored
    result made by that code is keyed on and records."""
    return f"{package_version()}+{source_digest(_ROOT, parts)}"
