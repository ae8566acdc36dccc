"""Evaluate the rule table over an analysis session: per card, per step and across the cluster.

Every finding carries evidence the viewer can jump to: time spans on the card's own clock, in µs
from its trace start (``TraceStore.t_origin``), with the lane or operator they point at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from timelineview.analysis.cluster.slow_cards import SlowCard
from timelineview.analysis.findings.links import collective_size_findings, slow_link_findings
from timelineview.analysis.findings.records import Evidence, Finding, fmt_us, make_finding
from timelineview.analysis.findings.rules import KIND_ORDER, RULE_BY_NAME, SEVERITY_ORDER, Rule
from timelineview.analysis.findings.signals import EVIDENCE_SPANS, CardSignals
from timelineview.analysis.findings.step_excess import largest_phase_excess
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.worst_of_many import MAD_SCALE, required_z
from timelineview.producers import wording_of
from timelineview.producers.wording import reword

NS_PER_US = 1000.0
STEPS_LANE = "Steps"
PURE_COMMUNICATION_LANE = "Pure communication"
IDLE_GAPS_LANE = "Idle AI Core gaps"


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


# ---------------------------------------------------------------------------------------- evidence
def longest_spans(sig: CardSignals, iv: Intervals, lane: str, n: int = EVIDENCE_SPANS) -> list[Evidence]:
    """The ``n`` longest intervals of a set, longest first."""
    if not len(iv):
        return []
    lengths = iv.ends - iv.starts
    top = np.argsort(-lengths, kind="stable")[:n]
    return [sig.evidence(int(iv.starts[k]), int(iv.ends[k]), lane) for k in top]


def step_phase_spans(sig: CardSignals, phase: str, n: int = EVIDENCE_SPANS) -> list[Evidence]:
    """The ``n`` longest of one phase over the card's steps: ``interval`` [s, fp), ``fp_bp`` [fp, bp),
    ``tail`` [bp, e) or the whole ``step``."""
    bounds = {"interval": ("start", "fp"), "fp_bp": ("fp", "bp"), "tail": ("bp", "end"), "step": ("start", "end")}
    a, b = bounds[phase if sig.has_phases else "step"]  # no phases were measured: the whole window
    spans = sorted(((getattr(s, b) - getattr(s, a), getattr(s, a), getattr(s, b)) for s in sig.steps),
                   key=lambda x: -x[0])
    return [sig.evidence(lo, hi, STEPS_LANE) for length, lo, hi in spans[:n] if length > 0]


# ------------------------------------------------------------------------------------- the rules
def _z_against(z: float | None, z_required: float, peers: str) -> str:
    """'z 7.2 against 3.0 needed', or 'the other <peers> all equal' when their spread is 0 (z is None)."""
    return f"z {z:.1f} against {z_required:.1f} needed" if z is not None else f"the other {peers} all equal"


def how_sure(flag: SlowCard) -> str:
    """The flag's statistics in words: ' (z 7.2 against 3.0 needed for 64 cards; above in 5 of 5 steps)'."""
    return (f" ({_z_against(flag.z, flag.z_required, 'cards')}; above {fmt_us(flag.threshold)} in "
            f"{flag.steps_above} of {flag.steps} steps)")


def _slow_card_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """``slow_data`` for a card flagged on its step interval, ``slow_compute`` on its compute."""
    out = []
    for flag in slow:
        sig = signals.get(flag.card)
        if sig is None:
            continue
        if flag.metric == "step_interval_us":
            rule, evidence = RULE_BY_NAME["slow_data"], step_phase_spans(sig, "interval")
        elif flag.metric == "compute_us":
            rule = RULE_BY_NAME["slow_compute"]
            evidence = step_phase_spans(sig, "fp_bp", 2) + sig.top_operator_slices(2)
        else:
            continue
        out.append(make_finding(rule, [flag.card], flag.metric, flag.value, flag.median, evidence,
                                value=fmt_us(flag.value), reference=fmt_us(flag.median), how_sure=how_sure(flag)))
    return out


