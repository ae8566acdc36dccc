"""Marks: every place a surface singles out one item among many, decided in one place (metrics.md §4,
"every mark is a verdict").

A red operator cell, "the others wait for rank N", a framed heat-map cell and the cards ``diff`` lists
first each pick the worst of many. Each is decided here with the machinery of the slow cards
(:mod:`~timelineview.analysis.worst_of_many`): a robust z-score that must pass z_N for N = the number of
items compared (so a healthy run marks anything about 1 % of the time, whatever its size), a practical
floor (5 % of the median, 1 % of the median step time), and ties never credited to one member.
:func:`session_marks` lists every mark a session's surfaces show, so the calibration benchmark can count
them like the findings. No Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from timelineview.analysis.cluster.slow_cards import (
    MIN_CARDS_FOR_SLOW,
    MIN_RELATIVE_EXCESS,
    MIN_STEP_SHARE_EXCESS,
    SLOW_CARD_METRICS,
    SlowCard,
    flag_metric,
    judge_metric,
    median_step_time,
    step_values,
    typical,
)
from timelineview.analysis.findings.standing import Standing, single_out, stand_out  # noqa: F401 (Standing: of marks too)
from timelineview.analysis.worst_of_many import median_and_sigma

NS_PER_US = 1000.0
# the surfaces that mark, as named in each Mark
SLOW_CARD_SURFACE = "cluster.slow_card"  # the comparison table's red card (the slow-card verdict itself)
MEMORY_SURFACE = "cluster.memory"  # the comparison table's red peak reserved memory (memory_imbalance)
OPERATORS_SURFACE = "operators"  # a red "Max on" cell of the operator comparison
WAITED_FOR_SURFACE = "communication.waited_for"  # a collective's "Waited for" cell
HEADLINE_SURFACE = "communication.headline"  # "the others wait for rank N"
HEAT_MAP_SURFACE = "heat_map"  # a framed heat-map cell
DIFF_SURFACE = "diff"  # a card diff lists first: its own compute or step interval changed
SLOW_OPERATOR_SURFACE = "findings.slow_operator"  # an op type (or shape) named slow on one card

LATENESS = "lateness_us"  # per card and step: how much less it waited than the typical card, summed
HEAT_MAP_METRICS = SLOW_CARD_METRICS  # the metrics whose cells can be marked: the ones that flag a card
MIN_WAIT_SPREAD_NS = 1_000  # a collective whose least wait is not 1 µs below every other credits nobody


@dataclass(frozen=True)
class Mark:
    """One mark a surface shows: on ``surface``, ``item`` is singled out with ``value`` against the
    ``reference`` it was compared with (the same unit), for ``reason`` (the verdict in words)."""

    surface: str
    item: str
    value: float
    reference: float
    reason: str


# ------------------------------------------------------------------------------------------------ machinery
def _floor(median: float, median_step: float) -> float:
    """§4's practical size: 5 % of the median, 1 % of the median step time (same unit)."""
    return max(MIN_RELATIVE_EXCESS * abs(median), MIN_STEP_SHARE_EXCESS * abs(median_step))


# ------------------------------------------------------------------------------------------------ operators
@dataclass(frozen=True)
class OperatorVerdict:
    """An operator much slower on one card (``card``): its total there against the cards' median (ns)."""

    name: str
    card: str
    total_ns: float
    median_ns: float
    z: float | None
    z_required: float


