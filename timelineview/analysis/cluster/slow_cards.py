"""Slow cards (metrics.md §4): a verdict that stays right as clusters grow.

Only the two causes the tuning method names flag a card: a slow node (``compute_us``) and a slow
data pipeline (``step_interval_us``). Step time is the same on every card of a lockstep job, and the
card with the most pure communication is usually the one that *waits* for a slow card: both are
shown per card, neither flags anybody.

Each card's value is its median over its steps (the mean below 3 steps), so one stalled step does
not make a card slow. A card is flagged when (1) it exceeds the cluster median by a practical size,
max(5 % of the median, 1 % of the median step time); (2) its robust z-score passes z_N (the
correction for N cards of :mod:`~timelineview.analysis.worst_of_many`: about 1 % of healthy clusters
name anyone, whatever N); (3) it is above that threshold in at least half of its steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.worst_of_many import median_and_sigma, robust_z, z_threshold

SLOW_CARD_METRICS = ("compute_us", "step_interval_us")  # the metrics that can flag a card
STEP_TIME_KEY = "span_us"  # a step's length in the step documents
MIN_CARDS_FOR_SLOW = 3
MIN_STEPS_FOR_MEDIAN = 3  # fewer steps: their mean
MIN_RELATIVE_EXCESS = 0.05
# A metric that is tiny next to the step (a 50 µs excess of a 0.5 ms step interval in a 13 ms step)
# must not flag a card nobody would call slow: the excess must also pass 1 % of the median step time.
MIN_STEP_SHARE_EXCESS = 0.01
MIN_SHARE_OF_STEPS_ABOVE = 0.5  # consistency: above the threshold in at least half of its steps


@dataclass(frozen=True)
class SlowCard:
    """One flag: ``card`` is slow on ``metric`` (its ``value`` against the cluster ``median``, µs),
    with its robust z-score (None when the cards' MAD is 0), how many of its ``steps`` were above the
    ``threshold`` (µs), and the z the rule asked for (``z_required``)."""

    card: str
    metric: str
    value: float
    median: float
    z: float | None
    steps_above: int
    steps: int
    threshold: float
    z_required: float

    def document(self) -> dict:
        return {"card": self.card, "metric": self.metric, "value": self.value, "median": self.median,
                "z": self.z, "steps_above": self.steps_above, "steps": self.steps, "threshold": self.threshold,
                "z_required": self.z_required}


def step_values(card: dict, key: str) -> np.ndarray:
    """The card's per-step values of ``key`` (its card-level value when it has no steps)."""
    values = [s[key] for s in card.get("steps") or [] if s.get(key) is not None]
    if not values and card.get(key) is not None:
        values = [card[key]]
    return np.asarray(values, dtype=np.float64)


def typical(values: np.ndarray) -> float:
    """A card's value over its steps: the median, the mean below 3 steps (NaN without steps)."""
    if not len(values):
        return float("nan")
    return float(np.median(values) if len(values) >= MIN_STEPS_FOR_MEDIAN else np.mean(values))


def median_step_time(card_docs: list[dict]) -> float:
    """Median over cards of each card's typical step time (µs)."""
    values = [typical(step_values(c, STEP_TIME_KEY)) for c in card_docs]
    values = [v for v in values if np.isfinite(v)]
    return float(np.median(values)) if values else 0.0


@dataclass(frozen=True)
class Threshold:
    """The slow-card threshold of one metric over N cards."""

    median: float
    sigma: float  # 1.4826 × MAD
    practical: float  # the smallest excess that counts
    z_required: float

    @property
    def value(self) -> float:
        """Above this a value passes both the practical and the statistical size."""
        return self.median + max(self.practical, self.z_required * self.sigma)


def threshold(values: np.ndarray, median_step_us: float) -> Threshold:
    """The threshold over the cards' ``values`` (finite ones), with the floor of 1 % of ``median_step_us``."""
    values = np.asarray(values, dtype=np.float64)
    median, sigma = median_and_sigma(values)
    practical = max(MIN_RELATIVE_EXCESS * abs(median), MIN_STEP_SHARE_EXCESS * abs(median_step_us))
    return Threshold(median, sigma, practical, z_threshold(len(values)))


def _metric_flags(card_docs: list[dict], metric: str, median_step_us: float) -> list[SlowCard]:
    per_card = [step_values(c, metric) for c in card_docs]
    values = np.array([typical(v) for v in per_card])
    have = np.isfinite(values)
    if have.sum() < MIN_CARDS_FOR_SLOW:
        return []
    t = threshold(values[have], median_step_us)
    z = robust_z(values, t.median, t.sigma)
    out = []
    for k in np.flatnonzero(have & (values > t.median) & (values - t.median >= t.practical)
                            & ((t.sigma == 0) | (z > t.z_required))).tolist():
        steps = per_card[k]
        above = int((steps > t.value).sum())
        if above < MIN_SHARE_OF_STEPS_ABOVE * len(steps):
            continue  # a stall or two, not a slow card
        out.append(SlowCard(card_docs[k]["card"], metric, float(values[k]), t.median,
                            float(z[k]) if t.sigma > 0 else None, above, len(steps), t.value, t.z_required))
    return out


def slow_cards(card_docs: list[dict]) -> list[SlowCard]:
    """The slow-card flags of metrics.md §4 over ``card_docs`` ({"card", "steps": [step metrics]}),
    in the cards' order (then by metric)."""
    if len(card_docs) < MIN_CARDS_FOR_SLOW:
        return []
    step_us = median_step_time(card_docs)
    flagged = [f for metric in SLOW_CARD_METRICS for f in _metric_flags(card_docs, metric, step_us)]
    order = {c["card"]: i for i, c in enumerate(card_docs)}
    flagged.sort(key=lambda f: (order[f.card], SLOW_CARD_METRICS.index(f.metric)))
    return flagged
