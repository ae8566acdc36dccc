"""Cluster analysis (metrics.md §4): clock offsets between cards and slow cards."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.model.store.trace_store import TraceStore

# Point-to-point operators do not end at the same instant on both sides: used only as a
# last resort for clock alignment.
_P2P = re.compile(r"send|receive|recv", re.IGNORECASE)

SLOW_CARD_METRICS = {
    # output name: per-step key averaged over the card's steps
    "step_time_us": "span_us",
    "compute_us": "compute_us",
    "pure_communication_us": "pure_communication_us",
    "step_interval_us": "step_interval_us",
}
MIN_CARDS_FOR_SLOW = 3
MAD_SCALE = 1.4826  # MAD of a normal distribution -> its standard deviation
MAD_FACTOR = 3.0
MIN_RELATIVE_EXCESS = 0.05
# A metric that is tiny next to the step (a 50 µs excess of a 0.5 ms step interval in a 13 ms step)
# must not flag a card nobody would call slow: the excess must also pass 1 % of the median step time.
MIN_STEP_SHARE_EXCESS = 0.01


def _collective_ends(store: TraceStore, cls: Classification) -> tuple[list[str], np.ndarray]:
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
    ends = [_collective_ends(s, c) for s, c in zip(stores, classifications, strict=True)]
    return np.array([0] + [_offset(ends[0], e) for e in ends[1:]], dtype=np.int64)


def _mean_over_steps(card: dict, key: str) -> float:
    steps = card.get("steps") or []
    values = [s[key] for s in steps if s.get(key) is not None]
    if values:
        return float(np.mean(values))
    return float(card.get(key) or 0.0)


def slow_threshold(values: np.ndarray, median_step_us: float = 0.0) -> tuple[float, float]:
    """(median, threshold): a value above median + max(5 % of median, 3 × 1.4826 × MAD,
    1 % of the median step time) is slow."""
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    excess = max(MIN_RELATIVE_EXCESS * abs(median), MAD_FACTOR * MAD_SCALE * mad,
                 MIN_STEP_SHARE_EXCESS * abs(median_step_us))
    return median, median + excess


def median_step_time(card_docs: list[dict]) -> float:
    """Median over cards of the mean step time (``span_us`` over steps), µs."""
    return float(np.median([_mean_over_steps(c, SLOW_CARD_METRICS["step_time_us"]) for c in card_docs]))


def slow_cards(card_docs: list[dict]) -> list[dict]:
    """Cards above median + max(5 % of median, 3 × 1.4826 × MAD, 1 % of the median step time) on any
    slow-card metric (metrics.md §4)."""
    if len(card_docs) < MIN_CARDS_FOR_SLOW:
        return []
    step_us = median_step_time(card_docs)
    flagged = []
    for metric, key in SLOW_CARD_METRICS.items():
        values = np.array([_mean_over_steps(c, key) for c in card_docs])
        median, threshold = slow_threshold(values, step_us)
        for card, value in zip(card_docs, values, strict=True):
            if value > threshold:
                flagged.append({"card": card["card"], "metric": metric, "value": float(value),
                                "median": median})
    order = {c["card"]: i for i, c in enumerate(card_docs)}
    flagged.sort(key=lambda f: order[f["card"]])
    return flagged