def operator_verdicts(across: Sequence[Any], span_ns: float) -> dict[str, OperatorVerdict]:
    """The operators of ``across`` (``OperatorAcrossCards`` with their per-card totals) whose total on one
    card stands out: above the cards' median by max(5 % of it, 1 % of the median card span ``span_ns``) and
    by z_N for N = operators × cards. An operator that one card alone runs slower is a verdict; the
    operators of a card slow all over are not each a verdict unless each carries a practical share."""
    judged = [o for o in across if o.per_card_ns is not None and len(o.per_card_ns) >= MIN_CARDS_FOR_SLOW]
    compared = sum(len(o.per_card_ns) for o in judged)
    relative = _relative_spread(judged)
    out = {}
    for o in judged:
        totals = np.asarray(o.per_card_ns, dtype=np.float64)
        median = float(np.median(totals))
        s = stand_out(totals, _floor(median, span_ns), compared, relative * median)
        k = single_out(s)
        if k is None or totals[k] != o.max_total_ns:
            continue
        out[o.name] = OperatorVerdict(o.name, o.max_card, float(totals[k]), median,
                                      float(s.z[k]) if s.sigma > 0 else None, s.z_required)
    return out


def _relative_spread(across: Sequence[Any]) -> float:
    """1.4826 × the MAD of every operator's per-card totals relative to its median (total / median − 1),
    pooled over the operators: how much an operator's total varies from card to card, measured on operators
    × cards values rather than on the few cards of one operator."""
    ratios = [np.asarray(o.per_card_ns, dtype=np.float64) / m - 1.0
              for o in across if (m := float(np.median(o.per_card_ns))) > 0]
    if not ratios:
        return 0.0
    return median_and_sigma(np.concatenate(ratios))[1]


def operator_reason(v: OperatorVerdict) -> str:
    """'3.20 ms on rank 5 against a median of 2.46 ms over the cards, z 14 (needs 5.9)'."""
    z = f", z {v.z:.1f} (needs {v.z_required:.1f})" if v.z is not None else ", the other cards all equal"
    return (f"{v.total_ns / 1e6:.3f} ms on {v.card} against a median of {v.median_ns / 1e6:.3f} ms over the "
            f"cards{z}")


# ------------------------------------------------------------------------------------------------ communication
@dataclass(frozen=True)
class WaitVerdict:
    """Who the others wait for: the cards flagged on their lateness (the slow-card rule over each card's
    lateness per step) and, per collective, the flagged card that waited least (-1: nobody)."""

    flags: list[SlowCard]
    waited_for: np.ndarray  # int64 per collective: the card column credited, -1 for nobody


def lateness_documents(cards: list[str], wait: np.ndarray, step: np.ndarray) -> list[dict]:
    """Per card, its lateness in each step (µs): over the step's collectives, the cards' median wait minus
    its own (a card that arrives last waits least: the others wait for it), as slow-card documents."""
    with np.errstate(all="ignore"):
        deficit = np.nanmedian(wait, axis=1, keepdims=True) - wait if len(wait) else wait
    steps = sorted(set(step.tolist()))
    docs = []
    for c, card in enumerate(cards):
        rows = []
        for s in steps:
            in_step = (step == s) & np.isfinite(deficit[:, c])
            if in_step.any():
                rows.append({"step": int(s), LATENESS: float(deficit[in_step, c].sum()) / NS_PER_US})
        docs.append({"card": card, "steps": rows})
    return docs


def _untied(docs: list[dict], flags: list[SlowCard], median_step_us: float) -> list[SlowCard]:
    """``flags`` without the cards another card ties with: a card as late as a flagged one (within the
    threshold) that the rule's consistency checks left out. Which of two equally late cards passes those
    checks is chance, and a tie is never credited to one member."""
    if not flags:
        return flags
    v = judge_metric(docs, LATENESS, median_step_us)
    centre = float(np.nanmedian(v.excess))
    flagged = {f.card for f in flags}
    rivals = [v.excess[k] for k, d in enumerate(docs)
              if d["card"] not in flagged and np.isfinite(v.excess[k]) and v.excess[k] - centre >= v.threshold]
    if not rivals:
        return flags
    index = {d["card"]: k for k, d in enumerate(docs)}
    return [f for f in flags if v.excess[index[f.card]] - v.threshold > max(rivals)]


