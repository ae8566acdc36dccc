"""Find trace files under a path and group them into cards (one per rank).

Rules follow docs/trace-format.md §1 and §7.2: trace file names, the rank from the file
name, ``profiler_info_<rank>.json``, ``info.json.<dev>`` or folder names; one kind of
file per card (``trace_view.json`` over ``ascend_timeline_display_*`` over ``msprof_*``);
per-iteration and slice files of one card merged; the newest ``PROF_*`` when several.
Only regular files are read (a FIFO or a device under a trace's name would hang or never
end), side files only up to ``SIDE_FILE_BYTES``; a file that cannot be read is named in its
card's ``problems`` instead of stopping the others.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from timelineview.model.database import database_rank, is_database_source
from timelineview.model.database.card import DATABASE_KIND
from timelineview.model.database.devices import database_devices
from timelineview.model.legacy_formats import NOT_SUPPORTED, legacy_files, legacy_format, legacy_problems
from timelineview.model.load.file_access import SIDE_FILE_BYTES, file_problem, read_head
from timelineview.producers import RANK_IN_FILE, TRACE_FILE_KINDS, is_database_file, mindspore, msprof, torch_npu

# (kind, whether a file name is of it), most preferred first: the profiler database over the JSON of the
# same capture (exact integer ns, every table), then the producers' JSON files in their order
_KINDS = [(DATABASE_KIND, is_database_file), *TRACE_FILE_KINDS]
_ITER = msprof.ITERATION_FILE
_SLICE = msprof.SLICE_FILE
_RANK_DIRS = [
    re.compile(r"^rank_(\d+)$"),
    re.compile(r"^rank-(\d+)_"),
    re.compile(r"^rank(\d+)_"),
    re.compile(r"^rank(\d+)$"),
    msprof.DEVICE_FOLDER,
]
_PROFILER_INFO = torch_npu.PROFILER_INFO
_PROF_DIR = msprof.CAPTURE_FOLDER


@dataclass
class CardSource:
    """The files of one card, in the order they are merged."""

    label: str
    rank: int | None
    files: list[Path] = field(default_factory=list)
    kind: str = ""
    problems: list[str] = field(default_factory=list)  # "<path>: <why>" of files found but not read
    skipped: list[str] = field(default_factory=list)  # "<path>: <why>" of readable trace files left aside
    device: int | None = None  # the device of a database holding several (one card each)


def trace_kind(name: str) -> str | None:
    for kind, matches in _KINDS:
        if matches(name):
            return kind
    return None


def _rank_from_name(path: Path) -> int | None:
    m = mindspore.FILE_NAME.match(path.name)
    if m:
        return int(m.group(mindspore.FILE_RANK_GROUP))
    kind = trace_kind(path.name)
    if kind in RANK_IN_FILE:
        return RANK_IN_FILE[kind](path)
    if trace_kind(path.name) == DATABASE_KIND:  # RANK_DEVICE_MAP, else ascend_pytorch_profiler_<rank>.db
        rank = database_rank(path)
        m = torch_npu.DATABASE_WITH_RANK.match(path.name)
        return rank if rank is not None else int(m.group(1)) if m else None
    return None


def _rank_from_folders(path: Path, root: Path, notes: list[str]) -> int | None:
    """Closest ancestor (up to ``root``'s parent) that names a rank; side files that could not
    be read are added to ``notes``."""
    for folder in [path.parent, *path.parent.parents]:
        try:
            for entry in sorted(os.listdir(folder)):
                m = _PROFILER_INFO.match(entry)
                if m:
                    return int(m.group(1))
                if entry.startswith(msprof.DEVICE_INFO_PREFIX):
                    rank = _rank_from_info(folder / entry, notes)
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


def _rank_from_info(path: Path, notes: list[str]) -> int | None:
    head, problem = read_head(path, SIDE_FILE_BYTES)
    if head is None:
        note = f"{path}: {problem}, not read"
        if note not in notes:
            notes.append(note)
        return None
    try:
        info = json.loads(head)
    except ValueError:
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


@dataclass
class _Found:
    path: Path
    problem: str  # "" when the file can be read


def _walk(root: Path) -> list[_Found]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if trace_kind(name):
                path = Path(folder) / name
                found.append(_Found(path, file_problem(path)))
    return found


def trace_files(root: Path) -> list[Path]:
    """The readable trace files under the folder ``root``, in walk order."""
    return [f.path for f in _walk(root) if not f.problem]


def rank_of_file(path: Path, root: Path) -> int | None:
    """The rank ``path`` belongs to, as a load of ``root`` groups it (None: unknown)."""
    rank = _rank_from_name(path)
    return rank if rank is not None else _rank_from_folders(path, root, [])


def _lone_file(path: Path) -> CardSource:
    notes: list[str] = []
    rank = _rank_from_name(path)
    if rank is None:
        rank = _rank_from_folders(path, path.parent, notes)
    label = f"rank {rank}" if rank is not None else path.name
    kind = trace_kind(path.name) or "file"
    problem = file_problem(path)
    if problem:
        return CardSource(label, rank, [], kind, [f"{path}: {problem}", *notes])
    legacy = legacy_format(path)
    if legacy:  # a known format that is not Chrome trace JSON: named, rather than "not a JSON trace"
        return CardSource(label, rank, [], kind, [f"{path}: {legacy}, {NOT_SUPPORTED}", *notes])
    return CardSource(label, rank, [path], kind, notes)


def find_cards(path: str | os.PathLike) -> list[CardSource]:
    """Cards under ``path`` (a trace file or a folder), ordered by rank then path.

    A card whose trace files cannot be read (dangling link, FIFO, no permission …) is still
    returned, with no files and the reasons in ``problems``, so that it is reported.
    """
    root = Path(path)
    if not root.is_dir():
        return _per_device(_lone_file(root))
    groups: dict[object, list[_Found]] = {}
    notes: dict[object, list[str]] = {}
    for item in _walk(root):
        card_notes: list[str] = []
        rank = _rank_from_name(item.path)
        if rank is None:
            rank = _rank_from_folders(item.path, root, card_notes)
        key = rank if rank is not None else ("path", str(item.path.parent))
        groups.setdefault(key, []).append(item)
        kept = notes.setdefault(key, [])
        kept.extend(n for n in card_notes if n not in kept)
    if not groups:  # no trace file: a timeline of an unsupported format is named, rather than none found
        legacy = legacy_files(root)
        return [CardSource(root.name or str(root), None, [], "unsupported", legacy_problems(legacy))] if legacy else []
    cards = [(card, str(items[0].path)) for key, items in groups.items()
             for card in _per_device(_card(key, items, notes[key]))]
    cards.sort(key=lambda c: (c[0].rank is None, c[0].rank if c[0].rank is not None else 0,
                              str(c[0].files[0]) if c[0].files else c[1]))
    return [card for card, _ in cards]


def _card(key: object, items: list[_Found], notes: list[str]) -> CardSource:
    readable = [i.path for i in items if not i.problem]
    problems = [f"{i.path}: {i.problem}" for i in items if i.problem] + notes
    chosen = _choose_files(readable) if readable else []
    first = chosen[0] if chosen else items[0].path
    rank = key if isinstance(key, int) else None
    label = f"rank {rank}" if rank is not None else first.parent.name or first.name
    # each readable file left aside is named once, here (not also among the problems)
    skipped = [f"{path}: {_why_skipped(path, first, label)}" for path in readable if path not in chosen]
    return CardSource(label, rank, chosen, trace_kind(first.name) or "", problems, skipped)


def _per_device(card: CardSource) -> list[CardSource]:
    """A database holding several devices as one card per device (by ``RANK_DEVICE_MAP``), each
    with the rank the map gives it; the card's notes go with the first."""
    if len(card.files) != 1 or not is_database_source(card):
        return [card]
    devices = database_devices(card.files[0])
    if len(devices) < 2:
        return [card]
    ranks = [d.rank for d in devices]
    distinct = None not in ranks and len(set(ranks)) == len(ranks)
    out = []
    for i, d in enumerate(devices):
        label = f"rank {d.rank}" if distinct else f"{card.label} device {d.device}"
        out.append(replace(card, label=label, rank=d.rank if distinct else card.rank, device=d.device,
                           problems=list(card.problems) if i == 0 else [],
                           skipped=list(card.skipped) if i == 0 else []))
    return out


def _why_skipped(path: Path, chosen: Path, label: str) -> str:
    """Why ``path`` is not read beside ``chosen``, the card's first file."""
    kind, chosen_kind = trace_kind(path.name), trace_kind(chosen.name)
    if chosen_kind == DATABASE_KIND and kind != DATABASE_KIND:
        return f"not read: the database {chosen.name} of the same capture is read instead (exact integer ns times)"
    if kind != chosen_kind:
        return (f"skipped: {label} is read from {chosen.name} (one kind of trace file per card: trace_view.json, "
                f"then *timeline_display_*.json, then msprof_*.json)")
    if kind == msprof.KIND and _prof_stamp(path) != _prof_stamp(chosen):
        return f"skipped: {label} is read from the newest capture, {chosen}"
    return f"skipped: {label} is read from {chosen} (one capture per card: the first by path)"


def _choose_files(group: list[Path]) -> list[Path]:
    """One kind of file per card; merge only per-iteration or slice files of the newest capture."""
    for kind, _ in _KINDS:
        of_kind = [f for f in group if trace_kind(f.name) == kind]
        if not of_kind:
            continue
        if kind == msprof.KIND:
            newest = max(_prof_stamp(f) for f in of_kind)
            of_kind = [f for f in of_kind if _prof_stamp(f) == newest]
            pieces = [f for f in of_kind if _ITER.match(f.name) or _SLICE.match(f.name)]
            if pieces:
                return sorted(pieces, key=_file_order)
            return [sorted(of_kind, key=lambda f: f.name)[-1]]  # newest timestamped export
        if kind == DATABASE_KIND:  # torch_npu's (framework and device) over msprof's, the newest msprof
            return [max(of_kind, key=lambda f: (torch_npu.is_database(f.name), _prof_stamp(f), f.name))]
        return [sorted(of_kind)[0]]  # one capture per card: the first by path
    return group[:1]
