"""Clock offsets between the cards of a cluster (metrics.md §4), from the ends of their collectives."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.model.store.trace_store import TraceStore

# Point-to-point operators do not end at the same instant on both sides: used only as a
# last resort for clock alignment.
_P2P = re.compile(r"send|receive|recv", re.IGNORECASE)


def collective_ends(store: TraceStore, cls: Classification) -> tuple[list[str], np.ndarray]:
    """Names and ends of the card's communication operators, in start order."""
    sl = store.slices
    idx = np.flatnonzero(cls.communication)
    idx = idx[np.lexsort((sl.end[idx], sl.start[idx]))]
    names = [store.strings[i] if i >= 0 else "" for i in sl.name[idx]]
    return names, sl.end[idx]


def _keyed(names: list[str], ends: np.ndarray, skip_p2p: bool) -> dict[tuple[str, int], int]:
    """{(name, k-th occurrence of that name): end}."""
    seen: dict[str, int] = defaultdict(int)
    out = {}
    for name, end in zip(names, ends, strict=True):
        if skip_p2p and _P2P.search(name):
            continue
        out[(name, seen[name])] = int(end)
        seen[name] += 1
    return out


def _offset(ref: tuple[list[str], np.ndarray], card: tuple[list[str], np.ndarray]) -> int:
    """Median end difference (card − ref) over matching collectives; 0 when nothing matches."""
    for skip_p2p in (True, False):
        a, b = _keyed(*ref, skip_p2p), _keyed(*card, skip_p2p)
        common = a.keys() & b.keys()
        if common:
            diffs = np.array([b[k] - a[k] for k in common], dtype=np.int64)
            return int(round(float(np.median(diffs))))
    # Same order only: producers that number their operators differently per card.
    n = min(len(ref[1]), len(card[1]))
    if n == 0:
        return 0
    return int(round(float(np.median(card[1][:n] - ref[1][:n]))))


def clock_offsets(stores: list[TraceStore],
                  classifications: list[Classification] | None = None) -> np.ndarray:
    """Per card, ns to subtract from its timestamps to align it with the first card."""
    if not stores:
        return np.zeros(0, dtype=np.int64)
    if classifications is None:
        classifications = [classify(s) for s in stores]
    return offsets_from_ends([collective_ends(s, c) for s, c in zip(stores, classifications, strict=True)])


def offsets_from_ends(ends: list[tuple[list[str], np.ndarray]]) -> np.ndarray:
    """Per card, ns to subtract to align it with the first, from each card's collective names and ends
    (``collective_ends``: what a summary keeps of a card)."""
    if not ends:
        return np.zeros(0, dtype=np.int64)
    return np.array([0] + [_offset(ends[0], e) for e in ends[1:]], dtype=np.int64)
