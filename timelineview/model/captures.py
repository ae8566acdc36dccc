"""Separate captures of the same cards under one folder (``level0/`` and ``level1/`` of one job, two
``PROF_*`` runs of one device …).

A load reads one capture per card (docs/trace-format.md §1); when a folder holds several, the user has to
be told which one is read and which are left aside, or asked which to open. Two sibling folders hold
separate captures when the same trace file of the same rank lies at the same place under each of them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from timelineview.model.discovery import CardSource, rank_of_file, trace_files


def separate_captures(root: str | os.PathLike) -> list[Path]:
    """The folders under ``root`` that each hold a capture of the same cards, in path order; [] when
    ``root`` is a file or holds one capture. Siblings are looked for at every depth, so a folder holding
    ``job/level0`` and ``job/level1`` beside other data names those two."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = trace_files(root)
    if len(found) < 2:
        return []
    # (parent folder, place under the sibling) -> {sibling: files there}, at every depth below ``root``
    places: dict[tuple[Path, Path], dict[str, list[Path]]] = {}
    for path in found:
        parts = path.relative_to(root).parts
        for depth in range(len(parts) - 1):
            key = (Path(*parts[:depth]), Path(*parts[depth + 1:]))
            places.setdefault(key, {}).setdefault(parts[depth], []).append(path)
    ranks: dict[Path, int | None] = {}  # each file's rank, found once
    captures: set[Path] = set()
    for (parent, _), siblings in places.items():
        if len(siblings) < 2:
            continue
        holders: dict[int | None, set[str]] = {}  # the same file at the same place of the same rank: one card twice
        for sibling, paths in siblings.items():
            for p in paths:
                if p not in ranks:
                    ranks[p] = rank_of_file(p, root)
                holders.setdefault(ranks[p], set()).add(sibling)
        holders.pop(None, None)  # files of no known rank are each a card of their own (discovery.find_cards)
        captures.update(root / parent / s for held in holders.values() if len(held) > 1 for s in held)
    return sorted(captures) if len(captures) > 1 else []


def capture_read(captures: Sequence[Path], sources: Sequence[CardSource]) -> Path | None:
    """Which of ``captures`` a load of their folder reads (the one holding most of the cards' files)."""
    counts = {c: sum(1 for s in sources for f in s.files if c in f.parents) for c in captures}
    best = max(captures, key=lambda c: counts[c], default=None)
    return best if best is not None and counts[best] else None