def wait_verdict(cards: list[str], wait: np.ndarray, step: np.ndarray, median_step_us: float) -> WaitVerdict:
    """The cards the others wait for, judged like slow cards (robust z over cards, corrected for their
    number, a practical floor of 1 % of the median step time ``median_step_us``, in at least half of the
    steps), and per collective the one of them that waited least, at least max(1 µs, that floor) below
    every other card (ties credit nobody)."""
    docs = lateness_documents(cards, wait, step)
    flags = _untied(docs, flag_metric(docs, LATENESS, median_step_us), median_step_us) if len(wait) else []
    who = np.full(len(wait), -1, np.int64)
    flagged = [cards.index(f.card) for f in flags]
    gap = max(float(MIN_WAIT_SPREAD_NS), MIN_STEP_SHARE_EXCESS * median_step_us * NS_PER_US)
    for r in range(len(wait)):
        w = wait[r]
        present = np.flatnonzero(np.isfinite(w))
        if len(present) < 2:
            continue
        order = present[np.argsort(w[present], kind="stable")]
        least, second = int(order[0]), int(order[1])
        if least in flagged and w[second] - w[least] >= gap:
            who[r] = least
    return WaitVerdict(flags, who)


def headline_text(flags: Sequence[SlowCard]) -> str:
    """'the others wait for rank 5: it arrives 1.416 ms per step after the typical card (z 9.2, needs 3.4) in
    4 of 4 steps'; '' without a verdict."""
    if not flags:
        return ""

    def why(f: SlowCard, who: str) -> str:
        z = f"z {f.z:.1f}, needs {f.z_required:.1f}" if f.z is not None else "the other cards all equal"
        return (f"{who} arrives {f.value / 1000:.3f} ms per step after the typical card ({z}) in {f.steps_above} "
                f"of {f.steps} steps")

    if len(flags) == 1:
        return f"the others wait for {flags[0].card}: {why(flags[0], 'it')}"
    return f"the others wait for {' and '.join(f.card for f in flags)}: " + "; ".join(why(f, f.card) for f in flags)


# ------------------------------------------------------------------------------------------------ heat map
@dataclass(frozen=True)
class HeatCell:
    """A (card, step) cell of a metric framed on the heat map."""

    row: int  # the card's row (comparison order)
    step: int
    value: float
    reference: float  # the cards' median in that step


def comparison_heat_cells(comparison: Any, metric: str) -> list[HeatCell]:
    """The framed cells of ``metric`` over a ``ClusterComparison``: the steps in which a card flagged slow
    on that metric (§4) is above the flag's threshold, the steps its verdict counted. A cell alone is not
    judged: step-to-step noise is heavy-tailed (a stall makes one step long now and then), and the
    slow-card rule is the one that holds its false alarms at 1 % with such noise. Other metrics (step time,
    pure communication) flag nobody, so frame nothing."""
    if metric not in HEAT_MAP_METRICS:
        return []
    flags = {f["card"]: f for f in comparison.slow() if f["metric"] == metric}
    if not flags:
        return []
    steps = comparison.step_numbers()
    column = {s: k for k, s in enumerate(steps)}
    grid = np.full((len(comparison.cards), len(steps)), np.nan)
    for r, c in enumerate(comparison.cards):
        for s in c.steps if c.usable else []:
            if s.get(metric) is not None:
                grid[r, column[int(s["step"])]] = float(s[metric])
    with np.errstate(all="ignore"):
        step_median = np.nanmedian(grid, axis=0)
    out = []
    for r, c in enumerate(comparison.cards):
        f = flags.get(c.card)
        if f is None:
            continue
        above = f["threshold"] - f["median"]  # the flag's excess threshold over the cards of a step
        for k in np.flatnonzero(grid[r] - step_median > above).tolist():
            out.append(HeatCell(r, int(steps[k]), float(grid[r, k]), float(step_median[k])))
    return out


