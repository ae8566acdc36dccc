"""Slow operators (metrics.md §7.1 with §4's machinery): an op type, or an (op type, input shapes), that one card
runs slower than the other cards do. No Qt.

Each op type is judged on its mean task time on each card against the cards' median of it, so that a card that
runs an op type more often (another pipeline stage) is not called slow for it, and only among the cards that run
it (an op type of one stage alone is a different workload, not a slow one). A card slow all over (a frequency
drop makes every operator 1.3× slower) is the slow-card verdict's (``slow_compute``): each card's common factor,
the median over its op types of their ratios to the cards' median, is divided out first, so an op type is named
only when it is slower than the rest of that card's operators are.

What stands out is decided as for slow cards (:func:`~timelineview.analysis.findings.standing.stand_out`): the
relative excess must pass a robust z-score of z_N for N = op types × cards (the spread pooled over all of them, or
the op type's own spread over the cards when larger) and the practical floor — 5 % of the cards' median, and an
excess per step of at least 1 % of the median step time. The same rule judges (op type, input shapes) rows among
shapes × cards; a shape row of an op type already named on that card is part of that verdict, not another one.
The values are read off each card's op-type table (totals and counts), so a session over traces and one over
summaries judge the same figures.

Where the card's table is also split by step, the verdict must hold in at least half of the steps in which the
card runs the key (§4's consistency): the key's mean task time in each such step, against the same reference (the
cards' median mean × the card's factor), must clear the practical floor (the whole run passed the statistical
test). One stalled step that lifts a run's mean does not make an operator slow.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.cluster.slow_cards import (
    MIN_CARDS_FOR_SLOW,
    MIN_RELATIVE_EXCESS,
    MIN_SHARE_OF_STEPS_ABOVE,
    MIN_STEP_SHARE_EXCESS,
)
from timelineview.analysis.findings.standing import Standing, stand_out
from timelineview.analysis.worst_of_many import median_and_sigma

MIN_TYPES_FOR_CARD_FACTOR = 3  # fewer op types on a card: its common factor is not measured (taken as 1)


@dataclass(frozen=True)
class CardOpTimes:
    """One card's operator table as the rule reads it: per key (an op type, or (op type, input shapes)) its task
    count and total time (µs), and the card's number of steps; ``per_step``, when the card's table is split by
    step, per key its (tasks per step, µs per step)."""

    card: str
    steps: int
    rows: dict[Hashable, tuple[int, float]]
    per_step: dict[Hashable, tuple[Sequence[int], Sequence[float]]] = field(default_factory=dict)


@dataclass(frozen=True)
class OperatorVerdict:
    """``key`` runs slower on ``card``: ``us_per_step`` there against ``reference_us_per_step`` (what the card
    would spend at the cards' median mean task time, times its own common factor ``card_factor``)."""

    key: Hashable
    card: str
    us_per_step: float
    reference_us_per_step: float
    mean_us: float  # the card's mean task time of the key
    median_mean_us: float  # the cards' median of it
    card_factor: float
    relative_excess: float  # mean / (median mean × card factor) − 1
    z: float | None  # None when the spread is 0 (the practical floor alone decided)
    z_required: float
    compared: int  # N: op types (shapes) × cards judged
    steps_above: int | None = None  # steps in which the key's mean clears the level (None: no per-step table)
    steps_judged: int = 0  # steps in which the card runs the key

    @property
    def excess_us_per_step(self) -> float:
        return self.us_per_step - self.reference_us_per_step


def _grid(cards: Sequence[CardOpTimes]) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """(keys, mean task µs [card, key] (NaN where absent), per-step µs [card, key] (NaN where absent))."""
    keys = sorted({k for c in cards for k in c.rows}, key=repr)
    column = {k: j for j, k in enumerate(keys)}
    mean = np.full((len(cards), len(keys)), np.nan)
    per_step = np.full((len(cards), len(keys)), np.nan)
    for i, c in enumerate(cards):
        steps = max(int(c.steps), 1)
        for k, (count, total) in c.rows.items():
            if count > 0 and total > 0:
                mean[i, column[k]] = total / count
                per_step[i, column[k]] = total / steps
    return keys, mean, per_step


def _steps_above(card: CardOpTimes, key: Hashable, reference_mean: float, level: float) -> tuple[int, int] | None:
    """(steps in which the key's mean task time is at least ``level`` relative excess over ``reference_mean``,
    steps in which the card runs the key), or None without a per-step table of the key."""
    split = card.per_step.get(key)
    if split is None:
        return None
    counts, totals = np.asarray(split[0], np.float64), np.asarray(split[1], np.float64)
    runs = counts > 0
    if not runs.any():
        return None
    relative = totals[runs] / counts[runs] / reference_mean - 1.0
    return int((relative >= level).sum()), int(runs.sum())


def _step_level(s: Standing) -> float:
    """The relative excess a step must reach: the practical floor over the median. The spread behind the z-score
    is the run's (means over all steps); a step's mean is noisier, so the z part would reject true verdicts on
    ordinary step-to-step noise (it dropped 1 in 20 planted 1.5× op types in the calibration)."""
    return s.median + s.practical


def slow_operators(cards: Sequence[CardOpTimes], median_step_us: float) -> list[OperatorVerdict]:
    """The (key, card) pairs whose mean task time stands out above the cards' (see the module's words), largest
    excess per step first."""
    if len(cards) < MIN_CARDS_FOR_SLOW:
        return []
    keys, mean, per_step = _grid(cards)
    if not keys:
        return []
    present = np.isfinite(mean)
    judged_key = present.sum(axis=0) >= MIN_CARDS_FOR_SLOW
    with np.errstate(all="ignore"):
        median_mean = np.where(judged_key, np.nanmedian(np.where(judged_key, mean, 0.0), axis=0), np.nan)
        median_step = np.where(judged_key, np.nanmedian(np.where(judged_key, per_step, 0.0), axis=0), np.nan)
        ratio = mean / median_mean
    judged = present & judged_key[None, :]
    factor = np.ones(len(cards))
    for i in range(len(cards)):
        mine = ratio[i, judged[i]]
        if len(mine) >= MIN_TYPES_FOR_CARD_FACTOR:
            factor[i] = float(np.median(mine))
    relative = np.where(judged, ratio / factor[:, None] - 1.0, np.nan)
    compared = int(judged.sum())
    if compared == 0:
        return []
    pooled = median_and_sigma(relative[judged])[1]
    out = []
    for j in np.flatnonzero(judged_key).tolist():
        practical = max(MIN_RELATIVE_EXCESS, MIN_STEP_SHARE_EXCESS * median_step_us / median_step[j]) \
            if median_step[j] > 0 else np.inf
        s = stand_out(relative[:, j], practical, compared, pooled)
        for i in np.flatnonzero(s.passes).tolist():
            consistent = _steps_above(cards[i], keys[j], float(median_mean[j] * factor[i]), _step_level(s))
            above, judged_steps = consistent if consistent is not None else (None, 0)
            if above is not None and above < np.ceil(MIN_SHARE_OF_STEPS_ABOVE * judged_steps):
                continue  # a step or two, not the card's operator
            reference = per_step[i, j] / (1.0 + relative[i, j])
            out.append(OperatorVerdict(keys[j], cards[i].card, float(per_step[i, j]), float(reference),
                                       float(mean[i, j]), float(median_mean[j]), float(factor[i]),
                                       float(relative[i, j]), float(s.z[i]) if s.sigma > 0 else None, s.z_required,
                                       compared, above, judged_steps))
    return sorted(out, key=lambda v: (-v.excess_us_per_step, v.card, repr(v.key)))