def _share_rule(rule: Rule, signals: dict[str, CardSignals], metric: str, of: Callable[[CardSignals], float],
                base: Callable[[CardSignals], float], threshold: float,
                evidence: Callable[[CardSignals], list[Evidence]]) -> list[Finding]:
    """One finding per card whose ``of`` ≥ ``threshold`` × ``base`` (µs values)."""
    out = []
    for card, sig in signals.items():
        value, whole = of(sig), base(sig)
        if whole > 0 and value >= threshold * whole:
            out.append(make_finding(rule, [card], metric, value, threshold * whole, evidence(sig),
                             value=fmt_us(value), reference=fmt_us(threshold * whole), share=_pct(value / whole)))
    return out


def _data_bound(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["data_bound"]
    share = rule.thresholds["share_of_step"]
    hit = {c: s for c, s in signals.items() if s.step_time_us > 0 and s.step_interval_us >= share * s.step_time_us}
    if not hit or (len(signals) > 1 and len(hit) < len(signals)):
        return []  # on some cards only, it is a slow card's data pipeline (slow_data)
    worst = max(hit.values(), key=lambda s: s.step_interval_us / s.step_time_us)
    value, whole = worst.step_interval_us, worst.step_time_us
    return [make_finding(rule, sorted(hit, key=lambda c: signals[c].order), "step_interval_us", value, share * whole,
                  step_phase_spans(worst, "interval"), value=fmt_us(value), reference=fmt_us(share * whole),
                  share=_pct(value / whole))]


def _long_tail(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["long_tail"]
    share = rule.thresholds["share_of_step"]
    if slow:
        return []
    hit = {c: s for c, s in signals.items() if s.step_time_us > 0 and s.tail_us >= share * s.step_time_us}
    if not hit or len(hit) <= rule.thresholds["share_of_cards"] * len(signals):
        return []
    worst = max(hit.values(), key=lambda s: s.tail_us / s.step_time_us)
    return [make_finding(rule, sorted(hit, key=lambda c: signals[c].order), "tail_us", worst.tail_us,
                  share * worst.step_time_us, step_phase_spans(worst, "tail"), value=fmt_us(worst.tail_us),
                  reference=fmt_us(share * worst.step_time_us), share=_pct(worst.tail_us / worst.step_time_us))]


WAITING_FOR_SLOW = (" While {slow} {verb} the others back, much of this is the others waiting in the "
                    "collectives: look at the slow cards first.")


def _pure_communication(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["pure_communication_high"]
    found = _share_rule(rule, signals, "pure_communication_us", lambda s: s.pure_communication_us,
                        lambda s: s.step_time_us, rule.thresholds["share_of_step"],
                        lambda s: longest_spans(s, s.pure_communication_spans(), PURE_COMMUNICATION_LANE))
    slow_cards = list(dict.fromkeys(f.card for f in slow))
    if slow_cards:  # a slow card makes every other card wait: say so, or the advice points the wrong way
        words = WAITING_FOR_SLOW.format(slow=", ".join(slow_cards), verb="holds" if len(slow_cards) == 1 else "hold")
        found = [replace(f, advice=f.advice + words) for f in found]
    return found


def _host_bound(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["host_bound"]
    return _share_rule(rule, signals, "idle_gap_free_us", lambda s: s.idle_gap_free_us, lambda s: s.compute_window_us,
                       rule.thresholds["share_of_fp_bp"],
                       lambda s: longest_spans(s, s.free_gaps_in_fp_bp(), IDLE_GAPS_LANE))


def _aicpu_heavy(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["aicpu_heavy"]
    out = []
    for card, sig in signals.items():
        share, total_us, top = sig.aicpu_share()
        if share >= rule.thresholds["share_of_compute"]:
            out.append(make_finding(rule, [card], "aicpu_share", share, rule.thresholds["share_of_compute"],
                             sig.operator_slices(top, EVIDENCE_SPANS), value=fmt_us(total_us),
                             reference=_pct(rule.thresholds["share_of_compute"]), share=_pct(share),
                             operator=top or "?"))
    return out


def _pipeline_imbalance(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["pipeline_stage_imbalance"]
    staged = {c: s for c, s in signals.items() if s.stage_us is not None}
    if len(staged) < 2:
        return []
    slowest = max(staged.values(), key=lambda s: s.stage_us)
    fastest = min(staged.values(), key=lambda s: s.stage_us)
    if fastest.stage_us <= 0 or slowest.stage_us < (1 + rule.thresholds["excess_over_fastest"]) * fastest.stage_us:
        return []
    return [make_finding(rule, [slowest.card], "stage_us", slowest.stage_us, fastest.stage_us,
                  step_phase_spans(slowest, "step"), value=fmt_us(slowest.stage_us),
                  reference=fmt_us(fastest.stage_us))]


def _device_sync(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["device_sync"]
    out = []
    for card, sig in signals.items():
        calls = sig.sync_calls()
        held_us = calls.total_us
        whole = sig.total_step_time_us
        threshold = rule.thresholds["share_of_step"] * whole
        if calls.count and whole > 0 and held_us >= threshold:
            out.append(make_finding(rule, [card], "sync_us", held_us, threshold, calls.evidence[:EVIDENCE_SPANS],
                             value=fmt_us(held_us), reference=fmt_us(threshold), share=_pct(held_us / whole),
                             count=str(calls.count), names=", ".join(calls.names)))
    return out


def _small_operators(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    rule = RULE_BY_NAME["small_operators"]
    out = []
    for card, sig in signals.items():
        share, gaps = sig.operators_followed_by_gaps(rule.thresholds["gap_over_duration"])
        if share >= rule.thresholds["share_of_operators"]:
            out.append(make_finding(rule, [card], "operators_before_gaps", share, rule.thresholds["share_of_operators"],
                             longest_spans(sig, gaps, IDLE_GAPS_LANE), share=_pct(share),
                             reference=_pct(rule.thresholds["share_of_operators"])))
    return out


@dataclass(frozen=True)
class SlowSteps:
    """The slow steps of one card: their positions (slowest first), the card's median step (ns) and
    each step's robust z-score against the pooled spread (None when the spread is 0)."""

    rows: list[int]
    median_ns: float
    z: list[float | None]
    z_required: float


def slow_steps(spans_per_card: list[np.ndarray], excess_over_median: float, min_steps: int) -> list[SlowSteps]:
    """Per card (``spans_per_card``: its step lengths), its slow steps: ≥ ``excess_over_median`` × its
    median step longer than that median (the practical size) *and* a robust z-score above z_N, N the
    distinct steps judged, about a card's steps in a lockstep job (a rule that picks the worst of
    many, metrics.md §4). The spread is
    1.4826 × the MAD of every card's steps relative to its own median, pooled over the cards (a card
    has a handful of steps: its own MAD is too unsteady to judge by), and z_N is widened for a spread
    measured on that handful of distinct values (:func:`required_z`). Cards with fewer than
    ``min_steps`` steps are not judged."""
    judged = [np.asarray(s, dtype=np.float64) for s in spans_per_card if len(s) >= min_steps]
    medians = [float(np.median(s)) for s in judged]
    relative = [s / m - 1.0 for s, m in zip(judged, medians, strict=True) if m > 0]
    sigma = MAD_SCALE * float(np.median(np.abs(np.concatenate(relative)))) if relative else 0.0
    # In a lockstep job (every collective synchronises the cards) every card has the same step times:
    # there are about as many distinct steps to pick the worst of, and to measure the spread on, as a
    # card has steps, however many cards there are.
    distinct = int(np.median([len(s) for s in judged])) if judged else 0
    z_required = required_z(distinct, distinct)
    out = []
    for spans in spans_per_card:
        spans = np.asarray(spans, dtype=np.float64)
        if len(spans) < min_steps:
            out.append(SlowSteps([], 0.0, [], z_required))
            continue
        median = float(np.median(spans))
        rel = spans / median - 1.0 if median > 0 else np.zeros(len(spans))
        z = rel / sigma if sigma > 0 else None
        slow = (rel >= excess_over_median) & (z > z_required if z is not None else True)
        rows = np.flatnonzero(slow)
        rows = rows[np.argsort(-spans[rows], kind="stable")].tolist()
        out.append(SlowSteps(rows, median, [float(z[k]) if z is not None else None for k in rows], z_required))
    return out


def _slow_steps(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """Per card, its slowest step when that one is past the threshold; the evidence lists up to three."""
    rule = RULE_BY_NAME["slow_step"]
    sigs = list(signals.values())
    spans = [np.array([s.end - s.start for s in sig.steps], dtype=np.int64) for sig in sigs]
    judged = slow_steps(spans, rule.thresholds["excess_over_median"], int(rule.thresholds["min_steps"]))
    out = []
    for sig, card_spans, found in zip(sigs, spans, judged, strict=True):
        if not found.rows:
            continue
        first = found.rows[0]
        worst = sig.steps[first]
        evidence = [sig.evidence(sig.steps[k].start, sig.steps[k].end, STEPS_LANE)
                    for k in found.rows[:EVIDENCE_SPANS]]
        sure = (f" ({_z_against(found.z[0], found.z_required, 'steps')}; "
                f"{len(found.rows)} slow step{'s' if len(found.rows) != 1 else ''} on this card)")
        # filed under the method step of the phase that holds the excess (a slow all-reduce: the tail),
        # the rule's own method step when the step has no phases
        where = largest_phase_excess(sig.steps, first)
        phase_words = "" if where is None else (
            f" Most of the excess is in its {where.phase.words}: {fmt_us(where.value_ns / NS_PER_US)} against "
            f"{fmt_us(where.median_ns / NS_PER_US)} for the median step's.")
        finding = make_finding(rule, [sig.card], "step_time_us", card_spans[first] / NS_PER_US,
                               found.median_ns / NS_PER_US, evidence, step=worst.step,
                               value=fmt_us(card_spans[first] / NS_PER_US),
                               reference=fmt_us(found.median_ns / NS_PER_US), how_sure=sure, where=phase_words)
        out.append(finding if where is None else replace(finding, method=where.phase.method))
    return out


def grouped(findings: list[Finding], signals: dict[str, CardSignals]) -> list[Finding]:
    """One finding per rule (and step): the cards that meet it (by rank), with the value, reference,
    evidence and advice of the card that exceeds it most. A cluster of thousands of cards then reads
    as one line."""
    by_rule: dict[tuple[str, int | None], list[Finding]] = {}
    for f in findings:
        by_rule.setdefault((f.rule, f.step), []).append(f)
    out = []
    for same in by_rule.values():
        worst = max(same, key=lambda f: f.excess)
        cards = sorted({c for f in same for c in f.cards}, key=lambda c: signals[c].order)
        out.append(replace(worst, cards=cards))
    return out


RuleCheck = Callable[[dict[str, CardSignals], list[SlowCard]], list[Finding]]
# Each check evaluates the rules of the table it names; a new rule is a row there and a check here.
# Per-card checks (a finding names one card) and checks whose cards are grouped into one finding.
PER_CARD_CHECKS: tuple[RuleCheck, ...] = (_slow_card_findings, _data_bound, _pipeline_imbalance, _long_tail)
GROUPED_CHECKS: tuple[RuleCheck, ...] = (_pure_communication, _host_bound, _aicpu_heavy, _device_sync,
                                         _small_operators, _slow_steps)


def order_findings(findings: list[Finding]) -> list[Finding]:
    """Anomalies (a card, a link or a step that stands out) first, then where the time goes; within
    each, by severity, then by the size of the excess (largest first)."""
    return sorted(findings, key=lambda f: (KIND_ORDER[f.kind], SEVERITY_ORDER[f.severity], -f.excess))


def evaluate_findings(session) -> list[Finding]:
    """Every finding of the session's cards, ordered by kind (anomalies first), severity, then excess.
    What the rules read of each card comes from its source (``CardSource.signals``): a trace's slices and
    interval sets, or what a summary kept of them; a card whose source gives none is not judged."""
    signals = {}
    for k, i in enumerate(session.order):
        sig = session.sources[i].signals(k)
        if sig is not None:
            signals[sig.card] = sig
    slow = list(session.slow_cards)
    found = [f for check in PER_CARD_CHECKS for f in check(signals, slow)]
    found += slow_link_findings(session, signals)
    grouped_found = [f for check in GROUPED_CHECKS for f in check(signals, slow)]
    grouped_found += collective_size_findings(signals)
    found += grouped(grouped_found, signals)
    return order_findings([in_device_words(f, signals) for f in found])


def in_device_words(finding: Finding, signals: dict[str, CardSignals]) -> Finding:
    """The finding's advice in its cards' device words when they all share a producer other than the
    Ascend ones (a GPU card's compute units are not AI Cores)."""
    modes = {getattr(signals[c].derived.classification, "mode", "") for c in finding.cards if c in signals}
    if len(modes) != 1:
        return finding
    return replace(finding, advice=reword(finding.advice, wording_of(modes.pop())))