# ------------------------------------------------------------------------------------------------ diff
@dataclass(frozen=True)
class CardChange:
    """A matched card's change between two runs beyond the cards' common change: on ``metric`` (the larger
    of its compute and step interval changes, in units of their thresholds), µs per step."""

    index: int  # the pair's position as given
    metric: str
    change_us: float  # new − base of the card's typical value
    common_us: float  # the cards' median change
    z: float | None
    verdict: bool  # the change stands out (§4 machinery)
    score: float  # |change − common| / threshold: the order key


def _typicals(docs: Sequence[dict], metric: str) -> np.ndarray:
    return np.array([typical(list(step_values(d, metric).values())) for d in docs])


def card_changes(base_docs: Sequence[dict], new_docs: Sequence[dict]) -> list[CardChange]:
    """Per matched pair (§5 card documents with their steps), the change of the card's own compute and step
    interval, each beyond the cards' median change: a lockstep job's step time moves alike on every card,
    so the card that regressed shows in its own compute or data wait, not in its step time. A change is a
    verdict when it passes the practical floor (of the base run) and z_N for N = cards × 2 metrics, over
    the larger of the cards' spread of changes and what their step-to-step noise gives."""
    n = len(base_docs)
    if n == 0:
        return []
    step_us = median_step_time(list(base_docs))
    best: list[CardChange | None] = [None] * n
    for metric in SLOW_CARD_METRICS:
        base, new = _typicals(base_docs, metric), _typicals(new_docs, metric)
        change = new - base
        have = np.isfinite(change)
        if not have.any():
            continue
        common = float(np.median(change[have])) if have.sum() >= MIN_CARDS_FOR_SLOW else 0.0
        excess = np.where(have, change - common, np.nan)
        noise = 0.0
        for docs in (base_docs, new_docs):
            v = judge_metric(list(docs), metric, step_us)
            noise += (v.sigma ** 2) if v is not None else 0.0
        practical = _floor(float(np.nanmedian(base)) if np.isfinite(base).any() else 0.0, step_us)
        s_up = stand_out(excess, practical, n * len(SLOW_CARD_METRICS), float(np.sqrt(noise)))
        s_down = stand_out(-excess, practical, n * len(SLOW_CARD_METRICS), float(np.sqrt(noise)))
        threshold = max(practical, s_up.z_required * s_up.sigma, 1e-9)
        for i in np.flatnonzero(have).tolist():
            verdict = bool(s_up.passes[i] or s_down.passes[i])
            z = float(s_up.z[i]) if s_up.sigma > 0 else None
            c = CardChange(i, metric, float(change[i]), common, z, verdict, abs(float(excess[i])) / threshold)
            if best[i] is None or (c.verdict, c.score) > (best[i].verdict, best[i].score):
                best[i] = c
    return [c if c is not None else CardChange(i, "", 0.0, 0.0, None, False, -1.0) for i, c in enumerate(best)]


def change_order(changes: Sequence[CardChange]) -> list[int]:
    """Positions by change: verdicts first, then by score, then by the size of the card's own change, largest
    first; equal ones keep the order given."""
    return sorted(range(len(changes)), key=lambda i: (not changes[i].verdict, -round(changes[i].score, 9),
                                                      -round(abs(changes[i].change_us), 6)))


def change_reason(c: CardChange) -> str:
    """'compute +3.000 ms per step while the cards' median changed +0.010 ms, z 12.0'."""
    name = c.metric.removesuffix("_us").replace("_", " ")
    z = f", z {c.z:.1f}" if c.z is not None else ""
    return (f"{name} {c.change_us / 1000:+.3f} ms per step while the cards' median changed "
            f"{c.common_us / 1000:+.3f} ms{z}")


# ------------------------------------------------------------------------------------------------ every surface
def _slow_card_marks(session: Any) -> list[Mark]:
    from timelineview.analysis.cluster.comparison import slow_text

    return [Mark(SLOW_CARD_SURFACE, f.card, f.value, f.median, slow_text(f.document())) for f in session.slow_cards]


