"""Find trace files under a path and group them into cards (one per rank).

Rules follow trace-format.md §1 and §7.2: trace file names, the rank from the file
name, ``profiler_info_<rank>.json``, ``info.json.<dev>`` or folder names; one kind of
file per card (``trace_view.json`` over ``ascend_timeline_display_*`` over ``msprof_*``);
per-iteration and slice files of one card merged; the newest ``PROF_*`` when several.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_KINDS = [  # (kind, pattern), most preferred first
    ("trace_view", re.compile(r"^trace_view\.json(\.gz)?$")),
    ("timeline_display", re.compile(r"^(ascend_|gpu_|cpu_)?timeline_display_(\d+)\.json(\.gz)?$")),
    ("msprof", re.compile(r"^msprof(_slice_\d+)?(_\d+)*\.json(\.gz)?$")),
]
_ITER = re.compile(r"^msprof_(\d+)_(\d+)_(\d+)\.json")
_SLICE = re.compile(r"^msprof_slice_(\d+)_")
_RANK_DIRS = [
    re.compile(r"^rank_(\d+)$"),
    re.compile(r"^rank-(\d+)_"),
    re.compile(r"^rank(\d+)_"),
    re.compile(r"^rank(\d+)$"),
    re.compile(r"^device_(\d+)$"),
]
_PROFILER_INFO = re.compile(r"^profiler_info_(\d+)\.json$")
_PROF_DIR = re.compile(r"^PROF_\d+_(\d+)_")


@dataclass
class CardSource:
    """The files of one card, in the order they are merged."""

    label: str
    rank: int | None
    files: list[Path] = field(default_factory=list)
    kind: str = ""


def trace_kind(name: str) -> str | None:
    for kind, pattern in _KINDS:
        if pattern.match(name):
            return kind
    return None


def _rank_from_name(path: Path) -> int | None:
    m = _KINDS[1][1].match(path.name)
    return int(m.group(2)) if m else None


def _rank_from_folders(path: Path, root: Path) -> int | None:
    """Closest ancestor (up to ``root``'s parent) that names a rank."""
    for folder in [path.parent, *path.parent.parents]:
        try:
            for entry in os.listdir(folder):
                m = _PROFILER_INFO.match(entry)
                if m:
                    return int(m.group(1))
                if entry.startswith("info.json."):
                    rank = _rank_from_info(folder / entry)
                    if rank is not None:
                        return rank
        except OSError:
            pass
        for pattern in _RANK_DIRS:
            m = pattern.match(folder.name)
            if m:
                return int(m.group(1))
        if folder == root.parent or folder == folder.parent:
            break
    return None


def _rank_from_info(path: Path) -> int | None:
    try:
        info = json.loads(path.read_bytes()[: 1 << 20])
    except (OSError, ValueError):
        return None
    rank = info.get("rank_id") if isinstance(info, dict) else None
    if isinstance(rank, int):
        return max(rank, 0)
    dev = path.name.rsplit(".", 1)[-1]
    return int(dev) if dev.isdigit() else None


def _prof_stamp(path: Path) -> str:
    for folder in path.parents:
        m = _PROF_DIR.match(folder.name)
        if m:
            return m.group(1)
    return ""


def _file_order(path: Path) -> tuple:
    m = _ITER.match(path.name)
    if m:
        return (0, int(m.group(2)), int(m.group(3)), path.name)
    m = _SLICE.match(path.name)
    if m:
        return (0, 0, int(m.group(1)), path.name)
    return (1, 0, 0, path.name)


def _walk(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if trace_kind(name):
                found.append(Path(folder) / name)
    return found


def find_cards(path: str | os.PathLike) -> list[CardSource]:
    """Cards under ``path`` (a trace file or a folder), ordered by rank then path."""
    root = Path(path)
    if root.is_file():
        rank = _rank_from_name(root)
        if rank is None:
            rank = _rank_from_folders(root, root.parent)
        label = f"rank {rank}" if rank is not None else root.name
        return [CardSource(label, rank, [root], trace_kind(root.name) or "file")]
    files = _walk(root)
    by_card: dict[object, list[Path]] = {}
    for f in files:
        rank = _rank_from_name(f)
        if rank is None:
            rank = _rank_from_folders(f, root)
        key = rank if rank is not None else ("path", str(f.parent))
        by_card.setdefault(key, []).append(f)
    cards = []
    for key, group in by_card.items():
        chosen = _choose_files(group)
        rank = key if isinstance(key, int) else None
        label = f"rank {rank}" if rank is not None else chosen[0].parent.name or chosen[0].name
        cards.append(CardSource(label, rank, chosen, trace_kind(chosen[0].name) or ""))
    cards.sort(key=lambda c: (c.rank is None, c.rank if c.rank is not None else 0, str(c.files[0])))
    return cards


def _choose_files(group: list[Path]) -> list[Path]:
    """One kind of file per card; merge only per-iteration or slice files of the newest capture."""
    for kind, _ in _KINDS:
        of_kind = [f for f in group if trace_kind(f.name) == kind]
        if not of_kind:
            continue
        if kind == "msprof":
            newest = max(_prof_stamp(f) for f in of_kind)
            of_kind = [f for f in of_kind if _prof_stamp(f) == newest]
            pieces = [f for f in of_kind if _ITER.match(f.name) or _SLICE.match(f.name)]
            if pieces:
                return sorted(pieces, key=_file_order)
            return [sorted(of_kind, key=lambda f: f.name)[-1]]  # newest timestamped export
        return [sorted(of_kind)[0]]  # one capture per card: the first by path
    return group[:1]
