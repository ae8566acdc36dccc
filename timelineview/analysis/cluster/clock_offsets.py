"""Clock offsets between the cards of a cluster (metrics.md §4), from the ends of their collectives.

Cards opened together are not always one job: a folder of traces captured months apart (runs of other
programs, no collective in common) aligned on one clock would spread over an axis of years, each card a
speck. Cards whose spans, once aligned by their collectives, lie more than :data:`SEPARATE_RUN_GAP_NS`
apart are taken as separate runs: each such group is aligned at its own start, with the first card's."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.model.store.trace_store import TraceStore

# Point-to-point operators do not end at the same instant on both sides: used only as a
# last resort for clock alignment.
_P2P = re.compile(r"send|receive|recv", re.IGNORECASE)
# Spans this far apart on one clock are not one capture of one job: a profiler capture lasts seconds to
# minutes, and the cards of one job record together (their clocks synchronised, or relative to the start)
SEPARATE_RUN_GAP_HOURS = 1
SEPARATE_RUN_GAP_NS = SEPARATE_RUN_GAP_HOURS * 3600 * 10**9


@dataclass(frozen=True)
class ClockAlignment:
    """Per card (in the order given) the ns to subtract from its times, and which cards were taken as
    separate runs (aligned at their own start, not on one clock with the first card)."""

    offsets_ns: np.ndarray
    own_start: list[int]  # positions of the cards aligned at their own start


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


def separate_runs(offsets_ns: np.ndarray, spans: Sequence[tuple[int, int]]) -> ClockAlignment:
    """``offsets_ns`` (by collectives, the first card the reference) with the cards whose aligned spans lie
    more than :data:`SEPARATE_RUN_GAP_NS` from the first card's group moved to start with it: the cards are
    grouped by aligned span (a gap larger than that between two groups, in time order), and each group
    other than the first card's is shifted so that its earliest start is the first card's group's."""
    offsets = np.asarray(offsets_ns, dtype=np.int64).copy()
    if len(offsets) < 2:
        return ClockAlignment(offsets, [])
    starts = np.array([a for a, _ in spans], dtype=np.int64) - offsets
    ends = np.array([b for _, b in spans], dtype=np.int64) - offsets
    order = np.argsort(starts, kind="stable")
    group = np.zeros(len(offsets), dtype=np.int64)
    reach, g = ends[order[0]], 0
    for i in order[1:].tolist():
        if starts[i] - reach > SEPARATE_RUN_GAP_NS:
            g += 1
        group[i] = g
        reach = max(reach, ends[i])
    if g == 0:
        return ClockAlignment(offsets, [])
    first = starts[group == group[0]].min()
    for k in range(g + 1):
        if k != group[0]:
            members = group == k
            offsets[members] += starts[members].min() - first
    return ClockAlignment(offsets, np.flatnonzero(group != group[0]).tolist())
