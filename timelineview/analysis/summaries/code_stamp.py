"""Which timelineview made a summary: the package version and a stamp of the code that computes it.

A summary holds numbers the analysis computed; a changed analysis (a rule, a metric, the loader) makes
different numbers from the same traces, often under the same version while it is developed. The stamp
is one digest of the source text of every module that takes part — the loader and stores (``model``),
the analysis (``analysis``) and the card task — so ``summarize`` redoes a card made by other code and a
reader says when a summary was made by another timelineview. No Qt.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from timelineview.provenance import package_version, text_digest

_PACKAGE = Path(__file__).resolve().parents[2]  # the timelineview package folder
STAMPED = ("model", "analysis", "distributed/card_task.py")  # below the package folder
STAMP_CHARS = 16


class CodeStamp(NamedTuple):
    """The package version and the digest of the source that produced a summary."""

    version: str
    code: str

    def describe(self) -> str:
        return f"timelineview {self.version}, code {self.code}"


def source_files() -> list[Path]:
    """The stamped modules, in a fixed order (relative path)."""
    files: list[Path] = []
    for name in STAMPED:
        path = _PACKAGE / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


@functools.cache
def current_stamp() -> CodeStamp:
    """This process' version and code stamp: ``provenance.text_digest`` of the stamped modules with their
    names (computed once: ~90 files)."""
    return CodeStamp(package_version(), text_digest(source_files(), _PACKAGE)[:STAMP_CHARS])