def _memory_marks(session: Any) -> list[Mark]:
    from timelineview.analysis.cluster.comparison import memory_flag_text

    return [Mark(MEMORY_SURFACE, f["card"], float(f["value"]), float(f["median"]), memory_flag_text(f))
            for f in session.memory_imbalance]


def median_span_ns(spans: Sequence[float]) -> float:
    """The cards' median span (ns, 0 without cards): an operator's practical floor is 1 % of it."""
    return float(np.median(spans)) if len(spans) else 0.0


def _operator_marks(session: Any) -> list[Mark]:
    span_ns = median_span_ns([e - b for b, e in (s.span for s in session.sources)])
    return [Mark(OPERATORS_SURFACE, f"{v.name} on {v.card}", v.total_ns / NS_PER_US, v.median_ns / NS_PER_US,
                 operator_reason(v))
            for v in operator_verdicts(session.operators_across_all_cards, span_ns).values()]


def _communication_marks(session: Any) -> list[Mark]:
    waits = session.communication.waits
    out = [Mark(HEADLINE_SURFACE, f.card, f.value, f.median, headline_text([f])) for f in waits.flags]
    for r in np.flatnonzero(waits.waited_for >= 0).tolist():
        c = int(waits.waited_for[r])
        w = waits.wait[r]
        out.append(Mark(WAITED_FOR_SURFACE, f"{waits.name[r]} #{int(waits.occurrence[r]) + 1}: {waits.cards[c]}",
                        float(w[c]) / NS_PER_US, float(np.nanmedian(w)) / NS_PER_US,
                        f"{waits.cards[c]} waited least and the others wait for it"))
    return out


def _heat_map_marks(session: Any) -> list[Mark]:
    comparison = session.comparison
    out = []
    for metric in HEAT_MAP_METRICS:
        for cell in comparison_heat_cells(comparison, metric):
            card = comparison.cards[cell.row].card
            out.append(Mark(HEAT_MAP_SURFACE, f"{metric} of {card} in step {cell.step}", cell.value, cell.reference,
                            f"{metric} {cell.value / 1000:.3f} ms against the cards' median "
                            f"{cell.reference / 1000:.3f} ms in that step, on a card flagged slow on it"))
    return out


def _slow_operator_marks(session: Any) -> list[Mark]:
    from timelineview.analysis.findings.advisor_rules import operator_name, operator_verdicts
    from timelineview.analysis.findings.evaluate import session_signals

    by_type, shapes = operator_verdicts(session_signals(session))
    named = {(v.key, v.card) for v in by_type}
    shown = by_type + [v for v in shapes if (v.key[0], v.card) not in named]
    return [Mark(SLOW_OPERATOR_SURFACE, f"{operator_name(v.key)} on {v.card}", v.us_per_step, v.reference_us_per_step,
                 f"{v.mean_us:.3f} µs per task against {v.median_mean_us * v.card_factor:.3f} µs at the other "
                 f"cards' pace, z {v.z:.1f} (needs {v.z_required:.1f})" if v.z is not None else
                 "the other cards all equal") for v in shown]


def session_marks(session: Any) -> list[Mark]:
    """Every mark the surfaces of ``session`` (an ``AnalysisSession``) show: the slow cards and memory
    flags of the comparison table, the operator comparison's red cells, the communication headline and
    its "Waited for" cells, the heat map's framed cells of every metric that can mark, and the op types (shapes)
    named slow on one card (``slow_operator``)."""
    return (_slow_card_marks(session) + _memory_marks(session) + _operator_marks(session)
            + _communication_marks(session) + _heat_map_marks(session) + _slow_operator_marks(session))


def diff_marks(diff: Any) -> list[Mark]:
    """The cards a ``RunDiff`` lists first because their own compute or step interval changed (verdicts)."""
    if len(diff.changes) != len(diff.cards):  # a diff made without its changes judged
        return []
    return [Mark(DIFF_SURFACE, card.card, c.change_us, c.common_us, change_reason(c))
            for card, c in zip(diff.cards, diff.changes, strict=True) if c.verdict]
