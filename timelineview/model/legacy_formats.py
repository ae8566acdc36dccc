"""Timelines of the CANN 20.x era that are not Chrome trace JSON: recognised, to say so instead of
"no trace files found" or "not a JSON trace".

With CANN 20.x (2020) the hardware scheduler's raw records (``hwts.log.data.*`` under a ``JOB*/data``
folder) were turned by MindSpore 0.x–1.x into a text timeline, ``output_timeline_data_<rank>.txt``: a
header ``op_name, stream_id, start_time(ms), duration(ms)`` then one line per operator run. Neither is
a Chrome trace; timelineview does not read them (the ``timeline_display`` / ``ascend_timeline_display``
JSON made from them is read).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from timelineview.model.load.file_access import read_head

_TEXT_TIMELINE_NAME = re.compile(r"^output_timeline_data_\d+\.txt$")
_TEXT_TIMELINE_HEAD = re.compile(rb"^\s*op_name\s*,\s*stream_id\s*,\s*start_time")
_RAW_HWTS_NAME = re.compile(r"^hwts\.log\.data\.\d+")
HEAD_BYTES = 256  # enough for the text timeline's header line
MAX_LISTED = 3  # files a message names
NOT_SUPPORTED = "not Chrome trace JSON: this format is not supported"
TEXT_TIMELINE = "a CANN 20.x text timeline (lines of op_name, stream_id, start_time(ms), duration(ms))"
RAW_HWTS = "raw CANN 20.x profiling data (hwts.log.data), never exported to a timeline"


def legacy_format(path: Path) -> str | None:
    """What ``path`` is when it is one of these formats (a phrase), else None. Reads at most
    ``HEAD_BYTES`` of a regular file (never blocks on a FIFO)."""
    if _RAW_HWTS_NAME.match(path.name):
        return RAW_HWTS
    if _TEXT_TIMELINE_NAME.match(path.name) or path.suffix in (".txt", ".json", ""):
        head, _ = read_head(path, HEAD_BYTES)
        if head is not None and _TEXT_TIMELINE_HEAD.match(head):
            return TEXT_TIMELINE
    return None


def legacy_files(root: Path) -> list[tuple[Path, str]]:
    """The files of these formats under the folder ``root`` (by name first, then their header), sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if _TEXT_TIMELINE_NAME.match(name) or _RAW_HWTS_NAME.match(name):
                what = legacy_format(Path(folder) / name)
                if what:
                    found.append((Path(folder) / name, what))
    return found


def legacy_problems(found: list[tuple[Path, str]]) -> list[str]:
    """One line per format: the first files of it, what it is, and that it is not read."""
    by_format: dict[str, list[Path]] = {}
    for path, what in found:
        by_format.setdefault(what, []).append(path)
    lines = []
    for what, paths in by_format.items():
        named = ", ".join(str(p) for p in paths[:MAX_LISTED])
        more = f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else ""
        lines.append(f"{named}{more}: {what}, {NOT_SUPPORTED}")
    return lines
