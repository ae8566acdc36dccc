"""Evaluate the rule table over an analysis session: per card, per step and across the cluster.

Every finding carries evidence the viewer can jump to: time spans on the card's own clock, in µs
from its trace start (``TraceStore.t_origin``), with the lane or operator they point at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from timelineview.analysis.cluster.slow_cards import SlowCard
from timelineview.analysis.findings.advisor_rules import ADVISOR_GROUPED_CHECKS, slow_operator_findings
from timelineview.analysis.findings.links import collective_size_findings, slow_link_findings
from timelineview.analysis.findings.records import ALL_CARDS, Evidence, Finding, figure_text, fmt_us, make_finding
from timelineview.analysis.findings.rules import KIND_ORDER, RULE_BY_NAME, SEVERITY_ORDER, Rule
from timelineview.analysis.findings.signals import EVIDENCE_SPANS, CardSignals
from timelineview.analysis.findings.step_excess import largest_phase_excess
from timelineview.analysis.findings.step_verdicts import StepGrid, StepVerdict, slow_steps
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.kernels.slow_card_excess import op_type_excess
from timelineview.analysis.vocabulary.flops_units import flops_text, flops_unit
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
            # a span for each step the advice counts ("above ... in 4 of 4 steps"), not the usual few
            rule = RULE_BY_NAME["slow_data"]
            evidence = step_phase_spans(sig, "interval", max(EVIDENCE_SPANS, flag.steps_above))
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
    """One finding per card whose steps wait for data, when every card does (or there is one card); the
    findings are grouped into one."""
    rule = RULE_BY_NAME["data_bound"]
    share = rule.thresholds["share_of_step"]
    hit = {c: s for c, s in signals.items() if s.step_time_us > 0 and s.step_interval_us >= share * s.step_time_us}
    if not hit or (len(signals) > 1 and len(hit) < len(signals)):
        return []  # on some cards only, it is a slow card's data pipeline (slow_data)
    return [make_finding(rule, [card], "step_interval_us", s.step_interval_us, share * s.step_time_us,
                         step_phase_spans(s, "interval"), value=fmt_us(s.step_interval_us),
                         reference=fmt_us(share * s.step_time_us), share=_pct(s.step_interval_us / s.step_time_us))
            for card, s in hit.items()]


def _long_tail(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """One finding per card with a long tail, when most cards have one and no card is slow; the findings are
    grouped into one."""
    rule = RULE_BY_NAME["long_tail"]
    share = rule.thresholds["share_of_step"]
    if slow:
        return []
    # a card that computes nothing has no backward pass: its steps are all "tail", no gradient aggregation
    hit = {c: s for c, s in signals.items()
           if s.step_time_us > 0 and s.compute_us > 0 and s.tail_us >= share * s.step_time_us}
    if not hit or len(hit) <= rule.thresholds["share_of_cards"] * len(signals):
        return []
    return [make_finding(rule, [card], "tail_us", s.tail_us, share * s.step_time_us, step_phase_spans(s, "tail"),
                         value=fmt_us(s.tail_us), reference=fmt_us(share * s.step_time_us),
                         share=_pct(s.tail_us / s.step_time_us))
            for card, s in hit.items()]


# A grouped finding's advice quotes its worst card: said so, with the least card's figure beside it.
SPREAD_WORDS = " These figures are {worst}'s, the most of the {count} cards; the least is {least}'s: {least_value}."
SAME_WORDS = " Each of the {count} cards shows these figures."
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
    """The stage that computes the longest per step (``compute_us``), against the median of the other stages.

    What a stage itself costs is its compute: it also waits inside its sends (a send ends with its peer's
    receive), at the pipeline's fill and drain, and in the collectives after the last backward while the
    other stages finish, so MindSpore's stage time (|W| − receive-only) grows along the stages of a healthy
    pipeline; step time less pure communication keeps the data wait, whose share moves with every host
    bubble that shifts a step marker. The median, not the fastest: the extremes of many stages drift apart
    by chance, their median does not."""
    rule = RULE_BY_NAME["pipeline_stage_imbalance"]
    staged = sorted((s for s in signals.values() if s.stage_us is not None), key=lambda s: s.order)
    if len(staged) < 2:
        return []
    compute = np.array([s.compute_us for s in staged])
    worst = int(np.argmax(compute))
    reference = float(np.median(np.delete(compute, worst)))
    if reference <= 0 or compute[worst] < (1 + rule.thresholds["excess_over_others"]) * reference:
        return []
    slowest = staged[worst]
    return [make_finding(rule, [slowest.card], "compute_us", float(compute[worst]), reference,
                         step_phase_spans(slowest, "fp_bp", 2) + slowest.top_operator_slices(2),
                         value=fmt_us(float(compute[worst])), reference=fmt_us(reference),
                         stage_time=fmt_us(slowest.stage_us))]


def _flops_imbalance(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """The stage with the most FLOPs per step against the one with the fewest (each card is one stage's
    member; data-parallel replicas of a stage compute the same, so the extremes are the stages')."""
    rule = RULE_BY_NAME["flops_imbalance"]
    staged = sorted((s for s in signals.values() if s.stage_flops), key=lambda s: s.order)
    if len(staged) < 2:
        return []
    most = max(staged, key=lambda s: s.stage_flops)
    fewest = min(staged, key=lambda s: s.stage_flops)
    if most.stage_flops < (1 + rule.thresholds["excess_over_fewest"]) * fewest.stage_flops:
        return []
    unit = flops_unit([most.stage_flops])  # both figures in one unit
    return [make_finding(rule, [most.card], "stage_flops", most.stage_flops, fewest.stage_flops,
                         step_phase_spans(most, "step"), value=flops_text(most.stage_flops, unit),
                         reference=flops_text(fewest.stage_flops, unit), fewest=fewest.card)]


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


def _step_finding(sigs: list[CardSignals], verdict: StepVerdict) -> Finding:
    """The finding of one slow step: for the job (no card list), with the evidence and the phase words of
    the card whose step is the cluster's median; for some cards only, of the worst of them."""
    rule = RULE_BY_NAME["slow_step"]
    if verdict.job:
        lengths = [_step_length(sig, verdict.step) for sig in sigs]
        typical = min((k for k, v in enumerate(lengths) if v is not None),
                      key=lambda k: abs(lengths[k] - verdict.value))
        shown, cards = [sigs[typical]], []
        sure = (f" ({_z_against(verdict.z, verdict.z_required, 'steps')} among {verdict.compared} steps; "
                f"the median over the cards, slow on most of them)")
    else:
        shown = sorted((sigs[k] for k in verdict.cards), key=lambda s: -(_step_length(s, verdict.step) or 0))
        cards = [s.card for s in sorted(shown, key=lambda s: s.order)]
        sure = (f" ({_z_against(verdict.z, verdict.z_required, 'steps')} among {verdict.compared} card steps, "
                f"boundary shifts netted)")
    evidence = [s.evidence(w.start, w.end, STEPS_LANE) for s in shown[:EVIDENCE_SPANS] for w in s.steps
                if w.step == verdict.step]
    first = shown[0]
    row = next(k for k, w in enumerate(first.steps) if w.step == verdict.step)
    # filed under the method step of the phase that holds the excess (a slow all-reduce: the tail),
    # the rule's own method step when the step has no phases
    where = largest_phase_excess(first.steps, row)
    phase_words = "" if where is None else (
        f" Most of the excess is in its {where.phase.words}: {fmt_us(where.value_ns / NS_PER_US)} against "
        f"{fmt_us(where.median_ns / NS_PER_US)} for the median step's.")
    finding = make_finding(rule, cards, "step_time_us", verdict.value / NS_PER_US, verdict.reference / NS_PER_US,
                           evidence, step=verdict.step, card=", ".join(cards) or ALL_CARDS,
                           value=fmt_us(verdict.value / NS_PER_US), reference=fmt_us(verdict.reference / NS_PER_US),
                           how_sure=sure, where=phase_words,
                           peers="the median step" if verdict.job else "the median card in that step")
    return finding if where is None else replace(finding, method=where.phase.method)


def _step_length(sig: CardSignals, step: int) -> int | None:
    return next((w.end - w.start for w in sig.steps if w.step == step), None)


def _slow_steps(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """One finding per slow step (metrics.md §4): a job step names no card, a card-local one its cards."""
    sigs = sorted(signals.values(), key=lambda s: s.order)
    grid = StepGrid.from_cards([{w.step: float(w.end - w.start) for w in sig.steps} for sig in sigs])
    return [_step_finding(sigs, v) for v in slow_steps(grid)]


def grouped(findings: list[Finding], signals: dict[str, CardSignals]) -> list[Finding]:
    """One finding per rule (and step): the cards that meet it (by rank), with the value, reference and
    advice of the card that exceeds it most. A cluster of thousands of cards then reads as one line; when
    several cards meet it, the advice says whose figures it quotes and the least card's, and the evidence
    holds the worst card's spans and one span of each next card (up to ``EVIDENCE_SPANS`` more)."""
    by_rule: dict[tuple[str, int | None], list[Finding]] = {}
    for f in findings:
        by_rule.setdefault((f.rule, f.step), []).append(f)
    out = []
    for same in by_rule.values():
        by_excess = sorted(same, key=lambda f: -f.excess)
        worst = by_excess[0]
        cards = sorted({c for f in same for c in f.cards}, key=lambda c: signals[c].order)
        if len(same) == 1:
            out.append(replace(worst, cards=cards))
            continue
        least = by_excess[-1]
        least_value = figure_text(least.metric, least.value)
        if least_value == figure_text(worst.metric, worst.value):
            advice = worst.advice + SAME_WORDS.format(count=len(same))
        else:
            advice = worst.advice + SPREAD_WORDS.format(worst=", ".join(worst.cards), count=len(same),
                                                        least=", ".join(least.cards), least_value=least_value)
        more = [f.evidence[0] for f in by_excess[1:EVIDENCE_SPANS + 1] if f.evidence]
        out.append(replace(worst, cards=cards, advice=advice, evidence=worst.evidence + more))
    return out


RuleCheck = Callable[[dict[str, CardSignals], list[SlowCard]], list[Finding]]
# Each check evaluates the rules of the table it names; a new rule is a row there and a check here.
# Per-card checks (a finding names one card) and checks whose cards are grouped into one finding.
# ``_slow_steps`` groups its own cards: a job step names none.
PER_CARD_CHECKS: tuple[RuleCheck, ...] = (_slow_card_findings, _pipeline_imbalance, _flops_imbalance,
                                          _slow_steps, slow_operator_findings)
GROUPED_CHECKS: tuple[RuleCheck, ...] = (_data_bound, _long_tail, _pure_communication, _host_bound, _aicpu_heavy,
                                         _device_sync, _small_operators, *ADVISOR_GROUPED_CHECKS)


def order_findings(findings: list[Finding]) -> list[Finding]:
    """Anomalies (a card, a link or a step that stands out) first, then where the time goes; within
    each, by severity, then by the size of the excess (largest first)."""
    return sorted(findings, key=lambda f: (KIND_ORDER[f.kind], SEVERITY_ORDER[f.severity], -f.excess))


def session_signals(session) -> dict[str, CardSignals]:
    """What the rules read of each card of ``session`` (by rank); a card whose source gives none is left out."""
    signals = {}
    for k, i in enumerate(session.order):
        sig = session.sources[i].signals(k)
        if sig is not None:
            signals[sig.card] = sig
    return signals


def evaluate_findings(session) -> list[Finding]:
    """Every finding of the session's cards, ordered by kind (anomalies first), severity, then excess.
    What the rules read of each card comes from its source (``CardSource.signals``): a trace's slices and
    interval sets, or what a summary kept of them; a card whose source gives none is not judged."""
    signals = session_signals(session)
    slow = list(session.slow_cards)
    found = [f for check in PER_CARD_CHECKS for f in check(signals, slow)]
    found += slow_link_findings(session, signals)
    grouped_found = [f for check in GROUPED_CHECKS for f in check(signals, slow)]
    grouped_found += collective_size_findings(signals)
    found += grouped(grouped_found, signals)
    found = [with_op_type_excess_words(f, session) for f in found]
    return order_findings([in_device_words(f, signals) for f in found])


OP_TYPES_NAMED = 3  # the op types a slow card's advice names, largest excess first
EXCESS_WORDS = " Its excess per step is most in {op_types}."


def with_op_type_excess_words(f: Finding, session) -> Finding:
    """A ``slow_compute`` finding whose advice names the op types that carry the card's excess (µs per step
    against the other cards' median, metrics.md §7.1): where to look first. Other findings as they are."""
    if f.rule != "slow_compute" or len(f.cards) != 1:
        return f
    rows = op_type_excess(session.card_documents, f.cards[0], OP_TYPES_NAMED)
    if not rows:
        return f
    named = ", ".join(f"{r['op_type']} ({fmt_us(r['us_per_step'])} against {fmt_us(r['median_us_per_step'])}, "
                      f"+{fmt_us(r['excess_us_per_step'])})"
                      for r in rows)
    return replace(f, advice=f.advice + EXCESS_WORDS.format(op_types=named))


def _derived_lane(lane: str | None) -> bool:
    """Whether an evidence lane is a derived lane's title (a trace lane is "<process>/<lane>", as its producer
    named it: never reworded)."""
    return bool(lane) and "/" not in lane


def in_device_words(finding: Finding, signals: dict[str, CardSignals]) -> Finding:
    """The finding's advice in its cards' device words when they all share a producer other than the
    Ascend ones (a GPU card's compute units are not AI Cores), and each evidence span's derived lane in its
    own card's words (the title its card draws it under: "Idle GPU gaps" on a GPU card)."""
    modes = {signals[c].derived.mode for c in finding.cards if c in signals}
    evidence = [replace(e, lane=reword(e.lane, wording_of(signals[e.card].derived.mode)))
                if _derived_lane(e.lane) and e.card in signals else e for e in finding.evidence]
    if len(modes) != 1:
        return replace(finding, evidence=evidence)
    return replace(finding, advice=reword(finding.advice, wording_of(modes.pop())), evidence=evidence)
